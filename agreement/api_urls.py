from django.urls import path

from agreement import views

urlpatterns = [
    path("campaigns/<slug:slug>/agreement/", views.AgreementReportAPI.as_view(), name="api-agreement-report"),
    path("campaigns/<slug:slug>/agreement/status/", views.AgreementStatusAPI.as_view(), name="api-agreement-status"),
    path("campaigns/<slug:slug>/agreement/methods/", views.AgreementMethodsAPI.as_view(), name="api-agreement-methods"),
    path("campaigns/<slug:slug>/development/", views.DevelopmentSplitApi.as_view(), name="api-development-split"),
    path("campaigns/<slug:slug>/probes/", views.ProbesApi.as_view(), name="api-probes"),
    path("campaigns/<slug:slug>/judges/<int:judge_id>/probes/", views.JudgeProbesApi.as_view(), name="api-judge-probes"),
    path("campaigns/<slug:slug>/agreement/compare/", views.AgreementJudgeCompareAPI.as_view(),
         name="api-agreement-compare"),
    path("campaigns/<slug:slug>/agreement/qrels/", views.AgreementQrelsListAPI.as_view(),
         name="api-agreement-qrels-list"),
    path("campaigns/<slug:slug>/agreement/qrels/<path:source>.qrels", views.AgreementQrelsAPI.as_view(),
         name="api-agreement-qrels"),
    path("campaigns/<slug:slug>/agreement/leaderboards/<path:source>/trec-leaderboard.txt",
         views.AgreementLeaderboardAPI.as_view(), name="api-agreement-leaderboard"),
]
