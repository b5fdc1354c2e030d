"""The import page: a researcher uploads files in one of the import formats into their campaign; a worker imports
them (tasktypes.jobs) while the job page shows the progress, then the summary."""

import re

from django import forms
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html, format_html_join
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django_htmx.http import HttpResponseStopPolling

from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get
from tasktypes.importers.common import ImportDataError
from tasktypes.importers.service import JUDGE_NAME_REQUIRED, ImportRequestError, ImportSummary
from tasktypes.jobs import (
    ImportQueueError,
    import_job_create,
    import_job_progress,
    import_job_state,
    import_jobs_recent,
    import_upload_handlers,
)
from tasktypes.models import ImportJob, ImportStatus

FORMAT_HELP = {
    "qa-eval-jsonl": 'One JSONL file per system: {"question", "answer": [gold...], "prediction"} per line. '
                     "System name from the field below or the file name.",
    "nq301": "The NQ-open 301 folder of castorini/qa-eval as a .zip (or its files): NQ301_human.tsv, "
             "the GPT-4 and text-davinci-003 TSVs, model_outputs/*.jsonl.",
    "judge-scores": "TSV with header topic, item, score and optionally label: an external judge's output, "
                    "under the judge name below.",
    "label-studio": "A Label Studio Ranker project's JSON export (a list of tasks; data.query, data.items, the "
                    "annotators' orders). Give a score judge name to import the items' scores as an external judge.",
    "jsonl": "One topic per line: qid, query, candidates (answers and documents) and optional human rankings "
             "(docs/answer_ranking.md).",
    "trec-qrels": "`qid 0 docno grade` lines: graded judgments of the documents, stored under the file's name.",
    "trec-run": "`qid Q0 docid rank score tag` lines: a ranker's scores of the candidates, as an external judge "
                "named below (default: the run's tag).",
    "atomic-topics": "The TREC AToMiC topic JSON: a list of text sections (text_id, page_title, section_title, "
                     "context_page_description, context_section_description).",
    "images": "Image files named by image id (<id>.jpg, .png, .webp, .gif), or .zip archives of them: checked, "
              "stored with a thumbnail, and given to the pooled items of that id.",
    "judge-qrels": "`qid 0 docid grade` lines on the campaign's scale: an external judge's grades, used as they "
                   "are, under the judge name below.",
    "trec-leaderboard": "`run measure topic value` lines (TREC AutoJudge; topic `all` for the run's mean): an "
                        "automatic judge's leaderboard computed elsewhere, under the judge name below; measures by "
                        "their ir_measures or trec_eval names (nDCG@10, AP, ndcg_cut_10, map). Importing a name again "
                        "replaces its leaderboard.",
    "gold-answers": "JSONL, one question per line: {\"question\", \"answers\": [...]}: the questions' reference "
                    "answers, for the EM and F1 judges; questions the campaign lacks are counted and skipped.",
    "item-categories": "topic, item, category lines (TSV, a .csv file as CSV, or JSONL {\"topic\", \"item\", "
                       "\"category\"}): the categories of items already in the campaign, which the report breaks "
                       "agreement down by; an empty category takes an item's away.",
    "attributed-qa": "The Attributed QA ratings.csv: system_name, question, answer, attribution, passage, "
                     "human_rating (Y/N, blank when unrated), auto_ais, nli_score. Ratings become the items' human "
                     "labels (those items skip the queue); nli_score an external AutoAIS judge named below "
                     "(default: auto-ais).",
}


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class ImportForm(forms.Form):
    format = forms.ChoiceField(choices=[])
    files = MultipleFileField()
    system = forms.CharField(required=False, max_length=200, help_text="qa-eval-jsonl: the system's name.")
    judge = forms.CharField(required=False, max_length=100,
                            help_text="judge-scores, judge-qrels, trec-leaderboard, trec-run, attributed-qa: the external "
                                      "judge's name.")
    score_judge = forms.CharField(required=False, max_length=100,
                                  help_text="label-studio: import the items' scores as this external judge.")
    depth = forms.IntegerField(required=False, min_value=1, help_text="trec-run: pool depth per run (default 25).")
    tag = forms.CharField(required=False, max_length=100, help_text="trec-run: a tag for these runs, e.g. clip-based.")
    clip = forms.BooleanField(required=False, help_text="judge-qrels: set grades off the campaign's scale to its "
                                                        "nearest end (counted) instead of refusing the file.")

    def __init__(self, *args, task_type: str, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the formats that feed this campaign's task type, in the order it lists them.
        self.fields["format"].choices = [(name, name) for name in task_type_get(task_type).import_formats]

    def clean(self):
        """A judge's verdicts need the name they go under; the page says which field takes it (the service's own
        message names the command line's --judge)."""
        data = super().clean()
        if data.get("format") in JUDGE_NAME_REQUIRED and not data.get("judge"):
            self.add_error("judge", f"Format {data['format']} needs a judge name: type the name its verdicts go "
                                    f"under (gpt-4, say) in Judge name.")
        return data


# `text` in a format's help is a line of the file as typed: shown as code.
_CODE_SPAN = re.compile(r"`([^`]+)`")


def help_html(text: str):
    """TEXT, escaped, with each `span` in backticks as <code>span</code>."""
    pieces = _CODE_SPAN.split(text)  # even positions are prose, odd ones were in backticks
    return format_html_join("", "{}", ((format_html("<code>{}</code>", piece) if odd % 2 else piece,)
                                       for odd, piece in enumerate(pieces)))


@csrf_exempt  # the CSRF check reads the body: it runs below, once the upload handlers are set
def campaign_import(request, slug):
    campaign = campaign_for_researcher(request.user, slug)  # before a byte of the body is read
    request.upload_handlers = import_upload_handlers(request)
    return _campaign_import(request, campaign)


@csrf_protect
def _campaign_import(request, campaign):
    error = None
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES, task_type=campaign.task_type)
        if form.is_valid():
            data = form.cleaned_data
            try:
                job = import_job_create(campaign=campaign, user=request.user, fmt=data["format"], files=data["files"],
                                        system=data["system"] or None, judge=data["judge"] or None,
                                        score_judge=data["score_judge"] or None, depth=data["depth"],
                                        tag=data["tag"] or None, clip=data["clip"])
            except (ImportDataError, ImportRequestError, ImportQueueError) as exc:
                error = str(exc)
            else:
                return redirect("import-job", slug=campaign.slug, job_id=job.id)
    else:
        form = ImportForm(task_type=campaign.task_type)
    status = 400 if (error or form.errors) else 200
    spec = task_type_get(campaign.task_type)
    return render(request, "annotate/import.html",
                  {"campaign": campaign, "form": form, "error": error, "pools_runs": spec.pools_runs,
                   "clips": "judge-qrels" in spec.import_formats,
                   "jobs": import_jobs_recent(campaign=campaign),
                   "format_help": {name: help_html(spec.format_help.get(name) or FORMAT_HELP.get(name, ""))
                                   for name, _ in form.fields["format"].choices},
                   "judge_required": [name for name, _ in form.fields["format"].choices
                                      if name in JUDGE_NAME_REQUIRED]},
                  status=status)


def import_job_page(request, slug, job_id):
    """An import job: its progress while it runs (the fragment polls every second), then its summary or error."""
    campaign = campaign_for_researcher(request.user, slug)
    job = get_object_or_404(ImportJob.objects.select_related("created_by"), pk=job_id, campaign=campaign)
    context = {"campaign": campaign, "job": job, "progress": import_job_progress(job=job),
               "state": import_job_state(job=job),
               "summary": ImportSummary.from_dict(job.summary) if job.status == ImportStatus.DONE else None}
    if request.htmx:
        response = render(request, "annotate/_import_job.html", context)
        return response if job.active else HttpResponseStopPolling(response.content)
    return render(request, "annotate/import_job.html", context)
