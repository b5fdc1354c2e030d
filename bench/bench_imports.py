"""Benchmark of imports in bounded memory: peak RSS and rows/s of large imports, beside the same imports of 5 MB.

Each file is generated in a temp folder and imported with the real import service (`import_data_run`) into a
fresh campaign (SQLite in the temp folder unless DATABASE_URL is set), in a child process of its own whose peak
RSS (ru_maxrss) is the import's; what the campaign needs first (topics, candidates) is imported by another
child before it.
- trec-run, 500 MB: one run over 1,000 topics (about 11,000 images each) pooled to depth 25 into an
  image_relevance campaign;
- judge-scores, 500 MB: `topic item score label` rows over the 100,000 candidates of an answer_ranking
  campaign, each candidate scored many times (every row is read and checked; the first per candidate is stored);
- label-studio, 200 MB: a Ranker export of tasks of 10 candidates (~600-character bodies, scores as strings,
  one ranking each), the scores imported as a judge (--score-judge).

    .venv/bin/python bench/bench_imports.py [--scale 0.02] [--formats trec-run,judge-scores,label-studio]
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

MB = 1_000_000
SIZES = {"trec-run": 500 * MB, "judge-scores": 500 * MB, "label-studio": 200 * MB}
SMALL = 5 * MB
TASK_TYPES = {"trec-run": "image_relevance", "judge-scores": "answer_ranking", "label-studio": "answer_ranking"}
RUN_TOPICS = 1000
SCORED_TOPICS, SCORED_CANDIDATES = 1000, 100
WORDS = ("vitamin cold dose symptom virus doctor stomach pain rest fluid fever child adult study risk "
         "benefit evidence trial effect daily safe harm common advice treatment").split()


class _Writer:
    """Lines written in 1 MB blocks, counted, until the file reaches its size."""

    def __init__(self, path: Path, size: int):
        self.handle = open(path, "w", encoding="utf-8")
        self.size, self.written, self.rows = size, 0, 0
        self.block: list[str] = []
        self.block_len = 0

    def full(self) -> bool:
        return self.written + self.block_len >= self.size

    def add(self, text: str, *, row: bool = True) -> None:
        self.block.append(text)
        self.block_len += len(text)
        self.rows += row
        if self.block_len > MB:
            self._flush()

    def _flush(self) -> None:
        self.handle.write("".join(self.block))
        self.written += self.block_len
        self.block, self.block_len = [], 0

    def close(self) -> int:
        self._flush()
        self.handle.close()
        return self.rows


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def trec_run_write(folder: Path, size: int) -> tuple[Path, int]:
    """A run of one tag, a topic's lines together, best first, until SIZE bytes; its topics as jsonl beside it."""
    topics = folder / "topics.jsonl"
    topics.write_text(
        "".join(
            json.dumps({"id": f"t{n:04d}", "page_title": f"Page {n}", "section_title": f"Section {n}"}) + "\n"
            for n in range(RUN_TOPICS)
        ),
        encoding="utf-8",
    )
    path = folder / "bench.run"
    out = _Writer(path, size)
    per_topic = size // (RUN_TOPICS * 40) + 1  # lines are 44 to 46 bytes: the file fills before the last topic
    for n in range(RUN_TOPICS):
        for position in range(per_topic):
            # distinct per topic: 104,729 is prime, so position -> image id is one to one below 10^7
            image = (n * 7919 + position * 104_729) % 10_000_000
            out.add(f"t{n:04d} Q0 img{image:07d} {position + 1} {1000 - position / 100:.4f} bench-run\n")
        if out.full():
            break
    return path, out.close()


def candidates_write(folder: Path) -> Path:
    """An answer_ranking jsonl of SCORED_TOPICS topics of SCORED_CANDIDATES candidates each (no rankings)."""
    path = folder / "candidates.jsonl"
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8") as sink:
        for n in range(SCORED_TOPICS):
            candidates = [{"id": f"c{c:03d}", "kind": "document", "text": _sentence(rng, 8), "docno": f"doc-{n}-{c}"}
                          for c in range(SCORED_CANDIDATES)]
            sink.write(json.dumps({"qid": f"q{n:04d}", "query": _sentence(rng, 6), "candidates": candidates}) + "\n")
    return path


def judge_scores_write(folder: Path, size: int) -> tuple[Path, int]:
    """topic, item, score, label rows cycling over the candidates until SIZE bytes."""
    path = folder / "scores.tsv"
    out = _Writer(path, size)
    out.add("topic\titem\tscore\tlabel\n", row=False)
    labels = ("relevant", "related", "irrelevant")
    round_ = 0
    while not out.full():
        for n in range(SCORED_TOPICS):
            for c in range(SCORED_CANDIDATES):
                out.add(f"q{n:04d}\tc{c:03d}\t{(n * 31 + c * 17 + round_) % 1000 / 1000:.6f}\t{labels[c % 3]}\n")
            if out.full():
                break
        round_ += 1
    return path, out.close()


def label_studio_write(folder: Path, size: int) -> tuple[Path, int]:
    """A Label Studio Ranker export: tasks of 5 documents and 5 answers, one ranking each, until SIZE bytes."""
    path = folder / "export.json"
    rng = random.Random(2)
    out = _Writer(path, size)
    out.add("[\n", row=False)
    task = 0
    while True:
        qid = f"{task + 1:06d}"
        items = [{"id": f"d{c}", "docno": f"clef-doc-{task}-{c}", "query": "", "body": _sentence(rng, 90),
                  "score": f"{rng.random():.3f}"} for c in range(5)]
        items += [{"id": f"a{c}", "docno": f"gpt-3.5_p{c}_s1", "body": _sentence(rng, 90),
                   "score": f"{rng.random():.3f}"} for c in range(5)]
        order = [item["id"] for item in items]
        rng.shuffle(order)
        text = json.dumps({"id": task + 1, "data": {"qid": qid, "query": _sentence(rng, 7), "items": items},
                           "annotations": [{"id": task + 1, "completed_by": task % 7, "was_cancelled": False,
                                            "result": [{"type": "ranker", "value": {"ranker": {"rank": order}}}]}]})
        task += 1
        out.add(text)
        if out.full():
            break
        out.add(",\n", row=False)
    out.add("\n]\n", row=False)
    return path, out.close()


def _child(step: str, fmt: str, file: str, media: str) -> None:
    """In a child: `setup` (migrate, import what FMT needs first) or `import` FILE; one JSON line of figures."""
    import django

    django.setup()
    from django.conf import settings

    settings.MEDIA_ROOT = Path(media)
    from django.core.management import call_command

    from interchange.importers.service import import_data_run

    slug, task_type = f"bench-{Path(media).parent.name}", TASK_TYPES[fmt]  # one campaign per file
    if step == "setup":
        call_command("migrate", verbosity=0)
        if file != "-":  # the campaign's topics or candidates, in jsonl
            import_data_run(slug=slug, task_type=task_type, fmt="jsonl", paths=[Path(file)])
        return
    options = {"trec-run": {}, "judge-scores": {"judge": "bench-judge"},
               "label-studio": {"score_judge": "bench-score"}}[fmt]
    started = time.perf_counter()
    summary = import_data_run(slug=slug, task_type=task_type, fmt=fmt, paths=[Path(file)], **options)
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "items": summary.items, "judged": summary.items_by_judge}))


def _run_child(step: str, fmt: str, file: Path | str, env: dict, media: Path) -> dict | None:
    out = subprocess.run([sys.executable, __file__, "--child", step, fmt, str(file), str(media)], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{step} {fmt} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]) if step == "import" else None


def bench(fmt: str, size: int, tmp: Path) -> None:
    folder = tmp / f"{fmt}-{size}"
    folder.mkdir()
    started = time.perf_counter()
    setup = None
    if fmt == "trec-run":
        path, rows = trec_run_write(folder, size)
        setup = folder / "topics.jsonl"
    elif fmt == "judge-scores":
        path, rows = judge_scores_write(folder, size)
        setup = candidates_write(folder)
    else:
        path, rows = label_studio_write(folder, size)
    made = time.perf_counter() - started
    env = dict(os.environ)
    database = folder / "bench.sqlite3"
    if "DATABASE_URL" not in os.environ:
        env["DATABASE_URL"] = f"sqlite:///{database}"
    env["CONCORD_TEST_DB"] = str(database)
    media = folder / "media"
    _run_child("setup", fmt, setup or "-", env, media)
    figures = _run_child("import", fmt, path, env, media)
    unit = "tasks" if fmt == "label-studio" else "lines"
    print(f"{fmt:<13} {path.stat().st_size / MB:7.1f} MB {rows:>11,} {unit:<5} {figures['seconds']:7.1f} s "
          f"{rows / figures['seconds']:>10,.0f} {unit}/s   peak RSS {figures['peak_mib']:4.0f} MiB "
          f"(made in {made:.0f} s; campaign after: {figures['items']:,} items, judged {figures['judged']})",
          flush=True)
    for file in folder.rglob("*"):
        if file.is_file():
            file.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="times the large sizes (0.02 for a quick check)")
    parser.add_argument("--formats", default=",".join(SIZES))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    formats = [name.strip() for name in args.formats.split(",") if name.strip()]
    unknown = [name for name in formats if name not in SIZES]
    if unknown:
        sys.exit(f"unknown format {unknown[0]!r}; choose from {', '.join(SIZES)}")
    baseline = subprocess.run([sys.executable, "-c", "import django, os, resource; os.environ.setdefault("
                               "'DJANGO_SETTINGS_MODULE', 'config.settings.test'); django.setup(); "
                               "import interchange.importers.service; "
                               "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                              cwd=ROOT, capture_output=True, text=True, check=True)
    database = os.environ.get("DATABASE_URL", "sqlite").split(":", 1)[0]
    print(f"== Imports in bounded memory ({database}); Django with the import code loaded: "
          f"{int(baseline.stdout.strip()) / 1024:.0f} MiB peak; target: under 400 MiB for every import")
    with tempfile.TemporaryDirectory(prefix="concord-bench-imports-") as tmp:
        for fmt in formats:
            for size in (int(SIZES[fmt] * args.scale), SMALL):
                bench(fmt, size, Path(tmp))


if __name__ == "__main__":
    main()
