"""The one import entry point shared by `manage.py import_data`, the import page and the REST API."""

import logging
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from django.db import transaction
from django.db.models import Count, F, Q

from annotate.models import Campaign, Item, Topic, Unit
from annotate.services.campaigns import campaign_get_or_create
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.formats import ImportFormat, takers
from annotate.task_types.registry import import_counts, import_formats, import_parameters, task_type_get, task_types
from interchange.importers.common import ImportDataError, UnusedLines, file_check
from interchange.importers.formats import JUDGE
from judges.models import Judge

logger = logging.getLogger(__name__)


def formats() -> dict[str, set[str]]:
    """Format -> the task types it feeds, in the order the task types are registered (annotate.task_types.registry)."""
    return import_formats()


class ImportRequestError(Exception):
    """An import asked for the wrong way (unknown format, wrong task type, no judge name); message for the user."""


@dataclass
class ImportSummary:
    """What an import did and what the campaign holds after it: the figures every import has, and in COUNTS those
    its format (and its task type) counted (annotate.task_types.formats.Count), which as_dict gives beside them."""

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
    # Lines read and not used, by reason: [{"reason", "lines", "example"}] (interchange.importers.common.UnusedLines).
    lines_unused: list[dict] = field(default_factory=list)
    # What a format has to say beside the figures, a line each.
    notes: list[str] = field(default_factory=list)
    task_type: str = ""
    # The format's own figures and the task type's (their Count declarations), by name.
    counts: dict = field(default_factory=dict)
    # The campaign after the import.
    topics: int = 0
    items: int = 0
    items_with_human_verdict: int = 0
    items_by_judge: dict[str, int] = field(default_factory=dict)
    failed_by_judge: dict[str, int] = field(default_factory=dict)
    items_left_for_humans: int = 0
    seconds: float = 0.0
    # Runs started on the new items by the campaign's option judge_new_items (interchange.jobs): {"judge", "run",
    # "items"} each, or {"judge", "error"} for a judge that could not start.
    judge_runs: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The summary as JSON: its figures, with the counts beside them under their own names (as the API has
        always given them)."""
        data = asdict(self)
        return {**{key: value for key, value in data.items() if key != "counts"}, **data["counts"]}

    @classmethod
    def from_dict(cls, data: dict) -> "ImportSummary":
        """The summary as_dict gave (a job's stored summary); keys of other versions are left out."""
        names = {f.name for f in fields(cls)} - {"counts"}
        declared = import_counts()
        return cls(**{key: value for key, value in data.items() if key in names},
                   counts={key: value for key, value in data.items() if key in declared})

    def count(self, name: str):
        """The count NAME (its empty value when the import did not count it)."""
        return self.counts.get(name, import_counts()[name].empty())

    def import_format(self) -> ImportFormat:
        """The format imported (a bare ImportFormat for one the task type no longer has: a job stored long ago)."""
        return task_type_get(self.task_type).import_formats.get(self.format) or ImportFormat()

    def format_lines(self) -> list[str]:
        """The format's own lines (ImportFormat.lines), for the task type's import_lines."""
        return self.import_format().lines(self)

    def judge_rows(self) -> list[tuple[str, int, int]]:
        """(judge, items judged, of them without a readable verdict), for tables."""
        return [(name, count, self.failed_by_judge.get(name, 0)) for name, count in self.items_by_judge.items()]

    def lines(self) -> list[str]:
        """The summary as lines of text, in the words of the campaign's task type (its import_lines)."""
        return (task_type_get(self.task_type).import_lines(self) + self.import_format().category_lines(self)
                + self.unused_lines() + self.judge_run_lines())

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

    def verdict_lines(self) -> list[str]:
        """The summary of an import of verdicts on items (TaskTypeSpec.import_lines by default)."""
        out = [
            f"campaign {self.campaign}: imported {len(self.files)} path(s) as {self.format} in {self.seconds:.2f} s",
            f"created: {self.topics_created} topics, {self.items_created} items, {self.system_outputs_created} system "
            f"outputs ({len(self.systems)} systems), {self.human_judgments_created} human judgments, "
            f"{self.units_created} units",
            *self.format_lines(),
        ]
        out.append(f"campaign now: {self.topics} topics, {self.items} items")
        out.append(f"items with a human verdict: {self.items_with_human_verdict}")
        for name, count, failed in self.judge_rows():
            out.append(
                f"items judged by {name}: {count}" + (f" ({failed} without a readable verdict)" if failed else "")
            )
        out.append(f"items left for humans: {self.items_left_for_humans}")
        return out


def import_format_get(*, campaign: Campaign, fmt: str) -> ImportFormat:
    """The format FMT of CAMPAIGN's task type; ImportRequestError for a format unknown or of other task types."""
    known = formats()
    if fmt not in known:
        raise ImportRequestError(f"unknown format {fmt!r}; choose one of {', '.join(known)}")
    spec = task_type_get(campaign.task_type)
    if fmt not in spec.import_formats:
        raise ImportRequestError(f"format {fmt} imports into {', '.join(sorted(known[fmt]))} campaigns, "
                                 f"not {campaign.task_type}")
    return spec.import_formats[fmt]


def import_request_check(*, campaign: Campaign, fmt: str, paths: list[Path], **parameters) -> None:
    """Refuse, with ImportRequestError, an import that cannot be served whatever the files hold: a format the
    campaign does not take, no paths, no judge name for a format that needs one, a parameter its format does not
    take (when the parameter says so) or out of its range."""
    import_format = import_format_get(campaign=campaign, fmt=fmt)
    unknown = sorted(set(parameters) - set(import_parameters()))
    if unknown:
        raise ImportRequestError(f"no format takes the parameter {unknown[0]!r}")
    if not paths:
        raise ImportRequestError("no files to import")
    if import_format.judge_required and not JUDGE.given(parameters.get(JUDGE.name)):
        raise ImportRequestError(f"format {fmt} needs a judge name ({JUDGE.option} NAME)")
    own = task_type_get(campaign.task_type).formats
    for name, parameter in import_parameters().items():
        value = parameters.get(name)
        if not parameter.given(value):
            continue
        if parameter not in import_format.parameters and parameter.refused:
            having = [spec.name for spec in task_types() if any(parameter in f.parameters for f in spec.formats)]
            raise ImportRequestError(parameter.refused.format(
                fmt=fmt, formats=", ".join(takers(parameter, own)) or "(none of this task type)",
                task_types=", ".join(having)))
        if parameter.min_value is not None and value is not None and value < parameter.min_value:
            raise ImportRequestError(f"{parameter.option} must be {parameter.min_value} or more, not {value}")


def campaign_counts(*, campaign: Campaign) -> dict:
    """The figures an import reports: items with a human verdict, per judge, and units still wanting humans."""
    judges = Judge.objects.filter(campaign=campaign).order_by("name").annotate(
        n=Count("judgments"), failed=Count("judgments", filter=Q(judgments__failed=True))
    )
    return {
        "topics": Topic.objects.filter(campaign=campaign).count(),
        "items": Item.objects.filter(campaign=campaign).count(),
        "items_with_human_verdict": Item.objects.filter(campaign=campaign, units__judgments__is_current=True)
        .distinct()
        .count(),
        "items_by_judge": {judge.name: judge.n for judge in judges},
        "failed_by_judge": {judge.name: judge.failed for judge in judges},
        "items_left_for_humans": Unit.objects.filter(
            campaign=campaign, judgments_done__lt=F("judgments_needed")
        ).count(),
    }


def import_run(*, campaign: Campaign, fmt: str, paths: list[Path], **parameters) -> ImportSummary:
    """Import PATHS into CAMPAIGN, all or nothing, in format FMT of its task type; PARAMETERS are the import's
    (annotate.task_types.formats.Parameter, by name: `judge`, and those its formats declare), the format is given
    those it takes.

    Raises ImportRequestError for a request that cannot be served and ImportDataError (file, line,
    field) for bad input; either way the database is as before.
    """
    started = time.perf_counter()
    paths = [Path(path) for path in paths]
    import_request_check(campaign=campaign, fmt=fmt, paths=paths, **parameters)
    import_format = import_format_get(campaign=campaign, fmt=fmt)
    for path in paths:
        if not (import_format.folders and path.is_dir()):
            file_check(path)
    summary = ImportSummary(campaign=campaign.slug, format=fmt, files=[str(path) for path in paths],
                            task_type=campaign.task_type)
    unused = UnusedLines()
    with transaction.atomic():
        import_format.run(campaign=campaign, paths=paths, summary=summary, unused=unused,
                          **import_format.values(parameters))
        unused.check_some_used()
        summary.lines_unused = unused.rows()
        if summary.items_created:
            from judges.development import split_new_items

            # Items added to a split campaign join a part now, before any judge is scored on them.
            split_new_items(campaign=campaign)
        for key, value in campaign_counts(campaign=campaign).items():
            setattr(summary, key, value)
        summary.counts.update(task_type_get(campaign.task_type).import_campaign_counts(campaign))
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


def import_data_run(*, slug: str, task_type: str, fmt: str, paths: list[Path], overlap: int | None = None,
                    owner=None, **parameters) -> ImportSummary:
    """`import_data`: create the campaign when missing and import into it, in one transaction; PARAMETERS as
    import_run's."""
    if fmt not in formats():
        raise ImportRequestError(f"unknown format {fmt!r}; choose one of {', '.join(formats())}")
    with transaction.atomic():
        campaign = campaign_get_or_create(slug=slug, task_type=task_type, overlap=overlap, owner=owner)
        return import_run(campaign=campaign, fmt=fmt, paths=paths, **parameters)


__all__ = ["formats", "ImportDataError", "ImportRequestError", "ImportSummary", "import_data_run", "import_run"]
