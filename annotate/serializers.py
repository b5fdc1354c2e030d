"""REST API serializers for campaigns, items and imports. Thin: shapes only; the work is in services."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotate.importers.service import formats
from annotate.models import Campaign, Item


class CampaignSerializer(serializers.ModelSerializer):
    class Meta:
        model = Campaign
        fields = ["slug", "name", "task_type", "description", "overlap", "created_at"]


class CampaignCountsSerializer(serializers.Serializer):
    topics = serializers.IntegerField()
    items = serializers.IntegerField()
    systems = serializers.IntegerField()
    units = serializers.IntegerField()
    units_complete = serializers.IntegerField()
    units_waiting = serializers.IntegerField()
    human_judgments = serializers.IntegerField()
    annotators = serializers.IntegerField()


class CampaignDetailSerializer(CampaignSerializer):
    is_researcher = serializers.BooleanField(help_text="Whether you manage this campaign.")
    counts = CampaignCountsSerializer(allow_null=True, help_text="Researchers only; null for annotators.")

    class Meta(CampaignSerializer.Meta):
        fields = [*CampaignSerializer.Meta.fields, "is_researcher", "counts"]


class ItemSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.external_id", help_text="The topic's external id.")
    topic_text = serializers.CharField(source="topic.text")
    systems = serializers.SerializerMethodField(help_text="Systems whose output is this item.")

    class Meta:
        model = Item
        fields = ["id", "external_id", "topic", "topic_text", "kind", "text", "data", "systems"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_systems(self, item) -> list[str]:
        return sorted({output.system for output in item.system_outputs.all()})


class ImportRequestSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=[])
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)
    system = serializers.CharField(required=False, allow_blank=True, max_length=200)
    judge = serializers.CharField(required=False, allow_blank=True, max_length=100)
    score_judge = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                        help_text="label-studio: import the items' scores as this external judge.")
    depth = serializers.IntegerField(required=False, min_value=1,
                                     help_text="trec-run into image_relevance: pool depth per run (default 25).")
    tag = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                help_text="trec-run into image_relevance: a tag for these runs, e.g. clip-based.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = list(formats())  # every task type's formats (annotate.task_types)


class ImportSummarySerializer(serializers.Serializer):
    campaign = serializers.CharField()
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    topics_created = serializers.IntegerField()
    items_created = serializers.IntegerField()
    system_outputs_created = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.CharField())
    human_judgments_created = serializers.IntegerField()
    model_judgments_created = serializers.DictField(child=serializers.IntegerField())
    units_created = serializers.IntegerField()
    duplicate_rows = serializers.IntegerField()
    judge_rows_matched_by_position = serializers.IntegerField()
    topics = serializers.IntegerField()
    items = serializers.IntegerField()
    items_with_human_verdict = serializers.IntegerField()
    items_by_judge = serializers.DictField(child=serializers.IntegerField())
    failed_by_judge = serializers.DictField(child=serializers.IntegerField())
    items_left_for_humans = serializers.IntegerField()
    task_type = serializers.CharField()
    answers_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    rankings_created = serializers.IntegerField()
    rankings_already_there = serializers.IntegerField()
    annotations_cancelled = serializers.IntegerField()
    qrels_added = serializers.IntegerField()
    answers = serializers.IntegerField()
    documents = serializers.IntegerField()
    rankings = serializers.IntegerField()
    topics_ranked = serializers.IntegerField()
    rows_read = serializers.IntegerField()
    rated_rows = serializers.IntegerField()
    units_not_queued = serializers.IntegerField()
    images_stored = serializers.IntegerField()
    images_already_there = serializers.IntegerField()
    images_attached = serializers.IntegerField()
    runs = serializers.ListField(child=serializers.CharField())
    runs_already_there = serializers.ListField(child=serializers.CharField())
    pool_sizes = serializers.DictField(child=serializers.IntegerField())
    seconds = serializers.FloatField()


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="file:line: field: what is wrong")


class ArchiveImportRequestSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text="A campaign archive (.zip) written by export_campaign or "
                                              "GET /api/campaigns/SLUG/export/.")
    slug = serializers.SlugField(required=False, allow_blank=True, max_length=100,
                                 help_text="Import under this slug instead of the archived one.")


class ArchiveImportSummarySerializer(serializers.Serializer):
    campaign = serializers.CharField(help_text="The new campaign's slug.")
    task_type = serializers.CharField()
    archived_as = serializers.CharField(help_text="The campaign's slug in the archive.")
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Rows written, per table.")
    media_files = serializers.IntegerField()
    users_created = serializers.ListField(child=serializers.CharField(),
                                          help_text="Accounts created inactive, with no usable password.")
    runs_stopped = serializers.IntegerField(help_text="Judge runs that were active when exported, now cancelled.")
    seconds = serializers.FloatField()
