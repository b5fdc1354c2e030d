"""What every page's header needs from the settings."""

from django.conf import settings


def docs(request):
    """`docs_url`: where the header's "Docs" link goes (settings.DOCS_URL: the app's own /docs/ by default)."""
    return {"docs_url": settings.DOCS_URL}
