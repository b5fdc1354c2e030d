"""The agreement report's downloads: the stored document as JSON, its tables as CSV, its methods as text, its plots
as files; the items and labels CSVs read the data as it is now. While no report is stored the downloads of the
stored one answer as agreement.responses.not_built says. Researchers of the campaign only. The exports and plots
are imported by the views that use them, as in agreement.views_page."""

import json

from django.http import Http404, HttpResponse
from django.views.decorators.http import require_GET

from agreement.responses import attachment, page_status_url, stored_report_view
from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get
from reports.selectors import human_labels_get, item_rows_get, judge_labels_get


@require_GET
@stored_report_view(page_status_url)
def agreement_report_json(request, campaign, opened):
    return attachment(json.dumps(opened.document, indent=2, ensure_ascii=False) + "\n",
                      content_type="application/json", filename=f"{campaign.slug}-agreement.json")


def _table_csv(campaign, opened, table: str) -> HttpResponse:
    """The report's TABLE (systems, judges or topics) as CSV, as its task type's presentation writes it."""
    presentation = task_type_get(campaign.task_type).report_presentation()
    text = getattr(presentation, f"{table}_csv")(opened.document)
    return attachment(text, content_type="text/csv; charset=utf-8", filename=f"{campaign.slug}-{table}.csv")


@require_GET
@stored_report_view(page_status_url)
def agreement_systems_csv(request, campaign, opened):
    return _table_csv(campaign, opened, "systems")


@require_GET
@stored_report_view(page_status_url)
def agreement_judges_csv(request, campaign, opened):
    return _table_csv(campaign, opened, "judges")


@require_GET
@stored_report_view(page_status_url)
def agreement_topics_csv(request, campaign, opened):
    return _table_csv(campaign, opened, "topics")


@require_GET
@stored_report_view(page_status_url)
def agreement_ppi_csv(request, campaign, opened):
    """The humans and each judge together (reports.ppi): one row per judge and system; the header alone for a report
    without the block."""
    from reports.ppi import ppi_csv

    return attachment(ppi_csv(opened.document), content_type="text/csv; charset=utf-8",
                      filename=f"{campaign.slug}-ppi.csv")


@require_GET
def agreement_items_csv(request, slug):
    """Every item with its category, human label and judges' verdicts, read now (not from the stored report)."""
    from reports.tables import items_csv

    campaign = campaign_for_researcher(request.user, slug)
    text = items_csv(rows=item_rows_get(campaign=campaign), human_label=human_labels_get(campaign=campaign).item_label,
                     judges=judge_labels_get(campaign=campaign))
    return attachment(text, content_type="text/csv; charset=utf-8", filename=f"{campaign.slug}-items.csv")


@require_GET
@stored_report_view(page_status_url)
def agreement_methods_txt(request, campaign, opened):
    """The report's methods section for a paper, as plain text (agreement.report.report_methods_text)."""
    from agreement.report import report_methods_text

    return attachment(report_methods_text(campaign=campaign, opened=opened), content_type="text/plain; charset=utf-8",
                      filename=f"{campaign.slug}-methods.txt")


@require_GET
def agreement_labels_csv(request, slug):
    """Every label behind the report, one row per item and rater, read now (agreement.report.report_labels_csv)."""
    from agreement.report import report_labels_csv

    campaign = campaign_for_researcher(request.user, slug)
    return attachment(report_labels_csv(campaign=campaign), content_type="text/csv; charset=utf-8",
                      filename=f"{campaign.slug}-labels.csv")


def _format_refused(campaign, plot: str, fmt: str) -> None:
    from reports.plots import FORMATS

    if fmt not in FORMATS:
        raise Http404("no such format")


@require_GET
@stored_report_view(page_status_url, refused=_format_refused)
def agreement_plot(request, campaign, opened, plot, fmt):
    """One of the report's plots as a file for a paper: SVG, or PNG at print resolution (plots.PRINT_DPI)."""
    from agreement.plots import report_plot
    from reports.plots import FORMATS

    drawn = report_plot(report=opened.document, name=plot)
    if drawn is None:
        raise Http404("no such plot")
    return attachment(drawn.render(fmt), content_type=FORMATS[fmt], filename=f"{campaign.slug}-{plot}.{fmt}")
