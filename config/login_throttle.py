"""Sign-in throttling: after too many failed sign-ins for one account, or from one address, refuse for a while.

Failures are counted in the cache (shared between processes when CACHE_URL names Redis; per process with the
default local-memory cache) for settings.LOGIN_FAILURE_WINDOW seconds: LOGIN_FAILURES_PER_USER per username and
LOGIN_FAILURES_PER_ADDRESS per client address (higher: several people may share one address). While either is
reached, the login page and the API token endpoint refuse every attempt for that username or address, even with
the right password, and say why; a successful sign-in clears the username's count.
"""

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver

MESSAGE = "Too many failed sign-ins for this account or from this address. Wait {minutes} minutes and try again."


def _keys(*, username: str | None, address: str | None) -> list[tuple[str, int]]:
    keys = []
    if username:
        keys.append((f"login-failures:user:{username.strip().lower()}", settings.LOGIN_FAILURES_PER_USER))
    if address:
        keys.append((f"login-failures:address:{address}", settings.LOGIN_FAILURES_PER_ADDRESS))
    return keys


def client_address(request) -> str | None:
    """The client's address as the server sees it (behind a proxy: the proxy's own, unless it rewrites REMOTE_ADDR)."""
    return request.META.get("REMOTE_ADDR") if request is not None else None


def login_refused(*, username: str | None, request) -> str | None:
    """The message to show when sign-ins for USERNAME or from REQUEST's address are throttled; None when allowed."""
    for key, limit in _keys(username=username, address=client_address(request)):
        if cache.get(key, 0) >= limit:
            return MESSAGE.format(minutes=max(1, settings.LOGIN_FAILURE_WINDOW // 60))
    return None


@receiver(user_login_failed)
def _count_failure(sender, credentials, request=None, **kwargs):
    for key, _ in _keys(username=credentials.get("username"), address=client_address(request)):
        # add() starts the window at the first failure; incr() keeps it (a failure does not extend the wait).
        if not cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=settings.LOGIN_FAILURE_WINDOW)


@receiver(user_logged_in)
def _clear_user(sender, request, user, **kwargs):
    cache.delete_many([key for key, _ in _keys(username=user.get_username(), address=None)])
