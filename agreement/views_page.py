"""The agreement report's page, the status it polls, and the page comparing two judges.

The page reads the campaign's stored report (agreement.stored.report_for_open): the one document
`agreement_report_build` makes, kept per data version, so that opening an unchanged report reads one row. A report whose
data changed since is shown as it was, marked updating, while a worker rebuilds it. Before the first build is stored
nothing waits on it: the page answers at once with "Building…" and polls. Researchers of the campaign only (anyone
else gets a 404, as if the campaign did not exist).

The statistics and plots are imported by the views that use them, not at the top: the URL configuration imports this
module, and every management command, worker and web process loads the URL configuration at start, so scipy,
scikit-learn and matplotlib (about 1 s) would be paid by each of them (issue 35, start-up under 2 s).
"""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from agreement.stored import OpenedReport, report_for_open, stored_report_status
from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get
from reports.presentation import PART_WORDS, partial_coverage


@require_GET
def agreement_report(request, slug):
    campaign = campaign_for_researcher(request.user, slug)
    opened = report_for_open(campaign=campaign)
    if not opened.ready:
        # Answered at once; the page polls status.json and reloads when the worker has stored the report.
        return render(request, "agreement/report_building.html", {"campaign": campaign, "opened": opened})
    return render(request, "agreement/report.html", _report_context(campaign, opened))


def _report_context(campaign, opened: OpenedReport) -> dict:
    """What report.html shows of OPENED, the campaign's stored report: the blocks every report has, then what its task
    type's presentation adds for its own body."""
    report = opened.document
    presentation = task_type_get(campaign.task_type).report_presentation()
    judge_names = list(report["judges"])
    # The report's plots, inline, as drawn when it was built: the first is the main one.
    from agreement.plots import report_plot_names

    names = report_plot_names(report=report)
    plots = opened.plots
    return {
        "campaign": campaign,
        "report": report,
        "opened": opened,
        "presentation": presentation,
        "judge_names": judge_names,
        "judge_rows": [
            {"name": name, **block, "part_words": PART_WORDS.get(block.get("part")),
             "partial": bool(partial_coverage(block["item"].get("coverage")))}
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
        "ppi_svg": plots.get("ppi"),
        "plots_error": opened.extras().get("plots_error"),
        "ablation_rows": _ablation_rows(report, "rows"),
        "ablation_left_out": _ablation_rows(report, "left_out"),
        # What the report's own body shows beside the document (its task type's presentation).
        **presentation.page_context(report, judge_names=judge_names, plots=plots),
    }


def _pair_matrix(block: dict) -> list[dict]:
    """A tests block as matrix rows: each side, then per column side the pair (row, column) above the diagonal."""
    pairs = {(pair["a"], pair["b"]): pair for pair in block["pairs"]}
    return [{"name": row, "cells": [pairs.get((row, column)) for column in block["order"]]} for row in block["order"]]


def _ablation_rows(report: dict, part: str) -> list[dict]:
    """The ablation block's rows of PART ("rows", "left_out"), each with its settings' values in the block's order;
    none without an ablation."""
    if not report.get("ablation"):
        return []
    settings = report["ablation"]["settings"]
    return [{**row, "setting_values": [row["settings"].get(key) for key in settings]}
            for row in report["ablation"].get(part, ())]


@require_GET
def agreement_report_status(request, slug):
    """What the page polls while its report is building or updating: {report_version, data_version, updating,
    building, step, building_seconds, queue_error, built_at}. Reads two rows; never builds."""
    campaign = campaign_for_researcher(request.user, slug)
    return JsonResponse(stored_report_status(campaign=campaign))


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
