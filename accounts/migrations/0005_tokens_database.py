"""API tokens move to a database of their own on SQLite (accounts.routers): the user's foreign key loses its database
constraint (the user row is in the other file), and the tokens of an existing install are copied from the default
database into the tokens' one, with their ids, then deleted there. On PostgreSQL only the constraint goes."""

import django.db.models.deletion
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, migrations, models, transaction

FIELDS = ("id", "user_id", "name", "digest", "prefix", "created_at", "last_used_at", "revoked_at")


def tokens_moved(apps, schema_editor):
    alias = schema_editor.connection.alias
    if alias == DEFAULT_DB_ALIAS:
        return  # one database: nothing to move
    if "accounts_apitoken" not in connections[DEFAULT_DB_ALIAS].introspection.table_names():
        return  # a new install: the default database never had the table
    ApiToken = apps.get_model("accounts", "ApiToken")
    old = ApiToken.objects.using(DEFAULT_DB_ALIAS)
    rows = [ApiToken(**row) for row in old.values(*FIELDS)]
    ApiToken.objects.using(alias).bulk_create(rows, ignore_conflicts=True)
    # Deleted from the default database only once the copy is committed here.
    transaction.on_commit(old.delete, using=alias)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_invitation_scopes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="apitoken",
            name="user",
            field=models.ForeignKey(
                db_constraint=False,
                help_text="No database constraint: on SQLite tokens live in a database file of their own "
                          "(accounts.routers). A user's tokens are deleted with the user "
                          "(accounts.services.tokens_delete).",
                on_delete=django.db.models.deletion.DO_NOTHING, related_name="api_tokens",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(tokens_moved, migrations.RunPython.noop, hints={"model_name": "apitoken"}),
    ]
