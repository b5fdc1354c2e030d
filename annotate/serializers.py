"""REST API serializers for campaigns, items and imports. Thin: shapes only; the work is in services."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotate.models import Campaign, Item
from annotate.task_types import task_type_get


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


class CampaignOptionsSerializer(serializers.Serializer):
    """The campaign's options as a JSON object, checked by its task type's options form (the Options page's), to which
    the values are given as they are (null leaves an option unset, as an empty field does); pass the campaign in the
    context."""

    options = serializers.DictField(help_text="Option name -> JSON value; the task type says which options it takes "
                                              "(README: campaign options).")

    def validate_options(self, options: dict) -> dict:
        campaign = self.context["campaign"]
        form = task_type_get(campaign.task_type).options_form.from_options(campaign=campaign, options=options)
        if not form.is_valid():
            raise serializers.ValidationError(form.problem_words())
        return form.options()
