"""What every page's header and footer need from the settings."""

from django.conf import settings

from config.version import VERSION


def docs(request):
    """`docs_url`: where the header's "Docs" link goes (settings.DOCS_URL: the app's own /docs/ by default)."""
    return {"docs_url": settings.DOCS_URL}


def version(request):
    """`concord_version`: the version the footer shows (config.version)."""
    return {"concord_version": VERSION}
