"""The REST API of nugget_evaluation: a campaign's nugget lists (GET) and freezing them (POST), as the Nuggets page
does (lists.py). Routed by api_urls.py."""

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.services.data_version import campaign_data_changed
from tasktypes.nugget_evaluation.downloads import EXPORTS, export_response, nugget_campaign
from tasktypes.nugget_evaluation.lists import RULE_HUMAN, FreezeError, campaign_lists, lists_freeze
from tasktypes.nugget_evaluation.steps import steps_out_of_step, steps_sync


class FreezeSerializer(serializers.Serializer):
    source = serializers.CharField(help_text=f'a list\'s source ("assessor:<username>", "adjudicated", '
                                             f'"judge:<name>", "import:<name>") or "{RULE_HUMAN}"')  # type: ignore[assignment]
    topics = serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="the topics' ids; every topic when left out")


class NuggetListsApi(APIView):
    @extend_schema(responses={200: OpenApiResponse(description="each topic's frozen list and candidate lists")})
    def get(self, request, slug):
        """Each topic's frozen list ({"version", "source", "nuggets"} or null) and the lists it may be frozen from."""
        campaign = nugget_campaign(request.user, slug)
        return Response({"topics": [{"topic": row.topic.external_id, "frozen": row.frozen,
                                     "candidates": row.candidates} for row in campaign_lists(campaign=campaign)],
                         "out_of_step": steps_out_of_step(campaign)})

    @extend_schema(request=FreezeSerializer,
                   responses={200: OpenApiResponse(description='{"frozen", "new_rounds", "left": {topic: why}}')})
    def post(self, request, slug):
        """Freeze the list of a source for some topics (every topic when none are named)."""
        campaign = nugget_campaign(request.user, slug)
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


class NuggetStepsApi(APIView):
    @extend_schema(request=None, responses={200: OpenApiResponse(description='{"changed": units changed}')})
    def post(self, request, slug):
        """Give every unit its step's number of judgments (creation_overlap for a topic's nuggets, the overlap for
        the answers of a frozen topic's current round, closed otherwise), as the Nuggets page's Apply does."""
        campaign = nugget_campaign(request.user, slug)
        with transaction.atomic():
            changed = steps_sync(campaign)
            if changed:
                campaign_data_changed(campaign_id=campaign.pk)
        return Response({"changed": changed})


class NuggetExportApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("shape", enum=list(EXPORTS), default="nuggetizer-assignments",
                                     description="the layout, as the import format of that name reads it"),
                    OpenApiParameter("judge", str, required=False,
                                     description="the marks shapes: this judge's marks instead of the humans'")],
        responses={200: OpenApiResponse(description="the campaign's answers, lists or marks in that layout")})
    def get(self, request, slug):
        """A nugget_evaluation campaign's answers, nugget lists or marks, ready to import elsewhere."""
        campaign = nugget_campaign(request.user, slug)
        shape = request.query_params.get("shape", "nuggetizer-assignments")
        response = export_response(campaign, shape, request.query_params.get("judge"))
        if response is None:
            return Response({"detail": f"unknown shape {shape!r}; choose one of {', '.join(EXPORTS)}"},
                            status=status.HTTP_400_BAD_REQUEST)
        return response
