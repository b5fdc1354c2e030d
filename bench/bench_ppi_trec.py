"""Humans and judges together on a real TREC collection: each run's NDCG@10 and P@10 from a share of the topics'
human grades plus an LLM judge's grades of every topic (reports.ppi, tasktypes.graded.ppi), checked against the
all-human figures. Not in bench/run: the data is not ours to ship (see below).

The folder given holds `topics.txt` (one qid a line), `runs/*.txt` (TREC runs), `qrels/human*.txt` (the assessors'
graded qrels) and `qrels/judge.<name>.txt` (each judge's qrels of the same pool): the TREC DL 2019 passage slice cut
from public GitHub repositories (NIST's qrels, six Pyserini first-stage runs and three TREC submissions, three LLM
judges' UMBRELA-style qrels; docs/statistics/ppi.md says where each comes from), which has no licence that lets us
commit it. Each is imported as a passage_relevance campaign (pool depth 10, the passages' texts their ids), the
human qrels with grade 0 for the pooled passages the assessors never saw (trec_eval's reading of an unjudged
passage), then the report is built once per check share; per judge and measure it prints the check's coverage of
the all-human figures over CHECK_DRAWS + 1 draws of the active plan, and the widths against the humans' alone. The
all-human NDCG@10 of each run is recomputed here by ir_measures from the files, apart from Concord.

    .venv/bin/python bench/bench_ppi_trec.py /work/realdata/trec-dl19-passage-llmjudge [--shares 0.1 0.25]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEPTH = 10


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        qid, _, doc, grade = line.split()[:4]
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def _runs(folder: Path) -> dict[str, dict[str, list[str]]]:
    runs: dict[str, dict[str, list[tuple[int, str]]]] = {}
    for path in sorted(folder.glob("*.txt")):
        for line in path.read_text().splitlines():
            qid, _, doc, rank, _, tag = line.split()[:6]
            runs.setdefault(tag, {}).setdefault(qid, []).append((int(rank), doc))
    return {tag: {qid: [doc for _, doc in sorted(ranked)] for qid, ranked in by_topic.items()}
            for tag, by_topic in runs.items()}


def files_write(data: Path, out: Path) -> dict:
    """The campaign's files from DATA into OUT: topics, runs, the pooled passages, the human qrels completed with
    grade 0 over the pool, each judge's qrels as they are."""
    topics = data.joinpath("topics.txt").read_text().split()
    runs = _runs(data / "runs")
    human = _qrels(next((data / "qrels").glob("human*.txt")))
    pool = {(qid, doc) for by_topic in runs.values() for qid, docs in by_topic.items() for doc in docs[:DEPTH]
            if qid in topics}
    out.joinpath("topics.tsv").write_text("".join(f"{qid}\tquery {qid}\n" for qid in topics))
    out.joinpath("runs.txt").write_text("".join(
        f"{qid} Q0 {doc} {rank} {100 - rank} {tag}\n" for tag, by_topic in runs.items()
        for qid, docs in by_topic.items() if qid in topics for rank, doc in enumerate(docs, start=1)))
    docs = sorted({doc for _, doc in pool})
    out.joinpath("collection.tsv").write_text("".join(f"{doc}\tpassage {doc}\n" for doc in docs))
    unjudged = sorted((qid, doc) for qid, doc in pool if doc not in human.get(qid, {}))
    out.joinpath("human.qrels").write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, docs in human.items()
                                                   if qid in topics for doc, grade in docs.items())
                                           + "".join(f"{qid} 0 {doc} 0\n" for qid, doc in unjudged))
    judges = {path.stem.removeprefix("judge."): path for path in sorted((data / "qrels").glob("judge.*.txt"))}
    return {"topics": topics, "runs": runs, "human": human, "pool": pool, "unjudged": len(unjudged),
            "judges": judges}


def independent_ndcg(human: dict, runs: dict, pool: set) -> dict[str, float]:
    """Each run's mean NDCG@10 by ir_measures over the human qrels and the pooled passages (grade 0 where
    unjudged): every passage the qrels grade is one of the campaign's, pooled or not."""
    import ir_measures

    qrels = {qid: dict(human.get(qid, {})) for qid, _ in pool}
    for qid, doc in pool:
        qrels[qid].setdefault(doc, 0)
    measure = ir_measures.parse_measure("nDCG@10")
    return {tag: ir_measures.calc_aggregate([measure], qrels, {
        qid: {doc: float(100 - rank) for rank, doc in enumerate(docs)} for qid, docs in by_topic.items()
        if qid in qrels})[measure] for tag, by_topic in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.1, 0.25])
    parser.add_argument("--plan", default="active")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="concord-bench-ppi-")
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DEBUG": "false",
                       "MEDIA_ROOT": f"{tmp}/media", "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp}/broker.sqlite3",
                       "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3"})
    import django

    django.setup()
    from django.core.management import call_command

    from agreement.report import agreement_report_build
    from annotate.models import Campaign

    files = files_write(args.data, Path(tmp))
    print(f"data: {len(files['topics'])} topics, {len(files['runs'])} runs, {len(files['pool']):,} pooled passages "
          f"(depth {DEPTH}), {files['unjudged']} of them never judged (grade 0), judges {', '.join(files['judges'])}")
    call_command("migrate", verbosity=0)
    steps = [("trec-topics", "topics.tsv", ["--overlap", "1"]), ("trec-run", "runs.txt", ["--depth", str(DEPTH)]),
             ("collection", "collection.tsv", []), ("trec-qrels", "human.qrels", [])]
    steps += [("judge-qrels", str(path), ["--judge", name]) for name, path in files["judges"].items()]
    for fmt, name, extra in steps:
        call_command("import_data", "--campaign", "dl", "--task-type", "passage_relevance", "--format", fmt, *extra,
                     str(Path(tmp) / name), verbosity=0)
    campaign = Campaign.objects.get(slug="dl")
    expected = independent_ndcg(files["human"], files["runs"], files["pool"])
    for share in args.shares:
        campaign.options = {**(campaign.options or {}), "ppi_plan": args.plan, "ppi_check_share": share}
        campaign.save(update_fields=["options"])
        started = time.perf_counter()
        report = agreement_report_build(campaign=campaign)
        seconds = time.perf_counter() - started
        block = report["ppi"]
        print(f"\nshare {share}: report built in {seconds:.1f} s; plan {args.plan}")
        print(f"{'judge':<22} {'measure':<8} {'drawn':>5} {'covered (draw 0)':>17} {'covered (40 more)':>18} "
              f"{'all but one':>11} {'width/humans':>12} {'width/SRS':>9} {'pairs sep.':>10}")
        for measure in block["measures"]:
            for name, judge in measure["judges"].items():
                check, draws = judge["check"], judge["check"]["draws"]
                print(f"{name:<22} {measure['label']:<8} {check['drawn']:>5} "
                      f"{check['covered']:>9} of {check['intervals']:<5} {draws['covered']:>18.3f} "
                      f"{draws['all_but_one']:>8} /{draws['n']} {draws['mean_width_ratio']:>12.3f} "
                      f"{draws['mean_width_ratio_uniform']:>9.3f} "
                      f"{judge['separated_count']:>5} /{len(judge['pairs'])}")
                if measure["key"] == "ndcg_cut_10":
                    gaps = [abs(row["all_human"] - expected[row["system"]]) for row in judge["systems"]]
                    assert max(gaps) < 1e-9, f"all-human NDCG@10 differs from ir_measures' by {max(gaps)}"
    print("\nall-human NDCG@10 (Concord = ir_measures over the pool): "
          + ", ".join(f"{tag} {value:.4f}" for tag, value in sorted(expected.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
