"""The robustness probes page and its API: make probes of the campaign's items, delete a kind, run a judge on them,
and read each judge's flip rates (tasktypes.probes). Researchers of the campaign only."""

from django.contrib import messages
from django.db.models import Count
from django.http import Http404
from django.shortcuts import redirect, render
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from annotate.task_types.registry import task_type_get
from judges.forms import ProbesForm
from judges.models import EXTERNAL_FAMILY


def _probe_kinds(campaign) -> list[tuple[str, str]]:
    """(kind, title) of each probe kind the campaign's task type declares, in its order."""
    return [(name, kind.title) for name, kind in task_type_get(campaign.task_type).probes().items()]


def _probe_judges(campaign) -> list[dict]:
    """The campaign's judges that can run on probes (not imported ones), with how many probes each has a verdict on."""
    rows = (campaign.judges.exclude(family=EXTERNAL_FAMILY).annotate(judged=Count("probe_verdicts"))
            .order_by("name").values("id", "name", "family", "judged", "final_at"))
    return list(rows)


def judge_probes(request, slug):
    """The robustness probes page: make probes of the campaign's items (POST make), delete a kind (POST delete), run a
    judge on them (POST run), and read each judge's flip rates (tasktypes.probes)."""
    from tasktypes.probes import probes_view

    campaign = campaign_for_researcher(request.user, slug)
    form = ProbesForm(request.POST if "make" in request.POST else None, kinds=_probe_kinds(campaign))
    if request.method == "POST":
        if "make" in request.POST and form.is_valid():
            if _probes_make(request, campaign, form):
                return redirect("judge-probes", slug=campaign.slug)
        elif "delete" in request.POST:
            _probes_delete(request, campaign)
            return redirect("judge-probes", slug=campaign.slug)
        elif "run" in request.POST:
            _probes_run(request, campaign)
            return redirect("judge-probes", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "judges": _probe_judges(campaign), **probes_view(campaign=campaign)}
    return render(request, "judges/probes.html", context, status=400 if form.errors else 200)


def _probes_make(request, campaign, form: ProbesForm) -> bool:
    """Make the probes a valid FORM asks for and say how many; False, with the reason on FORM, when none could be."""
    from tasktypes.probes import ProbeError, probes_make

    try:
        made = probes_make(campaign=campaign, **form.cleaned_data)
    except ProbeError as exc:
        form.add_error(None, str(exc))
        return False
    messages.success(request, "; ".join(
        f"{kind}: {counts['made']} probes made of {counts['eligible']} items that qualify"
        if not counts["kept"] else f"{kind}: kept the {counts['kept']} probes made before"
        for kind, counts in made.items()))
    return True


def _probes_delete(request, campaign) -> None:
    from tasktypes.probes import probes_delete

    deleted = probes_delete(campaign=campaign, kind=request.POST.get("delete", ""))
    messages.success(request, f"Deleted {deleted} probes with the verdicts on them.")


def _probes_run(request, campaign) -> None:
    """Queue the judge POST names on the probes it has no verdict on, saying how many or why not."""
    from judges.errors import JudgeConfigError, JudgeQueueError
    from judges.probes import probes_judge

    judge = campaign.judges.filter(pk=request.POST.get("run") or 0).first()
    if judge is None:
        raise Http404("No such judge.")
    try:
        queued = probes_judge(judge=judge, user=request.user)
    except (JudgeConfigError, JudgeQueueError) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{judge.name}: {queued} probes queued." if queued else
                         f"{judge.name} has a verdict on every probe already.")


class ProbesApi(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug):
        """The probe kinds the campaign's task type offers, how many probes each has, and each judge's flip rates
        ({"offered": [...], "report": null} before any probe is made)."""
        from tasktypes.probes import probes_view

        campaign = campaign_for_researcher(request.user, slug)
        return Response(probes_view(campaign=campaign))

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug):
        """Make probes: {"kinds": ["instruction"], "per_kind": 100, "seed": 0} (per_kind and seed optional); a kind the
        campaign has probes of already is kept as it is. 201 with {kind: {"made", "kept", "eligible"}}."""
        from tasktypes.probes import ProbeError, probes_make

        campaign = campaign_for_researcher(request.user, slug)
        body = request.data if isinstance(request.data, dict) else {}
        form = ProbesForm({"per_kind": ProbesForm.base_fields["per_kind"].initial,
                           "seed": ProbesForm.base_fields["seed"].initial, **body}, kinds=_probe_kinds(campaign))
        if not form.is_valid():
            return Response({"detail": "; ".join(f"{name}: {' '.join(errors)}"
                                                 for name, errors in form.errors.items())}, status=400)
        try:
            return Response(probes_make(campaign=campaign, **form.cleaned_data), status=201)
        except ProbeError as exc:
            return Response({"detail": str(exc)}, status=400)

    @extend_schema(parameters=[OpenApiParameter("kind", str, required=True)], responses={200: OpenApiTypes.OBJECT})
    def delete(self, request, slug):
        """Delete the campaign's probes of ?kind= with every verdict on them; {"deleted": n}."""
        from tasktypes.probes import probes_delete

        campaign = campaign_for_researcher(request.user, slug)
        return Response({"deleted": probes_delete(campaign=campaign, kind=request.query_params.get("kind", ""))})


class JudgeProbesApi(APIView):
    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug, judge_id):
        """Run the judge on every probe of the campaign it has no verdict on; 202 with {"queued": n}. 400 for a judge
        of imported verdicts or an endpoint the caller may not use, 503 when the broker cannot be reached."""
        from judges.errors import JudgeConfigError, JudgeQueueError
        from judges.probes import probes_judge

        campaign = campaign_for_researcher(request.user, slug)
        judge = campaign.judges.filter(pk=judge_id).first()
        if judge is None:
            raise Http404("No such judge.")
        try:
            queued = probes_judge(judge=judge, user=request.user)
        except JudgeConfigError as exc:
            return Response({"detail": str(exc)}, status=400)
        except JudgeQueueError as exc:
            return Response({"detail": str(exc)}, status=503)
        return Response({"judge": judge.name, "queued": queued}, status=202)
