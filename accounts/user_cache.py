"""The signed-in user of a session, read from the cache rather than the database on every request.

Django's authentication reads the user's row on every request (the session names the user; the row says whether
the account is active and holds the password hash the session is checked against). Where the web processes share
a cache (settings.CACHE_SHARED: production's redis), the row is kept there for USER_SECONDS and forgotten whenever
the user is saved or deleted: at once, and again when the transaction that did it commits (a request reading the row
meanwhile could otherwise keep the old one). A write that bypasses the model's save (a queryset's update) must call
user_forget itself (accounts.backends does). With a per-process cache nothing is kept: another process would go on
serving a user closed in this one.
"""

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

# How long a kept user is served at most, should a change reach the database without user_forget (a shell, SQL).
USER_SECONDS = 60


def _key(user_id) -> str:
    return f"accounts:user:{user_id}"


def user_cached(user_id, load):
    """The user USER_ID: from the shared cache, else LOAD(USER_ID) (None: no such user, or not allowed to sign in),
    kept when it is a user."""
    if not settings.CACHE_SHARED:
        return load(user_id)
    user = cache.get(_key(user_id))
    if user is None:
        user = load(user_id)
        if user is not None:
            cache.set(_key(user_id), user, USER_SECONDS)
    return user


def user_forget(user_id) -> None:
    """Drop the kept copy of user USER_ID, now and when the current transaction commits."""
    if not settings.CACHE_SHARED:
        return
    cache.delete(_key(user_id))
    transaction.on_commit(lambda: cache.delete(_key(user_id)))


def user_changed(sender, instance, **kwargs) -> None:
    """post_save and post_delete of the user model."""
    user_forget(instance.pk)
