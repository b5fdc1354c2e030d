"""REST API for imports and exports: files into a campaign, its rankings and judges' runs out, whole campaigns as
archives. Every lookup is scoped to the user: else 404."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.access import campaign_for_researcher
from annotate.services.campaigns import CampaignError
from tasktypes.archive.web import archive_response, archive_upload_import
from tasktypes.exports import ExportError, judge_trec_run, rankings_jsonl, rankings_label_studio
from tasktypes.importers.common import ImportDataError
from tasktypes.importers.service import ImportRequestError
from tasktypes.importers.uploads import uploads_import
from tasktypes.serializers import (
    ArchiveImportRequestSerializer,
    ArchiveImportSummarySerializer,
    ImportErrorSerializer,
    ImportRequestSerializer,
    ImportSummarySerializer,
)


class CampaignImportApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ImportRequestSerializer},
        responses={201: ImportSummarySerializer, 400: OpenApiResponse(ImportErrorSerializer, "file:line: field: what is wrong")},
    )
    def post(self, request, slug):
        """Import files into the campaign, all or nothing (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        form = ImportRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            summary = uploads_import(campaign=campaign, fmt=data["format"], files=data["files"],
                                     system=data.get("system") or None, judge=data.get("judge") or None,
                                     score_judge=data.get("score_judge") or None, depth=data.get("depth"),
                                     tag=data.get("tag") or None)
        except (ImportDataError, ImportRequestError) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ImportSummarySerializer(summary.as_dict()).data, status=status.HTTP_201_CREATED)


class CampaignRankingsExportApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("shape", enum=["jsonl", "label-studio", "trec-run"], default="jsonl",
                                     description="jsonl (ties and dimensions kept), a Label Studio Ranker export, "
                                                 "or trec-run: the scores of the judge named by `judge`"),
                    OpenApiParameter("judge", str, required=False, description="trec-run: the judge's name")],
        responses={200: OpenApiResponse(description="the candidates and current human rankings (or a judge's run), "
                                                    "in the shape `import_data --format jsonl|label-studio|trec-run` reads"),
                   400: ImportErrorSerializer},
    )
    def get(self, request, slug):
        """An answer_ranking campaign's human rankings, ready to import elsewhere (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        shape = request.query_params.get("shape", "jsonl")
        try:
            if shape == "jsonl":
                return HttpResponse(rankings_jsonl(campaign=campaign), content_type="application/x-ndjson; charset=utf-8")
            if shape == "label-studio":
                return Response(rankings_label_studio(campaign=campaign))
            if shape == "trec-run":
                judge = request.query_params.get("judge", "")
                if not judge:
                    return Response({"detail": "shape trec-run needs ?judge=NAME"}, status=status.HTTP_400_BAD_REQUEST)
                return HttpResponse(judge_trec_run(campaign=campaign, judge=judge), content_type="text/plain; charset=utf-8")
        except ExportError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"detail": f"unknown shape {shape!r}; choose jsonl, label-studio or trec-run"},
                        status=status.HTTP_400_BAD_REQUEST)


class CampaignExportApi(APIView):
    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(
        OpenApiTypes.BINARY, "the campaign archive, which POST /api/campaign-archives/ reads back")})
    def get(self, request, slug):
        """The campaign with every judgment and stored file, as one zip archive (researchers only)."""
        return archive_response(campaign_for_researcher(request.user, slug))


class CampaignArchiveImportApi(APIView):
    # Campaigns are made by the people who run the installation (`import_data`, `load_demo` at the command line),
    # not by a campaign's researchers: creating one from an archive is for staff accounts.
    permission_classes = [IsAdminUser]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ArchiveImportRequestSerializer},
        responses={201: ArchiveImportSummarySerializer,
                   400: OpenApiResponse(ImportErrorSerializer, "archive:entry:line: field: what is wrong, "
                                                               "or a slug already taken")},
    )
    def post(self, request):
        """Create a campaign from an archive, all or nothing (staff only); you become its researcher."""
        form = ArchiveImportRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            summary = archive_upload_import(data["archive"], slug=data.get("slug") or None, owner=request.user)
        except (ImportDataError, CampaignError) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ArchiveImportSummarySerializer(summary.as_dict()).data, status=status.HTTP_201_CREATED)
