"""The REST API: each app contributes its routes from its own api_urls module."""

from django.urls import include, path

from annotate.task_types.registry import task_type_modules

urlpatterns = [
    # token/: POST username and password, get a new token for the "Authorization: Token ..." header; tokens/.
    path("", include("accounts.api_urls")),
    path("", include("annotate.api_urls")),
    path("", include("interchange.api_urls")),
    path("", include("judges.api_urls")),
    path("", include("agreement.api_urls")),
    # A task type's own endpoints (tasktypes/<name>/api_urls.py), found with its package.
    *(path("", include(module)) for module in task_type_modules("api_urls")),
]
