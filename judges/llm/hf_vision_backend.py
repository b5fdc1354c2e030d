"""The transformers backend for image-text-to-text models (LLaVA and the like), used by the `vlm` family.

Requests carry the messages the openai backend sends too: user content is a list of OpenAI-style parts,
{"type": "text", "text": ...} and {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}.
Here each image part becomes the image placeholder of the processor's chat template, and the decoded
image goes to the processor beside the text, which expands the placeholder into the model's image tokens.
Only data: URLs are read: judges never download (docs/design.md §2).

Everything else is HfBackend's: batches of prompts of similar length, greedy, beam or sampled decoding,
the context check (image tokens included) and the token counts.
"""

import base64
import binascii
import io
from dataclasses import dataclass
from typing import Any

from judges.errors import JudgeConfigError
from judges.families.hf import model_cached, torch_device
from judges.llm.backend import Decoding, Generation, Message, OnSample, Request, TokenCount
from judges.llm.hf_backend import HfBackend, _Model, eos_ids_prepare

FAMILY = "vlm"
DATA_URL_PREFIX = "data:image/"


class ImagePartError(Exception):
    """An image part this backend cannot read; the message says why."""


@dataclass(frozen=True)
class _VisionModel(_Model):
    processor: Any = None


def _load(model: str, device: str) -> _VisionModel:
    from transformers import AutoModelForImageTextToText, AutoProcessor

    try:
        processor = AutoProcessor.from_pretrained(model, local_files_only=True)
        network = AutoModelForImageTextToText.from_pretrained(model, local_files_only=True).to(device).eval()
    except ImportError as exc:
        raise JudgeConfigError(f"{FAMILY}: loading {model!r} needs a package this worker lacks: {exc}") from exc
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is None or getattr(processor, "image_processor", None) is None:
        raise JudgeConfigError(f"{FAMILY}: {model!r} has no processor with a tokenizer and an image processor; "
                               "name an image-text-to-text model (e.g. llava-hf/llava-1.5-7b-hf)")
    if not getattr(processor, "chat_template", None):
        raise JudgeConfigError(f"{FAMILY}: the processor of {model!r} has no chat template, so there is no telling "
                               "where its images go in the prompt; save one with the processor")
    tokenizer.padding_side = "left"  # batched generation continues every row from its last real token
    eos_ids = eos_ids_prepare(FAMILY, model, tokenizer, network)
    context = getattr(network.config.get_text_config(), "max_position_embeddings", None)
    return _VisionModel(tokenizer=tokenizer, network=network, seq2seq=False, chat=True, eos_ids=eos_ids,
                        context=context, processor=processor)


def model_load(config: dict) -> _VisionModel:
    """The judge's model and processor, loaded once per process for each (model, device)."""
    device = torch_device(FAMILY, config.get("device", "cpu"))
    return model_cached(FAMILY, config["model"], device, _load)


def image_decode(url: str):
    """The RGB image in a data: URL (base64), or ImagePartError."""
    from PIL import Image, UnidentifiedImageError

    if not url.startswith(DATA_URL_PREFIX):
        raise ImagePartError(f"the transformers backend reads images from data: URLs only, not {url[:40]!r}")
    header, _, payload = url.partition(",")
    if not header.endswith(";base64"):
        raise ImagePartError("an image data: URL must be base64-encoded")
    try:
        image = Image.open(io.BytesIO(base64.b64decode(payload, validate=True)))
        return image.convert("RGB")
    except (binascii.Error, ValueError, OSError, UnidentifiedImageError) as exc:
        raise ImagePartError(f"unreadable image in the prompt: {exc}") from exc


class HfVisionBackend(HfBackend):
    """Backend (judges.llm.backend) over a transformers image-text-to-text model and its processor. CONFIG
    is the vlm judge's validated config (model, device, batch_size); COUNTER, when given, receives the
    prompt tokens (image tokens included) and completion tokens of every sample."""

    family = FAMILY

    def __init__(self, config: dict, counter: TokenCount | None = None) -> None:
        self.batch_size = int(config.get("batch_size", 4))
        self.counter = counter
        self.model = model_load(config)
        self._images: dict[int, list] = {}  # request key -> its decoded images, during one generate()

    def generate(self, requests: list[Request], decoding: Decoding, on_sample: OnSample) -> None:
        """HfBackend.generate, after decoding every request's images once; a request whose image cannot be
        read gets that error on each of its samples, and the others go on."""
        readable = []
        for request in requests:
            try:
                self._images[request.key] = [image_decode(url) for url in _image_urls(request.messages)]
            except ImagePartError as exc:
                for index in request.sample_indices:
                    self._deliver(on_sample, request.key, index, Generation(text="", error=str(exc)))
                continue
            readable.append(request)
        try:
            super().generate(readable, decoding, on_sample)
        finally:
            self._images = {}

    def prompt(self, request: Request) -> str:
        """The text the model reads for REQUEST: the processor's chat template over the messages, each image
        part replaced by the template's image placeholder."""
        image_token = getattr(self.model.processor, "image_token", None)

        def text(value: str) -> str:
            # Text that spells the image token would ask for an image nobody gave (the processor counts them).
            return value.replace(image_token, " ") if image_token else value

        messages = []
        for message in request.messages:
            content = message["content"]
            parts = [{"type": "text", "text": text(content)}] if isinstance(content, str) else [
                {"type": "image"} if part.get("type") == "image_url" else {"type": "text", "text": text(part["text"])}
                for part in content
            ]
            messages.append({"role": message["role"], "content": parts})
        try:
            return self.model.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except Exception as exc:  # noqa: BLE001 - jinja raises its own errors for templates that refuse a role
            raise JudgeConfigError(f"{FAMILY}: the model's chat template refused the prompt: {exc}") from exc

    def prompt_length(self, request: Request, text: str) -> int:
        return len(self._processed([text], self._images[request.key], tensors=False)["input_ids"][0])

    def encode(self, rows: list[Request], texts: list[str]) -> dict:
        encoded = self._processed(texts, [image for row in rows for image in self._images[row.key]], tensors=True)
        dtype = self.model.network.dtype
        # Pixel values in the model's precision (a float16 checkpoint on a GPU).
        return {name: value.to(dtype) if value.is_floating_point() else value for name, value in encoded.items()}

    def _processed(self, texts: list[str], images: list, *, tensors: bool) -> dict:
        # The chat template wrote the special tokens already.
        return dict(self.model.processor(text=texts, images=images or None, padding=True, add_special_tokens=False,
                                         return_tensors="pt" if tensors else None))


def _image_urls(messages: list[Message]) -> list[str]:
    """The URLs of the image parts of MESSAGES, in order."""
    urls = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            continue
        for part in content:
            if part.get("type") == "image_url":
                url = part.get("image_url", {}).get("url") if isinstance(part.get("image_url"), dict) else None
                if not isinstance(url, str):
                    raise ImagePartError("an image_url part has no url")
                urls.append(url)
    return urls
