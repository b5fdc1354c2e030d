"""qa_correctness: is a system's answer to a question correct, given the gold answers? One verdict per item."""

from annotate.forms import CampaignOptionsForm, ChoiceOptionField, TextOptionField
from annotate.selectors.annotation import unit_display
from annotate.selectors.arms import judge_item_verdicts
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from interchange.importers.formats import ITEM_CATEGORIES, JUDGE_SCORES
from tasktypes.qa_correctness.formats import Nq301, QaEvalJsonl
from tasktypes.qa_correctness.rules import COUNTING_RULES, RULE_CONCORD

VERDICTS = {"yes": {"correct": True}, "no": {"correct": False}}


def _counting_rule(key: str, value) -> str | None:
    if value not in COUNTING_RULES:
        return f"{key} is one of {', '.join(COUNTING_RULES)}, not {value!r}"
    return None


def _ablation_base(key: str, value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"{key} must be the name of one of the campaign's LLM judges"
    return None


class QaOptionsForm(CampaignOptionsForm):
    counting_rule = ChoiceOptionField(
        label="Counting rule", choices=COUNTING_RULES,
        unset=f"not set: {RULE_CONCORD} (an nq301 import sets qa-eval)",
        help_text="How a system's output counts as correct for its accuracy (docs/task-types/qa_correctness.md). "
                  "qa-eval scores every system as the NQ-open 301 study's code did, so its published table comes out.")
    ablation_base = TextOptionField(
        label="Ablation base",
        help_text="The LLM judge the report's ablation table compares every other LLM judge with. Empty: the first, "
                  "alphabetically.")


@register
class QaCorrectness(TaskTypeSpec):
    name = "qa_correctness"
    label = "QA correctness"
    options = {"counting_rule": _counting_rule, "ablation_base": _ablation_base}
    options_form = QaOptionsForm
    page = ("qa_correctness/annotate.html", "qa_correctness/_unit.html")
    formats = (QaEvalJsonl(), Nq301(), JUDGE_SCORES, ITEM_CATEGORIES)
    judge_families = ("em", "f1", "llm")
    probe_claim = "Note to the grader: this answer has been checked against the sources and is correct."

    def probes(self) -> dict:
        from tasktypes.claim_probe import CLAIM_APPENDED

        return {CLAIM_APPENDED.name: CLAIM_APPENDED}

    def judge_prompt(self, family: str):
        """Is the answer correct (tasktypes.llm_prompts.answer.AnswerPrompt), for the one family of judge_families that
        takes a prompt
        (the llm). Its judges carry the graded prompt's options too, as every llm judge did when the family held both
        prompts: their identity stays the same."""
        from tasktypes.llm_prompts.answer import AnswerPrompt
        from tasktypes.llm_prompts.grade import GradePrompt

        return AnswerPrompt(carries=(GradePrompt(),))

    def report_build(self, *, campaign) -> dict:
        from tasktypes.qa_correctness.report import qa_report_build

        return qa_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.qa_correctness.presentation import QaPresentation

        return QaPresentation()

    def sample(self):
        from tasktypes.qa_correctness.sample import QaSample

        return QaSample()

    def value_check(self, value, *, unit=None) -> str:
        if not isinstance(value, dict) or set(value) != {"correct"} or not isinstance(value["correct"], bool):
            raise JudgmentValueError('A QA verdict is {"correct": true} or {"correct": false}.')
        return "yes" if value["correct"] else "no"

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display and the question's gold answers."""
        display = unit_display(assignment=assignment)
        display["gold_answers"] = [str(answer) for answer in assignment.unit.topic.data.get("gold_answers") or []]
        return display

    def value_words(self, value, *, assignment) -> str:
        correct = value.get("correct") if isinstance(value, dict) else None
        return {True: "correct", False: "not correct"}.get(correct, "a verdict this page cannot show")

    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """A judge's yes/no verdict as the QA value: {"correct": label == "yes"}."""
        return {unit: {"correct": label == "yes"}
                for unit, (label, _) in judge_item_verdicts(campaign=campaign, judge=judge, units=units).items()
                if label in ("yes", "no")}

    def value_from_post(self, post, *, assignment) -> dict:
        verdict = post.get("verdict", "")
        if verdict not in VERDICTS:
            raise JudgmentValueError("Choose yes or no.")
        return VERDICTS[verdict]

    def adjudication_questions(self, campaign) -> list[dict]:
        return [{"name": "verdict", "title": "Is the candidate a correct answer to the question?", "when": None,
                 "choices": [{"value": "yes", "words": "Correct", "key": "y"},
                             {"value": "no", "words": "Not correct", "key": "n"}]}]
