"""The `llm` judge's prompt on qa_correctness (TaskTypeSpec.judge_prompt): an instruction, worked examples, and the
item (the question, its gold answers, the candidate); the reply ends with a verdict word, yes or no.

Every text here is ours (docs/design.md §1.4: the prompt is configuration, written by us, replaceable by the
user). The chat is: a system message (the instruction, then the output format), each example as a user
turn and the assistant's reply, then the item as the last user turn. With chain of thought (`cot`) the
replies explain first and end with the verdict alone on the last line, which is the line judges.llm.voting
reads; without it they are the verdict alone. Self-consistency: n samples per item, majority vote; the score is
the winning verdict's share of the votes.

The instruction, examples, item template, output format and verdict words are judge options, so they
are part of the judge's identity: editing a default here makes new judges, never new answers under an
old judge's name.
"""

from typing import ClassVar

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, Option
from judges.llm import voting
from judges.llm.backend import Message
from judges.llm.prompts import LLMPrompt
from judges.templates import PromptBound, template_fill, template_names

INSTRUCTION = (
    "You grade answers to questions. Each item gives a question, one or more gold answers, and a candidate "
    "answer. Decide whether the candidate answer is correct: it is correct when it gives the same answer as one "
    "of the gold answers. Judge with your knowledge and common sense, not by matching words. Accept a candidate "
    "that says the same thing in other words, writes a number another way (12 or twelve), or names a date or a "
    "place more coarsely or more precisely than the gold answer (a year for a full date, a country for a city), "
    "as long as nothing in it contradicts the gold answers. Reject a candidate that names something else, adds "
    "a wrong detail, or does not answer the question."
)

# {yes} and {no} are the first word of each verdict in the judge's vocabulary.
OUTPUT_FORMAT_COT = (
    "First explain your reasoning in a few sentences. Then write the verdict alone on the last line: {yes} or {no}."
)
OUTPUT_FORMAT_DIRECT = "Reply with the verdict alone: {yes} or {no}."

TEMPLATE = (
    "Question: {question}\nGold answers: {gold_answers}\nCandidate answer: {candidate}\nIs the candidate correct?"
)
TEMPLATE_FIELDS = ("question", "gold_answers", "candidate")
GOLD_SEPARATOR = "; "

EXAMPLES: list[dict] = [
    {
        "question": "who painted the ceiling of the sistine chapel",
        "gold_answers": ["Michelangelo"],
        "candidate": "Michelangelo Buonarroti, the Florentine sculptor and painter",
        "explanation": (
            "Michelangelo Buonarroti is the full name of Michelangelo, and the rest only describes him. The "
            "candidate names the same person as the gold answer in other words."
        ),
        "verdict": "yes",
    },
    {
        "question": "when did the berlin wall come down",
        "gold_answers": ["9 November 1989", "November 9, 1989"],
        "candidate": "in 1989",
        "explanation": (
            "The wall fell on 9 November 1989. The candidate gives only the year; that year is right and "
            "contradicts nothing in the gold answers, so the coarser date still answers the question."
        ),
        "verdict": "yes",
    },
    {
        "question": "how many players does one team have on the pitch in a football match",
        "gold_answers": ["11"],
        "candidate": "eleven",
        "explanation": "Eleven is 11 written as a word, so the candidate gives the gold number.",
        "verdict": "yes",
    },
    {
        "question": "what is the capital of australia",
        "gold_answers": ["Canberra"],
        "candidate": "Sydney",
        "explanation": (
            "Sydney is the largest city of Australia, but the capital is Canberra. The candidate names a "
            "different city, so it is wrong."
        ),
        "verdict": "no",
    },
]

EXAMPLE_KEYS = ("question", "gold_answers", "candidate", "verdict")


def template_check(template: str) -> None:
    """The item template must show {question}, {gold_answers} and {candidate}, each at least once (which names it
    may use, and how, judges.templates checks for every family before this runs)."""
    missing = [f for f in TEMPLATE_FIELDS if f not in template_names(template)]
    if missing:
        allowed = ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS)
        raise JudgeConfigError(
            f"llm: template lacks {', '.join('{' + m + '}' for m in missing)}; it must show the model {allowed}"
        )


def prompt_config_check(config: dict) -> None:
    """Checks the prompt options of an llm judge config: template, instruction, examples (the placeholders of
    template and output_format are judges.templates' to check, for every family, before this runs).

    The verdict vocabulary must already be valid (voting.verdicts_check): examples refer to its labels.
    """
    template_check(config["template"])
    if not config["instruction"].strip():
        raise JudgeConfigError("llm: instruction must not be empty")
    for number, example in enumerate(config["examples"], start=1):
        where = f"llm: examples[{number - 1}]"
        if not isinstance(example, dict):
            raise JudgeConfigError(f"{where} must be an object with keys {', '.join(EXAMPLE_KEYS)} and explanation")
        keys = EXAMPLE_KEYS + (("explanation",) if config["cot"] else ())
        missing = [k for k in keys if k not in example]
        if missing:
            why = ""
            if "explanation" in missing:
                why = " (cot is on: each example needs the explanation its reply starts with)"
            raise JudgeConfigError(f"{where} lacks {', '.join(missing)}{why}")
        unknown = sorted(set(example) - set(EXAMPLE_KEYS) - {"explanation"})
        if unknown:
            raise JudgeConfigError(f"{where} has unknown key(s) {', '.join(unknown)}")
        golds = example["gold_answers"]
        if not isinstance(golds, list) or not golds or not all(isinstance(g, str) and g.strip() for g in golds):
            raise JudgeConfigError(f"{where}.gold_answers must be a non-empty list of strings")
        for key in ("question", "candidate", "explanation"):
            if key in example and not isinstance(example[key], str):
                raise JudgeConfigError(f"{where}.{key} must be a string")
        if example["verdict"] not in config["verdicts"]:
            raise JudgeConfigError(
                f"{where}.verdict must be one of {', '.join(config['verdicts'])}, not {example['verdict']!r}"
            )


def system_text(config: dict) -> str:
    """The system message: the instruction, then how to answer (with or without an explanation first)."""
    words = {label: words[0] for label, words in config["verdicts"].items()}
    output = config["output_format"] or (OUTPUT_FORMAT_COT if config["cot"] else OUTPUT_FORMAT_DIRECT)
    return f"{config['instruction'].strip()}\n\n{template_fill(output, **words).strip()}"


def item_text(*, question: str, gold_answers: list[str], candidate: str, template: str) -> str:
    return template_fill(template, question=question.strip(),
                         gold_answers=GOLD_SEPARATOR.join(g.strip() for g in gold_answers), candidate=candidate.strip())


def reply_text(example: dict, config: dict) -> str:
    """The reply to an example: its explanation, then the verdict word alone on a line (cot); or the word alone."""
    word = config["verdicts"][example["verdict"]][0]
    if config["cot"]:
        return f"{example['explanation'].strip()}\n{word}"
    return word


def messages_build(*, question: str, gold_answers: list[str], candidate: str, config: dict) -> list[Message]:
    """The chat for one item: system instruction, the examples as user/assistant turns, the item last."""
    template = config["template"]
    messages: list[Message] = [{"role": "system", "content": system_text(config)}]
    for example in config["examples"]:
        messages.append({"role": "user", "content": item_text(
            question=example["question"], gold_answers=example["gold_answers"], candidate=example["candidate"],
            template=template)})
        messages.append({"role": "assistant", "content": reply_text(example, config)})
    messages.append({"role": "user", "content": item_text(
        question=question, gold_answers=gold_answers, candidate=candidate, template=template)})
    return messages


def prompt_bound(config: dict) -> PromptBound:
    """The worst case of the prompt of an answer (system message, worked examples, the item through template), each
    field at an item's largest text. The examples' fields count at their own sizes."""
    answer = PromptBound("llm", "the prompt of an answer (template)")
    words = {label: words[0] for label, words in config["verdicts"].items()}
    output = config["output_format"] or (OUTPUT_FORMAT_COT if config["cot"] else OUTPUT_FORMAT_DIRECT)
    answer.text(config["instruction"]).text("\n\n").template("output_format", output, values=words)
    for example in config["examples"]:
        answer.template("template in the worked examples", config["template"], values={
            "question": example["question"], "candidate": example["candidate"],
            "gold_answers": GOLD_SEPARATOR.join(example["gold_answers"])})
        answer.text(example.get("explanation", "") if config["cot"] else "").text(config["verdicts"][
            example["verdict"]][0])
    answer.template("template", config["template"])
    return answer


def _golds(item: ItemInput) -> list[str]:
    return [g for g in item.gold_answers if isinstance(g, str) and g.strip()]


class AnswerPrompt(LLMPrompt):
    """Is the candidate answer correct, given the question's gold answers: yes or no, by the verdict words."""

    options: ClassVar[dict[str, Option]] = {
        "instruction": Option((str,), INSTRUCTION, "The system message: what to judge and how."),
        "output_format": Option((str,), "", "How to answer, after the instruction; {yes} and {no} are the verdict "
                                            "words. Empty: the built-in one for the cot setting.",
                                 placeholders=voting.LABELS),
        "examples": Option((list,), EXAMPLES, "Worked examples: objects with question, gold_answers (list), "
                                              "candidate, explanation, verdict (yes or no)."),
        "template": Option((str,), TEMPLATE, "The item as the model reads it: {question}, {gold_answers}, "
                                             "{candidate}.", placeholders=TEMPLATE_FIELDS),
        "verdicts": Option((dict,), voting.VERDICTS, "Words that count as each verdict on the reply's last line; "
                                                     "the first one is what the examples answer."),
    }

    def check(self, config: dict) -> None:
        voting.verdicts_check(config["verdicts"])
        prompt_config_check(config)

    def bounds(self, config: dict) -> list[PromptBound]:
        return [prompt_bound(config)]

    def unjudgeable(self, item: ItemInput, context: dict) -> str:
        return "" if _golds(item) else "no gold answers for this topic"

    def messages(self, item: ItemInput, config: dict, context: dict) -> list[Message]:
        return messages_build(question=item.topic_text, gold_answers=_golds(item), candidate=item.text, config=config)

    def vote(self, texts: list[str], config: dict, context: dict) -> voting.Vote:
        return voting.vote(texts, config["verdicts"])
