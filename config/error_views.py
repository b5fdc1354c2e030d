"""The 400, 403 and 404 pages, without reading the request's body.

Django's own handlers are decorated with `requires_csrf_token`, which runs the CSRF middleware's check on the
request, and on a POST that check parses the form body: an upload refused with 403 or 404 (a campaign one may not
import into) was read whole, to disk, before the refusal was sent. These render the same templates with the same
context; the CSRF token the templates show comes from the cookie (the CSRF middleware's process_request), not from
that check.
"""

from django.views import defaults


def bad_request(request, exception):
    return defaults.bad_request.__wrapped__(request, exception)


def permission_denied(request, exception):
    return defaults.permission_denied.__wrapped__(request, exception)


def page_not_found(request, exception):
    return defaults.page_not_found.__wrapped__(request, exception)
