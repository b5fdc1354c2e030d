"""Stored agreement reports: every reader of the report (the page, its downloads, the API) opens the last one built.

- A report is built at the campaign's data version read BEFORE its data (annotate.services.data_version). A change
  committed while it builds moves the version past it, so the next open rebuilds; a report a little newer than its
  version is harmless, one older than it would never be replaced.
- One build at a time per campaign: the lock is StoredReport.building_since, taken by one conditional UPDATE where no
  build holds it or its holder has run past BUILD_TIMEOUT (its worker died). A build that loses the race does nothing;
  the holder queues one more build when it ends if the version has moved meanwhile.
- Opening a stale report answers with the stored one ("updating") and queues agreement.tasks.report_rebuild after
  commit, at most one queued at a time. A broker that cannot be reached is said ("queue-failed") and the stale report
  still shown: a stale report is never rebuilt inline in the request (STYLE.md, Celery tasks).
- The first open of a campaign with nothing stored queues the same task and answers at once with no document (state
  BUILDING): the page says "Building…" with the build's step (reports.build_steps, recorded on the lock row) and how
  long it has run, the API and downloads answer 202. Nothing is ever built inline in a request. Where no worker runs
  (manage.py load_demo, agreement_report --stored) they call the task's body, stored_report_rebuild, in the process.
- A build that raises records the data version it failed at and why (FAILED): the page and the API say so, with the
  stored report if there is one, instead of waiting forever, and opens at that version queue nothing more (the same
  data would fail the same way). The next change of the campaign's data, or agreement_report --stored, tries again.
- A stored document carries the schema of the code that built it (REPORT_SCHEMA, StoredReport.schema). One of
  another schema counts as nothing stored: an upgraded installation rebuilds it on first open ("Building…", 202 from
  the API) rather than rendering an older document with templates that expect another shape.
"""

import json
import logging
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from celery import shared_task
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import KombuError

from agreement.models import StoredReport
from annotate.models import Campaign
from annotate.selectors.campaigns import campaign_data_version
from annotate.services.task_starts import lost_worker_reason, starts_limited
from annotate.task_types.registry import task_type_get
from reports.build_steps import PLOTS, build_step, build_steps_reported

logger = logging.getLogger(__name__)

# A build older than this has lost its worker (CELERY_TASK_TIME_LIMIT is 16 min): its lock may be taken over.
BUILD_TIMEOUT = timedelta(minutes=15)
# A rebuild queued this long ago and never started (its message was lost) is queued again by the next open.
QUEUE_TIMEOUT = timedelta(minutes=15)
# The longest build error kept for the page (the whole traceback is in the worker's log).
BUILD_ERROR_CHARS = 500
# How long queueing waits for an unreachable broker before the page says the update could not be queued.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}

CURRENT = "current"  # the stored report is of the campaign's data version
UPDATING = "updating"  # the stored report is older; a rebuild is queued or running
BUILDING = "building"  # nothing is stored yet: the first build is queued or running; no document to show
QUEUE_FAILED = "queue-failed"  # the (re)build could not be queued (broker unreachable); the stored report if any
FAILED = "failed"  # the build at the campaign's data version failed (build_error); the stored report if any
QUEUED_NOW = "queued-now"  # internal to _rebuild_queue's caller: published here, read the row once more
PLOTS_PENDING = None  # extras["plots"] between a build's statistics being stored and its plots
# The shape of the report documents this code builds and the methods of their statistics: raised by one whenever a
# change adds, removes or renames a field a template or a download reads, or changes how a figure is computed (its
# resampling, its unit, its rule), so that documents stored by an earlier version are built again before they are
# shown. The history is in docs/upgrading.md.
REPORT_SCHEMA = 4


def _pack(value) -> bytes:
    return zlib.compress(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(), 1)


def _unpack(blob) -> dict:
    return json.loads(zlib.decompress(bytes(blob))) if blob else {}


@dataclass
class OpenedReport:
    """A report as opened: its document, the state of the stored copy and, on demand, the extras stored with it.
    Before the first build is stored (not `ready`) there is no document: version and document are None."""

    document: dict | None
    state: str
    version: int | None  # the data version the document was built from
    data_version: int  # the campaign's data version when it was opened
    built_at: datetime | None
    build_seconds: float | None
    building: bool = False
    building_step: str = ""  # the running build's step (reports.build_steps), "" when none runs
    building_seconds: float | None = None  # how long the running build has run
    queue_error: str = ""
    build_error: str = ""  # why the build at this data version failed (state FAILED), else ""
    _extras: bytes | dict | None = field(default=None, repr=False)

    @property
    def ready(self) -> bool:
        return self.version is not None

    @property
    def updating(self) -> bool:
        return self.version is None or self.version < self.data_version

    def extras(self) -> dict:
        """{"plots": {name: inline SVG}, "qrels": {source: qrels}} as stored with the document; "plots" is
        PLOTS_PENDING while the build that stored the document draws them, and "plots_error" says why there are
        none when drawing them failed."""
        if not isinstance(self._extras, dict):
            self._extras = _unpack(self._extras)
        return self._extras

    @property
    def plots(self) -> dict:
        """{name: inline SVG}: the plots drawn for the document ({} while pending, or when none could be drawn)."""
        return self.extras().get("plots") or {}

    @property
    def plots_pending(self) -> bool:
        """Whether the document's plots are being drawn now (its build still holds the lock), to appear shortly."""
        return self.ready and self.building and self.extras().get("plots", {}) is PLOTS_PENDING


def _stored_version(row: StoredReport) -> int | None:
    """The data version of ROW's document when this code can show it (built under REPORT_SCHEMA), else None: a
    document of another schema counts as nothing stored."""
    return row.version if row.schema == REPORT_SCHEMA else None


def _opened(row: StoredReport, *, state: str, data_version: int) -> OpenedReport:
    held = _lock_held(row)
    version = _stored_version(row)
    return OpenedReport(document=_unpack(row.document) if version is not None else None, state=state,
                        version=version, data_version=data_version, built_at=row.built_at,
                        build_seconds=row.build_seconds, building=held,
                        building_step=row.building_step if held else "",
                        building_seconds=(timezone.now() - row.building_since).total_seconds() if held else None,
                        queue_error=row.queue_error,
                        build_error=row.build_error if state == FAILED else "", _extras=row.extras)


def _failed_here(row: StoredReport, data_version: int) -> bool:
    """Whether the build at DATA_VERSION failed and none runs now: opening it again must not queue the same failure."""
    return row.failed_version is not None and row.failed_version >= data_version and not _lock_held(row)


def _lock_held(row: StoredReport) -> bool:
    return row.building_since is not None and row.building_since > timezone.now() - BUILD_TIMEOUT


# --- Reading ---

def report_for_open(*, campaign: Campaign) -> OpenedReport:
    """The campaign's report for a reader: the stored one while current; the stored one with a rebuild queued when
    the data changed since (state UPDATING, or QUEUE_FAILED when the broker cannot be reached); no document, with
    the first build queued, when none is stored yet (state BUILDING, or QUEUE_FAILED). Never builds. Call outside a
    transaction: the build is queued on commit."""
    data_version = campaign_data_version(campaign_id=campaign.pk)
    row = StoredReport.objects.filter(campaign_id=campaign.pk).first()
    if row is None:
        _row(campaign.pk)
        row = StoredReport.objects.get(campaign_id=campaign.pk)
    if _stored_version(row) is not None and row.version >= data_version:
        return _opened(row, state=CURRENT, data_version=data_version)
    if _failed_here(row, data_version):
        return _opened(row, state=FAILED, data_version=data_version)
    state = _rebuild_queue(row=row)
    if state == QUEUE_FAILED:
        row.refresh_from_db(fields=["queue_error"])
    elif state == QUEUED_NOW:
        # Read once more: a worker that took the task at once (or Celery eager, in tests) may have stored it.
        row.refresh_from_db()
        if _stored_version(row) is not None and row.version >= data_version:
            return _opened(row, state=CURRENT, data_version=data_version)
        if _failed_here(row, data_version):
            return _opened(row, state=FAILED, data_version=data_version)
        state = UPDATING
    if state == UPDATING and _stored_version(row) is None:
        state = BUILDING
    return _opened(row, state=state, data_version=data_version)


def stored_report_status(*, campaign: Campaign) -> dict:
    """What a page waiting on a build polls: the stored report's version (null before the first build), the
    campaign's data version, whether a build runs, its step and seconds so far. Reads two rows; never builds or
    queues."""
    data_version = campaign_data_version(campaign_id=campaign.pk)
    row = (StoredReport.objects.filter(campaign_id=campaign.pk)
           .only("version", "schema", "built_at", "build_seconds", "building_since", "building_version",
                 "building_step", "queued_at", "queue_error", "failed_version", "build_error").first())
    if row is None:
        return {"report_version": None, "data_version": data_version, "updating": True, "building": False,
                "step": None, "building_seconds": None, "queue_error": None, "build_error": None, "built_at": None}
    held = _lock_held(row)
    version = _stored_version(row)
    return {"report_version": version, "data_version": data_version, "report_schema": REPORT_SCHEMA,
            "updating": version is None or version < data_version, "building": held,
            "step": (row.building_step or None) if held else None,
            "building_seconds": round((timezone.now() - row.building_since).total_seconds(), 1) if held else None,
            "queue_error": row.queue_error or None,
            "build_error": (row.build_error or None) if _failed_here(row, data_version) else None,
            "built_at": row.built_at.isoformat() if row.built_at else None}


# --- Building ---

def _build(*, campaign: Campaign) -> tuple[int, dict, dict, float]:
    """(version, document, extras without plots, seconds): the report's statistics. The version is read before the
    data (see the module's docstring)."""
    # Imported here, not at the top: the views that open stored reports are loaded with the URL configuration by
    # every process, and a build's statistics (scipy, scikit-learn) are a second of start-up.
    from agreement.report import agreement_report_build

    version = campaign_data_version(campaign_id=campaign.pk)
    started = time.perf_counter()
    document = agreement_report_build(campaign=campaign)
    extras = task_type_get(campaign.task_type).report_extras(campaign=campaign, document=document)
    return version, document, {"plots": PLOTS_PENDING, **extras}, time.perf_counter() - started


def _plots_draw(*, document: dict) -> dict:
    """{name: inline SVG} of the report's plots (matplotlib: most of a small report's build, so drawn after its
    statistics are stored)."""
    from agreement.plots import report_plots

    build_step(PLOTS)
    plots = {}
    for name, draw in report_plots(report=document).items():
        drawn = draw(report=document)
        if drawn is not None:
            plots[name] = drawn.svg()
    return plots


def _row(campaign_id: int) -> None:
    StoredReport.objects.get_or_create(campaign_id=campaign_id)


def _lock_take(*, campaign_id: int, version: int) -> datetime | None:
    """Take the campaign's build lock for VERSION: one conditional UPDATE, so of two racing builds one wins. Returns
    the lock's token (its building_since), None when another build holds it."""
    now = timezone.now()
    taken = (StoredReport.objects.filter(campaign_id=campaign_id)
             .filter(Q(building_since__isnull=True) | Q(building_since__lt=now - BUILD_TIMEOUT))
             .update(building_version=version, building_since=now, building_step="", queued_at=None))
    return now if taken else None


def _lock_release(*, campaign_id: int, token: datetime) -> None:
    StoredReport.objects.filter(campaign_id=campaign_id, building_since=token).update(
        building_version=None, building_since=None, building_step="")


def _failure_record(*, campaign_id: int, token: datetime, exc: BaseException) -> None:
    """Release the lock TOKEN, recording that the build at its data version failed and why."""
    reason = f"{type(exc).__name__}: {exc}"[:BUILD_ERROR_CHARS]
    StoredReport.objects.filter(campaign_id=campaign_id, building_since=token).update(
        failed_version=F("building_version"), build_error=reason, building_version=None, building_since=None,
        building_step="")


def _step_record(*, campaign_id: int, token: datetime):
    """A build_steps listener that writes each step on the lock row while the lock TOKEN is held (one UPDATE each;
    a worker runs in autocommit, so the page's poll sees it at once)."""
    def record(step: str) -> None:
        StoredReport.objects.filter(campaign_id=campaign_id, building_since=token).update(building_step=step)
    return record


def _store(*, campaign_id: int, token: datetime, version: int, document: dict, extras: dict, seconds: float) -> None:
    """Store the build's statistics, keeping its lock for the plots, in one UPDATE: readers open the report from
    here on. A build whose lock was taken over still stores what it built where nothing newer is stored."""
    values = {"version": version, "schema": REPORT_SCHEMA, "document": _pack(document), "extras": _pack(extras),
              "built_at": timezone.now(), "build_seconds": seconds, "failed_version": None, "build_error": ""}
    if not StoredReport.objects.filter(campaign_id=campaign_id, building_since=token).update(**values):
        StoredReport.objects.filter(campaign_id=campaign_id).filter(
            Q(version__isnull=True) | Q(version__lt=version) | ~Q(schema=REPORT_SCHEMA)).update(**values)


def _plots_store(*, campaign_id: int, token: datetime, version: int, extras: dict) -> None:
    """Store the plots with the report of VERSION (not over a newer one) and release the lock TOKEN."""
    StoredReport.objects.filter(campaign_id=campaign_id, version=version).update(extras=_pack(extras))
    _lock_release(campaign_id=campaign_id, token=token)


def _build_store(*, campaign: Campaign, token: datetime) -> tuple[int, dict]:
    """Build under the lock TOKEN and store; the lock is released whatever happens."""
    try:
        with build_steps_reported(_step_record(campaign_id=campaign.pk, token=token)):
            version, document, extras, seconds = _build(campaign=campaign)
    except Exception as exc:  # a defect, or the task's soft time limit: said on the page, logged by Celery
        _failure_record(campaign_id=campaign.pk, token=token, exc=exc)
        raise
    except BaseException:
        _lock_release(campaign_id=campaign.pk, token=token)
        raise
    _store(campaign_id=campaign.pk, token=token, version=version, document=document, extras=extras, seconds=seconds)
    started = time.perf_counter()
    try:
        with build_steps_reported(_step_record(campaign_id=campaign.pk, token=token)):
            extras["plots"] = _plots_draw(document=document)
    except Exception as exc:  # the statistics stand; the page says the plots could not be drawn, and why
        extras.update(plots={}, plots_error=f"{type(exc).__name__}: {exc}"[:BUILD_ERROR_CHARS])
        logger.exception("plots of campaign %s at data version %s", campaign.slug, version)
    except BaseException:
        _lock_release(campaign_id=campaign.pk, token=token)
        raise
    _plots_store(campaign_id=campaign.pk, token=token, version=version, extras=extras)
    logger.info("report of campaign %s built at data version %s in %.1f s, its plots drawn in %.1f s", campaign.slug,
                version, seconds, time.perf_counter() - started)
    return version, document


def stored_report_rebuild(*, campaign_id: int) -> bool:
    """Build and store the campaign's report if it is stale (or none is stored) and no other build runs: the
    background task's body, which commands that run where no worker may (load_demo, agreement_report --stored) call
    in their own process; requests never do. Returns whether it built. When
    the data version moved during the build, queues one more rebuild."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return False  # deleted since it was queued
    _row(campaign_id)
    current = campaign_data_version(campaign_id=campaign_id)
    row = StoredReport.objects.get(campaign_id=campaign_id)
    if _stored_version(row) is not None and row.version >= current:
        StoredReport.objects.filter(campaign_id=campaign_id).update(queued_at=None)
        return False  # already current: a second delivery, or built meanwhile
    token = _lock_take(campaign_id=campaign_id, version=current)
    if token is None:
        # The holder queues one more build when it ends if the version moved; it must find none marked queued.
        StoredReport.objects.filter(campaign_id=campaign_id).update(queued_at=None)
        return False
    version, _ = _build_store(campaign=campaign, token=token)
    if campaign_data_version(campaign_id=campaign_id) > version:
        _rebuild_queue(row=StoredReport.objects.get(campaign_id=campaign_id))
    return True


# --- Queueing ---

def _rebuild_queue(*, row: StoredReport) -> str:
    """Queue a (re)build of ROW's campaign unless one is queued or running: UPDATING (QUEUED_NOW when published here
    and now, outside a transaction), or QUEUE_FAILED when the broker cannot be reached (recorded on the row). The mark
    (queued_at) is one conditional UPDATE, so of many readers
    opening the stale report at once one publishes."""
    now = timezone.now()
    if _lock_held(row) or (row.queued_at is not None and row.queued_at > now - QUEUE_TIMEOUT):
        return UPDATING
    marked = (StoredReport.objects.filter(campaign_id=row.campaign_id)
              .filter(Q(queued_at__isnull=True) | Q(queued_at__lt=now - QUEUE_TIMEOUT))
              .filter(Q(building_since__isnull=True) | Q(building_since__lt=now - BUILD_TIMEOUT))
              .update(queued_at=now, queue_error=""))
    if not marked:
        return UPDATING
    outcome = {}
    campaign_id = row.campaign_id
    transaction.on_commit(lambda: outcome.update(queued=_rebuild_publish(campaign_id=campaign_id)))
    return {True: QUEUED_NOW, False: QUEUE_FAILED}.get(outcome.get("queued"), UPDATING)


def _rebuild_publish(*, campaign_id: int) -> bool:
    """Publish the rebuild task (after commit). A broker that cannot be reached is recorded on the row, for the page
    to say, and the mark removed so the next open tries again; never built inline instead."""
    try:
        report_rebuild.apply_async(args=(campaign_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY)
        return True
    except (KombuError, OSError) as exc:
        message = f"the build could not be queued: the Celery broker is unreachable ({exc})"
        logger.error("report of campaign %s: %s", campaign_id, message)
        StoredReport.objects.filter(campaign_id=campaign_id).update(queued_at=None, queue_error=message)
        return False


# --- The Celery task (its name kept from agreement.tasks, where workers find it: settings.CELERY_TASK_ROUTES) ---


# Under the build lock's timeout: a lock older than the timeout then belongs to a build that is no longer running.
_HARD_LIMIT_S = int(BUILD_TIMEOUT.total_seconds()) - 30


def _rebuild_given_up(campaign_id: int, *, lost: int) -> None:
    """A build whose worker was lost at every start fails at the current data version, saying so: the page shows the
    reason, and opening the report at that version queues no build again (a new change of data does)."""
    reason = lost_worker_reason(what="the report's build", lost=lost)
    StoredReport.objects.filter(campaign_id=campaign_id).update(
        failed_version=campaign_data_version(campaign_id=campaign_id), build_error=reason[:BUILD_ERROR_CHARS],
        building_version=None, building_since=None, building_step="", queued_at=None)


@shared_task(name="agreement.tasks.report_rebuild", acks_late=True, soft_time_limit=_HARD_LIMIT_S - 60,
             time_limit=_HARD_LIMIT_S, autoretry_for=(OperationalError, InterfaceError), retry_backoff=5, max_retries=3)
@starts_limited(given_up=_rebuild_given_up)
def report_rebuild(campaign_id: int) -> None:
    """Rebuild campaign CAMPAIGN_ID's stored report if it is stale and no other build runs; a second delivery, or one
    for a deleted campaign, does nothing. Database errors (a restart) are retried."""
    stored_report_rebuild(campaign_id=campaign_id)
