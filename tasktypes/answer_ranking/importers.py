"""The answer_ranking formats (label-studio, jsonl, trec-qrels, trec-run), run by its spec's import_run, and how an
import's summary is worded for rankings."""

from pathlib import Path

from annotate.models import Campaign
from annotate.services.campaigns import units_ensure
from interchange.importers.common import UnusedLines
from interchange.importers.service import ImportSummary
from interchange.importers.trec_qrels import trec_qrels_import
from interchange.importers.trec_run import trec_run_import
from interchange.importers.writes import units_done_refresh
from tasktypes.answer_ranking.label_studio import label_studio_import
from tasktypes.answer_ranking.options import rank_depth
from tasktypes.answer_ranking.ranking_index import RankingIndex
from tasktypes.answer_ranking.ranking_jsonl import ranking_jsonl_import
from tasktypes.answer_ranking.rankings import human_rankings_write


def ranking_import(*, campaign: Campaign, fmt: str, paths: list[Path], score_judge: str | None,
                   judge: str | None, summary: ImportSummary, unused: UnusedLines, **_) -> None:
    """The answer_ranking formats; call inside interchange.importers.service.import_run's transaction."""
    if fmt == "trec-qrels":
        summary.qrels_added = trec_qrels_import(campaign=campaign, paths=paths, unused=unused)
        return
    if fmt == "trec-run":
        summary.model_judgments_created = trec_run_import(campaign=campaign, paths=paths, judge=judge, unused=unused)
        return
    index = RankingIndex(campaign=campaign)
    if fmt == "label-studio":
        result = label_studio_import(index=index, paths=paths, score_judge=score_judge)
        summary.annotations_cancelled = result.cancelled
        summary.model_judgments_created = result.judges
    else:
        result = ranking_jsonl_import(index=index, paths=paths)
    summary.units_created = units_ensure(campaign=campaign)
    summary.rankings_created, summary.rankings_already_there = human_rankings_write(
        campaign=campaign, verdicts=result.verdicts, candidates=index.candidates, depth=rank_depth(campaign))
    result.verdicts.close()
    units_done_refresh(campaign=campaign)
    summary.topics_created = index.topics_created
    summary.items_created = index.items_created
    summary.items_categorised = index.items_categorised
    summary.answers_created = index.answers_created
    summary.documents_created = index.documents_created
    summary.system_outputs_created = index.system_outputs_created
    summary.systems = index.systems


def ranking_lines(summary) -> list[str]:
    out = [
        f"campaign {summary.campaign}: imported {len(summary.files)} path(s) as {summary.format} in {summary.seconds:.2f} s",
        f"created: {summary.topics_created} topics, {summary.items_created} candidates ({summary.answers_created} answers, "
        f"{summary.documents_created} documents), {summary.system_outputs_created} system outputs "
        f"({len(summary.systems)} systems), {summary.rankings_created} human rankings, {summary.units_created} units",
    ]
    if summary.rankings_already_there:
        out.append(f"rankings already imported (unchanged): {summary.rankings_already_there}")
    if summary.annotations_cancelled:
        out.append(f"cancelled annotations skipped: {summary.annotations_cancelled}")
    if summary.format == "trec-qrels":
        out.append(f"document grades added: {summary.qrels_added}")
    out.append(f"campaign now: {summary.topics} topics, {summary.items} candidates ({summary.answers} answers, "
               f"{summary.documents} documents), {summary.rankings} human rankings over {summary.topics_ranked} topics")
    for name, count, failed in summary.judge_rows():
        out.append(f"candidates scored by {name}: {count}" + (f" ({failed} without a score)" if failed else ""))
    out.append(f"topics left for humans: {summary.items_left_for_humans}")
    return out
