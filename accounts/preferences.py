"""A person's choices as their session holds them: copied from the account (accounts.models.Preferences) when they
sign in, rewritten when they change them, so the pages that use them (every annotation page's <body
data-shortcuts>) read the session Django has loaded anyway and ask the database nothing. Another device's session
takes a change when it signs in again."""

from accounts.selectors import shortcuts_mode
from accounts.services import shortcuts_set

SHORTCUTS_KEY = "concord:shortcuts"


def session_shortcuts(request) -> str:
    """How character keys work for the person of REQUEST (Preferences.Shortcuts); a session made before the choice
    was kept in sessions reads it once from the database."""
    session = getattr(request, "session", None)
    mode = session.get(SHORTCUTS_KEY) if session is not None else None
    if mode is None:
        mode = shortcuts_mode(user=request.user)
        if session is not None and request.user.is_authenticated:
            session[SHORTCUTS_KEY] = mode
    return mode


def shortcuts_choose(request, mode: str) -> str:
    """MODE chosen by the person of REQUEST: kept with their account (accounts.services.shortcuts_set) and for the rest
    of this session too (a request signed in by an API token has none). Returns the choice as kept."""
    chosen = shortcuts_set(user=request.user, mode=mode).shortcuts
    session = getattr(request, "session", None)
    if session is not None and session.session_key:
        session[SHORTCUTS_KEY] = chosen
    return chosen


def signed_in(sender, request, user, **kwargs):
    """user_logged_in: the account's choices into the new session."""
    if request is not None and getattr(request, "session", None) is not None:
        request.session[SHORTCUTS_KEY] = shortcuts_mode(user=user)
