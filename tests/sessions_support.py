"""Ending sessions on the server as the session engine does, whichever it is (config.caches: with a shared cache the
sessions are read from it, so a row deleted from the database alone would live on there)."""

from importlib import import_module

from django.conf import settings
from django.contrib.sessions.models import Session


def sessions_end() -> int:
    """End every session on the server (its row and, for cached_db, its copy in the cache); how many."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    keys = list(Session.objects.values_list("session_key", flat=True))
    for key in keys:
        store(session_key=key).delete()
    return len(keys)
