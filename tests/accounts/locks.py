"""What an import holds while it runs, held from another connection for a test (no import needed)."""

import sqlite3
from contextlib import contextmanager

from django.db import connections


@contextmanager
def sqlite_write_lock_held(alias: str = "default"):
    """SQLite's one write lock on ALIAS's file, held by another connection (BEGIN IMMEDIATE, as an import's
    transaction takes it) until the block ends."""
    holder = sqlite3.connect(connections[alias].settings_dict["NAME"], timeout=0, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@contextmanager
def postgres_connection():
    """A second PostgreSQL connection to the test database, closed (its transaction rolled back) when the block ends."""
    import psycopg

    settings = connections["default"].settings_dict
    holder = psycopg.connect(host=settings["HOST"] or "127.0.0.1", port=settings["PORT"] or 5432,
                             user=settings["USER"], password=settings["PASSWORD"] or None, dbname=settings["NAME"])
    try:
        yield holder
    finally:
        holder.rollback()
        holder.close()
