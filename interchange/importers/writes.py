"""Bulk writes shared by the import formats: imported human judgments, unit counts, external judges' verdicts.

Re-importing the same data is a no-op: a judgment that already exists with the same verdict is
skipped. One that exists with another verdict is refused with the line that conflicts, so an
import never silently rewrites what is in the database.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db.models import Count
from django.utils import timezone

from annotate.bulk import rows_insert
from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, JudgmentSource, Unit
from annotate.services.campaigns import user_get_or_create_imported
from interchange.importers.common import ImportDataError, UnusedLines
from judges.identity import JudgeConfigError, judge_get_or_create
from judges.models import EXTERNAL_FAMILY, Judge, ModelJudgment


@dataclass(frozen=True, slots=True)
class ItemRef:
    """A saved item known by its primary key only: a streaming import keeps this, not the row's text."""

    pk: int


@dataclass(frozen=True)
class HumanVerdict:
    path: Path
    line: int
    item: Item | ItemRef  # an Item may be saved by a later flush; read its pk only when writing
    annotator: object  # a User
    kind: str
    value: dict  # the stored value, e.g. {"correct": true}, {"attributable": false}, {"grade": 2}
    label: str  # the value reduced to the label agreement reads: "yes"/"no", "0"/"1"/"2"


@dataclass(frozen=True)
class JudgeVerdict:
    path: Path
    line: int
    item: Item | ItemRef
    score: float | None
    label: str
    raw: str
    failed: bool
    # A failed verdict's label as its file's own column gives it (ModelJudgment.fallback_label); "" when none.
    fallback_label: str = ""
    # How the line named its item (its docid, candidate id), for the summary's count of lines not used.
    key: str = ""


def yes_no(flag: bool) -> str:
    """The label of a yes/no verdict."""
    return "yes" if flag else "no"


def human_verdicts_write(*, campaign: Campaign, verdicts: list[HumanVerdict]) -> tuple[int, int]:
    """Create imported human judgments on the items' units. Returns (created, skipped as already there).

    Call inside the import's transaction, after `units_ensure`.
    """
    unit_of_item = dict(Unit.objects.filter(campaign=campaign, item__isnull=False).values_list("item_id", "id"))
    existing = {
        (unit_id, annotator_id, kind): label
        for unit_id, annotator_id, kind, label in HumanJudgment.objects.filter(
            unit__campaign=campaign, is_current=True
        ).values_list("unit_id", "annotator_id", "kind", "label")
    }
    new, skipped = [], 0
    now = timezone.now()
    for verdict in verdicts:
        unit_id = unit_of_item[verdict.item.pk]
        key = (unit_id, verdict.annotator.pk, verdict.kind)
        label = verdict.label
        if key in existing:
            if existing[key] != label:
                raise ImportDataError(
                    file=verdict.path, line=verdict.line, field=verdict.annotator.username,
                    message=f"{label!r} conflicts with {existing[key]!r} already recorded for this answer",
                )
            skipped += 1
            continue
        existing[key] = label
        new.append((unit_id, verdict.annotator.pk, verdict.kind, JudgmentSource.IMPORT,
                    verdict.value, label, 1, True, now))
    rows_insert(HumanJudgment, ["unit", "annotator", "kind", "source", "value", "label", "version", "is_current",
                                "created_at"], new)
    return len(new), skipped


def units_done_refresh(*, campaign: Campaign) -> None:
    """Set each unit's judgments_done to its distinct annotators' current annotations.

    Call inside the import's transaction: the units are locked so a concurrent submit waits for us.
    """
    counts = dict(
        HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True)
        .values("unit_id")
        .annotate(n=Count("annotator_id", distinct=True))
        .values_list("unit_id", "n")
    )
    units = Unit.objects.select_for_update().filter(campaign=campaign).values_list("id", "judgments_done")
    # One UPDATE per count and slice of ids (a unit's count is one of a few), not one CASE branch per unit.
    changed: dict[int, list[int]] = {}
    for unit_id, done_before in units:
        done = counts.get(unit_id, 0)
        if done_before != done:
            changed.setdefault(done, []).append(unit_id)
    for done, ids in changed.items():
        for start in range(0, len(ids), 900):
            Unit.objects.filter(pk__in=ids[start:start + 900]).update(judgments_done=done)


def external_judge_get(*, campaign: Campaign, name: str, config: dict, path: Path) -> Judge:
    """The campaign's external judge NAME; an existing external judge of that name is reused."""
    judge = Judge.objects.filter(campaign=campaign, name=name).first()
    if judge is not None:
        if judge.family != EXTERNAL_FAMILY:
            raise ImportDataError(
                file=path,
                line=0,
                field="judge",
                message=f"judge {name!r} is a {judge.family} judge of this campaign, not an imported one; "
                        f"choose another name",
            )
        return judge
    try:
        return judge_get_or_create(campaign=campaign, name=name, family=EXTERNAL_FAMILY, config=config)
    except JudgeConfigError as exc:
        raise ImportDataError(file=path, line=0, field="judge", message=str(exc)) from None


class JudgeVerdictWriter:
    """An external judge's verdicts written in batches as a streaming import reads them, checked as they come.

    The first row for an item wins within the writer (later ones are skipped, and counted in UNUSED when given); a
    verdict that differs from one already stored is refused at its line. What is held is the judge's stored (label,
    score) per item and the items seen, never the rows. Call inside the import's transaction; `flush` at the end.
    With UNUSED, every row added counts there: used (written, or stored already the same) or not (its item had a
    row before).
    """

    def __init__(self, *, judge: Judge, batch: int = 5000, unused: UnusedLines | None = None):
        self.judge = judge
        self.batch = batch
        self.unused = unused
        # A verdict is its label and score; raw is provenance (another file format may word it otherwise).
        self.existing = {
            item_id: (label, score)
            for item_id, label, score in ModelJudgment.objects.filter(judge=judge).values_list("item_id", "label",
                                                                                              "score")
        }
        self.seen: set[int] = set()
        self.pending: list[tuple] = []
        self.created = 0
        self.skipped = 0
        self.now = timezone.now()

    def add(self, verdict: JudgeVerdict) -> None:
        """Queue VERDICT (its item saved: its pk is read now)."""
        item_id = verdict.item.pk
        if item_id in self.seen:
            self.skipped += 1
            if self.unused is not None:
                self.unused.skip("naming an item an earlier line gave a verdict on (the first line's is kept)",
                                 path=verdict.path, line=verdict.line, field="item", value=verdict.key)
            return
        self.seen.add(item_id)
        if self.unused is not None:
            self.unused.use()
        if item_id in self.existing:
            if self.existing[item_id] != (verdict.label, verdict.score):
                raise ImportDataError(
                    file=verdict.path,
                    line=verdict.line,
                    field="label",
                    message=f"judge {self.judge.name!r} already has another verdict on this item from an earlier "
                            f"import",
                )
            self.skipped += 1
            return
        self.pending.append((self.judge.pk, item_id, verdict.score, verdict.label, verdict.raw, verdict.failed,
                             verdict.fallback_label, self.now))
        if len(self.pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        self.created += rows_insert(ModelJudgment, ["judge", "item", "score", "label", "raw", "failed",
                                                   "fallback_label", "created_at"],
                                    self.pending)
        self.pending = []


def judge_verdicts_write(*, judge: Judge, verdicts) -> tuple[int, int]:
    """Create the judge's verdicts; the first row for an item wins within a file. Returns (created, skipped)."""
    writer = JudgeVerdictWriter(judge=judge)
    for verdict in verdicts:
        writer.add(verdict)
    writer.flush()
    return writer.created, writer.skipped


# --- Imported annotators: each name a file gives stands for one account of the campaign ---


def annotator_username(*, campaign: Campaign, name: str) -> str:
    """The account standing for an imported annotator: `"<campaign slug>-annotator-<name>"` (the contract)."""
    return f"{campaign.slug}-annotator-{name}"


def annotator_name(*, campaign: Campaign, username: str) -> str:
    """The inverse of `annotator_username` for export; other accounts keep their username."""
    prefix = f"{campaign.slug}-annotator-"
    return username[len(prefix):] if username.startswith(prefix) else username


class ImportedAnnotators:
    """The accounts standing for the annotators a file names, each made (or found) once per import: inactive accounts
    named annotator_username (annotate.services.campaigns.user_get_or_create_imported)."""

    def __init__(self, *, campaign: Campaign):
        self.campaign = campaign
        self._users: dict[str, object] = {}

    def get(self, name: str, *, path: Path, line: int, field: str, what: str = "annotator name"):
        """The account of annotator NAME; a name too long for an account is refused at PATH:LINE, FIELD."""
        username = annotator_username(campaign=self.campaign, name=name)
        if len(username) > 150:
            raise ImportDataError(file=path, line=line, field=field, message=f"{what} too long")
        if username not in self._users:
            self._users[username] = user_get_or_create_imported(username=username)
        return self._users[username]
