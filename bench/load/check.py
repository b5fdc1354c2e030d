"""After the load test: Locust's latencies, exactly-once answers, overlap, and the report on a million judgments.

    python bench/load/check.py --locust-csv var/load/locust_stats.csv --acks var/load/acks --base-url URL

Prints one line per figure; exits non-zero when an acknowledged answer is missing or doubled, or a unit is
past its overlap.
"""

import argparse
import csv
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.http_annotator import HttpAnnotator  # noqa: E402 - the one HTTP client of the fault and load tests

LOAD_CAMPAIGNS = ("load-qa", "load-ais", "load-images", "load-ranking")


def latencies(path: Path) -> bool:
    """Print p50/p95/p99 and errors of "next unit" and "submit"; False when a request failed."""
    clean = True
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["Name"] not in ("next unit", "submit", "Aggregated"):
                continue
            count, failures = int(row["Request Count"]), int(row["Failure Count"])
            clean = clean and failures == 0
            print(
                f"{row['Name']:>10}: {count:,} requests, {failures} errors ({100 * failures / max(count, 1):.3f} %), "
                f"p50 {row['50%']} ms, p95 {row['95%']} ms, p99 {row['99%']} ms, "
                f"max {float(row['Max Response Time']):.0f} ms, "
                f"{float(row['Requests/s']):.1f} requests/s"
            )
    return clean


def acknowledged(folder: Path) -> list[tuple[str, int]]:
    acks = []
    for file in sorted(folder.glob("*.acks")):
        for line in file.read_text().splitlines():
            campaign, assignment = line.split()
            acks.append((campaign, int(assignment)))
    return acks


def exactly_once(acks: list[tuple[str, int]]) -> bool:
    from django.db.models import Count, F, Q
    from django.utils import timezone

    from annotate.models import Assignment, HumanJudgment, Unit

    acked = {assignment for _, assignment in acks}
    current = dict(HumanJudgment.objects.filter(unit__campaign__slug__in=LOAD_CAMPAIGNS, is_current=True,
                                                assignment__isnull=False)
                   .values("assignment_id").annotate(n=Count("id")).values_list("assignment_id", "n"))
    missing = acked - current.keys()
    doubled = [assignment for assignment, n in current.items() if n > 1]
    unacknowledged = current.keys() - acked
    over = Unit.objects.filter(campaign__slug__in=LOAD_CAMPAIGNS, judgments_done__gt=F("judgments_needed")).count()
    leased_over = (
        # Live: unexpired (a lease that ran out frees its slot at once; it is marked expired now and then).
        Assignment.objects.filter(Q(status="active", expires_at__gt=timezone.now()) | Q(status="submitted"),
                                  unit__campaign__slug__in=LOAD_CAMPAIGNS)
        .values("unit_id", "unit__judgments_needed")
        .annotate(n=Count("id"))
        .filter(n__gt=F("unit__judgments_needed"))
        .count()
    )
    by_campaign = {slug: sum(1 for campaign, _ in acks if campaign == slug) for slug in LOAD_CAMPAIGNS}
    print(f"acknowledged answers: {len(acks):,} ({', '.join(f'{k} {v:,}' for k, v in by_campaign.items())}); "
          f"in the database: {len(current):,} current judgments")
    print(f"  acknowledged but missing: {len(missing)}, recorded twice: {len(doubled)}, acknowledged twice: "
          f"{len(acks) - len(acked)}, recorded but never acknowledged: {len(unacknowledged)}")
    print(f"  units past their overlap: {over} by judgments, {leased_over} by live leases and submissions")
    return not missing and not doubled and len(acks) == len(acked) and over == 0 and leased_over == 0


def report_timing(base_url: str) -> None:
    from agreement.report import agreement_report_build
    from annotate.models import Campaign, HumanJudgment
    from judges.models import ModelJudgment

    campaign = Campaign.objects.get(slug="report-1m")
    humans = HumanJudgment.objects.filter(unit__campaign=campaign).count()
    models = ModelJudgment.objects.filter(item__campaign=campaign).count()
    seconds = []
    for _ in range(3):
        started = time.perf_counter()
        agreement_report_build(campaign=campaign)
        seconds.append(time.perf_counter() - started)
    print(f"agreement report of report-1m ({humans:,} human, {models:,} model judgments): "
          f"median {statistics.median(seconds):.2f} s of 3 builds ({', '.join(f'{s:.2f}' for s in seconds)})")
    client = HttpAnnotator(base_url, timeout=300)
    client.login("loadlead", "load-test-password")
    for path in ("/campaigns/report-1m/report/", "/campaigns/report-1m/report/report.json"):
        started = time.perf_counter()
        reply = client.request(path, htmx=False)
        print(f"GET {path} through gunicorn: {reply.status}, {len(reply.body):,} characters in "
              f"{time.perf_counter() - started:.2f} s")


def judge_progress(name: str) -> None:
    """Print how far the judge run queued with the load (bench/load/run --judge) got while the annotators worked."""
    from judges.models import Judge, JudgeRun, ModelJudgment

    judge = Judge.objects.get(campaign__slug="load-qa", name=name)
    run = JudgeRun.objects.filter(judge=judge).latest("pk")
    verdicts = ModelJudgment.objects.filter(judge=judge).count()
    print(f"judge {name} on load-qa, beside the annotators: {verdicts:,} verdicts stored, run {run.status}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locust-csv", type=Path, required=True)
    parser.add_argument("--acks", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--judge", help="the judge whose run went on during the load (bench/load/run --judge)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    import django

    django.setup()
    clean = latencies(args.locust_csv)
    once = exactly_once(acknowledged(args.acks))
    if args.judge:
        judge_progress(args.judge)
    report_timing(args.base_url)
    if not (clean and once):
        sys.exit(1)


if __name__ == "__main__":
    main()
