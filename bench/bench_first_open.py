"""Benchmark of a newcomer's first open: `manage.py load_demo` on a fresh database, then each demo campaign's report
page opened for the first time, signed in as the demo researcher after the home page (Django's test Client, timed
end to end: the view, the template, the response), then the same page once more.

No worker runs (as right after `load_demo`, before `scripts/start`'s worker has started): the first open finds the
report load_demo stored, or, where none is stored, answers with what the page shows then ("Building…"; before stored
reports were built by load_demo, a build in the request). A throw-away SQLite database and broker unless
DATABASE_URL / CELERY_BROKER_URL are set.

    .venv/bin/python bench/bench_first_open.py
"""

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-first-open-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}")
    os.environ.setdefault("CELERY_BROKER_URL", f"sqla+sqlite:///{workdir / 'broker.sqlite3'}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DEBUG"] = "false"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from tasktypes.management.commands.load_demo import DEMO_PASSWORD, DEMO_RESEARCHER, DEMOS

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    call_command("load_demo", stdout=open(os.devnull, "w"))
    print(f"load_demo on a fresh database: {time.perf_counter() - started:.1f} s")
    client = Client()
    assert client.login(username=DEMO_RESEARCHER, password=DEMO_PASSWORD)
    assert client.get("/").status_code == 200  # the home page first, as a newcomer signs in: a warm process
    for slug in DEMOS:
        timings = []
        for _ in range(2):
            started = time.perf_counter()
            response = client.get(f"/campaigns/{slug}/report/")
            timings.append(time.perf_counter() - started)
        assert response.status_code == 200, (slug, response.status_code)
        html = response.content.decode()
        shown = ("Building…" if 'id="report-building"' in html else
                 "the report, Updating…" if 'id="report-updating"' in html else "the report, current")
        print(f"{slug:<16} first open {timings[0]:6.2f} s, second {timings[1]:6.2f} s ({shown})")


if __name__ == "__main__":
    main()
