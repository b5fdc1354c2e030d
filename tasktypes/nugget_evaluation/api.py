"""The REST API of nugget_evaluation: a campaign's nugget lists (GET) and freezing them (POST), as the Nuggets page
does (lists.py). Routed by api_urls.py."""

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from tasktypes.nugget_evaluation.lists import RULE_HUMAN, FreezeError, campaign_lists, lists_freeze
from tasktypes.nugget_evaluation.views import TYPE


def _campaign(request, slug):
    campaign = campaign_for_researcher(request.user, slug)
    if campaign.task_type != TYPE:
        raise Http404("This campaign does not evaluate answers by nuggets.")
    return campaign


class FreezeSerializer(serializers.Serializer):
    source = serializers.CharField(help_text=f'a list\'s source ("assessor:<username>", "adjudicated", '
                                             f'"judge:<name>", "import:<name>") or "{RULE_HUMAN}"')  # type: ignore[assignment]
    topics = serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="the topics' ids; every topic when left out")


class NuggetListsApi(APIView):
    @extend_schema(responses={200: OpenApiResponse(description="each topic's frozen list and candidate lists")})
    def get(self, request, slug):
        """Each topic's frozen list ({"version", "source", "nuggets"} or null) and the lists it may be frozen from."""
        campaign = _campaign(request, slug)
        return Response({"topics": [{"topic": row.topic.external_id, "frozen": row.frozen,
                                     "candidates": row.candidates} for row in campaign_lists(campaign=campaign)]})

    @extend_schema(request=FreezeSerializer,
                   responses={200: OpenApiResponse(description='{"frozen", "new_rounds", "left": {topic: why}}')})
    def post(self, request, slug):
        """Freeze the list of a source for some topics (every topic when none are named)."""
        campaign = _campaign(request, slug)
        body = FreezeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        topics = None
        if "topics" in body.validated_data:
            wanted = set(body.validated_data["topics"])
            known = {row.topic.external_id: row.topic.pk for row in campaign_lists(campaign=campaign)}
            unknown = sorted(wanted - set(known))
            if unknown:
                return Response({"detail": f"no topic {unknown[0]!r} in this campaign"},
                                status=status.HTTP_400_BAD_REQUEST)
            topics = [known[topic] for topic in wanted]
        try:
            return Response(lists_freeze(campaign=campaign, source=body.validated_data["source"], topics=topics))
        except FreezeError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
