"""What the report's pages, downloads and API endpoints answer alike: a file as an attachment, and the answer while no
report is stored (agreement.stored.report_for_open): 202 with where to poll, 503 when the build could not be queued,
500 when it failed."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse, JsonResponse
from django.urls import reverse

from agreement.stored import FAILED, QUEUE_FAILED, OpenedReport, report_for_open
from annotate.access import campaign_for_researcher

# How long a client that got a 202 is asked to wait before asking again (the page polls every 3 s).
RETRY_AFTER_S = 5


def not_built(campaign, opened: OpenedReport, status_url: str) -> JsonResponse:
    """The answer to a download or API request while no report is stored: 202 with where to poll (Location,
    Retry-After), 503 when the build could not be queued, saying why and what to start, or 500 when the build failed,
    saying why."""
    if opened.state == FAILED:
        body = {"status": "failed", "detail": f"The report of campaign {campaign.slug!r} could not be built: "
                f"{opened.build_error}. This is a fault in Concord, not in the data; the worker's log has the whole "
                f"traceback. The build is tried again when the campaign's data changes.",
                "build_error": opened.build_error, "status_url": status_url}
        return JsonResponse(body, status=500)
    if opened.state == QUEUE_FAILED:
        body = {"status": "not queued", "detail": f"No report of campaign {campaign.slug!r} is stored yet, and "
                f"{opened.queue_error}. Start the worker (or the broker named by CELERY_BROKER_URL), then retry.",
                "status_url": status_url}
        response = JsonResponse(body, status=503)
    else:
        step = f" (step: {opened.building_step})" if opened.building_step else ""
        body = {"status": "building", "step": opened.building_step or None,
                "building_seconds": opened.building_seconds,
                "detail": f"The first report of campaign {campaign.slug!r} is being built{step}; poll status_url until "
                          f"its report_version is not null, then ask again.",
                "status_url": status_url}
        response = JsonResponse(body, status=202)
        response["Location"] = status_url
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def stored_report_view(status_url: Callable, *, refused: Callable | None = None) -> Callable:
    """A view decorator: the view, view(request, campaign, opened, **the URL's other arguments), runs for a
    researcher of the campaign of the URL's slug once its report is stored (OPENED: agreement.stored.OpenedReport,
    ready); until then the request is answered as not_built says, with STATUS_URL(request, campaign) to poll
    (page_status_url, api_status_url). REFUSED(campaign, **the URL's other arguments), when given, raises Http404 for
    what the campaign's report has not, before the report is opened. An API view's method takes it through
    method_decorator."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request, slug: str, **arguments):
            campaign = campaign_for_researcher(request.user, slug)
            if refused is not None:
                refused(campaign, **arguments)
            opened = report_for_open(campaign=campaign)
            if not opened.ready:
                return not_built(campaign, opened, status_url(request, campaign))
            return view(request, campaign, opened, **arguments)

        return wrapped

    return decorate


def page_status_url(request, campaign) -> str:
    return request.build_absolute_uri(reverse("agreement-report-status", args=[campaign.slug]))


def api_status_url(request, campaign) -> str:
    return request.build_absolute_uri(reverse("api-agreement-status", args=[campaign.slug]))


def attachment(content: str | bytes, *, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
