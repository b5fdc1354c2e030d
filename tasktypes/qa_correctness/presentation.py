"""How a qa_correctness report is shown (reports.presentation): the verdict report's page with its counting rule and,
under the NQ-open 301 study's rule, the systems as the study printed them (templates/qa_correctness/)."""

from reports.presentation import VerdictPresentation
from tasktypes.qa_correctness.rules import RULE_QA_EVAL


class QaPresentation(VerdictPresentation):
    body_template = "qa_correctness/report_body.html"

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        context = super().page_context(report, judge_names=judge_names, plots=plots)
        if (report.get("counting") or {}).get("rule") != RULE_QA_EVAL:
            return {**context, "printed_scores": [], "printed_rows": []}
        # Each judge over every output it decided, and the scoring judges' mean scores, as the study printed them.
        printed_scores = [name for name, block in report["judges"].items() if block.get("system_mean_score")]
        return {**context, "printed_scores": printed_scores, "printed_rows": [
            {"system": row["system"], "human": row["human"],
             "accuracies": [(row["judges_all"].get(name) or {}).get("accuracy") for name in judge_names],
             "scores": [(row["judges_all"].get(name) or {}).get("mean_score") for name in printed_scores]}
            for row in report["systems"]]}
