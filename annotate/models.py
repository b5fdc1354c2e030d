"""Campaigns, their topics and items, the units of human work, assignments and human judgments.

The schema is shared by every task type. What differs between them lives in JSON fields
(`Topic.data`, `Item.data`, `HumanJudgment.value`) and in the task type's form and statistics,
never in new tables.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from annotate.task_types.registry import UnknownTaskType, task_type_get


def task_type_known(name: str) -> None:
    """A campaign's task type is a name the registry knows (annotate.task_types.registry): a new task type is a package
    and its registration, with no migration."""
    try:
        task_type_get(name)
    except UnknownTaskType as exc:
        raise ValidationError(str(exc)) from None


class Role(models.TextChoices):
    RESEARCHER = "researcher", "Researcher"
    ANNOTATOR = "annotator", "Annotator"
    # Gives the verdict that settles a unit where humans, or humans and judges, disagree
    # (annotate.services.adjudication);
    # sees every verdict on the units of the adjudication queue, so the blind rules do not bind them there.
    ADJUDICATOR = "adjudicator", "Adjudicator"


class CampaignQuerySet(models.QuerySet):
    def for_user(self, user):
        """Campaigns the user may open: those they are a member of, in any role."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.of_member(user.pk)

    def of_member(self, user_id: int):
        """Campaigns user USER_ID is a member of, in any role."""
        return self.filter(memberships__user=user_id).distinct()

    def researched_by(self, user):
        """Campaigns the user may manage (import, run judges, read reports)."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(memberships__user=user, memberships__role=Role.RESEARCHER).distinct()


class Campaign(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    task_type = models.CharField(max_length=32, validators=[task_type_known])
    description = models.TextField(blank=True)
    overlap = models.PositiveSmallIntegerField(
        default=1, help_text="How many different humans judge each unit (k)."
    )
    options = models.JSONField(
        default=dict, blank=True, help_text="Task-type options, e.g. dimensions for answer ranking."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    development_split = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text="The split of its items into a development and a held-out part for judge development, as made "
        "(judges.development: held_out, seed, stratify, made_at, made_by); null: none. Items carry their part.",
    )

    objects = CampaignQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(overlap__gte=1), name="campaign_overlap_positive"),
        ]

    def __str__(self):
        return self.slug

    @property
    def task_type_label(self) -> str:
        """What the pages call the campaign's task type (its spec's label; the name for a type no package registers)."""
        try:
            return task_type_get(self.task_type).label
        except UnknownTaskType:
            return self.task_type


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    arm = models.CharField(
        max_length=120, blank=True, default="", db_default="",
        help_text="An annotator's arm of the campaign's assistance experiment (option arms), fixed once given: by the "
                  "researcher, or at their first lease (random or balanced). Empty: none given yet, or no experiment.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user", "role"], name="membership_unique"),
        ]


class Topic(models.Model):
    """A query, question or text section that items are judged against."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics")
    external_id = models.CharField(max_length=200, help_text="The id the data uses (qid, question number).")
    text = models.TextField(help_text="The query or question as shown to annotators.")
    data = models.JSONField(
        default=dict, blank=True, help_text="Task-type fields, e.g. gold answers or page and section context."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "external_id"], name="topic_unique_external_id"),
        ]

    def __str__(self):
        return f"{self.campaign_id}:{self.external_id}"


# An item's category is a short label, not a description: long enough for "stale reference" or "inexact match".
CATEGORY_MAX_LENGTH = 100


class Item(models.Model):
    """One thing to judge for a topic: a candidate answer, a document, an image, an attributed answer."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="items")
    # Room for `<qid>/<doc id>` with both ids as long as a topic's (200 characters each): graded items are named so.
    external_id = models.CharField(max_length=401, help_text="The item's id in the campaign, e.g. `<qid>/<doc id>`.")
    kind = models.CharField(max_length=32, default="answer", help_text="answer, document, image, ...")
    text = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True, help_text="Task-type fields, e.g. evidence passage.")
    split = models.CharField(
        max_length=12, blank=True, default="", db_default="",
        choices=[("", "none"), ("development", "development"), ("held_out", "held out")],
        help_text="Its part of the campaign's development split (judges.development); empty without one.",
    )
    category = models.CharField(
        max_length=CATEGORY_MAX_LENGTH, blank=True, default="", db_default="",
        help_text="The researcher's kind of item (e.g. semantic, symbolic, granularity), which the agreement report "
                  "breaks down by (agreement.report_categories); empty: none given. Set by an import or by the "
                  "researcher or an adjudicator (annotate.services.items.item_category_set).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "external_id"], name="item_unique_external_id"),
        ]
        indexes = [
            models.Index(fields=["topic", "kind"], name="item_topic_kind"),
            # Every report asks whether any item of the campaign has a category (reports.selectors.
            # item_categories_get), and the Items page filters and counts by it: without this, a campaign of millions
            # of items would be read whole to answer "none".
            models.Index(fields=["campaign", "category"], name="item_campaign_category"),
        ]

    def __str__(self):
        return f"{self.campaign_id}:{self.external_id}"


class SystemOutput(models.Model):
    """A system's answer (or retrieved item) for a topic, pointing at the item that holds it.

    Several systems may give the same answer, so many outputs can share one item; a system's
    score under humans or a judge is read through the item's judgments.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="system_outputs")
    system = models.CharField(max_length=200)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="system_outputs")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="system_outputs")
    rank = models.PositiveIntegerField(null=True, blank=True, help_text="Rank in a run, 1 = first.")
    score = models.FloatField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True, help_text="e.g. the raw prediction, prompt, sample.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "system", "topic", "item"], name="system_output_unique"),
        ]
        indexes = [models.Index(fields=["campaign", "system"], name="system_output_campaign_system")]


class Unit(models.Model):
    """The unit of human work: one item (grading tasks) or a whole topic (ranking tasks).

    `judgments_done` counts current human judgments from distinct annotators; it only moves
    under a row lock (see annotate.services), never by read-modify-write.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="units")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="units")
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.CASCADE, related_name="units")
    judgments_needed = models.PositiveSmallIntegerField(
        help_text="The campaign's overlap k: set when the unit is made, and again on every unit when a researcher "
                  "changes k (annotate.services.campaigns.campaign_update)."
    )
    judgments_done = models.PositiveSmallIntegerField(default=0)
    position = models.PositiveIntegerField(default=0, help_text="Queue order within the campaign.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "topic", "item"], name="unit_unique_target"),
            models.UniqueConstraint(
                fields=["campaign", "topic"], condition=Q(item__isnull=True), name="unit_unique_topic_target"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "judgments_done", "position"], name="unit_queue"),
            # The queue itself: the units that still need judgments, in order. Leasing the next unit and counting
            # what is left walk this index from the front, so they cost the same for a thousand or a million units.
            models.Index(fields=["campaign", "position", "id"], name="unit_open_queue",
                         condition=Q(judgments_done__lt=F("judgments_needed"))),
        ]


class CampaignGuidelines(models.Model):
    """One version of a campaign's guidelines for annotators, in Markdown. An edit adds a version; none is changed.

    The highest version is the current one; every judgment made in Concord records the version it was made under.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="guidelines_versions")
    version = models.PositiveIntegerField(help_text="1 for the first text, one more for each edit.")
    text = models.TextField(blank=True, help_text="Markdown; shown rendered without raw HTML and cleaned "
                                                  "(annotate.guidelines).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "version"], name="guidelines_version_unique"),
            models.CheckConstraint(condition=Q(version__gte=1), name="guidelines_version_positive"),
        ]

    def __str__(self):
        return f"{self.campaign_id} v{self.version}"


class CampaignDataVersion(models.Model):
    """The version of everything a campaign's report reads: one more at each judgment, import or option change.

    A row of its own rather than a column of Campaign: every write bumps it as the last statement of its
    transaction (annotate.services.data_version), and the lease path locks the campaign row; two rows keep the two
    from waiting on each other. A stored report (agreement.models.StoredReport) is current while its version is this.
    """

    campaign = models.OneToOneField(Campaign, primary_key=True, on_delete=models.CASCADE, related_name="data_version")
    version = models.BigIntegerField(default=1, help_text="One more at each change of the campaign's data.")
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.campaign_id} data v{self.version}"


class LabelPlan(models.Model):
    """The sample of topics the annotation queue follows (option queue_order "sample"; annotate.services.label_plan):
    drawn once by the campaign's plan (option ppi_plan) by sequential Poisson sampling, each topic with its weight
    (its inclusion probability at any budget is the weights scaled to that budget, capped at 1) and its key
    (a uniform draw over its weight); the queue offers topics by key, lowest first, so that the first n topics
    labelled are a sample of n drawn by the plan. The report weights each labelled topic by 1 / its probability
    (reports.ppi)."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="label_plan")
    plan = models.CharField(max_length=20, help_text="The plan the sample was drawn by (option ppi_plan).")
    seed = models.BigIntegerField(help_text="The seed of the keys' uniform draws.")
    # [[topic id, topic external id, weight, key], ...] in the queue's order (keys ascending).
    topics = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.campaign_id} label plan {self.plan}"


class AssignmentStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SUBMITTED = "submitted", "Submitted"
    EXPIRED = "expired", "Expired"


class Assignment(models.Model):
    """An annotator's lease on a unit. Active leases and submissions together never exceed k."""

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.ACTIVE)
    leased_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    draft = models.JSONField(
        null=True,
        blank=True,
        help_text="Unsubmitted work in progress (e.g. a ranking being arranged), restored when the page shows the "
        "unit again; cleared when the first judgment is submitted.",
    )
    arm = models.CharField(
        max_length=120,
        blank=True,
        default="",
        db_default="",
        help_text='The assistance arm this lease was made in ("blind", "assisted:JUDGE"); empty outside experiments.',
    )
    suggestion = models.JSONField(
        null=True, blank=True,
        help_text="In an assisted arm: the value the judge's verdict stands for, fixed when the unit was leased and "
                  "shown pre-selected; null when blind or when the judge has no verdict on the unit.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["unit", "annotator"], name="assignment_one_per_annotator"),
        ]
        indexes = [
            models.Index(fields=["annotator", "status"], name="assignment_annotator_status"),
            models.Index(fields=["unit", "status"], name="assignment_unit_status"),
        ]


class JudgmentSource(models.TextChoices):
    WEB = "web", "Made in Concord"
    IMPORT = "import", "Imported"


class JudgmentKind(models.TextChoices):
    ANNOTATION = "annotation", "Annotation"
    ADJUDICATION = "adjudication", "Adjudicated verdict"


class HumanJudgment(models.Model):
    """One person's judgment of a unit. An edit adds a new version; the old row stays, not current."""

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments")
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=16, choices=JudgmentKind.choices, default=JudgmentKind.ANNOTATION)
    source = models.CharField(max_length=16, choices=JudgmentSource.choices, default=JudgmentSource.WEB)
    value = models.JSONField(help_text="The form's answer, e.g. {'correct': true} or a ranking of item ids.")
    label = models.CharField(
        max_length=64, blank=True, help_text="The value reduced to one categorical label for agreement, e.g. 'yes'."
    )
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    submission = models.CharField(
        max_length=64, blank=True, default="", db_default="",  # db_default: bulk inserts name no value
        help_text="The annotation page's own id for the verdict that made this version (empty for imports, scripts and "
                  "adjudications): a resend of it, after its answer was lost, finds it and records nothing twice.",
    )
    guidelines = models.ForeignKey(
        CampaignGuidelines, null=True, blank=True, on_delete=models.RESTRICT, related_name="+",
        help_text="The campaign's guidelines when this judgment was made; empty for imported judgments and for those "
                  "made before the campaign had guidelines.",
    )
    note = models.TextField(
        blank=True, default="", db_default="", help_text="The adjudicator's note beside an adjudicated verdict."
    )
    arm = models.CharField(
        max_length=120, blank=True, default="", db_default="",
        help_text="The assistance arm the judgment was made in (\"blind\", \"assisted:JUDGE\"); empty outside "
                  "experiments, for imports and for adjudications.",
    )
    suggestion = models.JSONField(
        null=True, blank=True,
        help_text="The value the annotator was shown pre-selected (assisted arms); null when none was shown.",
    )
    seconds = models.FloatField(
        null=True, blank=True,
        help_text="Seconds from the lease of the unit to this judgment's first version (made in the browser or the "
                  "API); null for imports, adjudications and later versions.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["unit", "annotator", "kind"], condition=Q(is_current=True), name="judgment_one_current"
            ),
            models.UniqueConstraint(fields=["unit", "annotator", "kind", "version"], name="judgment_version_unique"),
        ]
        indexes = [
            models.Index(fields=["annotator", "is_current", "created_at"], name="judgment_annotator_recent"),
            # The report reads a campaign's current adjudications apart from its million annotations: without this
            # index that is a look at every judgment of the campaign (0.2 s at 1,000,000 on SQLite), with it a probe
            # per unit into a list of adjudications only.
            models.Index(fields=["unit"], condition=Q(kind="adjudication", is_current=True),
                         name="judgment_adjudication_current"),
        ]


class TaskStart(models.Model):
    """A Celery message being run, and how many times a worker has started it (annotate.services.task_starts).

    A message that kills the worker running it (out of memory, a crash in native code) comes back to the queue each
    time (acks_late; reject_on_worker_lost for judge and probe batches); its row counts those starts, so that the
    start after settings.TASK_MAX_STARTS lost ones fails with a reason instead of killing the next worker. The row is
    deleted when a start ends, in whatever way: one that remains belongs to a start that lost its worker."""

    key = models.CharField(max_length=200, unique=True,
                           help_text="The message: its Celery task id and retry number ('<id>:<retries>').")
    task = models.CharField(max_length=100, help_text="The task's name, for the admin and the logs.")
    starts = models.PositiveIntegerField(default=0, help_text="How many times a worker has started this message.")
    first_started_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.task} {self.key}: {self.starts} start(s)"
