"""Where API tokens live: on the embedded SQLite database, in a database file of their own (settings alias
TOKENS, added by config.databases.tokens_database_add); on PostgreSQL, in the one database with the rest.

SQLite has one write lock per file, and an import holds the default file's for its whole transaction (all or nothing):
a token made, revoked or used meanwhile waited for it. In their own file nothing but other tokens' writes stands in
their way. Nothing joins the two: the token's user is read by its id (ApiToken.user has no database constraint), and a
user's tokens are deleted with the user by accounts.services.tokens_delete, not by a cascade."""

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from config.databases import TOKENS

TOKEN_MODEL = "accounts.apitoken"


def tokens_database() -> str:
    """The alias that holds API tokens: TOKENS where the settings have it (SQLite), else the default database."""
    return TOKENS if TOKENS in settings.DATABASES else DEFAULT_DB_ALIAS


class ApiTokenRouter:
    """accounts.ApiToken to tokens_database(), every other model to the default database (also when reached from a
    token, token.user: without a router's answer Django reads a related row from the instance's own database)."""

    def _for(self, model) -> str:
        return tokens_database() if model._meta.label_lower == TOKEN_MODEL else DEFAULT_DB_ALIAS

    def db_for_read(self, model, **hints):
        return self._for(model)

    def db_for_write(self, model, **hints):
        return self._for(model)

    def allow_relation(self, obj1, obj2, **hints):
        if TOKEN_MODEL in (obj1._meta.label_lower, obj2._meta.label_lower):
            return True  # a token and its user, each in its own database
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        if tokens_database() == DEFAULT_DB_ALIAS:
            return None
        is_token = app_label == "accounts" and model_name == "apitoken"
        if db == TOKENS:
            return is_token  # the token table only: no other app's tables, data migrations or content types
        return not is_token if db == DEFAULT_DB_ALIAS else None
