"""The REST API: each app contributes its routes from its own api_urls module."""

from django.urls import include, path

urlpatterns = [
    path("", include("annotate.api_urls")),
    path("", include("judges.api_urls")),
    path("", include("agreement.api_urls")),
]
