"""Benchmark of a pairwise_preference campaign at TREC scale (issue 47): a collection of the published TREC DL 2021
preferences' shape (tests/preferences_synthetic.py: passages in topics' pools, one to three assessors a pair whom
the file does not name, ties, an LLM judge's file in the both-orders layout) imported as published, and its stored
report built with every interval, against the target of under 60 s and 2 GB; then PandaLM's whole human-annotated test
set and its two judges as published (fixtures/pandalm), with the figures the release states beside the report's.

The two files are imported from the command line's code path (interchange.importers.service.import_data_run, the
assessors' file with repeat_assessors), then the report is built as a worker builds it
(agreement.stored.stored_report_rebuild: the statistics, then the plots) in a fresh Python process, whose peak
resident memory (getrusage) is printed with the seconds: that process is a worker's, Django and the statistics
libraries included. Last, the report page is fetched through Django's test Client.

    .venv/bin/python bench/bench_preferences.py [--pairs 100000] [--topics 500] [--passages 20-60]

Uses a throw-away SQLite database unless DATABASE_URL is set.
"""

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from throwaway import throwaway_database  # noqa: E402 (bench/, the script's folder)

TARGET_SECONDS, TARGET_MB = 60.0, 2048.0
SLUG = "trec-prefs"

# Run in a fresh process: the build as a worker runs it, its seconds and its peak memory.
BUILD = """
import os, resource, sys, time
sys.path.insert(0, {root!r})
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
import django
django.setup()
from annotate.models import Campaign
from agreement import stored
campaign = Campaign.objects.get(slug={slug!r})
started = time.perf_counter()
assert stored.stored_report_rebuild(campaign_id=campaign.pk)
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--passages", default="20-60", help="passages in a topic's pool, low-high (default 20-60)")
    args = parser.parse_args()
    low, high = (int(value) for value in args.passages.split("-"))
    workdir = throwaway_database("concord-bench-preferences-")
    from django.contrib.auth import get_user_model
    from django.test import Client

    from agreement.stored import report_for_open
    from annotate.models import Campaign, Role
    from annotate.services.campaigns import membership_add
    from interchange.importers.service import import_data_run
    from tests.preferences_synthetic import collection_write

    started = time.perf_counter()
    collection = collection_write(workdir / "collection", topics=args.topics, passages=(low, high), pairs=args.pairs)
    print(f"collection: {collection.pairs:,} pairs of {collection.passages:,} passages in {collection.topics} topics, "
          f"{collection.human_lines:,} assessors' lines ({collection.repeated_pairs:,} pairs judged more than once), "
          f"judge marks {collection.judge_marks}; written in {time.perf_counter() - started:.1f} s", flush=True)
    for name, path, options in (("assessors' file", collection.human, {"repeat_assessors": True, "overlap": 1}),
                                ("judge's file", collection.judge, {"judge": "llm-judge"})):
        started = time.perf_counter()
        import_data_run(slug=SLUG, task_type="pairwise_preference", fmt="trec-preferences", paths=[path], **options)
        print(f"import of the {name}: {time.perf_counter() - started:.1f} s "
              f"(this process's peak so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)",
              flush=True)
    result = subprocess.run([sys.executable, "-c", BUILD.format(root=str(ROOT), slug=SLUG)], cwd=ROOT, check=True,
                            capture_output=True, text=True, env=os.environ)
    seconds, peak = (float(value) for value in result.stdout.split()[-2:])
    print(
        f"report build (statistics and plots, a fresh worker process): {seconds:.1f} s, peak {peak:.0f} MB; target "
        f"under {TARGET_SECONDS:g} s and {TARGET_MB:g} MB: "
        f"{'met' if seconds < TARGET_SECONDS and peak < TARGET_MB else 'MISSED'}"
    )
    campaign = Campaign.objects.get(slug=SLUG)
    researcher = get_user_model().objects.create_user(username="prefs-lead", password="bench-prefs")
    membership_add(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client = Client()
    client.force_login(researcher)
    started = time.perf_counter()
    response = client.get(f"/campaigns/{SLUG}/report/")
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, response.status_code
    print(f"report page (the stored report): {elapsed * 1000:.0f} ms, {len(response.content) / 1000:.0f} kB")
    document = report_for_open(campaign=campaign).document
    for name, block in document["judges"].items():
        order, item = block["order"], block["item"]
        print(
            f"{name} against the assessors: Cohen's kappa {item['cohen_kappa']:.3f} "
            f"{_interval(item['cohen_kappa_ci95'])} "
            f"(n = {item['n']:,} pairs); Kendall tau-b {order['kendall_tau_b']:.3f} "
            f"{_interval(order['kendall_tau_b_ci95'])}, mean over {order['n_prompts']} prompts' pools; "
            f"{order['swaps_count']:,} swapped pairs"
        )
    bench_pandalm()


def bench_pandalm() -> None:
    """PandaLM's whole human-annotated test set and both of its judges, as published (fixtures/pandalm): the import,
    the report's build, and its figures beside the ones the release states."""
    from agreement.report import agreement_report_build
    from interchange.importers.service import import_data_run

    folder = ROOT / "fixtures" / "pandalm"
    started = time.perf_counter()
    import_data_run(slug="pandalm", task_type="pairwise_preference", fmt="pandalm-testset",
                    paths=[folder / "testset-v1.json"])
    for judge, name in (
        ("gpt-3.5-turbo", "gpt-3.5-turbo-testset-v1.json"),
        ("pandalm-7b", "pandalm-7b-testset-v1.json"),
    ):
        import_data_run(slug="pandalm", task_type="pairwise_preference", fmt="pandalm-testset",
                        paths=[folder / name], judge=judge)
    imported = time.perf_counter() - started
    from annotate.models import Campaign

    started = time.perf_counter()
    report = agreement_report_build(campaign=Campaign.objects.get(slug="pandalm"))
    built = time.perf_counter() - started
    print(f"\nPandaLM test set (999 pairs, 3 annotators, 2 judges): imported in {imported:.1f} s, report statistics "
          f"in {built:.2f} s")
    kappas = ", ".join(f"{row['kappa']:.3f}" for row in report["humans"]["pairwise_cohen_kappa"])
    print(f"  annotators' Cohen's kappas with each other: {kappas} (the release: 0.85, 0.88, 0.86); Fleiss' kappa "
          f"{report['humans']['fleiss_kappa']:.3f} {_interval(report['humans']['fleiss_kappa_ci95'])}")
    for name, block in report["judges"].items():
        item, order = block["item"], block["order"]
        print(f"  {name}: Cohen's kappa {item['cohen_kappa']:.3f} {_interval(item['cohen_kappa_ci95'])}, agreement "
              f"{item['accuracy']:.3f} (n = {item['n']} pairs); system order tau-b {order['kendall_tau_b']:.3f} "
              f"over {order['n_systems']} systems")


def _interval(interval) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "(no interval)"

if __name__ == "__main__":
    main()
