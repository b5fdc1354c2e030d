"""REST API serializers for campaigns, items and imports. Thin: shapes only; the work is in services."""

from django.utils.text import slugify
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotate.forms import task_type_choices
from annotate.models import Campaign, CampaignGuidelines, Item, Role
from annotate.services.campaigns import OVERLAP_MAX
from annotate.task_types.registry import UnknownTaskType, task_type_get


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
    judgments_left = serializers.IntegerField(
        help_text="Human judgments still wanted: each unit's k less those it has.")
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
        fields = ["id", "external_id", "topic", "topic_text", "kind", "text", "data", "category", "systems"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_systems(self, item) -> list[str]:
        return sorted({output.system for output in item.system_outputs.all()})


class ItemCategorySerializer(serializers.Serializer):
    category = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=1000,
                                     help_text="The item's category, which the agreement report breaks agreement "
                                               "down by; \"\" takes it away.")


class CampaignOptionsSerializer(serializers.Serializer):
    """The campaign's options as a JSON object, checked by its task type's options form (the Options page's), to which
    the values are given as they are (null leaves an option unset, as an empty field does); pass the campaign in the
    context."""

    options = serializers.DictField(help_text="Option name -> JSON value; the task type says which options it takes "
                                              "(docs/campaigns.md, Options).")

    def validate_options(self, options: dict) -> dict:
        campaign = self.context["campaign"]
        form = task_type_get(campaign.task_type).options_form.from_options(campaign=campaign, options=options)
        if not form.is_valid():
            raise serializers.ValidationError(form.problem_words())
        return form.options()


class CampaignCreateSerializer(serializers.Serializer):
    """A new campaign (annotate.services.campaigns.campaign_create); its options are checked by the task type's
    options form, as on the New campaign page."""

    task_type = serializers.ChoiceField(choices=[], help_text="What the annotators do; it fixes which options the "
                                                              "campaign takes.")
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=100, required=False, allow_blank=True,
                                 help_text="Empty or left out: made from the name.")
    overlap = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=OVERLAP_MAX,
                                       help_text="k; left out: the task type's default.")
    guidelines = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False, default="",
                                       help_text="Markdown, version 1 of the guidelines.")
    options = serializers.DictField(required=False, default=dict,
                                    help_text="Option name -> JSON value, as PUT .../options/ takes them.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = task_type_choices()  # the registered task types, known once Django started

    def validate(self, data):
        if not data.get("slug"):
            data["slug"] = slugify(data["name"])[:100].strip("-")
        try:
            spec = task_type_get(data["task_type"])
        except UnknownTaskType as exc:
            raise serializers.ValidationError({"task_type": [str(exc)]}) from None
        draft = Campaign(task_type=data["task_type"], options={})  # not saved: its options are checked first
        form = spec.options_form.from_options(campaign=draft, options=data["options"])
        if not form.is_valid():
            raise serializers.ValidationError({"options": form.problem_words()})
        data["options"] = form.options()
        return data


class CampaignUpdateSerializer(serializers.Serializer):
    """What PATCH changes (annotate.services.campaigns.campaign_update); fields left out stay."""

    name = serializers.CharField(max_length=200, required=False)
    overlap = serializers.IntegerField(required=False, min_value=1, max_value=OVERLAP_MAX,
                                       help_text="k, applied to every unit, those made already included.")
    guidelines = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False,
                                       help_text="Markdown; a text that differs from the current one is a new version.")


class GuidelinesVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    html = serializers.CharField(read_only=True, help_text="The text rendered as annotators see it (cleaned HTML).")
    judgments = serializers.IntegerField(read_only=True, allow_null=True,
                                         help_text="Human judgments made under this version; researchers only (null "
                                                   "for annotators).")

    class Meta:
        model = CampaignGuidelines
        fields = ["version", "text", "html", "created_by", "created_at", "judgments"]


class MemberProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Current judgments, made here and imported.")
    web = serializers.IntegerField(help_text="Made in Concord.")
    imported = serializers.IntegerField()
    held = serializers.IntegerField(help_text="Units leased to them now (in progress).")
    last_active = serializers.DateTimeField(allow_null=True, help_text="Their last judgment or lease.")


class MemberSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices)
    has_password = serializers.BooleanField(help_text="False until a new person has used their one-time link.")
    is_active = serializers.BooleanField()
    progress = MemberProgressSerializer(allow_null=True, help_text="Annotators only.")
    arm = serializers.CharField(
        required=False, allow_blank=True,
        help_text="Only in a campaign that runs an assistance experiment: the member's arm (\"\" for none yet).")


class MemberArmSerializer(serializers.Serializer):
    arm = serializers.CharField(allow_blank=True, max_length=120,
                                help_text='One of the campaign\'s arms (option arms), or "" for none.')


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices, default=Role.ANNOTATOR)
    create = serializers.BooleanField(default=False, help_text="A new person: make an account with this username "
                                                                "(and get a one-time link for them).")


class MemberAddedSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices)
    created = serializers.BooleanField(help_text="Whether an account was made.")
    invite_url = serializers.URLField(
        allow_null=True, help_text="A one-time link for the person to choose a password and land on the campaign; "
                                   "shown this once. Null when they can sign in already, or when no link may be made "
                                   "for them here (no_link says why).")
    no_link = serializers.CharField(
        allow_null=True, help_text="Why a person with no password yet gets no link from this campaign (their account "
                                   "was not made by its invitation, or is staff) and who can help; null otherwise.")


class InvitationSerializer(serializers.Serializer):
    username = serializers.CharField()
    invite_url = serializers.URLField(help_text="A new one-time link; earlier ones stop working.")
