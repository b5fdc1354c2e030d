from django.urls import path

from annotate import api, api_adjudication

urlpatterns = [
    path("campaigns/", api.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/<slug:slug>/", api.CampaignDetailApi.as_view(), name="api-campaign"),
    path("campaigns/<slug:slug>/items/", api.CampaignItemsApi.as_view(), name="api-campaign-items"),
    path("campaigns/<slug:slug>/items/<int:item_id>/", api.CampaignItemApi.as_view(), name="api-campaign-item"),
    path("campaigns/<slug:slug>/options/", api.CampaignOptionsApi.as_view(), name="api-campaign-options"),
    path("campaigns/<slug:slug>/guidelines/", api.CampaignGuidelinesApi.as_view(), name="api-campaign-guidelines"),
    path("campaigns/<slug:slug>/members/", api.CampaignMembersApi.as_view(), name="api-campaign-members"),
    path("campaigns/<slug:slug>/members/<str:username>/", api.CampaignMemberApi.as_view(), name="api-campaign-member"),
    path("campaigns/<slug:slug>/members/<str:username>/invitation/", api.CampaignMemberInvitationApi.as_view(),
         name="api-campaign-member-invitation"),
    path("campaigns/<slug:slug>/adjudication/", api_adjudication.AdjudicationQueueApi.as_view(),
         name="api-campaign-adjudication"),
    path("campaigns/<slug:slug>/adjudication/<int:unit_id>/", api_adjudication.AdjudicationUnitApi.as_view(),
         name="api-campaign-adjudication-unit"),
]
