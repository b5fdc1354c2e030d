"""Tests: SQLite by default; PostgreSQL and Redis when DATABASE_URL / CELERY_BROKER_URL name them.

Under pytest-xdist (scripts/test runs the suite in several processes) each process has its own test database (named
by pytest-django), media folder, Redis database numbers and SQLite broker: tests in two processes never share a queue,
a cache or a file. Processes a test starts inherit the rewritten environment.
"""

import os
from pathlib import Path

from config.databases import TOKENS, tokens_database_name
from config.test_workers import worker_environment_isolate

TEST_WORKER = worker_environment_isolate(os.environ)  # before base.py reads the environment

from .base import *  # noqa: E402,F401,F403
from .base import DATABASES, STATIC_ROOT, VAR_DIR, env  # noqa: E402

VAR_DIR.mkdir(exist_ok=True)
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
WHITENOISE_USE_FINDERS = True
DEBUG = False
SECRET_KEY = "concord-test-key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory: worker processes started by tests must see the same test database.
    DATABASES["default"]["TEST"] = {"NAME": env("CONCORD_TEST_DB", default=str(VAR_DIR / "test-concord.sqlite3"))}
if TOKENS in DATABASES:
    # The tokens' own file beside it: what a process a test starts (DATABASE_URL naming the test file) finds there.
    DATABASES[TOKENS]["TEST"] = {"NAME": tokens_database_name(DATABASES["default"]["TEST"]["NAME"])}
# Uploaded images and stored runs of the test run: one folder per test database (worker processes started by tests
# compute the same one), emptied when a test session starts (conftest.py), so no run sees an earlier run's files.
MEDIA_ROOT = VAR_DIR / ("test-media-" + Path(DATABASES["default"].get("TEST", {}).get("NAME") or "postgres").stem
                     + (f"-{TEST_WORKER}" if TEST_WORKER else ""))
IMPORT_ROOT = Path(env("IMPORT_ROOT", default=str(MEDIA_ROOT / "imports")))  # a worker of a test is told it
# Tests build tiny models in temporary folders and serve LLMs on 127.0.0.1; tests of the closed boundary
# override these.
JUDGE_ALLOWED_HOSTS = env.list("JUDGE_ALLOWED_HOSTS", default=["*"])
JUDGE_MODEL_DIRS = env.list("JUDGE_MODEL_DIRS", default=["*"])
# Leases that ran out are marked expired on every lease, so a test sees the bookkeeping at once; the query-count tests
# of the annotation page set the default back (the path production takes).
LEASE_EXPIRY_INTERVAL = 0
