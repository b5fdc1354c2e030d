"""The import page: a researcher uploads files in one of the import formats into their campaign; a worker imports
them (interchange.jobs) while the job page shows the progress, then the summary."""

import re

from django import forms
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html, format_html_join
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django_htmx.http import HttpResponseStopPolling

from annotate.access import campaign_for_researcher
from config.middleware import request_body_limit
from annotate.task_types.registry import task_type_get
from interchange.importers.common import ImportDataError
from interchange.importers.service import JUDGE_NAME_REQUIRED, SHARED_FORMAT_HELP, ImportRequestError, ImportSummary
from interchange.jobs import (
    ImportQueueError,
    import_job_create,
    import_job_progress,
    import_job_state,
    import_jobs_recent,
    import_upload_handlers,
)
from interchange.models import ImportJob, ImportStatus



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
    repeat_assessors = forms.BooleanField(
        required=False, help_text="trec-preferences, pairwise-jsonl: a pair judged again by an assessor the file does "
                                  "not name is another assessor's verdict.")

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


@request_body_limit("REQUEST_MAX_BYTES")  # an import file and its form
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
                                        tag=data["tag"] or None, clip=data["clip"],
                                        repeat_assessors=data["repeat_assessors"])
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
                   "clips": "judge-qrels" in spec.import_formats, "repeats": spec.repeat_formats,
                   "jobs": import_jobs_recent(campaign=campaign),
                   "format_help": {name: help_html(spec.format_help.get(name) or SHARED_FORMAT_HELP.get(name, ""))
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
