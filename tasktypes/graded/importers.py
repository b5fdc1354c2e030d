"""The formats every graded relevance task type takes (trec-run pooled, trec-qrels, judge-qrels, trec-leaderboard), and
how an import's summary is worded for graded items."""

from pathlib import Path

from annotate.models import Campaign
from annotate.services.campaigns import units_ensure
from annotate.task_types.registry import task_type_get
from interchange.importers.common import UnusedLines
from interchange.importers.runs_pool import runs_pool_import
from interchange.importers.service import ImportRequestError, ImportSummary
from tasktypes.graded.graded_qrels import human_qrels_import, judge_qrels_import
from tasktypes.graded.leaderboard import leaderboard_import


def graded_import(*, campaign: Campaign, fmt: str, paths: list[Path], depth: int | None, tag: str | None,
                  judge: str | None, summary: ImportSummary, unused: UnusedLines, clip: bool = False, **_) -> None:
    """The formats every graded relevance task type takes (trec-run pooled, trec-qrels, judge-qrels,
    trec-leaderboard); call inside
    import_run's transaction."""
    if fmt == "trec-run":
        pooled = runs_pool_import(campaign=campaign, paths=paths, depth=depth, tag=tag, unused=unused)
        summary.runs, summary.runs_already_there = pooled.runs, pooled.runs_already_there
        summary.items_created, summary.system_outputs_created = pooled.items_created, pooled.system_outputs_created
        summary.pool_sizes = pooled.pool_sizes
        summary.systems = pooled.runs
    elif fmt == "trec-qrels":
        summary.human_judgments_created, summary.items_created, summary.units_created = human_qrels_import(
            campaign=campaign, paths=paths, unused=unused)
    elif fmt == "judge-qrels":
        created, summary.judge_lines_outside, summary.grades_clipped = judge_qrels_import(
            campaign=campaign, paths=paths, judge=judge, unused=unused, clip=clip)
        summary.model_judgments_created = {judge: created}
    elif fmt == "trec-leaderboard":
        summary.notes.extend(leaderboard_import(campaign=campaign, paths=paths, judge=judge, unused=unused))
    else:
        raise ImportRequestError(f"format {fmt} is not a graded relevance format")
    summary.units_created += units_ensure(campaign=campaign)


def graded_lines(summary) -> list[str]:
    noun = task_type_get(summary.task_type).item_noun
    out = [
        f"campaign {summary.campaign}: imported {len(summary.files)} path(s) as {summary.format} in {summary.seconds:.2f} s",
        f"created: {summary.topics_created} topics, {summary.items_created} {noun}s to grade, "
        f"{summary.system_outputs_created} run lines linked, {summary.human_judgments_created} grades, "
        f"{summary.units_created} units",
    ]
    if summary.format == "images":
        out.append(f"images stored: {summary.images_stored}, already stored (unchanged): "
                   f"{summary.images_already_there}; items given their image: {summary.images_attached}")
    if summary.runs or summary.runs_already_there:
        out.append(f"runs pooled: {', '.join(summary.runs) or 'none'}"
                   + (f"; already imported (unchanged): {', '.join(summary.runs_already_there)}"
                      if summary.runs_already_there else ""))
    if summary.pool_sizes:
        sizes = sorted(summary.pool_sizes.values())
        out.append(f"pool: {sum(sizes)} {noun}s over {len(sizes)} topics (per topic: min {sizes[0]}, "
                   f"median {sizes[len(sizes) // 2]}, max {sizes[-1]})")
    if summary.format == "judge-qrels":
        for name, count in summary.model_judgments_created.items():
            out.append(f"grades of {name} imported: {count}; lines naming no {noun} of the campaign, not "
                       f"imported: {summary.judge_lines_outside}")
        if summary.grades_clipped:
            out.append(f"grades off the campaign's scale clipped to its nearest end (clip): {summary.grades_clipped}")
    out.extend(summary.notes)
    out.append(f"campaign now: {summary.topics} topics, {summary.items} {noun}s, "
               f"{summary.items_with_human_verdict} with a human grade")
    for name, count, failed in summary.judge_rows():
        out.append(f"{noun}s judged by {name}: {count}" + (f" ({failed} failed)" if failed else ""))
    out.append(f"{noun}s left for assessors: {summary.items_left_for_humans}")
    return out
