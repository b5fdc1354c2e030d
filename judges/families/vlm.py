"""The `vlm` judge: a vision-language model reads an item's image and a text, and its reply is read as a score.

docs/design.md §1.2. The prompt is one user turn: the item's image, then the text its task type's prompt writes
(TaskTypeSpec.judge_prompt, a VisionPrompt: image_relevance's asks how relevant the image is to a text section,
tasktypes.image_relevance.vlm_prompt), which also reads the reply: a score, or a failed verdict with the text kept,
never a guess. Labels stay empty: the report maps each judge's scores to grades over the campaign.

Generation reuses the llm family's backends: transformers image-text-to-text models
(judges.llm.hf_vision_backend, LLaVA and the like) or any OpenAI-compatible server that reads images
(judges.llm.http_backend; the image travels as a data: URL part). The one sample per item is cached in the
run's SampleStore as the llm family's are: a rerun, or a redelivered batch, asks only for what is missing.
"""

import base64
import io
import json
from pathlib import Path
from typing import ClassVar

from annotate.images import ImageMissingError, image_file
from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, JudgePrompt, Option, Verdict
from judges.families.hf import check_model_config
from judges.families.llm import BACKENDS, RETIRED_HTTP_OPTIONS, LLMJudge, decoding_check, http_check
from judges.llm.backend import (
    Backend,
    Connection,
    Generation,
    MemorySampleStore,
    Message,
    Request,
    SampleStore,
    TokenCount,
    generate_in_parts,
)
from judges.templates import PromptBound, PromptTooLarge

NAME = "vlm"
# The options every family on the openai backend offers, as the llm family defines them.
HTTP_OPTIONS = ("endpoint", "base_url", "concurrency", "timeout", "max_retries")
# Formats every vision endpoint reads; anything else is re-encoded as PNG.
_SENT_AS_STORED = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


class ImageUnreadableError(Exception):
    """The item's image file exists but cannot be decoded; the message says why."""


class VisionPrompt(JudgePrompt):
    """A task type's prompt for the vlm family: the text beside an item's image, and how a reply is read."""

    def unjudgeable(self, item: ItemInput, config: dict) -> str:
        """Why ITEM cannot be put to the model (its verdict fails without asking), or ""."""
        return ""

    def text(self, item: ItemInput, config: dict) -> str:
        """The text beside ITEM's image (judges.templates.PromptTooLarge over the budget)."""
        raise NotImplementedError

    def read(self, text: str) -> tuple[float | None, str]:
        """(the score, "") the reply TEXT gives; else (None, why)."""
        raise NotImplementedError


class VLMJudge(JudgeFamily):
    name = NAME
    description = "A vision-language model grades how relevant the image is to the text section, from 1 to 100."
    # The task layer passes a database-backed SampleStore to judge_batch (judges.samples.DbSampleStore).
    uses_samples: ClassVar[bool] = True
    uses_endpoint: ClassVar[bool] = True
    # The text beside the image and the reading of the reply are the task type's (VisionPrompt), passed as `prompt=`.
    uses_prompt: ClassVar[bool] = True
    retired_options = RETIRED_HTTP_OPTIONS
    options = {
        "backend": Option((str,), "transformers", "transformers (a local image-text-to-text model) or openai (an "
                                                  "OpenAI-compatible server that accepts images)."),
        "model": Option((str,), "llava-hf/llava-1.5-7b-hf",
                        "transformers: an image-text-to-text model in the local cache or a local folder, whose "
                        "processor has a chat template; openai: the model the server serves."),
        "device": LLMJudge.options["device"],
        "batch_size": Option((int,), 4, "transformers: prompts, each with its image, per generate() call."),
        "field_max_chars": Option((int,), 2000, "Each text field is cut to this many characters, at a word "
                                                "boundary and marked with …; from 1 to 100,000 (JUDGE_LIMITS "
                                                "field_max_chars)."),
        "image_max_side": Option((int,), 1024, "Images whose longer side exceeds this many pixels are scaled down "
                                               "(and sent as PNG); 0: sent as stored."),
        "decoding": Option((str,), "greedy", "greedy (one deterministic grade), sample, or beam (transformers only: "
                                             "the best of num_beams beams)."),
        "temperature": LLMJudge.options["temperature"],
        "top_k": LLMJudge.options["top_k"],
        "top_p": LLMJudge.options["top_p"],
        "num_beams": Option((int,), 4, "Beams for decoding beam."),
        "max_new_tokens": Option((int,), 32, "Most tokens generated; the grade line itself takes about six."),
        "seed": Option((int,), 0, "The seed of sampling."),
        **{key: LLMJudge.options[key] for key in HTTP_OPTIONS},
    }

    def prompt_bounds(self, config: dict, options: dict[str, Option], prompt=None) -> list[PromptBound]:
        """None of its own: the text beside the image is the task type's, whose bounds (JudgePrompt.bounds) count it."""
        return []

    def check_config(self, config: dict) -> None:
        name = self.name
        if config["backend"] not in BACKENDS:
            raise JudgeConfigError(f"{name}: backend must be transformers or openai, not {config['backend']!r}")
        check_model_config(name, config, local=config["backend"] == "transformers")
        if config["num_beams"] < 1:
            raise JudgeConfigError(f"{name}: num_beams must be at least 1, not {config['num_beams']}")
        decoding_check(name, config, n=1)
        http_check(name, config)
        if config["field_max_chars"] < 1:
            # 0 once meant "no limit": every prompt now has one (judges.templates.PromptBound).
            raise JudgeConfigError(f"{name}: field_max_chars must be at least 1 character (there is no unlimited), "
                                   f"not {config['field_max_chars']}")
        if config["image_max_side"] < 0:
            raise JudgeConfigError(f"{name}: image_max_side must be 0 (as stored) or more pixels, not "
                                   f"{config['image_max_side']}")

    @staticmethod
    def backend(config: dict, counter: TokenCount | None = None, connection: Connection | None = None) -> Backend:
        """The backend the config names; its model is loaded (once per process) here. CONNECTION: where the
        openai backend sends its requests (judges.endpoints resolves it)."""
        if config["backend"] == "openai":
            from judges.llm.http_backend import HttpBackend

            return HttpBackend(config, counter, connection=connection, family=NAME)
        from judges.llm.hf_vision_backend import HfVisionBackend

        return HfVisionBackend(config, counter)

    def judge_batch(self, items: list[ItemInput], config: dict, samples: SampleStore | None = None,
                    connection: Connection | None = None, prompt: VisionPrompt | None = None) -> list[Verdict]:
        """One verdict per item. A stored sample is reused; the others are generated and stored as they
        arrive. An item whose image is missing or unreadable, or whose generation failed, fails alone.
        CONNECTION: the openai backend's resolved endpoint (judges.llm.backend.Connection); PROMPT: the task type's,
        which writes the text beside each image and reads the replies."""
        if prompt is None:
            raise JudgeConfigError(f"{self.name}: the campaign's task type gives this family no prompt")
        store = samples if samples is not None else MemorySampleStore()
        have = store.samples_get([item.item_id for item in items])
        texts = {key: stored[0].text for key, stored in have.items() if 0 in stored}
        errors: dict[int, str] = {}

        def requests():
            # Built as the backend's parts ask for them (judges.llm.backend.generate_in_parts).
            for item in items:
                if item.item_id in texts:
                    continue
                unjudgeable = prompt.unjudgeable(item, config)
                if unjudgeable:
                    errors[item.item_id] = unjudgeable
                    continue
                try:
                    text = prompt.text(item, config)
                    url = image_data_url(image_file(item.data), max_side=config["image_max_side"])
                except (ImageMissingError, ImageUnreadableError, PromptTooLarge) as exc:
                    errors[item.item_id] = str(exc)
                    continue
                yield Request(key=item.item_id, messages=image_messages(text, url), sample_indices=(0,))

        def on_sample(key: int, index: int, generation: Generation) -> None:
            if generation.error:
                errors[key] = generation.error
                return
            store.sample_put(key, index, generation)
            texts[key] = generation.text

        generate_in_parts(lambda: self.backend(config, connection=connection), requests(),
                          LLMJudge.decoding(config), on_sample)
        return [_verdict(texts.get(item.item_id), errors.get(item.item_id), prompt) for item in items]


def _verdict(text: str | None, error: str | None, prompt: VisionPrompt) -> Verdict:
    if text is None:
        return _failure(error or "the backend returned nothing for this item", "")
    score, reason = prompt.read(text)
    if score is None:
        return _failure(reason, text)
    return Verdict(score=float(score), label="", raw=text)


def _failure(reason: str, text: str) -> Verdict:
    """A failed verdict whose raw output keeps both why and what the model wrote."""
    return Verdict.failure(json.dumps({"reason": reason, "text": text}))


def image_messages(text: str, image_url: str) -> list[Message]:
    """One user turn: the image, then TEXT."""
    return [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": image_url}},
        {"type": "text", "text": text},
    ]}]


def image_data_url(path: Path, *, max_side: int) -> str:
    """The image at PATH as a data: URL: its bytes as stored when an endpoint reads the format and it is no
    larger than MAX_SIDE (0: any size), else scaled down to fit and encoded as PNG."""
    from PIL import Image, UnidentifiedImageError

    try:
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            mime = _SENT_AS_STORED.get(image.format or "")
            if mime is None or (max_side and max(image.size) > max_side):
                data, mime = _png(image, max_side), "image/png"
    # Pillow reports some damaged files as SyntaxError or ValueError (a broken PNG chunk, a bad header).
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError, Image.DecompressionBombError) as exc:
        raise ImageUnreadableError(f"the image file {path.name!r} cannot be read: {exc}") from exc
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _png(image, max_side: int) -> bytes:
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        # Transparent areas on white: dropping the alpha channel would leave whatever colour they hold.
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, "white")
        image.paste(rgba, mask=rgba.getchannel("A"))
    else:
        image = image.convert("RGB")
    if max_side and max(image.size) > max_side:
        image.thumbnail((max_side, max_side))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
