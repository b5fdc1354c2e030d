"""Sign-in throttling: after too many failed sign-ins for one account, or from one address, refuse for a while.

Failures are counted in the cache (shared between processes when CACHE_URL names Redis, which the production
settings require; per process with the development default) for settings.LOGIN_FAILURE_WINDOW seconds:
LOGIN_FAILURES_PER_USER per username and LOGIN_FAILURES_PER_ADDRESS per client address (higher: several people
may share one address). A username's limit refuses that account only, never another one. While either is reached,
the login page and the API token endpoint refuse every attempt for that username or address, even with the right
password, and say why; a successful sign-in clears the username's count.

The client address is REMOTE_ADDR, or, behind a reverse proxy, what the proxy writes in the header named by
settings.TRUSTED_PROXY_HEADER: without it, every client would share the proxy's address and one attacker could
lock everyone out.
"""

import ipaddress

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
    """The client's address: REMOTE_ADDR, or behind trusted proxies the address the outermost of them saw.

    With TRUSTED_PROXY_HEADER (e.g. HTTP_X_FORWARDED_FOR) and TRUSTED_PROXY_COUNT proxies in front, the address
    is the header's TRUSTED_PROXY_COUNT-th entry from the right: entries further left were written by the client
    and can be forged. A missing or malformed header falls back to REMOTE_ADDR.
    """
    if request is None:
        return None
    meta = request.META
    header = getattr(settings, "TRUSTED_PROXY_HEADER", "")
    if header and meta.get(header):
        entries = [entry.strip() for entry in str(meta[header]).split(",") if entry.strip()]
        count = max(1, int(getattr(settings, "TRUSTED_PROXY_COUNT", 1)))
        if len(entries) >= count:
            try:
                return str(ipaddress.ip_address(entries[-count]))
            except ValueError:
                pass
    return meta.get("REMOTE_ADDR")


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
