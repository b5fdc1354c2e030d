"""Which run of `.ci/run` a test runs in. `.ci/run` runs the suite twice, on SQLite (the default) and on PostgreSQL and
Redis (DATABASE_URL and CELERY_BROKER_URL set), side by side on two cores: a test that never reaches the database,
broker or cache the run provides checks the same thing in both, so it runs once, in the SQLite run, which is also
what `./scripts/test` runs with no environment (docs/tests.md)."""

import os

import pytest


def sqlite_run() -> bool:
    """Whether this run's database is the default SQLite one (DATABASE_URL unset or sqlite:...)."""
    return os.environ.get("DATABASE_URL", "sqlite").partition(":")[0] == "sqlite"


def sqlite_run_only(why: str):
    """A mark: run in the SQLite run only. WHY says why the PostgreSQL + Redis run would check nothing more."""
    return pytest.mark.skipif(not sqlite_run(), reason=f"{why}: run once, in the SQLite run of .ci/run")
