"""The REST API: each app contributes its routes from its own api_urls module."""

from django.urls import include, path
from rest_framework.authtoken.views import obtain_auth_token

urlpatterns = [
    # POST username and password, get {"token": ...} for the "Authorization: Token ..." header.
    path("token/", obtain_auth_token, name="api-token"),
    path("", include("annotate.api_urls")),
    path("", include("judges.api_urls")),
    path("", include("agreement.api_urls")),
]
