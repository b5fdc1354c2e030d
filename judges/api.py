"""REST API for judges and judge runs: researchers of the campaign only, a 404 for everyone else.

Annotators never reach model judgments through here: every lookup goes through the campaigns the
user researches.
"""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from judges.development import SplitError, judge_mark_final
from judges.endpoints import endpoint_public, endpoints_usable
from judges.errors import JudgeConfigError, JudgeQueueError, JudgeRunConflictError, JudgeRunError
from judges.models import JudgeRun
from judges.selectors import (
    judge_failures,
    judge_run_for_researcher,
    judge_runs_for_campaign,
    judges_for_campaign,
    judges_new_items,
)
from judges.serializers import (
    ErrorSerializer,
    JudgeFailuresSerializer,
    JudgeRunSerializer,
    JudgeRunStartSerializer,
    JudgeSerializer,
    ModelEndpointSerializer,
    RetryFailedSerializer,
)
from judges.services import (
    judge_run_cancel,
    judge_run_new_items_start,
    judge_run_resume,
    judge_run_retry_failed,
    judge_run_start,
)


def _error(exc: Exception) -> Response:
    if isinstance(exc, JudgeRunConflictError):
        code = status.HTTP_409_CONFLICT
    elif isinstance(exc, JudgeQueueError):
        code = status.HTTP_503_SERVICE_UNAVAILABLE
    else:
        code = status.HTTP_400_BAD_REQUEST
    return Response({"detail": str(exc)}, status=code)


_ERRORS = {
    400: OpenApiResponse(ErrorSerializer, "Bad configuration, or the run cannot do that in its status."),
    409: OpenApiResponse(ErrorSerializer, "The judge already has a queued or running run."),
    503: OpenApiResponse(ErrorSerializer, "The broker is unreachable; the run was marked failed."),
}


class JudgeListApi(generics.ListAPIView):
    """The campaign's judges (imported ones too) with their judgment counts."""

    serializer_class = JudgeSerializer

    def get_queryset(self):
        self.campaign = campaign_for_researcher(self.request.user, self.kwargs["slug"])
        return judges_for_campaign(campaign=self.campaign)

    def list(self, request, *args, **kwargs):
        queryset = self.get_queryset()
        page = self.paginate_queryset(queryset)
        judges = list(queryset) if page is None else page
        new_items = judges_new_items(campaign=self.campaign, judges=judges)
        data = self.get_serializer(judges, many=True, context={**self.get_serializer_context(), "new_items": new_items})
        return Response(data.data) if page is None else self.get_paginated_response(data.data)


class JudgeNewItemsApi(APIView):
    @extend_schema(request=None, responses={201: JudgeRunSerializer, **_ERRORS})
    def post(self, request, slug, judge_id):
        """Start the judge on the campaign's items it has not judged yet, and only those (the judge page's "Judge N
        new items"); 400 when it has judged every item or was imported, 409 while it has a queued or running run."""
        campaign = campaign_for_researcher(request.user, slug)
        judge = campaign.judges.filter(pk=judge_id).first()
        if judge is None:
            raise Http404("No such judge.")
        try:
            run = judge_run_new_items_start(judge=judge, created_by=request.user)
        except (JudgeConfigError, JudgeRunError) as exc:
            return _error(exc)
        return Response(JudgeRunSerializer(run).data, status=status.HTTP_201_CREATED)


class ModelEndpointListApi(APIView):
    @extend_schema(responses=ModelEndpointSerializer(many=True))
    def get(self, request, slug):
        """The model endpoints you may name in an llm or vlm judge's `endpoint` on this campaign (no keys)."""
        campaign = campaign_for_researcher(request.user, slug)
        endpoints = endpoints_usable(campaign=campaign, user=request.user)
        return Response(ModelEndpointSerializer([endpoint_public(e) for e in endpoints], many=True).data)


class JudgeRunListApi(generics.ListAPIView):
    """The campaign's judge runs, newest first; POST starts one."""

    serializer_class = JudgeRunSerializer

    def get_queryset(self):
        campaign = campaign_for_researcher(self.request.user, self.kwargs["slug"])
        return judge_runs_for_campaign(campaign=campaign).select_related("judge__campaign")

    @extend_schema(request=JudgeRunStartSerializer, responses={201: JudgeRunSerializer, **_ERRORS})
    def post(self, request, slug):
        """Start judge `judge` of `family` with `config` on every item (or a `sample` of items) it has not judged
        yet."""
        campaign = campaign_for_researcher(request.user, slug)
        form = JudgeRunStartSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            run = judge_run_start(
                campaign=campaign, name=data["judge"], family=data["family"], config=data["config"],
                batch_size=data["batch_size"], created_by=request.user, sample=data.get("sample"),
            )
        except (JudgeConfigError, JudgeRunError) as exc:
            return _error(exc)
        return Response(JudgeRunSerializer(run).data, status=status.HTTP_201_CREATED)


def _run_or_404(request, run_id) -> JudgeRun:
    try:
        return judge_run_for_researcher(user=request.user, run_id=run_id)
    except JudgeRun.DoesNotExist:
        raise Http404("No such run.") from None


class JudgeRunDetailApi(APIView):
    @extend_schema(responses=JudgeRunSerializer)
    def get(self, request, run_id):
        """One run with its progress (judged / total)."""
        return Response(JudgeRunSerializer(_run_or_404(request, run_id)).data)


class JudgeRunCancelApi(APIView):
    @extend_schema(request=None, responses={200: JudgeRunSerializer, **_ERRORS})
    def post(self, request, run_id):
        """Cancel a queued or running run."""
        try:
            run = judge_run_cancel(run=_run_or_404(request, run_id))
        except JudgeRunError as exc:
            return _error(exc)
        return Response(JudgeRunSerializer(run).data)


class JudgeRunResumeApi(APIView):
    @extend_schema(request=None, responses={200: JudgeRunSerializer, **_ERRORS})
    def post(self, request, run_id):
        """Queue the items the run's judge has not judged yet (after a cancel, a failure or a dead worker)."""
        try:
            run = judge_run_resume(run=_run_or_404(request, run_id), user=request.user)
        except (JudgeConfigError, JudgeRunError) as exc:
            return _error(exc)
        return Response(JudgeRunSerializer(run).data)


class JudgeRunFailuresApi(APIView):
    @extend_schema(responses=JudgeFailuresSerializer)
    def get(self, request, run_id):
        """The failed items of the run's judge, grouped by reason (exception, out of memory, unparseable output)."""
        run = _run_or_404(request, run_id)
        return Response(JudgeFailuresSerializer(judge_failures(judge=run.judge)).data)


class JudgeRunRetryFailedApi(APIView):
    @extend_schema(request=None, responses={200: RetryFailedSerializer, **_ERRORS})
    def post(self, request, run_id):
        """Remove the failed verdicts of the run's judge and queue those items again on this run."""
        try:
            run, removed = judge_run_retry_failed(run=_run_or_404(request, run_id), user=request.user)
        except (JudgeConfigError, JudgeRunError) as exc:
            return _error(exc)
        return Response(RetryFailedSerializer({"removed": removed, "run": run}).data)


class JudgeMarkFinalApi(APIView):
    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer})
    def post(self, request, slug, judge_id):
        """Mark the judge final: the report reads it on the held-out part from now on; 400 without a split, or when
        it is final already. It cannot be undone."""
        campaign = campaign_for_researcher(request.user, slug)
        judge = campaign.judges.filter(pk=judge_id).first()
        if judge is None:
            raise Http404("No such judge.")
        try:
            judge = judge_mark_final(judge=judge)
        except SplitError as exc:
            return _error(exc)
        return Response({"judge": judge.name, "final_at": judge.final_at.isoformat(timespec="seconds")})
