"""Migration operations of the project's own.

AddIndexConcurrentlyWhereSupported: an index on a table that may be large (items, judgments, verdicts) is built
without locking the table against writes while it builds. On PostgreSQL, CREATE INDEX takes a SHARE lock (no insert,
update or delete until it ends: minutes on tens of millions of rows) where CREATE INDEX CONCURRENTLY lets writes go on;
Django's AddIndexConcurrently does that on PostgreSQL only, and the project also runs on SQLite, whose CREATE INDEX is
the plain one. The migration that uses it says `atomic = False` (PostgreSQL builds concurrently only outside a
transaction) and holds nothing else that must roll back with it. docs/upgrading.md says when to use it.
"""

from django.db import NotSupportedError
from django.db.migrations.operations import AddIndex


class AddIndexConcurrentlyWhereSupported(AddIndex):
    """AddIndex, built CONCURRENTLY on PostgreSQL; elsewhere the plain one. Its state is AddIndex's: an installation
    that applied a migration with a plain AddIndex of the same index sees no change."""

    atomic = False

    def describe(self):
        return f"Create index {self.index.name} on {self.model_name} (concurrently on PostgreSQL)"

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        _outside_a_transaction(schema_editor)
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            # A concurrent build that failed (cancelled, a deadlock) leaves an INVALID index of the name behind, which
            # the next try would trip over; it holds nothing, so it goes first.
            with schema_editor.connection.cursor() as cursor:
                cursor.execute("SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                               "WHERE c.relname = %s AND NOT i.indisvalid", [self.index.name])
                invalid = cursor.fetchone() is not None
            if invalid:
                schema_editor.remove_index(model, self.index, concurrently=True)
            schema_editor.add_index(model, self.index, concurrently=True)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        _outside_a_transaction(schema_editor)
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.remove_index(model, self.index, concurrently=True)


def _outside_a_transaction(schema_editor) -> None:
    if schema_editor.connection.in_atomic_block:
        raise NotSupportedError("AddIndexConcurrentlyWhereSupported builds outside a transaction on PostgreSQL: set "
                                "atomic = False on the migration")
