"""The autoais judge's prompt on ais (TaskTypeSpec.judge_prompt): does the evidence passage entail the answer?

Premise = the item's passage (`Item.data["passage"]`), after its headings ("<section>. <passage>") where the passage
came with them (`Item.data["section"]`: the Attributed QA corpus writes "« title » « section » text", the importer
keeps the section) and option `headings` is on; hypothesis = `template` filled with the question (the topic's text)
and the answer (the item's text). By default both are built as the Attributed QA study's released AutoAIS code builds
them: "The answer to the question '<q>' is '<a>'" beside "<section>. <passage>".
"""

from typing import ClassVar

from judges.families.autoais import EntailmentPrompt
from judges.families.base import ItemInput, Option
from judges.templates import PromptBound, field_max_chars, template_fill

TEMPLATE = "The answer to the question '{question}' is '{answer}'"
TEMPLATE_FIELDS = ("question", "answer")


def _passage(item: ItemInput) -> str | None:
    passage = item.data.get("passage") if isinstance(item.data, dict) else None
    return passage if isinstance(passage, str) and passage.strip() else None


class AnswerEntailment(EntailmentPrompt):
    options: ClassVar[dict[str, Option]] = {
        "template": Option((str,), TEMPLATE, "The hypothesis, from {question} and {answer}.",
                           placeholders=TEMPLATE_FIELDS),
        "headings": Option((bool,), True, "Put the passage's headings before it (\"<section>. <passage>\"), as the "
                                          "released AutoAIS code does, where the import kept a section."),
    }

    def unjudgeable(self, item: ItemInput) -> str:
        return "" if _passage(item) else "no evidence passage for this item"

    def hypothesis(self, item: ItemInput, config: dict) -> str:
        return template_fill(config["template"], question=item.topic_text, answer=item.text)

    def premise(self, item: ItemInput, config: dict) -> str:
        passage, section = _passage(item), item.data.get("section")
        if config["headings"] and isinstance(section, str) and section.strip():
            return f"{section}. {passage}"
        return passage

    def premise_longest(self, item: ItemInput) -> str:
        return f"{item.data.get('section') or ''}. {_passage(item)}"

    def hypothesis_bound(self, config: dict) -> PromptBound:
        """{question} and {answer} at an item's largest text."""
        return PromptBound("autoais", "the hypothesis (template)").template("template", config["template"])

    def premise_max_chars(self, config: dict) -> int:
        # "<section>. <passage>": two texts of an item and ". " between them.
        return field_max_chars() * (2 if config["headings"] else 1) + 2
