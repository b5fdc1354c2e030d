"""The judge panel: the campaign's judges, a form to start EM or F1, and each run with a live progress bar.

Researchers of the campaign only; anyone else gets a 404. One view serves the page and, for htmx,
one run's row; the row polls every second and the poll stops once the run is no longer active.
"""

import json

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from annotate.access import campaign_for_researcher
from judges.development import SplitError, judge_mark_final
from judges.endpoints import endpoint_public, endpoints_usable
from judges.errors import JudgeConfigError, JudgeRunError
from judges.families import families_for, family_options
from judges.forms import JudgeRunStartForm
from judges.models import Judge, JudgeRun
from judges.secrets import config_public
from judges.selectors import (
    campaign_failures,
    judge_runs_for_campaign,
    judge_versions,
    judges_for_campaign,
    judges_new_items,
    judges_served_models,
    judges_usage_for_campaign,
    run_is_active,
    run_progress,
    run_throughput,
)
from judges.services import (
    judge_run_cancel,
    judge_run_new_items_start,
    judge_run_resume,
    judge_run_retry_failed,
    judge_run_start,
)


def _run_row(run: JudgeRun) -> dict:
    progress = run_progress(run=run)
    return {"run": run, "progress": progress, "active": run_is_active(run=run),
            "throughput": run_throughput(run=run, progress=progress)}


def _config_changed(judge, task_type: str) -> dict:
    """The judge's settings that differ from its family's defaults (the LLM prompt's defaults are long)."""
    config = config_public(judge.config)
    try:
        options = family_options(judge.family, task_type)
    except JudgeConfigError:  # imported (external) judges have no family defaults
        return config
    return {key: value for key, value in config.items() if key not in options or options[key].default != value}


def _with_config_text(judge, usage: dict, task_type: str):
    """JUDGE with what the panel shows: its configuration (secrets masked) and, for LLM judges, its usage."""
    judge.usage = usage.get(judge.id)
    judge.config_changed_text = json.dumps(_config_changed(judge, task_type), sort_keys=True)
    judge.config_text = json.dumps(config_public(judge.config), sort_keys=True) if judge.config else ""
    return judge


def _judges_shown(campaign, usage: dict) -> list:
    """The campaign's judges as the Judges table shows them: configuration, the model ids the server reported, USAGE,
    items not judged yet."""
    judges = [_with_config_text(judge, usage, campaign.task_type) for judge in judges_for_campaign(campaign=campaign)]
    new_items = judges_new_items(campaign=campaign, judges=judges)
    served = judges_served_models(campaign=campaign)
    for judge in judges:
        judge.new_items = new_items.get(judge.id)
        judge.served = served.get(judge.id)
    return judges


def judge_panel(request, slug):
    campaign = campaign_for_researcher(request.user, slug)
    if request.htmx and request.GET.get("run"):
        run_id = request.GET["run"]
        if not run_id.isdigit():
            raise Http404("No such run.")
        run = get_object_or_404(JudgeRun.objects.select_related("judge"), pk=int(run_id), judge__campaign=campaign)
        row = _run_row(run)
        response = render(request, "judges/_run_row.html", {"campaign": campaign, "row": row})
        if not row["active"]:
            # The run has ended: its judge's counts and "Not judged yet" (which said the run was under way) change
            # too, beside the run's row.
            judge = next(judge for judge in _judges_shown(campaign, {}) if judge.id == run.judge_id)
            cells = render_to_string("judges/_judge_row.html", {"campaign": campaign, "judge": judge, "oob": True},
                                     request=request)
            return HttpResponseStopPolling(response.content + cells.encode())
        return response
    endpoints = endpoints_usable(campaign=campaign, user=request.user)
    families = families_for(campaign.task_type)
    form = JudgeRunStartForm(request.POST or None, initial={"family": families[0] if families else ""},
                             task_type=campaign.task_type, endpoints=endpoints)
    if request.method == "POST" and form.is_valid():
        try:
            run = judge_run_start(
                campaign=campaign, name=form.cleaned_data["name"], family=form.cleaned_data["family"],
                config=form.config(), batch_size=form.cleaned_data["batch_size"], created_by=request.user,
                sample=form.cleaned_data.get("sample"),
            )
        except (JudgeConfigError, JudgeRunError) as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Run {run.id} of judge {run.judge.name} {run.status}.")
            return redirect("judge-panel", slug=campaign.slug)
    usage = judges_usage_for_campaign(campaign=campaign)
    judges = _judges_shown(campaign, usage)
    context = {
        "campaign": campaign,
        "form": form,
        "judges": judges,
        "failures": campaign_failures(judges=judges),
        "endpoints": [endpoint_public(endpoint) for endpoint in endpoints],
        "usage": bool(usage),
        "rows": [_run_row(run) for run in judge_runs_for_campaign(campaign=campaign)[:50]],
        "versions": judge_versions(campaign=campaign),
    }
    return render(request, "judges/panel.html", context, status=400 if form.errors else 200)


def _run_for_panel(request, slug, run_id) -> JudgeRun:
    campaign = campaign_for_researcher(request.user, slug)
    run = JudgeRun.objects.select_related("judge").filter(pk=run_id, judge__campaign=campaign).first()
    if run is None:
        raise Http404("No such run.")
    return run


@require_POST
def judge_run_cancel_view(request, slug, run_id):
    run = _run_for_panel(request, slug, run_id)
    try:
        judge_run_cancel(run=run)
        messages.success(request, f"Run {run.id} cancelled.")
    except JudgeRunError as exc:
        messages.error(request, str(exc))
    return redirect("judge-panel", slug=slug)


@require_POST
def judge_run_resume_view(request, slug, run_id):
    run = _run_for_panel(request, slug, run_id)
    try:
        run = judge_run_resume(run=run, user=request.user)
        messages.success(request, f"Run {run.id} resumed: {run.status}.")
    except (JudgeConfigError, JudgeRunError) as exc:
        messages.error(request, str(exc))
    return redirect("judge-panel", slug=slug)


@require_POST
def judge_run_retry_failed_view(request, slug, run_id):
    run = _run_for_panel(request, slug, run_id)
    try:
        run, removed = judge_run_retry_failed(run=run, user=request.user)
        messages.success(
            request, f"{removed} failed item{'s' if removed != 1 else ''} queued again on run {run.id}: {run.status}."
        )
    except (JudgeConfigError, JudgeRunError) as exc:
        messages.error(request, str(exc))
    return redirect("judge-panel", slug=slug)


@require_POST
def judge_new_items_view(request, slug, judge_id):
    """Judge the items the judge has not judged yet (new items of an import), in one run."""
    campaign = campaign_for_researcher(request.user, slug)
    judge = Judge.objects.select_related("campaign").filter(pk=judge_id, campaign=campaign).first()
    if judge is None:
        raise Http404("No such judge.")
    try:
        run = judge_run_new_items_start(judge=judge, created_by=request.user)
        items = f"{run.total} new item{'s' if run.total != 1 else ''}"
        messages.success(request, f"Run {run.id} of judge {judge.name}: {items}, {run.status}.")
    except (JudgeConfigError, JudgeRunError) as exc:
        messages.error(request, str(exc))
    return redirect("judge-panel", slug=slug)


@require_POST
def judge_mark_final_view(request, slug, judge_id):
    """Mark a judge final: its held-out figures appear in the report (judges.development.judge_mark_final)."""
    campaign = campaign_for_researcher(request.user, slug)
    judge = get_object_or_404(Judge, pk=judge_id, campaign=campaign)
    try:
        judge_mark_final(judge=judge)
        messages.success(request, f"{judge.name} is final: the report reads it on the held-out part now.")
    except SplitError as exc:
        messages.error(request, str(exc))
    return redirect("judge-development", slug=campaign.slug)
