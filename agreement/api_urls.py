from django.urls import path

from agreement import api, views_development, views_extras, views_probes

urlpatterns = [
    path("campaigns/<slug:slug>/agreement/", api.AgreementReportAPI.as_view(), name="api-agreement-report"),
    path("campaigns/<slug:slug>/agreement/status/", api.AgreementStatusAPI.as_view(), name="api-agreement-status"),
    path("campaigns/<slug:slug>/agreement/methods/", api.AgreementMethodsAPI.as_view(), name="api-agreement-methods"),
    path("campaigns/<slug:slug>/development/", views_development.DevelopmentSplitApi.as_view(),
         name="api-development-split"),
    path("campaigns/<slug:slug>/probes/", views_probes.ProbesApi.as_view(), name="api-probes"),
    path("campaigns/<slug:slug>/judges/<int:judge_id>/probes/", views_probes.JudgeProbesApi.as_view(),
         name="api-judge-probes"),
    path("campaigns/<slug:slug>/agreement/compare/", api.AgreementJudgeCompareAPI.as_view(),
         name="api-agreement-compare"),
    # The files a task type serves beside its report (TaskTypeSpec.extra_downloads), at the routes it declares.
    *views_extras.extra_download_api_paths(),
]
