"""The agreement report's API: the stored document with its state in headers, the state alone to poll, its methods
section, and two judges compared. Researchers of the campaign only (404 otherwise); while no report is stored the
endpoints of the stored one answer as agreement.responses.not_built says."""

from django.http import HttpResponse
from django.utils.decorators import method_decorator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.responses import api_status_url, stored_report_view
from agreement.stored import FAILED, REPORT_SCHEMA, stored_report_status
from annotate.access import campaign_for_researcher


class AgreementJudgeCompareAPI(APIView):
    """GET ?a=JUDGE&b=JUDGE: two judges of the campaign compared (reports.judge_compare), read from the data now; 400
    with the reason when they cannot be. Without either: the campaign's judges, which may be named."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
                   summary="Two judges of the campaign compared")
    def get(self, request, slug):
        from reports.judge_compare import CompareError, judge_comparison

        campaign = campaign_for_researcher(request.user, slug)
        first, second = request.GET.get("a", ""), request.GET.get("b", "")
        if not first and not second:  # what can be compared
            return Response({"judges": list(campaign.judges.order_by("name").values_list("name", flat=True)),
                             "detail": "name two of these judges: ?a=BEFORE&b=AFTER"})
        try:
            return Response(judge_comparison(campaign=campaign, first=first, second=second))
        except CompareError as exc:
            return Response({"detail": str(exc)}, status=400)


class AgreementMethodsAPI(APIView):
    """GET: the methods section of the campaign's stored report, as text (the page's methods.txt)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR, 202: OpenApiTypes.OBJECT},
                   summary="The methods section of the campaign's agreement report")
    @method_decorator(stored_report_view(api_status_url))
    def get(self, request, campaign, opened):
        from agreement.report import report_methods_text

        return HttpResponse(report_methods_text(campaign=campaign, opened=opened),
                            content_type="text/plain; charset=utf-8")


class AgreementStatusAPI(APIView):
    """GET: the state of the campaign's stored report, to poll after a 202: {report_version (null until the first
    build is stored), data_version, updating, building, step, building_seconds, queue_error, built_at}."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="The state of the campaign's stored report")
    def get(self, request, slug):
        return Response(stored_report_status(campaign=campaign_for_researcher(request.user, slug)))


class AgreementReportAPI(APIView):
    """GET: the agreement report of the campaign (docs/design.md §5), as stored for its data version. Researchers of the
    campaign only; 404 otherwise. The body is the document itself, as the command and report.json give it; the state
    of the stored copy comes in headers: X-Report-Version (the data version it was built from), X-Report-Schema (the
    document's schema, agreement.stored.REPORT_SCHEMA: a document of another is rebuilt first), X-Data-Version (the
    campaign's now) and X-Report-Updating ("true" while a newer one builds in the background). Before the first build
    is stored: 202 with the status URL (also in Location) and Retry-After, never a request held while it builds; 503
    when the build could not be queued; 500 when it failed (build_error says why). A stale report whose rebuild
    failed is served with X-Report-Build-Error."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 202: OpenApiTypes.OBJECT, 500: OpenApiTypes.OBJECT,
                              503: OpenApiTypes.OBJECT},
                   summary="The campaign's agreement report")
    @method_decorator(stored_report_view(api_status_url))
    def get(self, request, campaign, opened):
        response = Response(opened.document)
        response["X-Report-Version"] = str(opened.version)
        response["X-Report-Schema"] = str(REPORT_SCHEMA)
        response["X-Data-Version"] = str(opened.data_version)
        response["X-Report-Updating"] = "true" if opened.updating and opened.state != FAILED else "false"
        if opened.state == FAILED:
            response["X-Report-Build-Error"] = opened.build_error.encode("ascii", "backslashreplace").decode()[:200]
        return response
