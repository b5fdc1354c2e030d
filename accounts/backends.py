"""Signing in with a username and password without waiting for the database's write lock.

Django's ModelBackend rewrites a password's stored hash when it is checked and the hasher's settings have changed
(a Django upgrade raises PBKDF2's iterations): the first sign-in after that writes the user's row. On the embedded
SQLite database an import holds the one write lock for its whole transaction, so that sign-in (POST /api/token/
included) waited 30 s for it and answered 503. Here the rewrite is skipped when it would wait, and a later sign-in
makes it."""

import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import check_password
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, router

from accounts.authentication import lock_wait_none
from accounts.user_cache import user_cached, user_forget

logger = logging.getLogger(__name__)


class PasswordBackend(ModelBackend):
    """ModelBackend, with the hash upgrade best-effort (password_hash_upgrade) and the session's user read from the
    shared cache (accounts.user_cache). Listed first in
    AUTHENTICATION_BACKENDS; ModelBackend stays listed after it for the sessions it signed in. A wrong password raises
    PermissionDenied, which ends authenticate() there, so that ModelBackend does not hash the same password again."""

    def get_user(self, user_id):
        """The session's user, from the shared cache when there is one (accounts.user_cache)."""
        return user_cached(user_id, super().get_user)

    def authenticate(self, request, username=None, password=None, **kwargs):
        User = get_user_model()
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        if username is None or password is None:
            return None
        try:
            user = User._default_manager.get_by_natural_key(username)
        except User.DoesNotExist:
            # Run the default password hasher once to reduce the timing difference between an existing and a
            # nonexistent user (Django #20760).
            User().set_password(password)
            raise PermissionDenied from None
        if check_password(password, user.password, lambda raw: password_hash_upgrade(user=user, password=raw)) \
                and self.user_can_authenticate(user):
            return user
        raise PermissionDenied


def password_hash_upgrade(*, user, password: str) -> None:
    """Store PASSWORD (just checked) under the preferred hasher's settings, unless the database would make it wait
    for a lock: then USER's stored hash stays as it was (still valid) and a later sign-in upgrades it."""
    user.set_password(password)
    try:
        with lock_wait_none(using=router.db_for_write(type(user))):
            type(user)._default_manager.filter(pk=user.pk).update(password=user.password)
        user_forget(user.pk)  # an update() sends no post_save
    except DatabaseError as exc:
        logger.info("user %s: password hash not upgraded, the database is busy (%s)", user.pk, exc)
