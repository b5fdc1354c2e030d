"""REST API for campaigns, their settings, guidelines, people and items (imports and exports: interchange.api).

Every lookup is scoped to the user: a campaign one is not a member of is a 404; a member without the role an endpoint
is for gets a 403 saying so (annotate.access).
"""

from django.contrib.auth import get_user_model
from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import (
    campaign_for_adjudicator,
    campaign_for_member,
    campaign_for_researcher,
    check_campaign_creator,
    is_researcher,
)
from annotate.models import Campaign, Item, Role
from annotate.selectors.arms import member_arms_add
from annotate.selectors.campaigns import campaign_members, campaign_overview, guidelines_versions
from annotate.serializers import (
    CampaignCreateSerializer,
    CampaignDetailSerializer,
    CampaignOptionsSerializer,
    CampaignSerializer,
    CampaignUpdateSerializer,
    GuidelinesVersionSerializer,
    InvitationSerializer,
    ItemCategorySerializer,
    ItemSerializer,
    MemberAddedSerializer,
    MemberAddSerializer,
    MemberArmSerializer,
    MemberSerializer,
)
from annotate.services.arms import ArmError, member_arm_set
from annotate.services.campaigns import (
    CampaignError,
    campaign_create,
    campaign_options_editable,
    campaign_options_replace,
    campaign_update,
    member_add,
    member_invitation_create,
    member_remove,
)
from annotate.services.items import ItemCategoryError, item_category_set


def _refused(exc: Exception) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)


def _detail(request, campaign: Campaign) -> dict:
    researcher = is_researcher(request.user, campaign)
    campaign.is_researcher = researcher
    campaign.counts = campaign_overview(campaign=campaign) if researcher else None
    return CampaignDetailSerializer(campaign).data


def _welcome_url(request, key: str) -> str:
    return request.build_absolute_uri(reverse("account-welcome", kwargs={"key": key}))


class CampaignListApi(generics.ListAPIView):
    """The campaigns you are a member of."""

    serializer_class = CampaignSerializer

    def get_queryset(self):
        return Campaign.objects.for_user(self.request.user).order_by("-created_at", "slug")

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignDetailSerializer})
    def post(self, request):
        """Make a campaign (the "Can add campaign" permission, annotate.add_campaign, which staff grant); you become
        its researcher. 400 with every problem when a value is refused; the options are checked by the task type's
        options form, as on the New campaign page."""
        check_campaign_creator(request.user)
        form = CampaignCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            campaign = campaign_create(creator=request.user, name=data["name"], slug=data["slug"],
                                       task_type=data["task_type"], overlap=data.get("overlap"),
                                       options=data["options"], guidelines=data["guidelines"])
        except CampaignError as exc:
            return _refused(exc)
        return Response(_detail(request, campaign_for_member(request.user, campaign.slug)),
                        status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    @extend_schema(responses=CampaignDetailSerializer)
    def get(self, request, slug):
        """A campaign; researchers also get its counts."""
        return Response(_detail(request, campaign_for_member(request.user, slug)))

    @extend_schema(request=CampaignUpdateSerializer, responses={200: CampaignDetailSerializer})
    def patch(self, request, slug):
        """Change the name, overlap k (applied to every unit, those made already included) or guidelines (a text that
        differs is a new version; the earlier ones stay) of a campaign you research. Fields left out stay."""
        campaign = campaign_for_researcher(request.user, slug)
        form = CampaignUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            campaign_update(campaign=campaign, editor=request.user, name=data.get("name"),
                            overlap=data.get("overlap"), guidelines=data.get("guidelines"))
        except CampaignError as exc:
            return _refused(exc)
        return Response(_detail(request, campaign_for_member(request.user, slug)))


class CampaignGuidelinesApi(APIView):
    @extend_schema(responses=GuidelinesVersionSerializer(many=True))
    def get(self, request, slug):
        """Every version of the campaign's guidelines, newest (current) first, for its members."""
        campaign = campaign_for_member(request.user, slug)
        versions = guidelines_versions(campaign=campaign)
        if not is_researcher(request.user, campaign):  # what others have done is not an annotator's business
            for version in versions:
                version.judgments = None
        return Response(GuidelinesVersionSerializer(versions, many=True).data)


class CampaignMembersApi(APIView):
    @extend_schema(responses=MemberSerializer(many=True))
    def get(self, request, slug):
        """The campaign's researchers and annotators, with each annotator's progress (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        members = campaign_members(campaign=campaign)
        member_arms_add(campaign=campaign, members=members)
        return Response(MemberSerializer(members, many=True).data)

    @extend_schema(request=MemberAddSerializer, responses={201: MemberAddedSerializer})
    def post(self, request, slug):
        """Add a person (researchers only): an existing account by username, or with `create` a new person, whose
        account is made without a password. `invite_url`, shown this once, is the one-time link with which a person
        who has no password chooses one (it expires, and stops working once used). Links are made only for accounts
        this campaign's invitation made and nobody has claimed: another account with no password yet is added with
        `invite_url` null and `no_link` saying why."""
        campaign = campaign_for_researcher(request.user, slug)
        form = MemberAddSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            added = member_add(campaign=campaign, username=data["username"], role=data["role"],
                               added_by=request.user, create=data["create"])
        except CampaignError as exc:
            return _refused(exc)
        body = {"username": added.membership.user.get_username(), "role": added.membership.role,
                "created": added.created,
                "invite_url": _welcome_url(request, added.invite_key) if added.invite_key else None,
                "no_link": added.no_link}
        response = Response(MemberAddedSerializer(body).data, status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


def _member_user(campaign: Campaign, username: str):
    user = get_user_model().objects.filter(username=username, memberships__campaign=campaign).distinct().first()
    if user is None:
        raise Http404("No such member.")
    return user


class CampaignMemberApi(APIView):
    @extend_schema(request=MemberArmSerializer, responses={200: MemberArmSerializer})
    def patch(self, request, slug, username):
        """Put an annotator in an arm of the campaign's assistance experiment (researchers only): {"arm": one of the
        option arms, or "" for none}. 400 when the campaign runs no experiment, the person is not its annotator,
        or they have judged anything in it already (an arm is fixed once judged in)."""
        campaign = campaign_for_researcher(request.user, slug)
        form = MemberArmSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            membership = member_arm_set(campaign=campaign, user=_member_user(campaign, username),
                                        arm=form.validated_data["arm"])
        except ArmError as exc:
            return _refused(exc)
        return Response({"arm": membership.arm})

    @extend_schema(parameters=[OpenApiParameter("role", str, enum=Role.values, required=False,
                                                description="The role to take away; left out: every role.")],
                   responses={204: None})
    def delete(self, request, slug, username):
        """Remove a person from the campaign (researchers only). Their judgments stay; an annotator's active leases
        are released. 400 when it would leave the campaign without a researcher."""
        campaign = campaign_for_researcher(request.user, slug)
        role = request.query_params.get("role") or None
        if role is not None and role not in Role.values:
            return _refused(f"role must be one of {', '.join(Role.values)}")
        try:
            member_remove(campaign=campaign, user=_member_user(campaign, username), role=role)
        except CampaignError as exc:
            return _refused(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CampaignMemberInvitationApi(APIView):
    @extend_schema(request=None, responses={201: InvitationSerializer})
    def post(self, request, slug, username):
        """A new one-time link for a member whose account this campaign's invitation made and who has not used a link
        yet (researchers only); earlier links stop working. 400 saying why for any other account."""
        campaign = campaign_for_researcher(request.user, slug)
        user = _member_user(campaign, username)
        try:
            key = member_invitation_create(campaign=campaign, user=user, created_by=request.user)
        except CampaignError as exc:
            return _refused(exc)
        response = Response({"username": user.get_username(), "invite_url": _welcome_url(request, key)},
                            status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


class CampaignItemsApi(generics.ListAPIView):
    """The campaign's items with their topic and the systems that produced them (researchers only)."""

    serializer_class = ItemSerializer

    def get_queryset(self):
        campaign = campaign_for_researcher(self.request.user, self.kwargs["slug"])
        return (Item.objects.filter(campaign=campaign).select_related("topic")
                .prefetch_related("system_outputs").order_by("id"))


class CampaignItemApi(APIView):
    @extend_schema(request=ItemCategorySerializer, responses={200: ItemCategorySerializer})
    def patch(self, request, slug, item_id):
        """Set the item's category (the campaign's researchers and adjudicators; 403 for its annotators): {"category":
        text of one line, at most 100 characters, "" for none}. The agreement report breaks agreement down by it."""
        campaign = campaign_for_adjudicator(request.user, slug)
        item = Item.objects.filter(campaign=campaign, pk=item_id).select_related("campaign").first()
        if item is None:
            raise Http404("No such item in this campaign.")
        form = ItemCategorySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            item = item_category_set(item=item, user=request.user, category=form.validated_data["category"])
        except ItemCategoryError as exc:
            return _refused(exc)
        return Response({"category": item.category})


class CampaignOptionsApi(APIView):
    @extend_schema(request=CampaignOptionsSerializer, responses={200: CampaignOptionsSerializer})
    def get(self, request, slug):
        """The campaign's options (researchers only): scale, relevant_from, dimensions, ties, grade_mapping, ..."""
        campaign = campaign_for_researcher(request.user, slug)
        return Response({"options": campaign_options_editable(campaign)})

    @extend_schema(request=CampaignOptionsSerializer, responses={200: CampaignOptionsSerializer})
    def put(self, request, slug):
        """Replace the campaign's options with `options` (keys left out are removed); checked as a whole by the task
        type's options form before anything is saved: 400 with every problem in `detail`, each naming its option."""
        campaign = campaign_for_researcher(request.user, slug)
        form = CampaignOptionsSerializer(data=request.data, context={"campaign": campaign})
        if not form.is_valid():
            problems = [str(problem) for field in form.errors.values() for problem in field]
            return Response({"detail": "; ".join(problems)}, status=status.HTTP_400_BAD_REQUEST)
        try:
            campaign = campaign_options_replace(campaign=campaign, options=form.validated_data["options"])
        except CampaignError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"options": campaign_options_editable(campaign)})
