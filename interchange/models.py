"""Import jobs: an upload waiting for, or being imported by, a worker (interchange.jobs, interchange.tasks)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Campaign


class ImportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


ACTIVE_IMPORT_STATUSES = (ImportStatus.QUEUED, ImportStatus.RUNNING)


class ImportJob(models.Model):
    """One upload of the import page or the REST API, imported in the background, all or nothing.

    The files wait in the job's folder under settings.IMPORT_ROOT and are deleted when the job ends. While it runs,
    its progress is in that folder too (the import's transaction holds the database); rows_read and bytes_read
    are written here when it ends.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    format = models.CharField(max_length=32)
    parameters = models.JSONField(default=dict, blank=True,
                                  help_text="The import's options as given: system, judge, score_judge, depth, tag.")
    files = models.JSONField(default=list, blank=True,
                             help_text='The uploaded files as their sender named them: [{"name", "size"}], sizes in '
                                       "bytes.")
    bytes_total = models.PositiveBigIntegerField(default=0, help_text="The uploaded files' sizes added up, in bytes.")
    status = models.CharField(max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    rows_read = models.PositiveBigIntegerField(default=0, help_text="Lines or records read, when the job ended.")
    bytes_read = models.PositiveBigIntegerField(default=0, help_text="Bytes of the files read, when the job ended.")
    summary = models.JSONField(null=True, blank=True, help_text="The import's summary (ImportSummary.as_dict()).")
    error = models.TextField(blank=True, help_text="Why the import failed: `file:line: field: what is wrong`.")
    deliveries = models.PositiveSmallIntegerField(
        default=0, help_text="How many times a worker has started this job. A start after a worker was lost running it "
                             "counts again; past settings.IMPORT_MAX_DELIVERIES the job fails instead of running.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tasktypes_importjob"  # made by tasktypes' migrations, before imports had an app of their own
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "status"], name="import_job_campaign_status")]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["queued", "running", "done", "failed"]),
                                   name="import_job_status"),
            # A campaign's imports run one after the other: never two at once.
            models.UniqueConstraint(fields=["campaign"], condition=Q(status="running"),
                                    name="import_job_one_running"),
        ]

    def __str__(self):
        return f"import {self.id} ({self.format}) into {self.campaign_id}: {self.status}"

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_IMPORT_STATUSES
