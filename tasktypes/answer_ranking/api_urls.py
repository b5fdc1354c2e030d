from django.urls import path

from tasktypes.answer_ranking import api

urlpatterns = [
    path("campaigns/<slug:slug>/rankings/", api.CampaignRankingsExportApi.as_view(), name="api-campaign-rankings"),
]
