from django.urls import path

from interchange import views, views_import

urlpatterns = [
    path("campaigns/<slug:slug>/import/", views_import.campaign_import, name="campaign-import"),
    path("campaigns/<slug:slug>/imports/<int:job_id>/", views_import.import_job_page, name="import-job"),
    path("campaigns/<slug:slug>/export.zip", views.campaign_export_download, name="campaign-export"),
]
