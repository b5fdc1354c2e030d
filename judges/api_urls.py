from django.urls import path

from judges import api

urlpatterns = [
    path("campaigns/<slug:slug>/judges/", api.JudgeListApi.as_view(), name="api-campaign-judges"),
    path(
        "campaigns/<slug:slug>/judges/<int:judge_id>/judge-new-items/",
        api.JudgeNewItemsApi.as_view(),
        name="api-judge-new-items",
    ),
    path("campaigns/<slug:slug>/judges/<int:judge_id>/final/", api.JudgeMarkFinalApi.as_view(), name="api-judge-final"),
    path("campaigns/<slug:slug>/endpoints/", api.ModelEndpointListApi.as_view(), name="api-campaign-endpoints"),
    path("campaigns/<slug:slug>/judge-runs/", api.JudgeRunListApi.as_view(), name="api-campaign-judge-runs"),
    path("judge-runs/<int:run_id>/", api.JudgeRunDetailApi.as_view(), name="api-judge-run"),
    path("judge-runs/<int:run_id>/cancel/", api.JudgeRunCancelApi.as_view(), name="api-judge-run-cancel"),
    path("judge-runs/<int:run_id>/resume/", api.JudgeRunResumeApi.as_view(), name="api-judge-run-resume"),
    path("judge-runs/<int:run_id>/failures/", api.JudgeRunFailuresApi.as_view(), name="api-judge-run-failures"),
    path(
        "judge-runs/<int:run_id>/retry-failed/", api.JudgeRunRetryFailedApi.as_view(), name="api-judge-run-retry-failed"
    ),
]
