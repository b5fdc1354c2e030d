"""The one import entry point shared by `manage.py import_data`, the import page and the REST API."""

import logging
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from django.db import transaction
from django.db.models import Count, F, Q

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, Topic, Unit
from annotate.services.campaigns import campaign_get_or_create, units_ensure
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.registry import import_formats, task_type_get, task_type_names
from interchange.importers.common import ImportDataError, UnusedLines, file_check
from interchange.importers.item_categories import item_categories_import
from interchange.importers.judge_scores import judge_scores_import
from judges.models import Judge

logger = logging.getLogger(__name__)

# The import page's help for the formats every task type shares; a task type's own formats have theirs in its spec
# (TaskTypeSpec.format_help).
SHARED_FORMAT_HELP = {
    "judge-scores": "TSV with header topic, item, score and optionally label: an external judge's output, under the "
                    "judge name below.",
    "item-categories": "topic, item, category lines (TSV, a .csv file as CSV, or JSONL {\"topic\", \"item\", \"category\"}): "
                       "the categories of items already in the campaign, which the report breaks agreement down by; an "
                       "empty category takes an item's away.",
}
# Formats that are an external judge's verdicts and name no judge themselves: the import needs a judge name.
JUDGE_NAME_REQUIRED = ("judge-scores", "judge-qrels", "trec-leaderboard")


def formats() -> dict[str, set[str]]:
    """Format -> the task types it feeds, in the order the task types are registered (annotate.task_types.registry)."""
    return import_formats()


class ImportRequestError(Exception):
    """An import asked for the wrong way (unknown format, wrong task type, no judge name); message for the user."""


@dataclass
class ImportSummary:
    campaign: str
    format: str
    files: list[str]
    topics_created: int = 0
    items_created: int = 0
    system_outputs_created: int = 0
    systems: list[str] = field(default_factory=list)
    human_judgments_created: int = 0
    model_judgments_created: dict[str, int] = field(default_factory=dict)
    units_created: int = 0
    # Items whose category the import set or changed (a `category` key or column, or the item-categories format).
    items_categorised: int = 0
    duplicate_rows: int = 0
    judge_rows_matched_by_position: int = 0
    # ais imports
    rows_read: int = 0
    rated_rows: int = 0
    units_not_queued: int = 0
    # graded relevance imports (image_relevance, passage_relevance)
    images_stored: int = 0
    images_already_there: int = 0
    images_attached: int = 0
    runs: list[str] = field(default_factory=list)
    runs_already_there: list[str] = field(default_factory=list)
    pool_sizes: dict[str, int] = field(default_factory=dict)
    judge_lines_outside: int = 0
    # judge-qrels with clip: grades off the campaign's scale set to its nearest end, counted.
    grades_clipped: int = 0
    # Lines read and not used, by reason: [{"reason", "lines", "example"}] (interchange.importers.common.UnusedLines).
    lines_unused: list[dict] = field(default_factory=list)
    # What a task type's own formats have to say beside the figures above, a line each.
    notes: list[str] = field(default_factory=list)
    # answer_ranking imports
    task_type: str = ""
    answers_created: int = 0
    documents_created: int = 0
    rankings_created: int = 0
    rankings_already_there: int = 0
    annotations_cancelled: int = 0
    qrels_added: int = 0
    # The campaign after the import.
    topics: int = 0
    items: int = 0
    items_with_human_verdict: int = 0
    items_by_judge: dict[str, int] = field(default_factory=dict)
    failed_by_judge: dict[str, int] = field(default_factory=dict)
    items_left_for_humans: int = 0
    answers: int = 0
    documents: int = 0
    rankings: int = 0
    topics_ranked: int = 0
    seconds: float = 0.0
    # Runs started on the new items by the campaign's option judge_new_items (interchange.jobs): {"judge", "run",
    # "items"} each, or {"judge", "error"} for a judge that could not start.
    judge_runs: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    def judge_rows(self) -> list[tuple[str, int, int]]:
        """(judge, items judged, of them without a readable verdict), for tables."""
        return [(name, count, self.failed_by_judge.get(name, 0)) for name, count in self.items_by_judge.items()]

    def lines(self) -> list[str]:
        """The summary as lines of text, in the words of the campaign's task type (its import_lines)."""
        return (task_type_get(self.task_type).import_lines(self) + self.category_lines()
                + self.unused_lines() + self.judge_run_lines())

    def category_lines(self) -> list[str]:
        """How many items a format's `category` key or column put in a category (item-categories says it in its
        own note)."""
        if not self.items_categorised or self.format == "item-categories":
            return []
        return [f"items given a category (or another one): {self.items_categorised}"]

    def unused_lines(self) -> list[str]:
        """The lines read and not used, a line per reason with its first example."""
        if not self.lines_unused:
            return []
        total = sum(row["lines"] for row in self.lines_unused)
        return [f"lines read and not used: {total}"] + [
            f"  {row['lines']} line{'s' if row['lines'] != 1 else ''} {row['reason']} (first: {row['example']})"
            for row in self.lines_unused]

    def judge_run_lines(self) -> list[str]:
        out = []
        for run in self.judge_runs:
            if run.get("error"):
                out.append(f"judge {run['judge']} was not started on the new items: {run['error']}")
            else:
                out.append(f"judge {run['judge']}: run {run['run']} started on {run['items']} new item"
                           f"{'s' if run['items'] != 1 else ''} (option judge_new_items)")
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ImportSummary":
        """The summary as_dict gave (a job's stored summary); keys of other versions are left out."""
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})

    def verdict_lines(self, *, rows: bool = False) -> list[str]:
        """The summary of an import of verdicts on items (TaskTypeSpec.import_lines by default); ROWS: with the rows
        read and rated (ais)."""
        out = [
            f"campaign {self.campaign}: imported {len(self.files)} path(s) as {self.format} in {self.seconds:.2f} s",
            f"created: {self.topics_created} topics, {self.items_created} items, {self.system_outputs_created} system "
            f"outputs ({len(self.systems)} systems), {self.human_judgments_created} human judgments, "
            f"{self.units_created} units",
        ]
        if rows and self.format != "gold-answers":
            out.append(f"rows read: {self.rows_read}, of them rated by humans: {self.rated_rows} (their items are "
                       f"not queued for raters: {self.units_not_queued} units)")
        if self.duplicate_rows:
            out.append(f"duplicate rows (same question and answer) merged: {self.duplicate_rows}")
        out.extend(self.notes)
        if self.judge_rows_matched_by_position:
            out.append(f"judge rows whose answer differs from the human file's, matched by row position: "
                       f"{self.judge_rows_matched_by_position}")
        out.append(f"campaign now: {self.topics} topics, {self.items} items")
        out.append(f"items with a human verdict: {self.items_with_human_verdict}")
        for name, count, failed in self.judge_rows():
            out.append(f"items judged by {name}: {count}" + (f" ({failed} without a readable verdict)" if failed else ""))
        out.append(f"items left for humans: {self.items_left_for_humans}")
        return out


def import_request_check(*, campaign: Campaign, fmt: str, paths: list[Path], judge: str | None,
                         score_judge: str | None = None, depth: int | None = None, tag: str | None = None,
                         clip: bool = False, repeat_assessors: bool = False, **_) -> None:
    """Refuse, with ImportRequestError, an import that cannot be served whatever the files hold."""
    known = formats()
    if fmt not in known:
        raise ImportRequestError(f"unknown format {fmt!r}; choose one of {', '.join(known)}")
    allowed = known[fmt]
    if campaign.task_type not in allowed:
        raise ImportRequestError(f"format {fmt} imports into {', '.join(sorted(allowed))} campaigns, "
                                 f"not {campaign.task_type}")
    if not paths:
        raise ImportRequestError("no files to import")
    if fmt in JUDGE_NAME_REQUIRED and not judge:
        raise ImportRequestError(f"format {fmt} needs a judge name (--judge NAME)")
    if score_judge and fmt != "label-studio":
        raise ImportRequestError("--score-judge reads the scores of a label-studio export; format "
                                 f"{fmt} has none")
    pooling = fmt == "trec-run" and task_type_get(campaign.task_type).pools_runs
    if (depth is not None or tag) and not pooling:
        pooled = ", ".join(name for name in task_type_names() if task_type_get(name).pools_runs)
        raise ImportRequestError(f"--depth and --tag pool the runs of a graded relevance campaign (format trec-run: "
                                 f"{pooled})")
    if clip and fmt != "judge-qrels":
        raise ImportRequestError(f"--clip clips the grades of a judge-qrels file to the campaign's scale; format "
                                 f"{fmt} has none to clip")
    repeats = task_type_get(campaign.task_type).repeat_formats
    if repeat_assessors and fmt not in repeats:
        raise ImportRequestError(f"--repeat-assessors reads a pair judged again by an unnamed assessor as another "
                                 f"assessor: formats {', '.join(repeats) or '(none of this task type)'}, not {fmt}")
    if depth is not None and depth < 1:
        raise ImportRequestError(f"--depth must be 1 or more, not {depth}")


def campaign_counts(*, campaign: Campaign) -> dict:
    """The figures an import reports: items with a human verdict, per judge, and units still wanting humans."""
    judges = Judge.objects.filter(campaign=campaign).order_by("name").annotate(
        n=Count("judgments"), failed=Count("judgments", filter=Q(judgments__failed=True))
    )
    rankings = HumanJudgment.objects.filter(unit__campaign=campaign, unit__item__isnull=True,
                                            kind=JudgmentKind.ANNOTATION, is_current=True)
    return {
        "answers": Item.objects.filter(campaign=campaign, kind="answer").count(),
        "documents": Item.objects.filter(campaign=campaign, kind="document").count(),
        "rankings": rankings.count(),
        "topics_ranked": rankings.values("unit_id").distinct().count(),
        "topics": Topic.objects.filter(campaign=campaign).count(),
        "items": Item.objects.filter(campaign=campaign).count(),
        "items_with_human_verdict": Item.objects.filter(campaign=campaign, units__judgments__is_current=True)
        .distinct()
        .count(),
        "items_by_judge": {judge.name: judge.n for judge in judges},
        "failed_by_judge": {judge.name: judge.failed for judge in judges},
        "items_left_for_humans": Unit.objects.filter(campaign=campaign, judgments_done__lt=F("judgments_needed")).count(),
    }


def import_run(*, campaign: Campaign, fmt: str, paths: list[Path], system: str | None = None,
               judge: str | None = None, score_judge: str | None = None, depth: int | None = None,
               tag: str | None = None, clip: bool = False, repeat_assessors: bool = False) -> ImportSummary:
    """Import PATHS into CAMPAIGN, all or nothing. CLIP (judge-qrels): grades off the campaign's scale are set to
    its nearest end and counted, instead of refused. REPEAT_ASSESSORS (a task type's repeat_formats): a unit judged
    again by an assessor the file does not name is judged by another assessor (1, 2, ... in the file's order).

    Raises ImportRequestError for a request that cannot be served and ImportDataError (file, line,
    field) for bad input; either way the database is as before.
    """
    started = time.perf_counter()
    paths = [Path(path) for path in paths]
    import_request_check(campaign=campaign, fmt=fmt, paths=paths, judge=judge, score_judge=score_judge, depth=depth,
                         tag=tag, clip=clip, repeat_assessors=repeat_assessors)
    for path in paths:
        if not (fmt in task_type_get(campaign.task_type).folder_formats and path.is_dir()):
            file_check(path)
    summary = ImportSummary(campaign=campaign.slug, format=fmt, files=[str(path) for path in paths],
                            task_type=campaign.task_type)
    unused = UnusedLines()
    with transaction.atomic():
        if fmt == "judge-scores":
            summary.model_judgments_created = judge_scores_import(campaign=campaign, paths=paths, judge=judge,
                                                                  unused=unused)
            summary.units_created = units_ensure(campaign=campaign)
        elif fmt == "item-categories":
            counts = item_categories_import(campaign=campaign, paths=paths, unused=unused)
            summary.items_categorised = counts["changed"]
            summary.notes.append(f"lines read: {counts['read']}; items given a new category: {counts['changed']}; "
                                 f"already in that category: {counts['same']}")
        else:
            task_type_get(campaign.task_type).import_run(
                campaign=campaign, fmt=fmt, paths=paths, system=system, judge=judge, score_judge=score_judge,
                depth=depth, tag=tag, clip=clip, repeat_assessors=repeat_assessors, summary=summary, unused=unused)
        unused.check_some_used()
        summary.lines_unused = unused.rows()
        if summary.items_created:
            from judges.development import split_new_items

            # Items added to a split campaign join a part now, before any judge is scored on them.
            split_new_items(campaign=campaign)
        for key, value in campaign_counts(campaign=campaign).items():
            setattr(summary, key, value)
        # One new data version for the whole import, committed with it (the report's stored copy is then out of date).
        campaign_data_changed(campaign_id=campaign.pk)
    summary.seconds = time.perf_counter() - started
    return summary


def import_judges_start(*, campaign: Campaign, summary: ImportSummary, user=None) -> None:
    """After an import into CAMPAIGN that added items, start each configured judge on its new items when the campaign
    asks for it (option judge_new_items), and name the runs in SUMMARY.judge_runs. Call after the import committed,
    outside any transaction (the runs' batches are queued when theirs commits)."""
    if not summary.items_created or not (campaign.options or {}).get("judge_new_items") or summary.judge_runs:
        return
    from judges.services import judge_new_items_start_all

    try:
        summary.judge_runs = judge_new_items_start_all(campaign=campaign, user=user)
    except Exception as exc:  # the import is in; a judge that could not start must not hide it
        logger.exception("campaign %s: judges not started on new items", campaign.slug)
        summary.judge_runs = [{"judge": "(all)", "error": f"{exc.__class__.__name__}: {exc}"}]


def import_data_run(*, slug: str, task_type: str, fmt: str, paths: list[Path], system: str | None = None,
                    judge: str | None = None, score_judge: str | None = None, overlap: int | None = None,
                    owner=None, depth: int | None = None, tag: str | None = None,
                    clip: bool = False, repeat_assessors: bool = False) -> ImportSummary:
    """`import_data`: create the campaign when missing and import into it, in one transaction."""
    if fmt not in formats():
        raise ImportRequestError(f"unknown format {fmt!r}; choose one of {', '.join(formats())}")
    with transaction.atomic():
        campaign = campaign_get_or_create(slug=slug, task_type=task_type, overlap=overlap, owner=owner)
        return import_run(campaign=campaign, fmt=fmt, paths=paths, system=system, judge=judge,
                          score_judge=score_judge, depth=depth, tag=tag, clip=clip,
                          repeat_assessors=repeat_assessors)


__all__ = ["formats", "ImportDataError", "ImportRequestError", "ImportSummary", "import_data_run", "import_run"]
