"""REST API for imports and exports: files into a campaign, import jobs, whole campaigns as archives (a task type's
own exports are its package's: tasktypes/answer_ranking/api.py). Every lookup is scoped to the user: else 404."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ApiTokenAuthentication, SessionAuthenticationCsrfLater
from annotate.access import campaign_for_researcher
from annotate.services.campaigns import CampaignError
from interchange.archive.web import archive_response, archive_upload_import
from interchange.importers.common import ImportDataError
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
from interchange.serializers import (
    ArchiveImportRequestSerializer,
    ArchiveImportSummarySerializer,
    ImportErrorSerializer,
    ImportJobSerializer,
    ImportRequestSerializer,
)


def _job_data(request, job: ImportJob) -> dict:
    slug = job.campaign.slug
    return {
        "id": job.id, "url": request.build_absolute_uri(reverse("api-campaign-import-job", args=[slug, job.id])),
        "page": request.build_absolute_uri(reverse("import-job", args=[slug, job.id])), "campaign": slug,
        "format": job.format, "parameters": job.parameters, "files": job.files,
        "status": import_job_state(job=job),
        **import_job_progress(job=job),
        # In this version's shape: a job an earlier version stored lacks the keys added since (their defaults), and
        # the serializer asks for every one (500 on a 5753f21 job after the upgrade).
        "summary": ImportSummary.from_dict(job.summary).as_dict() if job.status == ImportStatus.DONE and job.summary
        else None,
        "error": job.error, "created_by": job.created_by.username if job.created_by else None,
        "created_at": job.created_at, "started_at": job.started_at, "finished_at": job.finished_at,
    }


class UploadApiView(APIView):
    """A view that takes uploads: the user, the permissions and `check_before_body` (who may send here) are checked
    from the headers alone, then a browser session's CSRF check (which parses the body) runs, then the method. So a
    session that may not upload here is refused before a byte of its body is read (DRF's own order, the CSRF check
    inside authentication, wrote a refused upload to disk first). Every file goes to disk, never into memory."""

    authentication_classes = [ApiTokenAuthentication, SessionAuthenticationCsrfLater]
    parser_classes = [MultiPartParser, FormParser]
    request_max_bytes_setting = "REQUEST_MAX_BYTES"  # an upload and its form (config.middleware)

    def initialize_request(self, request, *args, **kwargs):
        request.upload_handlers = import_upload_handlers(request)
        return super().initialize_request(request, *args, **kwargs)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if getattr(self, request.method.lower(), None) is None:
            return  # a method the view has not: 405, whoever asks
        self.check_before_body(request, *args, **kwargs)
        if isinstance(request.successful_authenticator, SessionAuthenticationCsrfLater):
            request.successful_authenticator.csrf_check(request)

    def check_before_body(self, request, *args, **kwargs) -> None:
        """Refuse (raise) a request this user may not send, from what is known without its body."""


class CampaignImportApi(UploadApiView):
    def check_before_body(self, request, slug):
        self.campaign = campaign_for_researcher(request.user, slug)

    @extend_schema(
        request={"multipart/form-data": ImportRequestSerializer},
        responses={202: ImportJobSerializer,
                   400: OpenApiResponse(ImportErrorSerializer, "what makes the request unservable (a format the "
                                                               "campaign does not take, a file over the size limit)")},
    )
    def post(self, request, slug):
        """Queue an import of files into the campaign, all or nothing (researchers only): 202 with the job, whose
        URL (also in Location) gives its progress, then its summary or the `file:line: field` error."""
        form = ImportRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            job = import_job_create(campaign=self.campaign, user=request.user, fmt=data.pop("format"),
                                    files=data.pop("files"), **data)
        except (ImportDataError, ImportRequestError) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        except ImportQueueError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        body = _job_data(request, job)
        return Response(ImportJobSerializer(body).data, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": body["url"]})


class CampaignImportJobsApi(APIView):
    @extend_schema(responses={200: ImportJobSerializer(many=True)})
    def get(self, request, slug):
        """The campaign's latest import jobs, newest first (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        jobs = import_jobs_recent(campaign=campaign, limit=50)
        return Response(ImportJobSerializer([_job_data(request, job) for job in jobs], many=True).data)


class CampaignImportJobApi(APIView):
    @extend_schema(responses={200: ImportJobSerializer})
    def get(self, request, slug, job_id):
        """One import job: its status and progress, then its summary or error (researchers only)."""
        campaign = campaign_for_researcher(request.user, slug)
        job = get_object_or_404(ImportJob.objects.select_related("campaign", "created_by"), pk=job_id,
                                campaign=campaign)
        return Response(ImportJobSerializer(_job_data(request, job)).data)


class CampaignExportApi(APIView):
    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(
        OpenApiTypes.BINARY, "the campaign archive, which POST /api/campaign-archives/ reads back")})
    def get(self, request, slug):
        """The campaign with every judgment and stored file, as one zip archive (researchers only)."""
        return archive_response(campaign_for_researcher(request.user, slug))


class CampaignArchiveImportApi(UploadApiView):
    # Campaigns are made by the people who run the installation (`import_data`, `load_demo` at the command line),
    # not by a campaign's researchers: creating one from an archive is for staff accounts.
    permission_classes = [IsAdminUser]

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
