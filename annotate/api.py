"""REST API for campaigns and their items (imports and exports: tasktypes.api). Every lookup is scoped to the user: else 404."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_member, campaign_for_researcher, is_researcher
from annotate.models import Campaign, Item
from annotate.selectors.campaigns import campaign_overview
from annotate.serializers import (
    CampaignDetailSerializer,
    CampaignOptionsSerializer,
    CampaignSerializer,
    ItemSerializer,
)
from annotate.services.campaigns import CampaignError, campaign_options_editable, campaign_options_replace


class CampaignListApi(generics.ListAPIView):
    """The campaigns you are a member of."""

    serializer_class = CampaignSerializer

    def get_queryset(self):
        return Campaign.objects.for_user(self.request.user).order_by("-created_at", "slug")


class CampaignDetailApi(APIView):
    @extend_schema(responses=CampaignDetailSerializer)
    def get(self, request, slug):
        """A campaign; researchers also get its counts."""
        campaign = campaign_for_member(request.user, slug)
        researcher = is_researcher(request.user, campaign)
        campaign.is_researcher = researcher
        campaign.counts = campaign_overview(campaign=campaign) if researcher else None
        return Response(CampaignDetailSerializer(campaign).data)


class CampaignItemsApi(generics.ListAPIView):
    """The campaign's items with their topic and the systems that produced them (researchers only)."""

    serializer_class = ItemSerializer

    def get_queryset(self):
        campaign = campaign_for_researcher(self.request.user, self.kwargs["slug"])
        return (Item.objects.filter(campaign=campaign).select_related("topic")
                .prefetch_related("system_outputs").order_by("id"))


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
