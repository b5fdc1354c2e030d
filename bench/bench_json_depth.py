"""Benchmark of the JSON readers on hostile depth and on an ordinary export (interchange.importers.common).

- hostile: the issue's files, 10,000,000 nested `[` closed (20 MB) and 20,000,000 unclosed `[` (20 MB), each read
  by json_array_read (the Label Studio reader) until it refuses them: seconds and the peak of Python allocations
  (tracemalloc). Before the depth was counted from the parser's plain events, these cost a worker 16-19 GB.
- ordinary: a Label Studio-shaped export of N tasks (default 100,000, ~14 MB) read whole: seconds, best of 3, the
  price of counting the depth of every chunk.

    .venv/bin/python bench/bench_json_depth.py [--tasks 100000]
"""

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django  # noqa: E402

django.setup()

from interchange.importers.common import ImportDataError, json_array_read  # noqa: E402


def _refusal(path: Path) -> str:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        for _ in json_array_read(path, what="tasks"):
            pass
        message = "accepted"
    except ImportDataError as exc:
        message = exc.message
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return f"{seconds:.3f} s, peak {peak / 2**20:.1f} MiB: {message}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, body in (("closed 10M", b"[" * 10_000_000 + b"]" * 10_000_000),
                           ("unclosed 20M", b"[" * 20_000_000)):
            path = Path(folder) / "deep.json"
            path.write_bytes(body)
            del body
            print(f"{name} ({path.stat().st_size / 1e6:.0f} MB): {_refusal(path)}")
        path = Path(folder) / "tasks.json"
        path.write_bytes(b"[" + b",\n".join(
            b'{"data": {"query": "q %d", "items": [{"id": "a", "body": "some text here", "score": 1.5}, '
            b'{"id": "b", "body": "x", "score": 2}]}, "annotations": []}' % n for n in range(args.tasks)) + b"]")
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            count = sum(1 for _ in json_array_read(path, what="tasks"))
            best = min(best, time.perf_counter() - started)
        print(f"ordinary ({args.tasks:,} tasks, {path.stat().st_size / 1e6:.1f} MB): {count:,} read in {best:.2f} s "
              f"(best of 3)")


if __name__ == "__main__":
    main()
