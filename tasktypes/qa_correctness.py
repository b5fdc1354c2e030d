"""qa_correctness: is a system's answer to a question correct, given the gold answers? One verdict per item."""

from annotate.forms import CampaignOptionsForm
from annotate.selectors.annotation import unit_display
from annotate.services.annotation import JudgmentValueError
from annotate.task_types import TaskTypeSpec, register

VERDICTS = {"yes": {"correct": True}, "no": {"correct": False}}


@register
class QaCorrectness(TaskTypeSpec):
    name = "qa_correctness"
    options_form = CampaignOptionsForm
    import_formats = ("qa-eval-jsonl", "nq301", "judge-scores")
    importer = "tasktypes.importers.service.qa_import"
    import_lines = "verdict_lines"
    report_builder = "agreement.report.qa_report_build"

    def value_check(self, value, *, unit=None) -> str:
        if not isinstance(value, dict) or set(value) != {"correct"} or not isinstance(value["correct"], bool):
            raise JudgmentValueError('A QA verdict is {"correct": true} or {"correct": false}.')
        return "yes" if value["correct"] else "no"

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display and the question's gold answers."""
        display = unit_display(assignment=assignment)
        display["gold_answers"] = [str(answer) for answer in assignment.unit.topic.data.get("gold_answers") or []]
        return display

    def value_from_post(self, post, *, assignment) -> dict:
        verdict = post.get("verdict", "")
        if verdict not in VERDICTS:
            raise JudgmentValueError("Choose yes or no.")
        return VERDICTS[verdict]
