"""The `vlm` judge for image_relevance: a vision-language model grades how relevant an image is to a text section.

DESIGN.md §1.2. The prompt is one user turn: the item's image, then a text of three parts, each a judge
option the user can replace: (1) the topic's context fields, (2) the relevance instruction, (3) the output
instruction, which asks for one line "Relevance: <integer>" with an integer from 1 to 100. The texts are
ours. The reply's last such line is the score; anything else is a failed verdict with the text kept, never
a guess. Labels stay empty: the report maps each judge's scores to grades 0/1/2 over the campaign.

Generation reuses the llm family's backends: transformers image-text-to-text models
(judges.llm.hf_vision_backend, LLaVA and the like) or any OpenAI-compatible server that reads images
(judges.llm.http_backend; the image travels as a data: URL part). The one sample per item is cached in the
run's SampleStore as the llm family's are: a rerun, or a redelivered batch, asks only for what is missing.
"""

import base64
import io
import json
import re
from pathlib import Path
from typing import ClassVar

from annotate.images import ImageMissingError, image_file
from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
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
from judges.templates import PromptBound, PromptTooLarge, template_fill, template_names

NAME = "vlm"
CONTEXT_FIELDS = ("page_title", "page_context", "section_title", "section_context")

# Part 1: the text section the image is proposed for. A line whose placeholders are all empty is left out.
CONTEXT_TEMPLATE = (
    "Page title: {page_title}\n"
    "About the page: {page_context}\n"
    "Section title: {section_title}\n"
    "Section text: {section_context}"
)
# Part 2: what to judge.
RELEVANCE_INSTRUCTION = (
    "The lines above describe one section of an encyclopedia page, and the image was proposed to illustrate that "
    "section. Rate how well the image fits it. Compare what the image shows with what the section is about: an "
    "image of the section's own subject, one a reader would expect to see beside this section, fits well; an image "
    "tied only to the page in general, or to a related but different subject, fits in part; an image that has "
    "nothing to do with the section does not fit. Judge what the image shows, not how good a picture it is."
)
# Part 3: how to answer. relevance_parse reads the line it asks for.
OUTPUT_INSTRUCTION = (
    "Give your rating as a whole number from 1 (unrelated to the section) to 100 (the ideal illustration of it). "
    "Reply with one line in exactly this form and nothing else:\nRelevance: <integer>"
)
SCORE_MIN, SCORE_MAX = 1, 100

# The options every family on the openai backend offers, as the llm family defines them.
HTTP_OPTIONS = ("endpoint", "base_url", "concurrency", "timeout", "max_retries")
# Formats every vision endpoint reads; anything else is re-encoded as PNG.
_SENT_AS_STORED = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
# "Relevance: 73", tolerating case, spacing and markdown emphasis; the value is checked apart.
_RELEVANCE = re.compile(r"\brelevance\s*:\s*(\S*)", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`]+")
_INTEGER = re.compile(r"[0-9]+")
_ASKS_FOR_RELEVANCE = re.compile(r"\brelevance\s*:", re.IGNORECASE)


class ImageUnreadableError(Exception):
    """The item's image file exists but cannot be decoded; the message says why."""


class VLMJudge(JudgeFamily):
    name = NAME
    description = "A vision-language model grades how relevant the image is to the text section, from 1 to 100."
    # The task layer passes a database-backed SampleStore to judge_batch (judges.samples.DbSampleStore).
    uses_samples: ClassVar[bool] = True
    uses_endpoint: ClassVar[bool] = True
    retired_options = RETIRED_HTTP_OPTIONS
    options = {
        "backend": Option((str,), "transformers", "transformers (a local image-text-to-text model) or openai (an "
                                                  "OpenAI-compatible server that accepts images)."),
        "model": Option((str,), "llava-hf/llava-1.5-7b-hf",
                        "transformers: an image-text-to-text model in the local cache or a local folder, whose "
                        "processor has a chat template; openai: the model the server serves."),
        "device": LLMJudge.options["device"],
        "batch_size": Option((int,), 4, "transformers: prompts, each with its image, per generate() call."),
        "context_template": Option((str,), CONTEXT_TEMPLATE,
                                   "Prompt part 1, the text section: {page_title}, {page_context}, {section_title}, "
                                   "{section_context}; a line whose placeholders are all empty is left out.",
                                   placeholders=CONTEXT_FIELDS),
        "relevance_instruction": Option((str,), RELEVANCE_INSTRUCTION,
                                        "Prompt part 2, what to judge; may use the same placeholders.",
                                        placeholders=CONTEXT_FIELDS),
        "output_instruction": Option((str,), OUTPUT_INSTRUCTION,
                                     "Prompt part 3, how to answer: it must ask for one line 'Relevance: <integer>' "
                                     "with an integer from 1 to 100, the line the grade is read from.",
                                     placeholders=CONTEXT_FIELDS),
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
        return [prompt_bound(config)]

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
        prompt_config_check(config)

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
                    connection: Connection | None = None) -> list[Verdict]:
        """One verdict per item. A stored sample is reused; the others are generated and stored as they
        arrive. An item whose image is missing or unreadable, or whose generation failed, fails alone.
        CONNECTION: the openai backend's resolved endpoint (judges.llm.backend.Connection)."""
        store = samples if samples is not None else MemorySampleStore()
        have = store.samples_get([item.item_id for item in items])
        texts = {key: stored[0].text for key, stored in have.items() if 0 in stored}
        errors: dict[int, str] = {}

        def requests():
            # Built as the backend's parts ask for them (judges.llm.backend.generate_in_parts).
            for item in items:
                if item.item_id in texts:
                    continue
                if not any(_field(item.topic_data, f) for f in prompt_fields(config)):
                    errors[item.item_id] = "the topic has none of the text fields the prompt shows"
                    continue
                try:
                    text = prompt_text(item.topic_data, config)
                    url = image_data_url(image_file(item.data), max_side=config["image_max_side"])
                except (ImageMissingError, ImageUnreadableError, PromptTooLarge) as exc:
                    errors[item.item_id] = str(exc)
                    continue
                yield Request(key=item.item_id, messages=_messages(text, url), sample_indices=(0,))

        def on_sample(key: int, index: int, generation: Generation) -> None:
            if generation.error:
                errors[key] = generation.error
                return
            store.sample_put(key, index, generation)
            texts[key] = generation.text

        generate_in_parts(lambda: self.backend(config, connection=connection), requests(),
                          LLMJudge.decoding(config), on_sample)
        return [_verdict(texts.get(item.item_id), errors.get(item.item_id)) for item in items]


def _verdict(text: str | None, error: str | None) -> Verdict:
    if text is None:
        return _failure(error or "the backend returned nothing for this item", "")
    score, reason = relevance_parse(text)
    if score is None:
        return _failure(reason, text)
    return Verdict(score=float(score), label="", raw=text)


def _failure(reason: str, text: str) -> Verdict:
    """A failed verdict whose raw output keeps both why and what the model wrote."""
    return Verdict.failure(json.dumps({"reason": reason, "text": text}))


def relevance_parse(text: str) -> tuple[int | None, str]:
    """(the grade, "") from the last "Relevance: N" in TEXT, N an integer from 1 to 100; else (None, why).

    Case, spaces around the colon and markdown emphasis are tolerated; a value such as "73.5", "7/10",
    "high" or 140 is not read as anything.
    """
    if not text.strip():
        return None, "the model returned an empty text"
    value = None
    for line in text.splitlines():
        for match in _RELEVANCE.finditer(_MARKUP.sub("", line)):
            value = match.group(1)
    if value is None:
        return None, "no 'Relevance: <integer>' line in the model's output"
    number = value.rstrip(".")
    if not _INTEGER.fullmatch(number):
        return None, f"the last relevance line gives {value!r}, not an integer from {SCORE_MIN} to {SCORE_MAX}"
    score = int(number)
    if not SCORE_MIN <= score <= SCORE_MAX:
        return None, f"relevance {score} is outside {SCORE_MIN} to {SCORE_MAX}"
    return score, ""


# --- the prompt ---

PARTS = ("context_template", "relevance_instruction", "output_instruction")


def prompt_config_check(config: dict) -> None:
    """The three prompt parts are not empty; the context shows at least one context field; the output instruction
    asks for the "Relevance:" line the grade is read from. (That they use only the context fields, as plain
    placeholders, judges.templates checks for every family before this runs.)"""
    for part in PARTS:
        if not config[part].strip():
            raise JudgeConfigError(f"{NAME}: {part} must not be empty")
    if not template_names(config["context_template"]):
        allowed = ", ".join("{" + f + "}" for f in CONTEXT_FIELDS)
        raise JudgeConfigError(f"{NAME}: context_template shows no text field; use one or more of {allowed}")
    if not _ASKS_FOR_RELEVANCE.search(config["output_instruction"]):
        raise JudgeConfigError(f"{NAME}: output_instruction must ask for the answer as 'Relevance: <integer>' "
                               f"({SCORE_MIN} to {SCORE_MAX}): the grade is read from that line")


def prompt_fields(config: dict) -> set[str]:
    """The context fields the prompt shows."""
    return set().union(*(template_names(config[part]) for part in PARTS))


def prompt_text(topic_data: dict, config: dict) -> str:
    """The text beside the image: the context part, the relevance instruction, the output instruction."""
    values = {f: _cut(_field(topic_data, f), config["field_max_chars"]) for f in CONTEXT_FIELDS}
    lines = []
    for line in config["context_template"].split("\n"):
        used = template_names(line)
        if used and not any(values[f] for f in used):
            continue  # "Page context: " with nothing after it tells the model nothing
        lines.append(template_fill(line, **values))
    parts = ["\n".join(lines).strip()] + [template_fill(config[part], **values).strip() for part in PARTS[1:]]
    return "\n\n".join(part for part in parts if part)


def messages_build(topic_data: dict, image_url: str, config: dict) -> list[Message]:
    """One user turn: the image, then the three parts of the prompt."""
    return _messages(prompt_text(topic_data, config), image_url)


def _messages(text: str, image_url: str) -> list[Message]:
    return [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": image_url}},
        {"type": "text", "text": text},
    ]}]


def prompt_bound(config: dict) -> PromptBound:
    """The worst case of the text beside the image: the three parts, each field at field_max_chars."""
    bound = PromptBound(NAME, "the prompt")
    for part in PARTS:
        bound.template(part, config[part], fields={f: config["field_max_chars"] for f in CONTEXT_FIELDS})
    return bound


def _field(topic_data: dict, name: str) -> str:
    value = (topic_data or {}).get(name)
    return " ".join(value.split()) if isinstance(value, str) else ""


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip() + "…"


# --- the image ---


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
