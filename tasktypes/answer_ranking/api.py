"""The REST API of answer_ranking: its campaigns' human rankings (and a judge's run) out, in the shapes its importers
read. Routed by its api_urls module, which the project's API includes for every task type that has one."""

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from interchange.serializers import ImportErrorSerializer
from tasktypes.answer_ranking.exports import ExportError, judge_trec_run, rankings_jsonl, rankings_label_studio


class CampaignRankingsExportApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "shape",
                enum=["jsonl", "label-studio", "trec-run"],
                default="jsonl",
                description="jsonl (ties and dimensions kept), a Label Studio Ranker export, "
                "or trec-run: the scores of the judge named by `judge`",
            ),
            OpenApiParameter("judge", str, required=False, description="trec-run: the judge's name"),
        ],
        responses={
            200: OpenApiResponse(
                description="the candidates and current human rankings (or a judge's run), "
                "in the shape `import_data --format jsonl|label-studio|trec-run` reads"
            ),
            400: ImportErrorSerializer,
        },
    )
    def get(self, request, slug):
        """An answer_ranking campaign's human rankings, ready to import elsewhere (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        shape = request.query_params.get("shape", "jsonl")
        try:
            if shape == "jsonl":
                return HttpResponse(
                    rankings_jsonl(campaign=campaign), content_type="application/x-ndjson; charset=utf-8"
                )
            if shape == "label-studio":
                return Response(rankings_label_studio(campaign=campaign))
            if shape == "trec-run":
                judge = request.query_params.get("judge", "")
                if not judge:
                    return Response({"detail": "shape trec-run needs ?judge=NAME"}, status=status.HTTP_400_BAD_REQUEST)
                return HttpResponse(
                    judge_trec_run(campaign=campaign, judge=judge), content_type="text/plain; charset=utf-8"
                )
        except ExportError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"detail": f"unknown shape {shape!r}; choose jsonl, label-studio or trec-run"},
                        status=status.HTTP_400_BAD_REQUEST)
