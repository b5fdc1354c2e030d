"""The `vlm` judge's prompt on image_relevance (TaskTypeSpec.judge_prompt): how relevant the image is to a text section.

docs/design.md §1.2. The text beside the image has three parts, each a judge option the user can replace: (1) the
topic's
context fields, (2) the relevance instruction, (3) the output instruction, which asks for one line
"Relevance: <integer>" with an integer from 1 to 100. The texts are ours. The reply's last such line is the score;
anything else is a failed verdict with the text kept, never a guess. Each field is cut to the family's
field_max_chars.
"""

import re
from typing import ClassVar

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, Option
from judges.families.vlm import NAME, VisionPrompt, image_messages
from judges.llm.backend import Message
from judges.templates import PromptBound, template_fill, template_names

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

# "Relevance: 73", tolerating case, spacing and markdown emphasis; the value is checked apart.
_RELEVANCE = re.compile(r"\brelevance\s*:\s*(\S*)", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`]+")
_INTEGER = re.compile(r"[0-9]+")
_ASKS_FOR_RELEVANCE = re.compile(r"\brelevance\s*:", re.IGNORECASE)


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
    return image_messages(prompt_text(topic_data, config), image_url)


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


class SectionRelevance(VisionPrompt):
    """How relevant the image is to the topic's text section, from 1 to 100."""

    options: ClassVar[dict[str, Option]] = {
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
    }

    def check(self, config: dict) -> None:
        prompt_config_check(config)

    def bounds(self, config: dict) -> list[PromptBound]:
        return [prompt_bound(config)]

    def unjudgeable(self, item: ItemInput, config: dict) -> str:
        if not any(_field(item.topic_data, f) for f in prompt_fields(config)):
            return "the topic has none of the text fields the prompt shows"
        return ""

    def text(self, item: ItemInput, config: dict) -> str:
        return prompt_text(item.topic_data, config)

    def read(self, text: str) -> tuple[float | None, str]:
        return relevance_parse(text)
