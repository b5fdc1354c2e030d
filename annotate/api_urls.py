from django.urls import path

from annotate import api

urlpatterns = [
    path("campaigns/", api.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/<slug:slug>/", api.CampaignDetailApi.as_view(), name="api-campaign"),
    path("campaigns/<slug:slug>/items/", api.CampaignItemsApi.as_view(), name="api-campaign-items"),
    path("campaigns/<slug:slug>/import/", api.CampaignImportApi.as_view(), name="api-campaign-import"),
    path("campaigns/<slug:slug>/rankings/", api.CampaignRankingsExportApi.as_view(), name="api-campaign-rankings"),
    path("campaigns/<slug:slug>/export/", api.CampaignExportApi.as_view(), name="api-campaign-export"),
    path("campaign-archives/", api.CampaignArchiveImportApi.as_view(), name="api-campaign-archives"),
]
