"""Benchmark of a TREC Deep Learning-sized passage_relevance campaign with numeric ids, as MS MARCO's are: imported
from the command line, then its agreement report built, each step's seconds and peak memory printed.

Synthetic data written here (no track data is shipped or fetched): TOPICS queries with numeric qids; RUNS runs of
LINES lines per topic whose top 10 come from each topic's 100 "good" passages (so pooling at depth 10 gives about
100 passages a topic: 20,000 at the default size), the rest random MS MARCO-like numbers up to 8,841,822; a
collection of the pooled passages plus EXTRA others; the assessor's qrels of every pooled passage; two judges' qrels
(the assessor's grade changed at random in 30% and 50% of lines).

Each import is `manage.py import_data` in a child process of its own (its peak RSS read from getrusage); the report
is `manage.py agreement_report --json` in a child process too. SQLite in a temp folder unless DATABASE_URL is set.

    .venv/bin/python bench/bench_dl.py                      # 200 topics, 60 runs of 1,000 lines (12M run lines)
    .venv/bin/python bench/bench_dl.py --topics 20 --runs 6 # a quick version
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MSMARCO_PASSAGES = 8_841_822
GOOD = 100  # passages per topic that runs put in their top 10
DEPTH = 10
WORDS = ("river bridge water boiling point history author poem ocean light wave energy city tower bone hand cat "
         "rice freeze concrete cure strength aurora sun particle field gas colour week day year answer").split()


def data_write(folder: Path, *, topics: int, runs: int, lines: int, extra: int, seed: int = 31) -> dict:
    """The campaign's files; returns their paths and the counts written."""
    rng = random.Random(seed)
    paths = {name: folder / name for name in ("topics.tsv", "runs.txt", "collection.tsv", "assessor.qrels",
                                              "judge-x.qrels", "judge-y.qrels")}
    qids = [str(qid) for qid in rng.sample(range(1, 1_200_000), topics)]
    good = {qid: [str(pid) for pid in rng.sample(range(MSMARCO_PASSAGES), GOOD)] for qid in qids}
    with open(paths["topics.tsv"], "w") as handle:
        for qid in qids:
            handle.write(f"{qid}\t{' '.join(rng.choice(WORDS) for _ in range(6))}\n")
    pool: dict[str, set[str]] = {qid: set() for qid in qids}
    with open(paths["runs.txt"], "w") as handle:
        for run in range(runs):
            for qid in qids:
                top = rng.sample(good[qid], DEPTH)
                pool[qid].update(top)
                # A run names a passage once a topic: the tail leaves out its top (and draws one more if it hit it).
                chosen = set(top)
                tail = [pid for pid in map(str, rng.sample(range(MSMARCO_PASSAGES), lines)) if pid not in chosen]
                tail = tail[:lines - DEPTH]
                handle.write("".join(f"{qid} Q0 {pid} {rank} {lines - rank:.1f} run{run:02d}\n"
                                     for rank, pid in enumerate(top + tail, start=1)))
    pooled = sorted({pid for pids in pool.values() for pid in pids})
    with open(paths["collection.tsv"], "w") as handle:
        for pid in pooled:
            handle.write(f"{pid}\t{' '.join(rng.choice(WORDS) for _ in range(50))}\n")
        pooled_set = set(pooled)
        for pid in rng.sample(range(MSMARCO_PASSAGES), extra):
            if str(pid) not in pooled_set:  # a passage has one text
                handle.write(f"{pid}\t{' '.join(rng.choice(WORDS) for _ in range(50))}\n")
    human = {(qid, pid): rng.choice((0, 0, 1, 1, 2, 3)) for qid, pids in pool.items() for pid in sorted(pids)}

    def qrels(name: str, grades: dict) -> None:
        with open(paths[name], "w") as handle:
            handle.write("".join(f"{qid} 0 {pid} {grade}\n" for (qid, pid), grade in grades.items()))

    qrels("assessor.qrels", human)
    for name, noise in (("judge-x.qrels", 0.3), ("judge-y.qrels", 0.5)):
        qrels(name, {pair: grade if rng.random() >= noise else rng.randrange(4) for pair, grade in human.items()})
    return {"paths": paths, "judged": len(human), "run_lines": runs * topics * lines}


# (format, file, extra arguments), in import order
# k = 1 (the first import makes the campaign): one assessor's qrels, each grade a passage's human label.
STEPS = (("trec-topics", "topics.tsv", ("--overlap", "1")), ("trec-run", "runs.txt", ("--depth", str(DEPTH))),
         ("collection", "collection.tsv", ()), ("trec-qrels", "assessor.qrels", ()),
         ("judge-qrels", "judge-x.qrels", ("--judge", "judge-x")),
         ("judge-qrels", "judge-y.qrels", ("--judge", "judge-y")))


def child(args: list[str], env: dict) -> tuple[float, int, str]:
    """(seconds, peak RSS in MB, stdout) of one manage.py command in a child process."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", "import resource, sys; from django.core.management import execute_from_command_line;"
         "execute_from_command_line(sys.argv[0:1] + sys.argv[1:]);"
         "print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)", *args],
        cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(f"{' '.join(args[:6])} failed: {result.stderr[-3000:]}")
    rss = int(re.search(r"maxrss (\d+)", result.stdout).group(1)) // 1024
    return time.perf_counter() - started, rss, result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--lines", type=int, default=1000, help="lines per run and topic")
    parser.add_argument("--extra", type=int, default=100_000, help="collection passages no run pools")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="concord-bench-dl-") as tmp:
        folder = Path(tmp)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
               "MEDIA_ROOT": f"{tmp}/media", "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp}/broker.sqlite3"}
        env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        started = time.perf_counter()
        written = data_write(folder, topics=args.topics, runs=args.runs, lines=args.lines, extra=args.extra)
        sizes = {name: path.stat().st_size / 1e6 for name, path in written["paths"].items()}
        print(f"data: {args.topics} topics, {args.runs} runs x {args.lines} lines a topic "
              f"({written['run_lines']:,} run lines, {sizes['runs.txt']:.0f} MB), {written['judged']:,} judged "
              f"passages, numeric ids; written in {time.perf_counter() - started:.1f} s")
        database = env["DATABASE_URL"].split("@")[-1]
        print(f"database: {database}")
        child(["migrate", "--verbosity", "0"], env)
        for fmt, name, extra in STEPS:
            seconds, rss, out = child(["import_data", "--campaign", "dl", "--task-type", "passage_relevance",
                                       "--format", fmt, *extra, str(written["paths"][name])], env)
            summary = next((line for line in out.splitlines() if "not used" in line or "refused" in line), "")
            print(f"import {fmt:<12} {name:<15} {sizes[name]:8.1f} MB {seconds:8.1f} s  peak RSS {rss:5d} MB"
                  + (f"  ({summary.strip()})" if summary else ""))
        seconds, rss, out = child(["agreement_report", "--campaign", "dl", "--json"], env)
        report = json.loads(out[:out.rindex("maxrss")])
        systems = len(report.get("systems", []))
        judged = report.get("humans", {}).get("items_labelled")
        print(f"report: {seconds:.1f} s, peak RSS {rss} MB ({systems} runs scored, {judged} passages with a human "
              f"grade, judges {', '.join(report.get('judges', {}))})")


if __name__ == "__main__":
    main()
