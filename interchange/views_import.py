"""The import page: a researcher uploads files in one of the import formats into their campaign; a worker imports
them (interchange.jobs) while the job page shows the progress, then the summary."""

import re

from django import forms
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html, format_html_join
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django_htmx.http import HttpResponseStopPolling

from annotate.access import campaign_for_researcher
from annotate.task_types.formats import Parameter, needs_judge_words, parameter_help, parameters_of
from annotate.task_types.registry import task_type_get
from config.middleware import request_body_limit
from interchange.importers.common import ImportDataError
from interchange.importers.formats import JUDGE
from interchange.importers.service import ImportRequestError, ImportSummary
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


def parameter_form_field(parameter: Parameter) -> forms.Field:
    """The import page's field of an import parameter (annotate.task_types.formats); the page shows its help beside
    it (parameters_shown)."""
    declared = {"required": False, "label": parameter.label}
    if parameter.kind is bool:
        return forms.BooleanField(**declared)
    if parameter.kind is int:
        return forms.IntegerField(min_value=parameter.min_value, **declared)
    return forms.CharField(max_length=parameter.max_length, **declared)


class ImportForm(forms.Form):
    """The import page's form: a format of the campaign's task type, its files, and a field for each parameter its
    formats take."""

    format = forms.ChoiceField(choices=[])
    files = MultipleFileField()

    def __init__(self, *args, task_type: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.import_formats = task_type_get(task_type).import_formats
        # Only the formats that feed this campaign's task type, in the order it lists them.
        self.fields["format"].choices = [(name, name) for name in self.import_formats]
        self.parameters = parameters_of(self.import_formats.values())
        for name, parameter in self.parameters.items():
            self.fields[name] = parameter_form_field(parameter)

    def parameter_values(self) -> dict:
        """The parameters as typed (cleaned), by name."""
        return {name: self.cleaned_data.get(name) for name in self.parameters}

    def clean(self):
        """A judge's verdicts need the name they go under; the page says which field takes it (the service's own
        message names the command line's --judge)."""
        data = super().clean()
        chosen = self.import_formats.get(data.get("format"))
        if chosen is not None and chosen.judge_required and not data.get(JUDGE.name):
            self.add_error(JUDGE.name, f"Format {data['format']} needs a judge name: type the name its verdicts go "
                                       f"under (gpt-4, say) in {JUDGE.label}.")
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
                                        **form.parameter_values())
            except (ImportDataError, ImportRequestError, ImportQueueError) as exc:
                error = str(exc)
            else:
                return redirect("import-job", slug=campaign.slug, job_id=job.id)
    else:
        form = ImportForm(task_type=campaign.task_type)
    status = 400 if (error or form.errors) else 200
    import_formats = task_type_get(campaign.task_type).import_formats
    return render(request, "annotate/import.html",
                  {"campaign": campaign, "form": form, "error": error, "jobs": import_jobs_recent(campaign=campaign),
                   "format_help": {name: help_html(fmt.help) for name, fmt in import_formats.items()},
                   "parameters": parameters_shown(form)},
                  status=status)


def parameters_shown(form: ImportForm) -> list[tuple]:
    """(bound field, what the page says of it in brackets) for each parameter of the form: `needed for a, b and c`
    for the judge's name where a format needs it; else the formats that take it and its help, after `optional, `
    for a field to fill in."""
    needed = needs_judge_words(form.import_formats.values())
    shown = []
    for name, parameter in form.parameters.items():
        words = parameter_help(parameter, form.import_formats.values())
        if name == JUDGE.name and needed:
            words = f"needed for {needed}"
        elif parameter.kind is not bool:
            words = f"optional, {words}"
        shown.append((form[name], words))
    return shown


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
