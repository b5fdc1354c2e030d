from django.urls import path

from interchange import api

urlpatterns = [
    path("campaigns/<slug:slug>/import/", api.CampaignImportApi.as_view(), name="api-campaign-import"),
    path("campaigns/<slug:slug>/imports/", api.CampaignImportJobsApi.as_view(), name="api-campaign-imports"),
    path("campaigns/<slug:slug>/imports/<int:job_id>/", api.CampaignImportJobApi.as_view(),
         name="api-campaign-import-job"),
    path("campaigns/<slug:slug>/export/", api.CampaignExportApi.as_view(), name="api-campaign-export"),
    path("campaign-archives/", api.CampaignArchiveImportApi.as_view(), name="api-campaign-archives"),
]
