from django.urls import path

from annotate import api

urlpatterns = [
    path("campaigns/", api.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/<slug:slug>/", api.CampaignDetailApi.as_view(), name="api-campaign"),
    path("campaigns/<slug:slug>/items/", api.CampaignItemsApi.as_view(), name="api-campaign-items"),
    path("campaigns/<slug:slug>/options/", api.CampaignOptionsApi.as_view(), name="api-campaign-options"),
]
