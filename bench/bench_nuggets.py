"""Benchmark of a nugget_evaluation report at TREC RAG scale: 50 topics x 40 runs (2,000 answers), 30 nuggets a
topic, a judge marking every answer (60,000 marks) and two assessors on the answers of 10 topics (800 judgments,
24,000 marks each), written by ORM bulk inserts (tests/nugget_synthetic.py: true marks from run qualities, raters
with known error rates), then the report built (tasktypes.nugget_evaluation.report.nugget_report_build, every interval)
against the target of under 20 s, and the queries it read; then the whole stored report as a worker builds it (the
document and the plots).

    .venv/bin/python bench/bench_nuggets.py [--topics 50] [--runs 40] [--nuggets 30] [--human-topics 10]

Uses a throw-away SQLite database unless DATABASE_URL is set.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from throwaway import throwaway_database  # noqa: E402 (bench/, the script's folder)

TARGET_SECONDS = 20.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--nuggets", type=int, default=30)
    parser.add_argument("--human-topics", type=int, default=10)
    args = parser.parse_args()
    throwaway_database("concord-bench-nuggets-")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from agreement.stored import stored_report_rebuild
    from tasktypes.nugget_evaluation.report import nugget_report_build
    from tests.nugget_synthetic import campaign_simulate

    started = time.perf_counter()
    simulated = campaign_simulate(slug="bench-nuggets", topics=args.topics, runs=args.runs, nuggets=args.nuggets,
                                  human_topics=args.human_topics, judge_errors={"judge": 0.15}, seed=0)
    answers = args.topics * args.runs
    print(f"campaign: {args.topics} topics x {args.runs} runs = {answers:,} answers, {args.nuggets} nuggets a "
          f"topic; judge marks {answers * args.nuggets:,}, assessors' marks "
          f"{2 * args.human_topics * args.runs * args.nuggets:,}; written in {time.perf_counter() - started:.1f} s",
          flush=True)
    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        report = nugget_report_build(campaign=simulated.campaign)
        seconds = time.perf_counter() - started
    order = report["judges"]["judge"]["runs"][report["headline"]]
    print(f"report build: {seconds:.2f} s, {len(captured)} queries (target < {TARGET_SECONDS:.0f} s); judge kappa "
          f"{report['judges']['judge']['item']['cohen_kappa']:.3f} (n {report['judges']['judge']['item']['n']:,}), "
          f"run tau-b {order['kendall_tau_b']:.3f} over {order['n_systems']} runs", flush=True)
    started = time.perf_counter()
    stored_report_rebuild(campaign_id=simulated.campaign.pk)
    print(f"stored report (document and plots, as a worker): {time.perf_counter() - started:.2f} s", flush=True)
    if seconds > TARGET_SECONDS:
        sys.exit(f"too slow: {seconds:.1f} s > {TARGET_SECONDS:.0f} s")


if __name__ == "__main__":
    main()
