"""A benchmark's own database: a throw-away SQLite file unless DATABASE_URL names one, the local settings with DEBUG
off and quiet logs, every host allowed (the test Client's), migrated. For the benchmarks that need no broker of their
own (bench_reports.py, bench_preferences.py)."""

import os
import tempfile
from pathlib import Path


def throwaway_database(prefix: str) -> Path:
    """Set Django up on a new database (see the module) and return the temporary folder made for it (PREFIX names
    it), where a benchmark may write its files too."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = ["*"]
    print(f"database {os.environ['DATABASE_URL']}", flush=True)
    call_command("migrate", verbosity=0)
    return workdir
