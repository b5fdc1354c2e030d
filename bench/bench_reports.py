"""Benchmark of stored reports (agreement.stored): the report page's first build, repeat open, and open after one new
judgment, at 100k and 1M human judgments (each with as many model judgments).

Each size is a qa_correctness campaign seeded as bench/load/seed.py seeds report-1m (items with two human judgments
and two judges' verdicts each: ITEMS = judgments / 2), in a throw-away SQLite database unless DATABASE_URL is set.
The page is fetched through Django's test Client, signed in as the campaign's researcher, and timed end to end
(the view, the template, the response):
- first open: nothing stored: the page answers "Building…" and queues the build (recorded here, no worker runs);
- first build: the task's body (agreement.stored.stored_report_rebuild), timed as a worker would run it;
- repeat open: median of 5 opens of the unchanged report (read from the store), and the same for report.json;
- open after one new judgment: the data version moves; the open answers with the last report, "updating…",
  and queues the rebuild (the queue is recorded here, no worker runs);
- background rebuild: the task's body (agreement.stored.stored_report_rebuild), timed as a worker would run it,
  then the open that follows it.
Also the stored document's and extras' sizes, and reading them zlib-compressed against plain JSON.

    .venv/bin/python bench/bench_reports.py [--judgments 100000,1000000]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "load"))

REPEATS = 5


def _setup() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-reports-"))
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


def _timed_get(client, url: str) -> tuple[float, str]:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, (url, response.status_code)
    return elapsed, response.content.decode()


def _median_ms(client, url: str) -> float:
    return statistics.median(_timed_get(client, url)[0] for _ in range(REPEATS)) * 1000


def _read_ms(blob: bytes, *, compressed: bool) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        json.loads(zlib.decompress(blob) if compressed else blob)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def bench(judgments: int, researcher, raters) -> None:
    from django.db import transaction
    from django.test import Client

    from agreement.models import StoredReport
    from agreement.stored import stored_report_rebuild
    from agreement.tasks import report_rebuild
    from annotate.models import Campaign, HumanJudgment, Unit
    from annotate.services.data_version import campaign_data_changed
    from seed import seed_report

    items = judgments // 2
    started = time.perf_counter()
    with transaction.atomic():  # as seed.py writes it: one transaction
        campaign = seed_report(raters, researcher, items)
    slug = f"report-{judgments // 1000}k"
    Campaign.objects.filter(pk=campaign.pk).update(slug=slug)
    print(f"\n{judgments:,} human + {judgments:,} model judgments ({items:,} items): seeded in "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    client = Client()
    client.force_login(researcher)
    page, download = f"/campaigns/{slug}/report/", f"/campaigns/{slug}/report/report.json"

    queued = []
    report_rebuild.apply_async = lambda args, **options: queued.append(args)  # no worker here: record the queueing
    first, html = _timed_get(client, page)
    assert "Building…" in html and queued == [(campaign.pk,)], queued
    print(f"  first open (nothing stored: 'Building…', build queued): {first * 1000:7.1f} ms")
    started = time.perf_counter()
    assert stored_report_rebuild(campaign_id=campaign.pk)
    row = StoredReport.objects.get(campaign_id=campaign.pk)
    print(f"  first build (the task):                 {time.perf_counter() - started:7.2f} s  (of which building "
          f"{row.build_seconds:.2f} s)")
    queued.clear()
    print(f"  repeat open, page (median of {REPEATS}):     {_median_ms(client, page):7.1f} ms")
    print(f"  repeat open, report.json (median of {REPEATS}): {_median_ms(client, download):7.1f} ms")

    unit = Unit.objects.filter(campaign_id=campaign.pk).order_by("position").first()
    HumanJudgment.objects.create(unit=unit, annotator=raters[5], kind="annotation", source="web",
                                 value={"correct": True}, label="yes")
    campaign_data_changed(campaign_id=campaign.pk)
    stale, html = _timed_get(client, page)
    assert "Updating…" in html and queued == [(campaign.pk,)], queued
    print(f"  open after one new judgment (stale shown, rebuild queued): {stale * 1000:7.1f} ms")
    started = time.perf_counter()
    assert stored_report_rebuild(campaign_id=campaign.pk)
    print(f"  background rebuild (the task):          {time.perf_counter() - started:7.2f} s")
    after, html = _timed_get(client, page)
    assert "Updating…" not in html
    print(f"  open after the rebuild:                 {after * 1000:7.1f} ms")

    row = StoredReport.objects.get(campaign_id=campaign.pk)
    for name, blob in (("document", bytes(row.document)), ("extras (plots' SVG)", bytes(row.extras))):
        plain = zlib.decompress(blob)
        print(f"  stored {name}: {len(plain) / 1000:.0f} kB JSON, {len(blob) / 1000:.0f} kB zlib; read "
              f"{_read_ms(plain, compressed=False):.2f} ms plain, {_read_ms(blob, compressed=True):.2f} ms zlib")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", default="100000,1000000",
                        help="human judgments per campaign, comma-separated (default 100000,1000000)")
    args = parser.parse_args()
    _setup()
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from seed import PASSWORD

    users = get_user_model()
    with transaction.atomic():
        researcher = users.objects.create_user(username="reportlead", password=PASSWORD)
        raters = [users.objects.create_user(username=f"rater{i}", password=PASSWORD) for i in range(20)]
    for judgments in (int(value) for value in args.judgments.split(",")):
        bench(judgments, researcher, raters)


if __name__ == "__main__":
    main()
