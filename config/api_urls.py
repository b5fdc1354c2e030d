"""The REST API: each app contributes its routes from its own api_urls module."""

from django.urls import include, path

from config.auth_views import ThrottledObtainAuthToken

urlpatterns = [
    # POST username and password, get {"token": ...} for the "Authorization: Token ..." header.
    path("token/", ThrottledObtainAuthToken.as_view(), name="api-token"),
    path("", include("annotate.api_urls")),
    path("", include("judges.api_urls")),
    path("", include("agreement.api_urls")),
]
