"""The agreement report document (docs/design.md §5): one builder behind the page, the CSV, the API and the command. The
campaign's task type builds it (its spec's report_build, with the report kit: reports/); what every report has
beside that is added here."""

from __future__ import annotations

import gc

from annotate.models import Campaign
from annotate.task_types.registry import task_type_get
from judges.development import split_summary
from judges.selectors import judges_served_models
from reports.arms import arms_report_build
from reports.beside import blocks_joined
from reports.methods import interval_errors, labels_csv, methods_text, random_stream, software_versions
from reports.replacement import replacement_text
from stats import resampling
from tasktypes.probes import probe_report


def agreement_report_build(*, campaign: Campaign) -> dict:
    """The report document for CAMPAIGN, a JSON-ready dict in the shape of docs/design.md §5, built by the campaign's
    task type (its spec's report_build: tasktypes/<name>/report.py), with its layout and, in an assistance
    experiment (option arms), how the arms compare (reports.arms).

    Reads a fixed number of queries (see reports.selectors); numbers are unrounded floats.
    """
    # A build makes millions of short-lived tuples and arrays and no reference cycles worth collecting; with Python's
    # cycle collector on, each of its full passes walks every object of the worker (0.4-0.6 s of a 4 s build at a
    # million judgments, in a worker holding two million objects). Reference counting frees all but cycles meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        spec = task_type_get(campaign.task_type)
        with resampling.interval_errors_recorded() as errors, blocks_joined():
            report = spec.report_build(campaign=campaign)
            arms = arms_report_build(campaign=campaign)
            probes = probe_report(campaign=campaign)
        report["layout"] = spec.report_layout
        # What computed the figures, for the methods section (reports.methods).
        report["software"] = software_versions()
        report["random_stream"] = random_stream()  # which draws its intervals and budget figures came from
        report["interval_errors"] = interval_errors(errors)  # how far their ends move with the stream
        if arms is not None:
            report["arms"] = arms
        if probes is not None:  # the judges' flip rates on robustness probes (tasktypes.probes)
            report["probes"] = probes
        split = split_summary(campaign=campaign)
        if split is not None:  # which part each judge's figures are read on (judges.development)
            report["development_split"] = split
        return report
    finally:
        if collecting:
            gc.enable()


def report_methods_text(*, campaign: Campaign, opened) -> str:
    """The methods section of CAMPAIGN's report as OPENED (agreement.stored.OpenedReport, ready): the document, the
    campaign's judges with their configurations, and the figures as the command prints them."""
    report = opened.document
    figures = task_type_get(campaign.task_type).report_presentation().text(report)
    if report.get("replacement"):
        figures += "\n" + replacement_text(report["replacement"])
    served = judges_served_models(campaign=campaign)
    judges = [(judge.name, judge.family, judge.config_hash, judge.config,
               served[judge.pk].text() if judge.pk in served else "", judge.is_external)
              for judge in campaign.judges.order_by("name")]
    built = opened.built_at.strftime("%Y-%m-%d %H:%M UTC") if opened.built_at else "at an unknown time"
    return methods_text(report=report, campaign_name=campaign.name, judges=judges, figures=figures, built_at=built,
                        data_version=opened.version)


def report_labels_csv(*, campaign: Campaign) -> str:
    """The per-rater label table of CAMPAIGN, read now (reports.methods.labels_csv)."""
    from annotate.models import Item
    from reports.selectors import human_labels_get, judge_labels_get

    humans = human_labels_get(campaign=campaign)
    rows = Item.objects.filter(campaign=campaign).values_list("id", "external_id", "topic__external_id")
    items, topics = {}, {}
    for pk, external_id, topic in rows.iterator(chunk_size=10_000):
        items[pk], topics[pk] = external_id, topic or ""
    return labels_csv(items=items, topics=topics, ratings=humans.ratings, judges=judge_labels_get(campaign=campaign),
                      human_label=humans.item_label)
