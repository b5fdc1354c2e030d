from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete, post_save


def _user_deleted(sender, instance, **kwargs):
    from accounts.services import tokens_delete

    tokens_delete(user_id=instance.pk)


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # A user's API tokens go with the user: not by a cascade, since on SQLite they are in a database of their own
        # (accounts.routers).
        post_delete.connect(_user_deleted, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-user-tokens")
        # The signed-in user is kept in a shared cache (accounts.user_cache): a change to the row drops it.
        from accounts.user_cache import user_changed

        post_save.connect(user_changed, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-user-cache-save")
        post_delete.connect(user_changed, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-user-cache-delete")
        # A person's choices travel in their session (accounts.preferences).
        from accounts.preferences import signed_in

        user_logged_in.connect(signed_in, dispatch_uid="accounts-preferences")
