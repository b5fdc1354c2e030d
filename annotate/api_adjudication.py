"""REST API for adjudication (docs/adjudication.md): the queue, one unit with every verdict on it, a verdict.

GET  api/campaigns/SLUG/adjudication/             the queue (?status=waiting, the default, or adjudicated), paginated
GET  api/campaigns/SLUG/adjudication/UNIT_ID/     the unit, its raters' verdicts (Rater A, B, ...) and judges' verdicts
POST api/campaigns/SLUG/adjudication/UNIT_ID/     {"value": ..., "note": "..."}: 201 with the adjudication

Adjudicator members and researchers only (annotate.access.campaign_for_adjudicator): an annotator gets a 403 in words.
"""

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_adjudicator
from annotate.selectors.adjudication import (
    adjudication_queue,
    adjudication_unit_get,
    adjudication_unit_view,
    units_held_back,
)
from annotate.services.adjudication import adjudication_submit
from annotate.task_types.spec import JudgmentError
from annotate.views_adjudicate import HELD_BACK

# What the annotation page's display holds for its own use (the lease, the annotator's own verdict): not the unit's.
_PAGE_KEYS = {"assignment_id", "expires_at", "shown_version", "prefetch_item_id"}


class QueueEntrySerializer(serializers.Serializer):
    unit_id = serializers.IntegerField()
    label = serializers.CharField(help_text="The unit's item external id (a topic's, for ranked topics).")
    kinds = serializers.ListField(child=serializers.CharField(), help_text="humans, judge, judges: the kinds found.")
    score = serializers.FloatField(help_text="How much the verdicts disagree: the entropy of the votes in bits, or "
                                             "1 - the mean pairwise Kendall tau-b for rankings.")
    confidence = serializers.FloatField(
        allow_null=True, help_text="The judges' mean confidence, 0 to 1: each one's |score - threshold| over the "
                                   "farthest its score could be on that side; none for raw scores (rankers).")
    adjudicated_by = serializers.CharField()
    adjudicated_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()


class AdjudicationInSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="A value as the task type's annotations have it, e.g. {\"correct\": true}.")
    note = serializers.CharField(required=False, allow_blank=True, default="")


class AdjudicationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    unit_id = serializers.IntegerField()
    kind = serializers.CharField()
    value = serializers.JSONField()
    label = serializers.CharField()
    note = serializers.CharField()
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class AdjudicationQueueApi(generics.GenericAPIView):
    serializer_class = QueueEntrySerializer

    @extend_schema(parameters=[OpenApiParameter("status", str, enum=["waiting", "adjudicated"], required=False,
                                                description="waiting (default): most disagreement first; "
                                                            "adjudicated: most recent first.")],
                   responses=QueueEntrySerializer(many=True))
    def get(self, request, slug):
        """The adjudication queue as you may see it: units still open to you as an annotator are left out."""
        campaign = campaign_for_adjudicator(request.user, slug)
        which = request.query_params.get("status") or "waiting"
        if which not in ("waiting", "adjudicated"):
            return Response({"detail": "status must be waiting or adjudicated"}, status=status.HTTP_400_BAD_REQUEST)
        queue = adjudication_queue(campaign=campaign, adjudicator=request.user)
        page = self.paginate_queryset(getattr(queue, which))
        return self.get_paginated_response(QueueEntrySerializer(page, many=True).data)


class AdjudicationUnitApi(APIView):
    def _unit(self, request, slug, unit_id):
        campaign = campaign_for_adjudicator(request.user, slug)
        unit = adjudication_unit_get(campaign=campaign, unit_id=unit_id)
        if unit.pk in units_held_back(campaign=campaign, adjudicator=request.user):
            raise PermissionDenied(HELD_BACK)
        return unit

    @extend_schema(responses={200: dict})
    def get(self, request, slug, unit_id):
        """The unit as its annotation page shows it, every current human verdict (Rater A, B, ...: no names), every
        judge's verdict with its score and an LLM judge's samples, and the adjudications so far."""
        unit = self._unit(request, slug, unit_id)
        view = adjudication_unit_view(unit=unit, adjudicator=request.user)
        shown = {key: value for key, value in view["unit"].items() if key not in _PAGE_KEYS
                 and not key.startswith("own_")}
        return Response({
            "unit_id": unit.pk, "task_type": unit.campaign.task_type, "unit": shown,
            "raters": [{key: row[key] for key in ("rater", "value", "label", "words", "source")}
                       for row in view["raters"]],
            "judges": view["judges"],
            "adjudications": view["adjudications"],
        })

    @extend_schema(request=AdjudicationInSerializer, responses={201: AdjudicationSerializer})
    def post(self, request, slug, unit_id):
        """Adjudicate the unit: VALUE is checked as an annotation's is (400 in words otherwise); a new version when
        you adjudicated it before. The annotations stay as they are, and the unit's count does not move."""
        unit = self._unit(request, slug, unit_id)
        form = AdjudicationInSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            judgment = adjudication_submit(unit=unit, adjudicator=request.user, value=form.validated_data["value"],
                                           note=form.validated_data["note"])
        except JudgmentError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(AdjudicationSerializer(judgment).data, status=status.HTTP_201_CREATED)
