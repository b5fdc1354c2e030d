"""The agreement report document (DESIGN.md §5): one builder behind the page, the CSV, the API and the command. The
campaign's task type builds it (its spec's report_build, with the report kit: reports/); what every report has
beside that is added here."""

from __future__ import annotations

import gc

from annotate.models import Campaign
from annotate.task_types.registry import task_type_get
from reports.arms import arms_report_build


def agreement_report_build(*, campaign: Campaign) -> dict:
    """The report document for CAMPAIGN, a JSON-ready dict in the shape of DESIGN.md §5, built by the campaign's
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
        report = spec.report_build(campaign=campaign)
        report["layout"] = spec.report_layout
        arms = arms_report_build(campaign=campaign)
        if arms is not None:
            report["arms"] = arms
        return report
    finally:
        if collecting:
            gc.enable()
