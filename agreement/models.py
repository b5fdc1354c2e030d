"""The stored agreement report: the last report built for a campaign, and the lock of the build running now.

One row per campaign. A report is current while its `version` equals the campaign's data version
(annotate.models.CampaignDataVersion); opening a current report reads this row instead of the judgments (a 1M-judgment
report builds in seconds). Writes go through agreement.stored.
"""

from django.db import models

from annotate.models import Campaign


class StoredReport(models.Model):
    campaign = models.OneToOneField(Campaign, primary_key=True, on_delete=models.CASCADE, related_name="stored_report")
    version = models.BigIntegerField(
        null=True, blank=True,
        help_text="The campaign data version the stored report was built from; null until the first build.")
    # zlib of the JSON bytes: the rows shrink 3-5 fold, and inflating costs under 0.1 ms a read (bench/bench_reports.py,
    # README "Stored reports"); a ranking report's per-topic blocks make documents of megabytes.
    document = models.BinaryField(null=True, blank=True, help_text="zlib-compressed JSON of the report document.")
    schema = models.PositiveIntegerField(
        default=0,
        help_text="The report schema (agreement.stored.REPORT_SCHEMA) of the code that built the document; a document "
                  "of another schema is built again before it is shown. 0: built before schemas were recorded.")
    extras = models.BinaryField(
        null=True, blank=True,
        help_text="zlib-compressed JSON of what the page and downloads show beside the document: the plots' inline "
                  "SVG by name and, for graded reports, the qrels by source.")
    built_at = models.DateTimeField(null=True, blank=True)
    build_seconds = models.FloatField(null=True, blank=True, help_text="Seconds the stored report took to build.")
    building_version = models.BigIntegerField(
        null=True, blank=True, help_text="The data version a build running now reads; null when none runs.")
    building_since = models.DateTimeField(
        null=True, blank=True,
        help_text="When the running build took the lock; a lock older than agreement.stored.BUILD_TIMEOUT may be "
                  "taken over (its worker died).")
    building_step = models.CharField(
        max_length=40, blank=True,
        help_text="The step the running build is at (agreement.build_steps: humans, judges, system level...), for the "
                  "page that waits on a first build; empty when none runs.")
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When a background rebuild was queued and not yet started.")
    queue_error = models.TextField(blank=True, help_text="Why the last rebuild could not be queued; empty when it was.")
    failed_version = models.BigIntegerField(
        null=True, blank=True,
        help_text="The data version whose build failed; null once a build succeeds. Opens at that version queue no "
                  "other build (it would fail the same way): the next change of the campaign's data tries again.")
    build_error = models.TextField(
        blank=True, help_text="Why the last build failed (the exception's type and message); empty once one succeeds.")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(building_version__isnull=True, building_since__isnull=True)
                | models.Q(building_version__isnull=False, building_since__isnull=False),
                name="stored_report_lock_whole"),
        ]

    def __str__(self):
        return f"{self.campaign_id} report v{self.version}"
