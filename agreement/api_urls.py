from django.urls import path

from agreement import views

urlpatterns = [
    path("campaigns/<slug:slug>/agreement/", views.AgreementReportAPI.as_view(), name="api-agreement-report"),
]
