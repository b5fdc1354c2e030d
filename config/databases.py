"""The databases of an install: on the embedded SQLite default, API tokens have a file of their own beside the main
one (settings alias TOKENS; accounts.routers.ApiTokenRouter sends accounts.ApiToken there).

SQLite has one write lock per file, and an import holds the main file's for its whole transaction (all or nothing,
minutes on a large run file): a token issued or revoked meanwhile waited for it, 14-34 s or a 503 after 30 s. In a file
of its own a token's write waits only for other tokens' writes. PostgreSQL keeps tokens in its one database: its row
locks never make a token's insert or update wait on an import."""

from pathlib import Path

TOKENS = "tokens"
SQLITE = "django.db.backends.sqlite3"
# Several processes (web, worker) share a file: wait on a lock instead of failing at once.
SQLITE_OPTIONS = {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}


def tokens_database_name(name: str) -> str:
    """The tokens' file beside the SQLite database file NAME: tokens-<its name>, in its folder. A prefix, so that a
    suffix added to both names (pytest-xdist's _gw0) keeps them a pair."""
    if not name or name == ":memory:" or name.startswith("file:"):
        return ":memory:"
    path = Path(name)
    return str(path.with_name(f"tokens-{path.name}"))


def tokens_database_add(databases: dict) -> None:
    """On an SQLite default database, add the API tokens' own database to DATABASES (settings), beside it."""
    default = databases["default"]
    if default["ENGINE"] != SQLITE:
        return
    databases[TOKENS] = {**default, "NAME": tokens_database_name(str(default["NAME"])),
                         "OPTIONS": dict(SQLITE_OPTIONS), "TEST": {}}
