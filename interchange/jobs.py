"""Import jobs: uploads stored on disk as they stream in, then imported by a worker (interchange.tasks.import_job_run).

The import page and the REST API create a job and answer at once; the job page (and GET on the job's API URL) shows
its progress and then its summary, or the `file:line: field: what is wrong` that stopped it. An import stays all or
nothing: one transaction, and a failed job writes nothing. A campaign's jobs run one after the other, in the order
they were made: a job is queued on the broker only when no other job of its campaign is queued or running, and a job
that ends queues the campaign's next one (both under the campaign's row lock).

Where files wait: settings.IMPORT_ROOT/job-<id>/files/, written by the web process and read by the worker (with
workers on other machines, IMPORT_ROOT must be shared storage). While the import runs its progress is written to
progress.json beside them, because the import's transaction holds the database. The folder is deleted when the job
ends, failed or done.
"""

import json
import logging
import os
import resource
import shutil
import tempfile
import threading
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import KombuError

from annotate.models import Campaign
from annotate.task_types.formats import Parameter
from interchange.importers.common import ImportDataError
from interchange.importers.progress import ImportProgress, progress_reporting
from interchange.importers.service import ImportRequestError, ImportSummary, import_judges_start, import_request_check
from interchange.importers.uploads import folder_import, upload_store, uploads_check
from interchange.models import ACTIVE_IMPORT_STATUSES, ImportJob, ImportStatus

logger = logging.getLogger(__name__)

# How long queueing a job waits for an unreachable broker before the job is declared failed.
PUBLISH_RETRY_POLICY = {"max_retries": 3, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
PROGRESS_FILE = "progress.json"
FILES = "files"
INCOMING = "incoming"


class ImportQueueError(Exception):
    """The job could not be queued (the broker is unreachable); the job is marked failed."""


# --- Uploads straight to disk ---

class ImportUploadedFile(TemporaryUploadedFile):
    """An upload written to a temporary file under IMPORT_ROOT/incoming, so that storing it in its job's folder is
    a rename on the same file system, not a copy."""

    def __init__(self, name, content_type, size, charset, content_type_extra=None):
        folder = Path(settings.IMPORT_ROOT) / INCOMING
        folder.mkdir(parents=True, exist_ok=True)
        _, ext = os.path.splitext(name)
        file = tempfile.NamedTemporaryFile(suffix=".upload" + ext, dir=folder)
        super(TemporaryUploadedFile, self).__init__(file, name, content_type, size, charset, content_type_extra)


class ImportUploadHandler(TemporaryFileUploadHandler):
    """Every uploaded file goes to disk a chunk at a time, whatever its size: an import is never held in memory."""

    def new_file(self, *args, **kwargs):
        super(TemporaryFileUploadHandler, self).new_file(*args, **kwargs)
        self.file = ImportUploadedFile(self.file_name, self.content_type, 0, self.charset, self.content_type_extra)


def import_upload_handlers(request) -> list:
    """The upload handlers of the import views: set on the request before its body is read."""
    return [ImportUploadHandler(request)]


# --- Creating and queueing ---

def job_folder(job_id: int) -> Path:
    return Path(settings.IMPORT_ROOT) / f"job-{job_id}"


def import_job_create(*, campaign: Campaign, user, fmt: str, files: list, **parameters) -> ImportJob:
    """A job importing the uploaded FILES into CAMPAIGN with the import's PARAMETERS (import_run's), queued for a
    worker (after commit); the files are moved into the job's folder. Raises ImportRequestError (or ImportDataError
    for a file over the size limit) for an import that cannot be served, before anything is stored;
    ImportQueueError, after marking the job failed, when the broker is unreachable. Must not be called inside an
    outer transaction."""
    # Only the parameters given are stored (a flag only when set), as a job's parameters were before a parameter
    # existed.
    parameters = {name: value for name, value in parameters.items() if Parameter.given(value)}
    names = uploads_check(files)
    import_request_check(campaign=campaign, fmt=fmt, paths=[Path(name) for name in names], **parameters)
    folder = None
    try:
        with transaction.atomic():
            # Under the campaign's row lock: a job that ends at the same moment must see this one (and queue it),
            # or this one must see it has ended (and queue itself).
            Campaign.objects.select_for_update().get(pk=campaign.pk)
            job = ImportJob.objects.create(
                campaign=campaign, created_by=user if user and user.is_authenticated else None, format=fmt,
                parameters=parameters,
                files=[{"name": name, "size": upload.size} for name, upload in zip(names, files)],
                bytes_total=sum(upload.size for upload in files),
            )
            folder = job_folder(job.id)
            shutil.rmtree(folder, ignore_errors=True)  # left by a job of a database since replaced: ids are fresh
            (folder / FILES).mkdir(parents=True)
            for upload, name in zip(files, names):
                upload_store(upload, folder / FILES / name)
            waiting = ImportJob.objects.filter(campaign=campaign, status__in=ACTIVE_IMPORT_STATUSES).exclude(pk=job.pk)
            if not waiting.exists():
                transaction.on_commit(lambda: _job_publish(job_id=job.id))
    except BaseException:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    job.refresh_from_db()
    return job


def _job_publish(*, job_id: int) -> None:
    """Queue the job's task; an unreachable broker fails the job (and raises ImportQueueError): never run inline."""
    try:
        import_job_run.apply_async(args=(job_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except (KombuError, OSError) as exc:
        message = f"could not queue the import: the Celery broker is unreachable ({exc}); start it and upload again"
        logger.error("import job %s: %s", job_id, message)
        _job_fail(job_id=job_id, message=message)
        raise ImportQueueError(message) from exc


def _job_fail(*, job_id: int, message: str, figures: dict | None = None) -> None:
    ImportJob.objects.filter(pk=job_id, status__in=ACTIVE_IMPORT_STATUSES).update(
        status=ImportStatus.FAILED, error=message, finished_at=timezone.now(), **(figures or {}))
    shutil.rmtree(job_folder(job_id), ignore_errors=True)


def _next_job_publish(*, campaign_id: int) -> None:
    """Queue the campaign's oldest waiting job, if none of its jobs runs; a broker that cannot be reached fails the
    waiting jobs (each says why), since none of them could start."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign_id).first()
        jobs = ImportJob.objects.filter(campaign_id=campaign_id)
        if jobs.filter(status=ImportStatus.RUNNING).exists():
            return
        waiting = list(jobs.filter(status=ImportStatus.QUEUED).order_by("created_at", "id")
                       .values_list("id", flat=True))
    for job_id in waiting:
        try:
            _job_publish(job_id=job_id)
            return
        except ImportQueueError:
            continue


# --- Running (on a worker) ---

def _progress_write(folder: Path, figures: dict) -> None:
    """Write FIGURES to the job's progress file, whole or not at all (a reader never sees half of it)."""
    partial = folder / (PROGRESS_FILE + ".part")
    try:
        partial.write_text(json.dumps(figures), encoding="utf-8")
        os.replace(partial, folder / PROGRESS_FILE)
    except OSError:  # the folder is gone: the job ended under us; progress is only for the page
        pass


def _job_claim(*, job_id: int) -> tuple[ImportJob, bool] | None:
    """(the job, marked running; whether it may import): None when it is gone, has ended, or another job of its
    campaign runs (it is queued again when that one ends). Each claim of a job not yet imported counts a start on
    its row (one conditional UPDATE, under the campaign's lock); a job already started IMPORT_MAX_STARTS times may
    not import: each earlier start ended with its worker lost (a start that ends, ends the job), and a message
    that kills the worker running it must not go on killing the next one forever (acks_late and
    reject_on_worker_lost hand it back each time)."""
    with transaction.atomic():
        job = ImportJob.objects.filter(pk=job_id).only("campaign_id").first()
        if job is None:
            return None
        Campaign.objects.select_for_update().filter(pk=job.campaign_id).first()
        job = ImportJob.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=job_id)
        if job.status not in ACTIVE_IMPORT_STATUSES:
            return None
        running = ImportJob.objects.filter(campaign_id=job.campaign_id, status=ImportStatus.RUNNING)
        if running.exclude(pk=job.pk).exists():
            return None
        may_import = job.summary is not None or ImportJob.objects.filter(
            pk=job.pk, deliveries__lt=settings.IMPORT_MAX_STARTS).update(deliveries=F("deliveries") + 1) == 1
        if job.status == ImportStatus.QUEUED:
            job.status, job.started_at = ImportStatus.RUNNING, timezone.now()
            job.save(update_fields=["status", "started_at"])
        return job, may_import


def _lost_message(starts: int) -> str:
    return (f"stopped: the import used more memory than allowed, or its worker was lost otherwise: the worker "
            f"running it was killed {starts} times (settings IMPORT_MEMORY_LIMIT, IMPORT_MAX_STARTS); nothing was "
            f"imported, and it is not tried again. Check the file, or split it, and upload it again")


def _memory_message() -> str:
    return (f"stopped: the import used more memory than allowed ({settings.IMPORT_MEMORY_LIMIT:,} bytes, setting "
            f"IMPORT_MEMORY_LIMIT); nothing was imported. Check the file, split it, or raise the limit")


@contextmanager
def import_memory_limited():
    """Run the body with this process's address space capped at what it uses now plus settings.IMPORT_MEMORY_LIMIT
    bytes (RLIMIT_AS, soft limit), restored after: an import that would take more gets MemoryError instead of
    taking the machine (the kernel's OOM killer ends the worker, and the machine's other processes wait on memory).

    Per process, so meant for a prefork worker child, which runs one task at a time: the judges the child runs
    later get its old limit back. Counted from the current size, because a child that loaded a model maps far more
    than it touches. 0 (or a platform without /proc/self/statm) sets no limit."""
    limit = settings.IMPORT_MEMORY_LIMIT
    size = _address_space()
    if not limit or not size:  # no limit asked for, or no size to count it from (not Linux)
        yield
        return
    before = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + limit
    if before[1] != resource.RLIM_INFINITY:
        cap = min(cap, before[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def _address_space() -> int:
    """This process's virtual memory size, in bytes (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


HEARTBEAT_FILE = "heartbeat"
# A running job whose worker has not written its heartbeat for this many beats is shown as stalled.
STALE_BEATS = 6


@contextmanager
def _heartbeat(folder: Path):
    """Touch the job's heartbeat file every settings.IMPORT_HEARTBEAT_SECONDS while the body runs, from a thread of
    its own (the import may spend minutes in one database call): the job page tells a job a worker holds from one
    whose worker is gone. A file, because the import's transaction holds the database."""
    beat = folder / HEARTBEAT_FILE
    stop = threading.Event()

    def touch():
        try:
            beat.touch()
        except OSError:  # the folder is gone: the job ended under us
            pass

    def run():
        while not stop.wait(settings.IMPORT_HEARTBEAT_SECONDS):
            touch()

    touch()
    thread = threading.Thread(target=run, name="import-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def import_job_execute(*, job_id: int) -> None:
    """Run import job JOB_ID: import its files in one transaction that also stores the summary; start the judges'
    runs on the new items when the campaign asks for it (option judge_new_items); end the job; queue the
    campaign's next one. Safe to run twice: an ended job returns at once, and a job whose import was committed
    (its summary stored) before its worker died is only finished, not imported again."""
    claim = _job_claim(job_id=job_id)
    if claim is None:
        return
    job, may_import = claim
    folder = job_folder(job.id)
    try:
        if not may_import:
            logger.error("import job %s: not started again after %s lost workers", job.id, job.deliveries)
            _job_fail(job_id=job.id, message=_lost_message(job.deliveries), figures=_progress_read(folder))
            return
        if job.summary is None:
            try:
                with _heartbeat(folder), import_memory_limited():
                    _job_import(job=job, folder=folder)
            except (ImportDataError, ImportRequestError) as exc:
                _job_fail(job_id=job.id, message=str(exc), figures=_progress_read(folder))
                return
            except MemoryError:
                _job_fail(job_id=job.id, message=_memory_message(), figures=_progress_read(folder))
                return
            except SoftTimeLimitExceeded:
                limit = settings.IMPORT_TIME_LIMIT
                _job_fail(job_id=job.id, figures=_progress_read(folder), message=(
                    f"the import ran past its time limit of {limit:,} seconds (IMPORT_TIME_LIMIT); nothing was "
                    f"imported"))
                return
            except Exception as exc:
                _job_fail(job_id=job.id, figures=_progress_read(folder), message=(
                    f"the import stopped on an unexpected error ({exc.__class__.__name__}: {exc}); nothing was "
                    f"imported"))
                raise
            job.refresh_from_db()
        shutil.rmtree(folder, ignore_errors=True)
        assert job.summary is not None  # the run that just ended stored it
        summary = ImportSummary.from_dict(job.summary)
        job.campaign.refresh_from_db(fields=["options"])
        import_judges_start(campaign=job.campaign, summary=summary, user=job.created_by)
        ImportJob.objects.filter(pk=job.id, status=ImportStatus.RUNNING).update(
            status=ImportStatus.DONE, summary=summary.as_dict(), finished_at=timezone.now())
    finally:
        _next_job_publish(campaign_id=job.campaign_id)


def _job_import(*, job: ImportJob, folder: Path) -> None:
    """The import itself, all or nothing, with the summary stored in the same transaction."""
    progress = ImportProgress(sink=lambda figures: _progress_write(folder, figures))
    with progress_reporting(progress), transaction.atomic():
        # The campaign's row lock serialises this import with any other import into the campaign (import_data
        # included) on databases that lock rows; SQLite's writes are serialised anyway.
        campaign = Campaign.objects.select_for_update().get(pk=job.campaign_id)
        summary = folder_import(campaign=campaign, fmt=job.format, root=folder / FILES,
                                names=[entry["name"] for entry in job.files], **job.parameters)
        ImportJob.objects.filter(pk=job.id).update(summary=summary.as_dict(), rows_read=progress.figures()["rows_read"],
                                                   bytes_read=job.bytes_total)


def _progress_read(folder: Path) -> dict:
    try:
        figures = json.loads((folder / PROGRESS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {key: int(figures[key]) for key in ("rows_read", "bytes_read") if isinstance(figures.get(key), int)}


# --- Reading ---

def import_job_progress(*, job: ImportJob) -> dict:
    """What the job page shows while and after JOB runs: rows and bytes read, of how many, as a percentage."""
    figures = _progress_read(job_folder(job.id)) if job.status == ImportStatus.RUNNING else {}
    rows = figures.get("rows_read", job.rows_read)
    done = job.status == ImportStatus.DONE
    read = job.bytes_total if done else min(figures.get("bytes_read", job.bytes_read), job.bytes_total)
    percent = 100 if done or not job.bytes_total else min(100, int(100 * read / job.bytes_total))
    return {"rows_read": rows, "bytes_read": read, "bytes_total": job.bytes_total, "percent": percent}


def import_job_state(*, job: ImportJob) -> str:
    """What to call JOB on its page and in the API: its status, except that a running job whose worker has not
    beaten its heartbeat for STALE_BEATS beats (nor started it that long ago) is "stalled": no worker holds it
    (its worker died, or was stopped; the next start of its message either runs it again or fails it)."""
    if job.status != ImportStatus.RUNNING:
        return job.status
    seen = _heartbeat_seen(job)
    if seen is None:
        return ImportStatus.RUNNING
    stale = timedelta(seconds=STALE_BEATS * settings.IMPORT_HEARTBEAT_SECONDS)
    return "stalled" if timezone.now() - seen > stale else ImportStatus.RUNNING


def _heartbeat_seen(job: ImportJob) -> datetime | None:
    """When a worker last showed it holds JOB: its heartbeat file's time, else the job's start."""
    try:
        return datetime.fromtimestamp(os.stat(job_folder(job.id) / HEARTBEAT_FILE).st_mtime, tz=UTC)
    except OSError:
        return job.started_at


def import_jobs_recent(*, campaign: Campaign, limit: int = 10) -> list[ImportJob]:
    """The campaign's latest jobs, newest first, each with `state` set (import_job_state)."""
    jobs = list(ImportJob.objects.filter(campaign=campaign).select_related("campaign", "created_by")[:limit])
    for job in jobs:
        job.state = import_job_state(job=job)  # type: ignore[attr-defined]  # for the page, not a field
    return jobs


# --- The Celery task (named for interchange.tasks, where workers find it: settings.CELERY_TASK_ROUTES) ---


@shared_task(name="interchange.tasks.import_job_run", acks_late=True, soft_time_limit=settings.IMPORT_TIME_LIMIT,
             time_limit=settings.IMPORT_TIME_LIMIT + 60)
def import_job_run(job_id: int) -> None:
    """Run import job JOB_ID (interchange.jobs.import_job_execute); a second delivery of an ended job does nothing."""
    import_job_execute(job_id=job_id)
