"""Graded relevance's qrels and leaderboards (temporary home)."""

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.responses import api_status_url, attachment, not_built, page_status_url
from agreement.stored import OpenedReport, report_for_open
from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get


def _qrels_sets(campaign) -> tuple[OpenedReport | None, dict]:
    """The campaign's report as opened and its qrels by source when its task type's report keeps qrels (its
    presentation's extra_downloads), else (None, {}): those stored with its report ({} while none is stored)."""
    if "qrels" not in task_type_get(campaign.task_type).report_presentation().extra_downloads:
        return None, {}
    opened = report_for_open(campaign=campaign)
    return opened, opened.extras().get("qrels", {}) if opened.ready else {}


def _qrels_download(campaign, source: str, status_url: str) -> HttpResponse:
    opened, sets = _qrels_sets(campaign)
    if opened is not None and not opened.ready:
        return not_built(campaign, opened, status_url)
    if source not in sets:
        raise Http404("no such qrels")
    text = task_type_get(campaign.task_type).report_presentation().qrels_text(sets[source])
    return attachment(text, content_type="text/plain; charset=utf-8",
                       filename=f"{campaign.slug}-{source}.qrels")


LEADERBOARD_FILE = "trec-leaderboard.txt"


def _leaderboard_download(campaign, source: str, status_url: str) -> HttpResponse:
    """SOURCE's qrels' leaderboard (TREC AutoJudge): every run's measures per topic and their means, under the qrels
    stored with the report, with its relevance level and compatibility persistence."""
    opened, sets = _qrels_sets(campaign)
    if opened is not None and not opened.ready:
        return not_built(campaign, opened, status_url)
    if source not in sets:
        raise Http404("no such qrels")
    text = task_type_get(campaign.task_type).report_presentation().leaderboard_text(
        campaign=campaign, report=opened.document, qrels=sets[source])
    return attachment(text, content_type="text/plain; charset=utf-8",
                       filename=f"{campaign.slug}-{source}-{LEADERBOARD_FILE}")


@require_GET
def agreement_leaderboard(request, slug, source):
    """Graded relevance: the leaderboard of the runs under one qrels source (consensus, assessor-NAME, judge-NAME),
    as `run measure topic value` lines (TREC AutoJudge), what `--format trec-leaderboard` reads back."""
    campaign = campaign_for_researcher(request.user, slug)
    return _leaderboard_download(campaign, source, page_status_url(request, campaign))


@require_GET
def agreement_qrels(request, slug, source):
    """Graded relevance: the TREC qrels the report scored runs with (consensus, assessor-NAME or judge-NAME), graded
    on the campaign's scale."""
    campaign = campaign_for_researcher(request.user, slug)
    return _qrels_download(campaign, source, page_status_url(request, campaign))


class AgreementQrelsListAPI(APIView):
    """GET: the qrels a graded campaign's report scores runs with: each source with its topics and grades."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 202: OpenApiTypes.OBJECT},
                   summary="The qrels of a graded campaign by source (consensus, assessor-NAME, judge-NAME)")
    def get(self, request, slug):
        campaign = campaign_for_researcher(request.user, slug)
        opened, sets = _qrels_sets(campaign)
        if opened is not None and not opened.ready:
            return not_built(campaign, opened, api_status_url(request, campaign))
        if not sets:
            raise Http404("this campaign's report has no qrels (graded relevance campaigns only)")
        return Response({"sources": [
            {"source": source, "topics": len(qrels), "grades": sum(len(docs) for docs in qrels.values()),
             "url": request.build_absolute_uri(reverse("api-agreement-qrels", args=[campaign.slug, source])),
             "leaderboard_url": request.build_absolute_uri(reverse("api-agreement-leaderboard",
                                                                   args=[campaign.slug, source]))}
            for source, qrels in sets.items()]})


class AgreementQrelsAPI(APIView):
    """GET: one source's TREC qrels (`qid 0 docid grade` lines) on the campaign's scale, as text."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR, 202: OpenApiTypes.OBJECT},
                   summary="One source's TREC qrels")
    def get(self, request, slug, source):
        campaign = campaign_for_researcher(request.user, slug)
        return _qrels_download(campaign, source, api_status_url(request, campaign))


class AgreementLeaderboardAPI(APIView):
    """GET: the runs' leaderboard under one source's qrels, `run measure topic value` lines (TREC AutoJudge; topic
    `all` for the mean), measures by their ir_measures names, as text."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR, 202: OpenApiTypes.OBJECT},
                   summary="One source's leaderboard (TREC AutoJudge)")
    def get(self, request, slug, source):
        campaign = campaign_for_researcher(request.user, slug)
        return _leaderboard_download(campaign, source, api_status_url(request, campaign))


