"""Model judges: a judge is a versioned virtual annotator, identified by the hash of its configuration."""

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.db.models import Q

from annotate.models import Campaign, Item
from judges.families.base import EXTERNAL_FAMILY


class KeySource(models.TextChoices):
    NONE = "none", "No key (a local server)"
    ENV = "env", "An environment variable of the workers"
    STORED = "stored", "A key stored encrypted in the database"


class ModelEndpointQuerySet(models.QuerySet):
    def usable(self, *, campaign: Campaign, user=None) -> "ModelEndpointQuerySet":
        """Enabled endpoints that judges of CAMPAIGN may call when USER starts them: granted to every campaign,
        to CAMPAIGN, or to a group USER belongs to. A superuser (an operator) may use every enabled endpoint."""
        enabled = self.filter(enabled=True)
        if user is not None and user.is_superuser:
            return enabled
        grant = Q(all_campaigns=True) | Q(campaigns=campaign)
        if user is not None and user.is_authenticated:
            grant |= Q(groups__user=user)
        return enabled.filter(grant).distinct()


class ModelEndpoint(models.Model):
    """An OpenAI-compatible server that staff registered for the llm and vlm judges (the trust boundary).

    A researcher picks an endpoint by name; the judge's configuration stores that name and nothing else of
    it. Where the server is, which key it gets and from where, and who may call it are staff's to say: a
    researcher can neither send a worker's secret to a host of their choosing nor point a worker at an
    internal address.
    """

    name = models.SlugField(max_length=64, unique=True, help_text="What researchers write in a judge's endpoint.")
    base_url = models.CharField(max_length=500, help_text="The server's base URL, e.g. http://gpu1:8000/v1.")
    model_ids = models.JSONField(
        default=list, blank=True,
        help_text="Model ids the server serves (its /v1/models ids); a judge must name one. Empty: any.",
    )
    key_source = models.CharField(max_length=8, choices=KeySource.choices, default=KeySource.NONE)
    key_env = models.CharField(
        max_length=100, blank=True,
        help_text="key_source env: the name of the workers' environment variable that holds the key.",
    )
    key_encrypted = models.TextField(
        blank=True, help_text="key_source stored: the key, encrypted (judges.crypto); never shown again.",
    )
    max_concurrency = models.PositiveIntegerField(default=4, help_text="Most requests in flight per batch.")
    price_per_1k_prompt_tokens = models.FloatField(default=0.0, help_text="For the cost the judge panel shows.")
    price_per_1k_completion_tokens = models.FloatField(default=0.0)
    all_campaigns = models.BooleanField(default=False, help_text="Every campaign's researchers may use it.")
    campaigns = models.ManyToManyField(Campaign, blank=True, related_name="model_endpoints",
                                       help_text="Campaigns whose researchers may use it.")
    groups = models.ManyToManyField(Group, blank=True, related_name="model_endpoints",
                                    help_text="Groups whose members may use it on any campaign they research.")
    enabled = models.BooleanField(default=True, help_text="Off: no judge may call it (runs using it fail).")
    show_bodies = models.BooleanField(
        default=False,
        help_text="Debugging: failures of judges using it quote the first 200 characters of what the server answered "
                  "(error pages, malformed replies), where every researcher it is granted to reads them. Off: a "
                  "failure says only the status code, content type and size.",
    )
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ModelEndpointQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(key_source__in=["none", "env", "stored"]), name="endpoint_key_source"),
            models.CheckConstraint(condition=~Q(key_source="env") | ~Q(key_env=""), name="endpoint_env_named"),
            models.CheckConstraint(condition=~Q(key_source="stored") | ~Q(key_encrypted=""),
                                   name="endpoint_key_stored"),
            models.CheckConstraint(condition=Q(max_concurrency__gte=1), name="endpoint_concurrency_positive"),
            models.CheckConstraint(
                condition=Q(price_per_1k_prompt_tokens__gte=0) & Q(price_per_1k_completion_tokens__gte=0),
                name="endpoint_prices_not_negative",
            ),
        ]

    def __str__(self):
        return self.name


class Judge(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="judges")
    name = models.CharField(max_length=100)
    family = models.CharField(max_length=32, help_text="em, f1, llm, ... or 'external' for imported verdicts.")
    config = models.JSONField(default=dict, blank=True)
    config_hash = models.CharField(
        max_length=64, help_text="sha256 of the family and canonical JSON configuration: the judge's identity."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    final_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When the researcher marked it final (judges.development): from then on the report reads it on the "
                  "held-out part of the campaign's development split, and every other judge on the development part.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="judge_unique_name"),
            models.UniqueConstraint(fields=["campaign", "config_hash"], name="judge_unique_config"),
        ]

    def __str__(self):
        return self.name

    @property
    def is_external(self) -> bool:
        """Whether its verdicts were imported (no family module runs it): what pages and reports ask, never its
        family's name."""
        return self.family == EXTERNAL_FAMILY


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_RUN_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)


class JudgeRun(models.Model):
    """One request to judge a campaign's items. Progress is the count of the judge's judgments."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="Items the run must cover.")
    batch_size = models.PositiveIntegerField(default=64)
    sample_item_ids = models.JSONField(
        null=True, blank=True,
        help_text="The items of a run on a sample (pilots, ablations): ids chosen by a fixed hash, so the same for "
                  "every judge. Null: every item of the campaign.",
    )
    new_items = models.BooleanField(
        default=False,
        help_text="A run on the items its judge had not judged when it started (after an import: the judge page's "
                  "'judge new items', or the campaign option judge_new_items); sample_item_ids holds them.",
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # What the run's forward passes cost (judges.families.batching.BatchMeter), added by each batch with the verdicts
    # it stores. Families that make no forward passes (em, f1, bm25, an llm over HTTP) leave them 0.
    pairs_metered = models.PositiveBigIntegerField(default=0, help_text="Pairs scored in metered forward passes.")
    tokens = models.PositiveBigIntegerField(default=0, help_text="Real tokens of those pairs.")
    padded_tokens = models.PositiveBigIntegerField(
        default=0, help_text="Tokens the passes computed: each pass's rows times its longest row.")
    model_seconds = models.FloatField(default=0.0, help_text="Seconds spent inside forward passes.")

    class Meta:
        constraints = [
            # One live run per judge: two would race for the same items.
            models.UniqueConstraint(
                fields=["judge"], condition=Q(status__in=["queued", "running"]), name="judge_run_one_active"
            ),
        ]


class ModelJudgment(models.Model):
    """A judge's verdict on an item. Unique per (judge, item): a judge never judges an item twice."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="judgments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="model_judgments")
    run = models.ForeignKey(JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="judgments")
    score = models.FloatField(null=True, blank=True)
    label = models.CharField(max_length=64, blank=True, help_text="Categorical verdict, e.g. 'yes'; empty if failed.")
    raw = models.TextField(blank=True, help_text="The model's raw output, or the imported verdict text.")
    failed = models.BooleanField(default=False, help_text="True when no verdict could be read; raw says why.")
    fallback_label = models.CharField(
        max_length=64, blank=True, default="",
        help_text="Beside a failed imported verdict: the label its file gave in a column of its own (NQ301's "
                  "Acceptable?). Read only by the counting rule of the study that made the file (qa-eval).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "item"], name="model_judgment_unique"),
        ]


# The longest model id a sample keeps of what the server reported.
SERVED_MODEL_CHARS = 200


class LLMSample(models.Model):
    """One generated sample of an LLM judge for an item: the cache that makes reruns continue.

    Unique per (judge, item, index): a sample that exists is never asked for again, so a run that died
    mid-batch resumes with what it had, and a configuration's n samples cost their tokens once.
    """

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="llm_samples")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+")
    index = models.PositiveIntegerField(help_text="0-based sample number; with sampling its seed is seed + index.")
    text = models.TextField()
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    seconds = models.FloatField(default=0.0, help_text="Generation time spent on this sample.")
    run = models.ForeignKey(JudgeRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                            help_text="The run that asked for it.")
    served_model = models.CharField(
        max_length=SERVED_MODEL_CHARS,
        blank=True,
        default="",
        help_text="The model id the server reported answering with; empty for local models.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "item", "index"], name="llm_sample_unique"),
        ]


class Leaderboard(models.Model):
    """A system-level judgment computed elsewhere: an automatic judge's leaderboard (TREC AutoJudge), each run's
    measures per topic and/or their mean, imported as the judge NAME of a graded campaign (format
    trec-leaderboard). The report sets its run orders beside the human (consensus) leaderboard's. Importing the
    same name again replaces it (a judge rerun elsewhere sends its new leaderboard)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="leaderboards")
    name = models.CharField(max_length=100, help_text="The judge whose leaderboard this is (--judge NAME).")
    source = models.CharField(max_length=255, blank=True, help_text="The file it was imported from.")
    imported_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="leaderboard_unique_name")]

    def __str__(self):
        return self.name


class LeaderboardValue(models.Model):
    """One line of a leaderboard: RUN's MEASURE on TOPIC, or its mean over topics when TOPIC is "all"."""

    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="values")
    run = models.CharField(max_length=200, help_text="A run of the campaign (its trec-run tag).")
    measure = models.CharField(max_length=32, help_text="The report's key of the measure (ndcg_cut_10, map, ...).")
    topic = models.CharField(max_length=200, help_text='A topic id of the campaign, or "all" for the mean.')
    value = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["leaderboard", "run", "measure", "topic"],
                                               name="leaderboard_value_unique")]


class Probe(models.Model):
    """A robustness probe: a copy of one of the campaign's items changed so that a sound judge keeps its verdict
    (query words stuffed into a passage, a sentence claiming relevance or correctness appended, the two responses of a
    pair swapped: tasktypes.probes). Probes live apart from the items: no statistic, export or queue but the probes'
    own report reads them."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="probes")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="probes", help_text="The item it copies.")
    kind = models.CharField(max_length=32, help_text="stuffing, instruction or swap (tasktypes.probes.KINDS).")
    text = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "kind"], name="probe_unique_item_kind"),
        ]
        indexes = [models.Index(fields=["campaign", "kind"], name="probe_campaign_kind")]


class ProbeVerdict(models.Model):
    """A judge's verdict on a probe, as ModelJudgment is on an item. Unique per (judge, probe)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="probe_verdicts")
    probe = models.ForeignKey(Probe, on_delete=models.CASCADE, related_name="verdicts")
    score = models.FloatField(null=True, blank=True)
    label = models.CharField(max_length=64, blank=True)
    raw = models.TextField(blank=True)
    failed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "probe"], name="probe_verdict_unique"),
        ]
