"""Benchmark of stored reports (agreement.stored): how long a report takes to build, for the demo's campaigns (25 to
1,530 items) and at 100k and 1M human judgments (each with as many model judgments), against issue 35's targets.

A build has two parts (agreement.stored): the statistics, stored as soon as they are computed (the page shows the
report from then on), then the plots (matplotlib), stored with it when drawn. Both are printed, the statistics against
the targets: a 25-item campaign under 0.3 s, 100k + 100k under 1 s, 1M + 1M under 5 s, and a rebuild after one new
verdict no slower than the first build. Times are of a worker that has built a report before (the statistics
libraries imported); what the first build in a fresh worker adds for importing them is printed once.

The demo's campaigns: `manage.py load_demo` in a throw-away SQLite database, then each campaign's build timed as the
worker's task (agreement.stored.stored_report_rebuild) after one new verdict or option change, median of 3.

Each size is a qa_correctness campaign seeded as bench/load/seed.py seeds report-1m (items with two human judgments
and two judges' verdicts each: ITEMS = judgments / 2), in a throw-away SQLite database unless DATABASE_URL is set (on
PostgreSQL, ANALYZE once seeded, as autovacuum would soon after an import).
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

    .venv/bin/python bench/bench_reports.py [--judgments 100000,1000000] [--no-demo]
"""

import argparse
import io
import json
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "load"))

from throwaway import throwaway_database  # noqa: E402 (bench/, the script's folder)

REPEATS = 5
BUILDS = 3  # first builds and rebuilds timed at each size (medians)
TARGETS = {"small": 0.3, 100_000: 1.0, 1_000_000: 5.0}  # seconds, the statistics of a first build (issue 35)


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


class Stages:
    """The seconds of a build's two parts, read around agreement.stored._plots_draw (called once the statistics are
    stored): `statistics` from the task's start to then, `plots` from then to the task's end."""

    def __init__(self):
        from agreement import stored

        self.stored, self.draw, self.reached = stored, stored._plots_draw, None

        def timed(*, document):
            self.reached = time.perf_counter()
            return self.draw(document=document)

        stored._plots_draw = timed

    def run(self, campaign_id: int) -> tuple[float, float]:
        self.reached = None
        started = time.perf_counter()
        assert self.stored.stored_report_rebuild(campaign_id=campaign_id)
        ended = time.perf_counter()
        return self.reached - started, ended - self.reached


def _against(seconds: float, target: float) -> str:
    return f"{seconds:.2f} s, {seconds / target:.2f} x the target of {target:g} s"


def imports_seconds() -> float:
    """What the first build in a fresh worker adds: importing the statistics libraries (median of 3 processes)."""
    code = ("import os, time, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings.local'; django.setup(); "
            "t = time.perf_counter(); import reports.verdicts, agreement.plots; print(time.perf_counter() - t)")
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                                                  capture_output=True, text=True).stdout) for _ in range(3))


def bench_demo(stages: Stages) -> None:
    """Every demo campaign's build after one change of its data, median of 3, the statistics against the small
    campaign's target."""
    from django.core.management import call_command

    from annotate.models import Campaign
    from annotate.services.data_version import campaign_data_changed

    started = time.perf_counter()
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    print(f"\nThe demo's campaigns (load_demo: {time.perf_counter() - started:.1f} s), each build after one change of "
          f"its data, median of 3:")
    print(f"  {'campaign':16s} {'task type':18s} {'items':>6s}  {'statistics':>10s}  {'plots':>6s}")
    for campaign in Campaign.objects.order_by("pk"):
        times = []
        for _ in range(3):
            campaign_data_changed(campaign_id=campaign.pk)
            times.append(stages.run(campaign.pk))
        numbers, plots = (statistics.median(part) for part in zip(*times, strict=True))
        items = campaign.items.count()
        target = f"  ({numbers / TARGETS['small']:.2f} x the target of {TARGETS['small']:g} s)" if items <= 30 else ""
        print(f"  {campaign.slug:16s} {campaign.task_type:18s} {items:6d}  {numbers:9.3f}s  {plots:5.2f}s{target}")


def bench(judgments: int, researcher, raters, stages: Stages) -> None:
    from django.db import connection, transaction
    from django.test import Client
    from seed import seed_report

    from agreement.models import StoredReport
    from agreement.tasks import report_rebuild
    from annotate.models import Campaign, HumanJudgment, Unit
    from annotate.services.data_version import campaign_data_changed

    items = judgments // 2
    started = time.perf_counter()
    with transaction.atomic():  # as seed.py writes it: one transaction
        campaign = seed_report(raters, researcher, items)
    slug = f"report-{judgments // 1000}k"
    Campaign.objects.filter(pk=campaign.pk).update(slug=slug)
    print(f"\n{judgments:,} human + {judgments:,} model judgments ({items:,} items): seeded in "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    if connection.vendor == "postgresql":
        # What autovacuum does within a minute of a large import: without the tables' statistics PostgreSQL plans
        # the report's reads for a campaign of a few thousand rows (hashing every unit to find a few adjudications).
        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"  ANALYZE (PostgreSQL's statistics of the new rows): {time.perf_counter() - started:.1f} s")
    client = Client()
    client.force_login(researcher)
    page, download = f"/campaigns/{slug}/report/", f"/campaigns/{slug}/report/report.json"

    queued = []
    report_rebuild.apply_async = lambda args, **options: queued.append(args)  # no worker here: record the queueing
    first, html = _timed_get(client, page)
    assert "Building…" in html and queued == [(campaign.pk,)], queued
    print(f"  first open (nothing stored: 'Building…', build queued): {first * 1000:7.1f} ms")
    runs = [stages.run(campaign.pk)]
    for _ in range(BUILDS - 1):  # the first build again: nothing stored
        StoredReport.objects.filter(campaign_id=campaign.pk).delete()
        runs.append(stages.run(campaign.pk))
    first, plots = (statistics.median(part) for part in zip(*runs, strict=True))
    print(f"  first build (the task, median of {BUILDS}): statistics stored after "
          f"{_against(first, TARGETS[judgments])}; plots drawn {plots:.2f} s later")
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
    runs = [stages.run(campaign.pk)]
    for index in range(BUILDS - 1):  # after one more new judgment each
        HumanJudgment.objects.create(unit=unit, annotator=raters[6 + index], kind="annotation", source="web",
                                     value={"correct": False}, label="no")
        campaign_data_changed(campaign_id=campaign.pk)
        runs.append(stages.run(campaign.pk))
    numbers, plots = (statistics.median(part) for part in zip(*runs, strict=True))
    print(f"  background rebuild after one new judgment (the task, median of {BUILDS}): statistics stored after "
          f"{numbers:.2f} s ({numbers / first:.2f} x the first build's), plots drawn {plots:.2f} s later")
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
    parser.add_argument("--no-demo", action="store_true", help="leave out the demo's campaigns")
    args = parser.parse_args()
    throwaway_database("concord-bench-reports-")
    print(f"importing the statistics libraries, once per worker process: {imports_seconds():.2f} s")
    import agreement.plots  # noqa: F401 (the builds below are a warm worker's)
    import reports.verdicts  # noqa: F401

    stages = Stages()
    if not args.no_demo:
        bench_demo(stages)
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from seed import PASSWORD

    users = get_user_model()
    with transaction.atomic():
        researcher = users.objects.create_user(username="reportlead", password=PASSWORD)
        raters = [users.objects.create_user(username=f"rater{i}", password=PASSWORD) for i in range(20)]
    for judgments in (int(value) for value in args.judgments.split(",") if value):
        bench(judgments, researcher, raters, stages)


if __name__ == "__main__":
    main()
