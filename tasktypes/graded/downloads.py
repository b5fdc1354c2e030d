"""What a graded report serves beside its document (GradedRelevance.extra_downloads): each source's qrels
(consensus, assessor-NAME, judge-NAME), graded on the campaign's scale, the runs' leaderboard under them (TREC
AutoJudge), and, in the API, the list of sources. agreement routes them and opens the stored report first; the qrels
are those stored with it (GradedRelevance.report_extras). Light at import: the scoring loads when a file is written."""

from django.http import Http404
from django.urls import reverse

from annotate.task_types.spec import DownloadFile, ExtraDownload

LEADERBOARD_FILE = "trec-leaderboard.txt"


def _qrels(extras: dict, source: str) -> dict:
    """SOURCE's qrels as stored with the report (topic -> doc -> grade); Http404 when it has none of that name."""
    sets = extras.get("qrels", {})
    if source not in sets:
        raise Http404("no such qrels")
    return sets[source]


def qrels_file(request, *, campaign, report: dict, extras: dict, source: str) -> DownloadFile:
    """The TREC qrels (`qid 0 docid grade` lines) the report scored runs with, of one source."""
    from tasktypes.graded.report import qrels_text

    return DownloadFile(qrels_text(_qrels(extras, source)), f"{campaign.slug}-{source}.qrels")


def leaderboard_file(request, *, campaign, report: dict, extras: dict, source: str) -> DownloadFile:
    """The runs' leaderboard under one source's qrels as `run measure topic value` lines (TREC AutoJudge; topic `all`
    for the mean, measures by their ir_measures names), what `--format trec-leaderboard` reads back; scored with the
    report's relevance level and compatibility persistence."""
    from stats import compatibility
    from tasktypes.graded.report import graded_leaderboard, leaderboard_text

    qrels = _qrels(extras, source)
    scoring = {"relevant_from": report["relevant_from"], "compat_p": report.get("compat_p", compatibility.COMPAT_P)}
    text = leaderboard_text(graded_leaderboard(campaign=campaign, qrels=qrels, **scoring), **scoring)
    return DownloadFile(text, f"{campaign.slug}-{source}-{LEADERBOARD_FILE}")


def qrels_sources(request, *, campaign, report: dict, extras: dict) -> dict:
    """The qrels the report scores runs with: each source with its topics, grades and the API's URLs of its qrels and
    its leaderboard."""
    sets = extras.get("qrels", {})
    if not sets:
        raise Http404("this campaign's report has no qrels (graded relevance campaigns only)")

    def url(name: str, source: str) -> str:
        return request.build_absolute_uri(reverse(name, args=[campaign.slug, source]))

    return {"sources": [
        {"source": source, "topics": len(qrels), "grades": sum(len(docs) for docs in qrels.values()),
         "url": url("api-agreement-qrels", source), "leaderboard_url": url("api-agreement-leaderboard", source)}
        for source, qrels in sets.items()]}


# The routes and names agreement has always given them (links, scripts and the TREC tools' users know them).
GRADED_DOWNLOADS = (
    ExtraDownload("qrels", "qrels/", None, "api-agreement-qrels-list", qrels_sources,
                  "The qrels of a graded campaign by source (consensus, assessor-NAME, judge-NAME)"),
    ExtraDownload("qrels", "qrels/<path:source>.qrels", "agreement-qrels", "api-agreement-qrels", qrels_file,
                  "One source's TREC qrels"),
    ExtraDownload("leaderboards", f"leaderboards/<path:source>/{LEADERBOARD_FILE}", "agreement-leaderboard",
                  "api-agreement-leaderboard", leaderboard_file, "One source's leaderboard (TREC AutoJudge)"),
)
