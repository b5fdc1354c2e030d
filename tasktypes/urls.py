from django.urls import path

from tasktypes import views, views_import

urlpatterns = [
    path("campaigns/<slug:slug>/import/", views_import.campaign_import, name="campaign-import"),
    path("campaigns/<slug:slug>/export.zip", views.campaign_export_download, name="campaign-export"),
]
