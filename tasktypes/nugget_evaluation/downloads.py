"""What the Nuggets page and the API share: a researcher's nugget_evaluation campaign, and its downloads (the answers,
lists and marks in the layouts its imports read, written by exports.py)."""

from django.http import Http404, HttpResponse

from annotate.access import campaign_for_researcher
from annotate.task_types.spec import DownloadFile, ExtraDownload
from tasktypes.nugget_evaluation import exports

TYPE = "nugget_evaluation"
JSONL = "application/x-ndjson; charset=utf-8"
TSV = "text/tab-separated-values; charset=utf-8"


def nugget_campaign(user, slug: str):
    """USER's campaign SLUG, where they are a researcher and it evaluates answers by nuggets (else 404 or 403)."""
    campaign = campaign_for_researcher(user, slug)
    if campaign.task_type != TYPE:
        raise Http404("This campaign does not evaluate answers by nuggets.")
    return campaign


# shape -> (the export, its content type, whether it takes a judge)
EXPORTS = {
    "rag-answers": (exports.answers_rag_jsonl, JSONL, False),
    "segments": (exports.segments_jsonl, JSONL, False),
    "nuggetizer-nuggets": (exports.nuggets_nuggetizer_jsonl, JSONL, False),
    "nuggets-tsv": (exports.nuggets_tsv, TSV, False),
    "autojudge-nugget-bank": (exports.nugget_banks_jsonl, JSONL, False),
    "nuggetizer-assignments": (exports.assignments_nuggetizer_jsonl, JSONL, True),
    "assignments-tsv": (exports.assignments_tsv, TSV, True),
}


def export_response(campaign, shape: str, judge: str | None):
    """The campaign's data in SHAPE (EXPORTS), JUDGE's marks for the marks shapes when named (else the humans');
    None for an unknown shape."""
    found = EXPORTS.get(shape)
    if found is None:
        return None
    write, content_type, takes_judge = found
    text = write(campaign, judge=judge or None) if takes_judge else write(campaign)
    response = HttpResponse(text, content_type=content_type)
    extension = "tsv" if content_type == TSV else "jsonl"
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-{shape}.{extension}"'
    return response




def answers_file(request, *, campaign, report, extras) -> DownloadFile:
    """Every answer's scores under the humans and under each judge, from the stored report (tables.answers_csv,
    imported here: the report's tables bring scipy, which start-up does without)."""
    from tasktypes.nugget_evaluation.tables import answers_csv

    return DownloadFile(text=answers_csv(report), filename=f"{campaign.slug}-answers.csv",
                        content_type="text/csv; charset=utf-8")


ANSWERS = ExtraDownload("answers' scores", "answers.csv", "nugget-answers-csv", "api-nugget-answers-csv", answers_file,
                        "Each answer's nugget scores under the humans and under each judge")
