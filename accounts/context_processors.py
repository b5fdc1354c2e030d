"""What every page's template may ask of the person signed in."""

from functools import partial

from accounts.selectors import shortcuts_mode


def preferences(request):
    """`shortcuts`: how character keys work for this person (accounts.models.Preferences). Read only by the pages
    that have shortcuts (their <body data-shortcuts>): the template calls it, so other pages make no query."""
    return {"shortcuts": partial(shortcuts_mode, user=request.user)}
