"""Benchmark of a nugget_evaluation report at TREC RAG scale: 50 topics x 40 runs (2,000 answers), 30 nuggets a topic, a
judge marking every answer (60,000 marks), a second judge writing its own list for each topic and marking every answer
against it (the fully automatic condition, 60,000 marks more) and two assessors on the answers of 10 topics (800
judgments, 24,000 marks each), written by ORM bulk inserts (tests/nugget_synthetic.py: true marks from run qualities,
raters with known error rates), then the report built (tasktypes.nugget_evaluation.report.nugget_report_build, every
interval) against the target of under 20 s, and the queries it read; then the whole stored report as a worker builds it
(the document and the plots). Then the same campaign through the files a researcher brings: its answers, lists and marks
written in the import layouts (exports.py: rag-answers, nuggetizer-nuggets, nuggetizer-assignments for the assessors and
for the judge), imported into a new campaign by the import's entry point (import_run), each import timed, and the
imported campaign's report built and compared with the first's (the same figures, or the bench fails): the issue's
target is the imports and the report together under 20 s.

    .venv/bin/python bench/bench_nuggets.py [--topics 50] [--runs 40] [--nuggets 30] [--human-topics 10]

Uses a throw-away SQLite database unless DATABASE_URL is set.
"""

import argparse
import sys
import tempfile
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
                                  human_topics=args.human_topics, judge_errors={"judge": 0.15}, seed=0,
                                  list_judges={"auto": ("auto", 0.15)})
    answers = args.topics * args.runs
    print(f"campaign: {args.topics} topics x {args.runs} runs = {answers:,} answers, {args.nuggets} nuggets a "
          f"topic; each judge marks {answers * args.nuggets:,}, assessors' marks "
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
    automatic = report["judges"]["auto"]["runs"][report["headline"]]
    [sensitivity] = report["combinations"]["sensitivity"]
    print(f"fully automatic (auto's nuggets, auto's marks) vs humans: run tau-b {automatic['kendall_tau_b']:.3f}; "
          f"judge vs auto (whose nuggets): {sensitivity['runs'][report['headline']]['kendall_tau_b']:.3f}", flush=True)
    started = time.perf_counter()
    stored_report_rebuild(campaign_id=simulated.campaign.pk)
    print(f"stored report (document and plots, as a worker): {time.perf_counter() - started:.2f} s", flush=True)
    imported, spent = through_imports(simulated.campaign, Path(tempfile.mkdtemp(prefix="concord-bench-nuggets-")))
    started = time.perf_counter()
    again = nugget_report_build(campaign=imported)
    build = time.perf_counter() - started
    total = sum(spent.values()) + build
    print("imports: " + ", ".join(f"{name} {value:.1f} s" for name, value in spent.items())
          + f"; its report {build:.2f} s; together {total:.1f} s (target < {TARGET_SECONDS:.0f} s)", flush=True)
    same = (again["judges"]["judge"]["item"], again["assessors"], again["judges"]["judge"]["runs"]) == (
        report["judges"]["judge"]["item"], report["assessors"], report["judges"]["judge"]["runs"])
    print(f"the imported campaign's figures equal the written one's: {same}", flush=True)
    if not same:
        sys.exit("the imported campaign's report differs from the written one's")
    if seconds > TARGET_SECONDS or total > TARGET_SECONDS:
        sys.exit(f"too slow: {max(seconds, total):.1f} s > {TARGET_SECONDS:.0f} s")


def through_imports(campaign, folder: Path):
    """CAMPAIGN's answers, lists and marks written in the import layouts under FOLDER, imported into a new campaign;
    (the new campaign, {what: seconds of its import})."""
    from annotate.models import Campaign
    from interchange.importers.service import import_run
    from tasktypes.nugget_evaluation import exports

    files = {"answers.jsonl": exports.answers_rag_jsonl(campaign),
             "nuggets.jsonl": exports.nuggets_nuggetizer_jsonl(campaign),
             "assessors.jsonl": exports.assignments_nuggetizer_jsonl(campaign),
             "judge.jsonl": exports.assignments_nuggetizer_jsonl(campaign, judge="judge")}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    imported = Campaign.objects.create(slug=f"{campaign.slug}-imported", name="imported", task_type=campaign.task_type,
                                       overlap=campaign.overlap)
    spent = {}
    for what, fmt, name, parameters in (("answers", "rag-answers", "answers.jsonl", {}),
                                        ("lists", "nuggetizer-nuggets", "nuggets.jsonl", {}),
                                        ("assessors' marks", "nuggetizer-assignments", "assessors.jsonl", {}),
                                        ("judge's marks", "nuggetizer-assignments", "judge.jsonl", {"judge": "judge"})):
        started = time.perf_counter()
        import_run(campaign=imported, fmt=fmt, paths=[folder / name], **parameters)
        spent[what] = time.perf_counter() - started
    return imported, spent


if __name__ == "__main__":
    main()
