"""The imports of the qa_correctness formats (tasktypes.qa_correctness.formats: the nq301 folder, qa-eval-jsonl)."""

from pathlib import Path

from annotate.models import Campaign
from annotate.services.campaigns import units_ensure
from interchange.importers.common import UnusedLines
from interchange.importers.qa_index import QaIndex
from interchange.importers.service import ImportRequestError, ImportSummary
from tasktypes.qa_correctness.nq301 import nq301_import
from tasktypes.qa_correctness.qa_eval_jsonl import qa_eval_jsonl_import
from tasktypes.qa_correctness.rules import RULE_QA_EVAL


def counting_rule_default(*, campaign: Campaign, rule: str) -> bool:
    """Give CAMPAIGN the counting rule RULE unless its researcher chose one; whether it was set."""
    if "counting_rule" in (campaign.options or {}):
        return False
    campaign.options = {**(campaign.options or {}), "counting_rule": rule}
    campaign.save(update_fields=["options"])
    return True


def nq301_folder_import(*, campaign: Campaign, paths: list[Path], summary: ImportSummary, unused: UnusedLines) -> None:
    """nq301: the study's folder; call inside interchange.importers.service.import_run's transaction."""
    if len(paths) != 1:
        raise ImportRequestError("the nq301 format takes one folder")
    index = QaIndex(campaign=campaign)
    result = nq301_import(index=index, folder=paths[0], unused=unused)
    summary.human_judgments_created = result.human_created
    summary.model_judgments_created = result.judges
    summary.counts.update(duplicate_rows=result.duplicate_rows,
                          judge_rows_matched_by_position=result.matched_by_position)
    summary.units_created = result.units_created
    if counting_rule_default(campaign=campaign, rule=RULE_QA_EVAL):
        summary.notes.append(f"counting rule set to {RULE_QA_EVAL}: systems are scored as the NQ-open 301 study's "
                             f"code scored them (option counting_rule; docs/task-types/qa_correctness.md)")
    _created_count(campaign=campaign, index=index, writer=result.systems, summary=summary)


def qa_eval_import(*, campaign: Campaign, paths: list[Path], system: str | None, summary: ImportSummary,
                   unused: UnusedLines) -> None:
    """qa-eval-jsonl: one system's answers per file; call inside import_run's transaction."""
    index = QaIndex(campaign=campaign)
    writer = qa_eval_jsonl_import(index=index, paths=paths, system=system, unused=unused)
    _created_count(campaign=campaign, index=index, writer=writer, summary=summary)


def _created_count(*, campaign: Campaign, index: QaIndex, writer, summary: ImportSummary) -> None:
    """Make the units of the new items and count what the import made in SUMMARY."""
    summary.units_created += units_ensure(campaign=campaign)
    summary.topics_created = index.topics_created
    summary.items_created = index.items_created
    summary.items_categorised = index.items_categorised
    summary.system_outputs_created = writer.created
    summary.systems = writer.systems
