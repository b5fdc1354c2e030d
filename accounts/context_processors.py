"""What every page's template may ask of the person signed in."""

from functools import partial

from accounts.preferences import session_shortcuts


def preferences(request):
    """`shortcuts`: how character keys work for this person (accounts.models.Preferences), as their session holds it
    (accounts.preferences). Read only by the pages that have shortcuts (their <body data-shortcuts>)."""
    return {"shortcuts": partial(session_shortcuts, request)}
