"""The ais formats (the attributed-qa CSV, jsonl, gold-answers), run by its spec's import_run, and how an import's
summary is worded for them."""

from dataclasses import fields
from pathlib import Path

from annotate.models import Campaign
from interchange.importers.common import UnusedLines
from interchange.importers.service import ImportSummary
from tasktypes.ais.attributed_qa import DEFAULT_JUDGE as DEFAULT_AIS_JUDGE
from tasktypes.ais.attributed_qa import attributed_qa_import
from tasktypes.ais.gold_answers import gold_answers_import


def ais_import(*, campaign: Campaign, fmt: str, paths: list[Path], judge: str | None, summary: ImportSummary,
               unused: UnusedLines, **_) -> None:
    """The ais formats (attributed-qa CSV, jsonl, gold-answers); call inside interchange.importers.service.import_run's transaction."""
    if fmt == "gold-answers":
        counts = gold_answers_import(campaign=campaign, paths=paths, unused=unused)
        summary.notes.append(f"lines read: {counts['read']}; questions given gold answers: {counts['given']}; "
                             f"already with the same ones: "
                             f"{counts['same']}; lines naming no question of the campaign, not imported: "
                             f"{counts['outside']}")
        return
    result = attributed_qa_import(campaign=campaign, paths=paths, judge=judge, jsonl=fmt == "jsonl")
    for name in (f.name for f in fields(result)):
        if hasattr(summary, name):
            setattr(summary, name, getattr(result, name))
    if result.scored:
        summary.model_judgments_created = {judge or DEFAULT_AIS_JUDGE: result.judge_created}


def ais_lines(summary: ImportSummary) -> list[str]:
    """The verdicts' summary with the rows read and rated."""
    return summary.verdict_lines(rows=True)
