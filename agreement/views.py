"""The agreement report: the page, its CSV and JSON downloads, and the API endpoint.

All of them read the campaign's stored report (agreement.stored.report_for_open): the one document
`agreement_report_build` makes, kept per data version, so that opening an unchanged report reads one row. A report whose
data changed since is shown as it was, marked updating, while a worker rebuilds it. Before the first build is stored
nothing waits on it: the page answers at once with "Building…" and polls, the API and the downloads answer 202 with a
status URL (503 when the build could not be queued). Researchers of the campaign only (anyone else gets a 404, as if
the campaign did not exist).

The statistics, plots and exports are imported by the views that use them, not at the top: the URL configuration
imports this module, and every management command, worker and web process loads the URL configuration at start, so
scipy, scikit-learn and matplotlib (about 1 s) would be paid by each of them (issue 35, start-up under 2 s).
"""

import json

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.stored import FAILED, QUEUE_FAILED, REPORT_SCHEMA, OpenedReport, report_for_open, stored_report_status
from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get
from judges.development import SplitError, split_make
from judges.forms import DevelopmentSplitForm, ProbesForm
from judges.models import EXTERNAL_FAMILY
from reports.presentation import PART_WORDS
from reports.selectors import human_labels_get, item_rows_get, judge_labels_get


# How long a client that got a 202 is asked to wait before asking again (the page polls every 3 s).
RETRY_AFTER_S = 5


def _not_built(campaign, opened: OpenedReport, status_url: str) -> JsonResponse:
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


def _page_status_url(request, campaign) -> str:
    return request.build_absolute_uri(reverse("agreement-report-status", args=[campaign.slug]))


def _api_status_url(request, campaign) -> str:
    return request.build_absolute_uri(reverse("api-agreement-status", args=[campaign.slug]))


@require_GET
def agreement_report(request, slug):
    campaign = campaign_for_researcher(request.user, slug)
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        # Answered at once; the page polls status.json and reloads when the worker has stored the report.
        return render(request, "agreement/report_building.html", {"campaign": campaign, "opened": opened})
    report = opened.document
    presentation = task_type_get(campaign.task_type).report_presentation()
    judge_names = list(report["judges"])
    # The report's plots, inline, as drawn when it was built: the first is the main one.
    from agreement.plots import report_plot_names

    names = report_plot_names(report=report)
    plots = opened.plots
    context = {
        "campaign": campaign,
        "report": report,
        "opened": opened,
        "presentation": presentation,
        "judge_names": judge_names,
        "judge_rows": [
            {"name": name, **block, "part_words": PART_WORDS.get(block.get("part")),
             "partial": bool(block["item"].get("coverage")) and block["item"]["coverage"][0] < block["item"]["coverage"][1]}
            for name, block in report["judges"].items()
        ],
        # Paired tests between systems (stats.system_tests): one matrix per rater, and the judges' agreement pairs.
        "test_matrices": [
            {"name": "humans", "matrix": _pair_matrix(report["system_tests"]["humans"])},
            *({"name": name, "matrix": _pair_matrix(block)}
              for name, block in report["system_tests"]["judges"].items()),
        ] if report.get("system_tests") else [],
        "plot_name": names[0],
        "plot_svg": plots.get(names[0]),
        "budget_svg": plots.get("budget"),
        "plots_error": opened.extras().get("plots_error"),
        "ablation_rows": [
            {**row, "setting_values": [row["settings"].get(key) for key in report["ablation"]["settings"]]}
            for row in report["ablation"]["rows"]
        ] if report.get("ablation") else [],
        "ablation_left_out": [
            {**row, "setting_values": [row["settings"].get(key) for key in report["ablation"]["settings"]]}
            for row in report["ablation"].get("left_out", ())
        ] if report.get("ablation") else [],
        # What the report's own body shows beside the document (its task type's presentation).
        **presentation.page_context(report, judge_names=judge_names, plots=plots),
    }
    return render(request, "agreement/report.html", context)


def _pair_matrix(block: dict) -> list[dict]:
    """A tests block as matrix rows: each side, then per column side the pair (row, column) above the diagonal."""
    pairs = {(pair["a"], pair["b"]): pair for pair in block["pairs"]}
    return [{"name": row, "cells": [pairs.get((row, column)) for column in block["order"]]} for row in block["order"]]


def _attachment(content: str | bytes, *, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def agreement_report_json(request, slug):
    campaign = campaign_for_researcher(request.user, slug)
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        return _not_built(campaign, opened, _page_status_url(request, campaign))
    report = opened.document
    return _attachment(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json",
        filename=f"{campaign.slug}-agreement.json",
    )


def _table_csv(request, slug, table: str) -> HttpResponse:
    """The report's TABLE (systems, judges or topics) as CSV, as its task type's presentation writes it."""
    campaign = campaign_for_researcher(request.user, slug)
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        return _not_built(campaign, opened, _page_status_url(request, campaign))
    presentation = task_type_get(campaign.task_type).report_presentation()
    text = getattr(presentation, f"{table}_csv")(opened.document)
    return _attachment(text, content_type="text/csv; charset=utf-8", filename=f"{campaign.slug}-{table}.csv")


@require_GET
def agreement_systems_csv(request, slug):
    return _table_csv(request, slug, "systems")


@require_GET
def agreement_judges_csv(request, slug):
    return _table_csv(request, slug, "judges")


@require_GET
def agreement_topics_csv(request, slug):
    return _table_csv(request, slug, "topics")


@require_GET
def agreement_items_csv(request, slug):
    """Every item with its category, human label and judges' verdicts, read now (not from the stored report)."""
    from reports.tables import items_csv

    campaign = campaign_for_researcher(request.user, slug)
    text = items_csv(rows=item_rows_get(campaign=campaign), human_label=human_labels_get(campaign=campaign).item_label,
                     judges=judge_labels_get(campaign=campaign))
    return _attachment(text, content_type="text/csv; charset=utf-8", filename=f"{campaign.slug}-items.csv")


@require_GET
def agreement_judge_compare(request, slug):
    """Two judges of the campaign side by side (reports.judge_compare), chosen in the page's form (?a=&b=); read from
    the data as it is now."""
    from reports.judge_compare import CompareError, judge_comparison

    campaign = campaign_for_researcher(request.user, slug)
    names = list(campaign.judges.order_by("name").values_list("name", flat=True))
    first, second = request.GET.get("a", ""), request.GET.get("b", "")
    comparison, error = None, None
    if first or second:
        try:
            comparison = judge_comparison(campaign=campaign, first=first, second=second)
        except CompareError as exc:
            error = str(exc)
    return render(request, "agreement/compare.html",
                  {"campaign": campaign, "names": names, "first": first or (names[0] if names else ""),
                   "second": second or (names[1] if len(names) > 1 else ""), "comparison": comparison,
                   "error": error}, status=400 if error else 200)


@require_GET
def agreement_methods_txt(request, slug):
    """The report's methods section for a paper, as plain text (agreement.report.report_methods_text)."""
    from agreement.report import report_methods_text

    campaign = campaign_for_researcher(request.user, slug)
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        return _not_built(campaign, opened, _page_status_url(request, campaign))
    return _attachment(report_methods_text(campaign=campaign, opened=opened), content_type="text/plain; charset=utf-8",
                       filename=f"{campaign.slug}-methods.txt")


@require_GET
def agreement_labels_csv(request, slug):
    """Every label behind the report, one row per item and rater, read now (agreement.report.report_labels_csv)."""
    from agreement.report import report_labels_csv

    campaign = campaign_for_researcher(request.user, slug)
    return _attachment(report_labels_csv(campaign=campaign), content_type="text/csv; charset=utf-8",
                       filename=f"{campaign.slug}-labels.csv")


@require_GET
def agreement_report_status(request, slug):
    """What the page polls while its report is building or updating: {report_version, data_version, updating,
    building, step, building_seconds, queue_error, built_at}. Reads two rows; never builds."""
    campaign = campaign_for_researcher(request.user, slug)
    return JsonResponse(stored_report_status(campaign=campaign))


@require_GET
def agreement_plot(request, slug, plot, fmt):
    """One of the report's plots as a file for a paper: SVG, or PNG at print resolution (plots.PRINT_DPI)."""
    from agreement.plots import report_plot
    from reports.plots import FORMATS

    campaign = campaign_for_researcher(request.user, slug)
    if fmt not in FORMATS:
        raise Http404("no such format")
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        return _not_built(campaign, opened, _page_status_url(request, campaign))
    drawn = report_plot(report=opened.document, name=plot)
    if drawn is None:
        raise Http404("no such plot")
    return _attachment(drawn.render(fmt), content_type=FORMATS[fmt], filename=f"{campaign.slug}-{plot}.{fmt}")


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
        return _not_built(campaign, opened, status_url)
    if source not in sets:
        raise Http404("no such qrels")
    text = task_type_get(campaign.task_type).report_presentation().qrels_text(sets[source])
    return _attachment(text, content_type="text/plain; charset=utf-8",
                       filename=f"{campaign.slug}-{source}.qrels")


LEADERBOARD_FILE = "trec-leaderboard.txt"


def _leaderboard_download(campaign, source: str, status_url: str) -> HttpResponse:
    """SOURCE's qrels' leaderboard (TREC AutoJudge): every run's measures per topic and their means, under the qrels
    stored with the report, with its relevance level and compatibility persistence."""
    opened, sets = _qrels_sets(campaign)
    if opened is not None and not opened.ready:
        return _not_built(campaign, opened, status_url)
    if source not in sets:
        raise Http404("no such qrels")
    text = task_type_get(campaign.task_type).report_presentation().leaderboard_text(
        campaign=campaign, report=opened.document, qrels=sets[source])
    return _attachment(text, content_type="text/plain; charset=utf-8",
                       filename=f"{campaign.slug}-{source}-{LEADERBOARD_FILE}")


@require_GET
def agreement_leaderboard(request, slug, source):
    """Graded relevance: the leaderboard of the runs under one qrels source (consensus, assessor-NAME, judge-NAME),
    as `run measure topic value` lines (TREC AutoJudge), what `--format trec-leaderboard` reads back."""
    campaign = campaign_for_researcher(request.user, slug)
    return _leaderboard_download(campaign, source, _page_status_url(request, campaign))


@require_GET
def agreement_qrels(request, slug, source):
    """Graded relevance: the TREC qrels the report scored runs with (consensus, assessor-NAME or judge-NAME), graded
    on the campaign's scale."""
    campaign = campaign_for_researcher(request.user, slug)
    return _qrels_download(campaign, source, _page_status_url(request, campaign))


class AgreementQrelsListAPI(APIView):
    """GET: the qrels a graded campaign's report scores runs with: each source with its topics and grades."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 202: OpenApiTypes.OBJECT},
                   summary="The qrels of a graded campaign by source (consensus, assessor-NAME, judge-NAME)")
    def get(self, request, slug):
        campaign = campaign_for_researcher(request.user, slug)
        opened, sets = _qrels_sets(campaign)
        if opened is not None and not opened.ready:
            return _not_built(campaign, opened, _api_status_url(request, campaign))
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
        return _qrels_download(campaign, source, _api_status_url(request, campaign))


class AgreementLeaderboardAPI(APIView):
    """GET: the runs' leaderboard under one source's qrels, `run measure topic value` lines (TREC AutoJudge; topic
    `all` for the mean), measures by their ir_measures names, as text."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR, 202: OpenApiTypes.OBJECT},
                   summary="One source's leaderboard (TREC AutoJudge)")
    def get(self, request, slug, source):
        campaign = campaign_for_researcher(request.user, slug)
        return _leaderboard_download(campaign, source, _api_status_url(request, campaign))


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
    def get(self, request, slug):
        from agreement.report import report_methods_text

        campaign = campaign_for_researcher(request.user, slug)
        opened = report_for_open(campaign=campaign)
        if not opened.ready:
            return _not_built(campaign, opened, _api_status_url(request, campaign))
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
    """GET: the agreement report of the campaign (DESIGN.md §5), as stored for its data version. Researchers of the
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
                   summary="The campaign's agreement report (DESIGN.md §5)")
    def get(self, request, slug):
        campaign = campaign_for_researcher(request.user, slug)
        opened = report_for_open(campaign=campaign)
        if not opened.ready:
            return _not_built(campaign, opened, _api_status_url(request, campaign))
        response = Response(opened.document)
        response["X-Report-Version"] = str(opened.version)
        response["X-Report-Schema"] = str(REPORT_SCHEMA)
        response["X-Data-Version"] = str(opened.data_version)
        response["X-Report-Updating"] = "true" if opened.updating and opened.state != FAILED else "false"
        if opened.state == FAILED:
            response["X-Report-Build-Error"] = opened.build_error.encode("ascii", "backslashreplace").decode()[:200]
        return response


def judge_development(request, slug):
    """The judge development page: make the campaign's development split (POST), then each judge's figures on its part
    of it and the development items a judge not marked final gets wrong (reports.development)."""
    from reports.development import development_view  # the statistics libraries load on first use, not at start

    campaign = campaign_for_researcher(request.user, slug)
    form = DevelopmentSplitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            summary = split_make(campaign=campaign, user=request.user, **_split_settings(form))
        except SplitError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Split: {summary['development']} items to develop judges on, "
                                      f"{summary['held_out_items']} held out.")
            return redirect("judge-development", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, **development_view(campaign=campaign)}
    return render(request, "judges/development.html", context, status=400 if form.errors else 200)


def _split_settings(form: DevelopmentSplitForm) -> dict:
    """The split's settings from a valid DevelopmentSplitForm: its fields but the confirmation."""
    return {key: value for key, value in form.cleaned_data.items() if key != "confirm"}


class DevelopmentSplitApi(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug):
        """The campaign's development split and each judge's figures on its part of it (the judge development page);
        {"split": null, "judges": []} before the split is made."""
        from reports.development import development_view

        campaign = campaign_for_researcher(request.user, slug)
        return Response(development_view(campaign=campaign))

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug):
        """Split the campaign's items once: {"confirm": true, "held_out": 0.5, "seed": 0, "stratify": "topic" or
        "system"} (all but confirm optional); 201 with the split, 400 without "confirm": true (the split cannot be
        undone), when it is split already or a setting is out of range."""
        campaign = campaign_for_researcher(request.user, slug)
        form = DevelopmentSplitForm({**{name: field.initial for name, field in DevelopmentSplitForm.base_fields.items()},
                                     **(request.data if isinstance(request.data, dict) else {})})
        if not form.is_valid():
            return Response({"detail": "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())},
                            status=400)
        try:
            summary = split_make(campaign=campaign, user=request.user, **_split_settings(form))
        except SplitError as exc:
            return Response({"detail": str(exc)}, status=400)
        return Response(summary, status=201)



def _probe_kinds(campaign) -> list[tuple[str, str]]:
    from tasktypes.probes import KINDS

    return [(kind, KINDS[kind].title) for kind in task_type_get(campaign.task_type).probe_kinds]


def _probe_judges(campaign) -> list[dict]:
    """The campaign's judges that can run on probes (not imported ones), with how many probes each has a verdict on."""
    from django.db.models import Count

    rows = (campaign.judges.exclude(family=EXTERNAL_FAMILY).annotate(judged=Count("probe_verdicts"))
            .order_by("name").values("id", "name", "family", "judged", "final_at"))
    return list(rows)


def judge_probes(request, slug):
    """The robustness probes page: make probes of the campaign's items (POST make), delete a kind (POST delete), run a
    judge on them (POST run), and read each judge's flip rates (tasktypes.probes)."""
    from judges.errors import JudgeConfigError, JudgeQueueError
    from judges.probes import probes_judge
    from tasktypes.probes import ProbeError, probes_delete, probes_make, probes_view

    campaign = campaign_for_researcher(request.user, slug)
    kinds = _probe_kinds(campaign)
    form = ProbesForm(request.POST if "make" in request.POST else None, kinds=kinds)
    if request.method == "POST":
        if "make" in request.POST and form.is_valid():
            try:
                made = probes_make(campaign=campaign, **form.cleaned_data)
            except ProbeError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, "; ".join(
                    f"{kind}: {counts['made']} probes made of {counts['eligible']} items that qualify"
                    if not counts["kept"] else f"{kind}: kept the {counts['kept']} probes made before"
                    for kind, counts in made.items()))
                return redirect("judge-probes", slug=campaign.slug)
        elif "delete" in request.POST:
            deleted = probes_delete(campaign=campaign, kind=request.POST.get("delete", ""))
            messages.success(request, f"Deleted {deleted} probes with the verdicts on them.")
            return redirect("judge-probes", slug=campaign.slug)
        elif "run" in request.POST:
            judge = campaign.judges.filter(pk=request.POST.get("run") or 0).first()
            if judge is None:
                raise Http404("No such judge.")
            try:
                queued = probes_judge(judge=judge, user=request.user)
            except (JudgeConfigError, JudgeQueueError) as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"{judge.name}: {queued} probes queued." if queued else
                                 f"{judge.name} has a verdict on every probe already.")
            return redirect("judge-probes", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "judges": _probe_judges(campaign), **probes_view(campaign=campaign)}
    return render(request, "judges/probes.html", context, status=400 if form.errors else 200)


class ProbesApi(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug):
        """The probe kinds the campaign's task type offers, how many probes each has, and each judge's flip rates
        ({"offered": [...], "report": null} before any probe is made)."""
        from tasktypes.probes import probes_view

        campaign = campaign_for_researcher(request.user, slug)
        return Response(probes_view(campaign=campaign))

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug):
        """Make probes: {"kinds": ["instruction"], "per_kind": 100, "seed": 0} (per_kind and seed optional); a kind the
        campaign has probes of already is kept as it is. 201 with {kind: {"made", "kept", "eligible"}}."""
        from tasktypes.probes import ProbeError, probes_make

        campaign = campaign_for_researcher(request.user, slug)
        body = request.data if isinstance(request.data, dict) else {}
        form = ProbesForm({"per_kind": ProbesForm.base_fields["per_kind"].initial,
                           "seed": ProbesForm.base_fields["seed"].initial, **body}, kinds=_probe_kinds(campaign))
        if not form.is_valid():
            return Response({"detail": "; ".join(f"{name}: {' '.join(errors)}"
                                                 for name, errors in form.errors.items())}, status=400)
        try:
            return Response(probes_make(campaign=campaign, **form.cleaned_data), status=201)
        except ProbeError as exc:
            return Response({"detail": str(exc)}, status=400)

    @extend_schema(parameters=[OpenApiParameter("kind", str, required=True)], responses={200: OpenApiTypes.OBJECT})
    def delete(self, request, slug):
        """Delete the campaign's probes of ?kind= with every verdict on them; {"deleted": n}."""
        from tasktypes.probes import probes_delete

        campaign = campaign_for_researcher(request.user, slug)
        return Response({"deleted": probes_delete(campaign=campaign, kind=request.query_params.get("kind", ""))})


class JudgeProbesApi(APIView):
    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug, judge_id):
        """Run the judge on every probe of the campaign it has no verdict on; 202 with {"queued": n}. 400 for a judge
        of imported verdicts or an endpoint the caller may not use, 503 when the broker cannot be reached."""
        from judges.errors import JudgeConfigError, JudgeQueueError
        from judges.probes import probes_judge

        campaign = campaign_for_researcher(request.user, slug)
        judge = campaign.judges.filter(pk=judge_id).first()
        if judge is None:
            raise Http404("No such judge.")
        try:
            queued = probes_judge(judge=judge, user=request.user)
        except JudgeConfigError as exc:
            return Response({"detail": str(exc)}, status=400)
        except JudgeQueueError as exc:
            return Response({"detail": str(exc)}, status=503)
        return Response({"judge": judge.name, "queued": queued}, status=202)
