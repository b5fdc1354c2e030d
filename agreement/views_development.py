"""The judge development page and its API: make the campaign's development split, then read each judge's figures on
its part of it (reports.development). It reads the report's selectors, so it lives here, beside the report.
Researchers of the campaign only."""

from django.contrib import messages
from django.shortcuts import redirect, render
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from judges.development import SplitError, split_make
from judges.forms import DevelopmentSplitForm


def judge_development(request, slug):
    """The judge development page: make the campaign's development split (POST), then each judge's figures on its part
    of it and the development items a judge not marked final gets wrong (reports.development)."""
    from reports.development import development_view  # the statistics libraries load on first use, not at start

    campaign = campaign_for_researcher(request.user, slug)
    form = DevelopmentSplitForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            summary = split_make(campaign=campaign, user=request.user, **_split_settings(form))
        except SplitError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Split: {summary['development']} items to develop judges on, "
                                      f"{summary['held_out_items']} held out.")
            return redirect("judge-development", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, **development_view(campaign=campaign)}
    return render(request, "judges/development.html", context, status=400 if form.errors else 200)


def _split_settings(form: DevelopmentSplitForm) -> dict:
    """The split's settings from a valid DevelopmentSplitForm: its fields but the confirmation."""
    return {key: value for key, value in form.cleaned_data.items() if key != "confirm"}


class DevelopmentSplitApi(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug):
        """The campaign's development split and each judge's figures on its part of it (the judge development page);
        {"split": null, "judges": []} before the split is made."""
        from reports.development import development_view

        campaign = campaign_for_researcher(request.user, slug)
        return Response(development_view(campaign=campaign))

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request, slug):
        """Split the campaign's items once: {"confirm": true, "held_out": 0.5, "seed": 0, "stratify": "topic" or
        "system"} (all but confirm optional); 201 with the split, 400 without "confirm": true (the split cannot be
        undone), when it is split already or a setting is out of range."""
        campaign = campaign_for_researcher(request.user, slug)
        initial = {name: field.initial for name, field in DevelopmentSplitForm.base_fields.items()}
        form = DevelopmentSplitForm({**initial, **(request.data if isinstance(request.data, dict) else {})})
        if not form.is_valid():
            return Response({"detail": "; ".join(f"{name}: {' '.join(errors)}"
                                                 for name, errors in form.errors.items())}, status=400)
        try:
            summary = split_make(campaign=campaign, user=request.user, **_split_settings(form))
        except SplitError as exc:
            return Response({"detail": str(exc)}, status=400)
        return Response(summary, status=201)
