"""Where the two cores went during the load test: the CPU seconds of each part of the setup, from /proc.

    python bench/load/cpu.py snapshot FILE          # once the annotators have signed in, and again before Locust ends
    python bench/load/cpu.py report BEFORE AFTER    # per part, its CPU seconds between the two and share of the machine

A part's seconds are the user + system time its processes spent between the two snapshots, with the time of their
children that ended (a process that started meanwhile counts from zero). The children matter: PostgreSQL's backends
end and start again as the web workers' connections reach CONN_MAX_AGE (60 s), and a backend's whole time is then
added to the postmaster's children; a Celery worker's batches run in pool processes that end. Counting only living
processes lost them: a run that printed PostgreSQL at 2% of the machine had its backends using about 40%, in
"other". The machine's total and idle time come from /proc/stat, so "other" is what none of the named parts used
(the sampler's psql, the kernel).
"""

import json
import os
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
# A process belongs to the first part whose word is in its command line.
PARTS = (("web (gunicorn)", "gunicorn"), ("Celery workers", "celery"), ("PostgreSQL", "postgres"),
         ("Redis", "redis-server"), ("Locust (the simulated annotators)", "locust"))


def _part(command: str) -> str | None:
    return next((name for name, word in PARTS if word in command), None)


def _processes() -> dict[str, tuple[str, float]]:
    """{pid: (part, CPU seconds so far, its ended children's included)} of every process in a named part."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended while read
            continue
        part = _part(command)
        if part is not None:
            # utime + stime, and cutime + cstime: its own time and that of its children that ended
            found[entry.name] = (part, sum(int(field) for field in fields[11:15]) / TICKS)
    return found


def _machine() -> tuple[float, float]:
    """(all CPU seconds of every core so far, of which idle) from /proc/stat."""
    values = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(values) / TICKS, (values[3] + values[4]) / TICKS  # idle + iowait


def snapshot(path: Path) -> None:
    total, idle = _machine()
    path.write_text(json.dumps({"time": time.time(), "total": total, "idle": idle, "processes": _processes()}))


def report(before_path: Path, after_path: Path) -> None:
    before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
    total, idle = after["total"] - before["total"], after["idle"] - before["idle"]
    seconds = after["time"] - before["time"]
    used: dict[str, float] = {}
    for pid, (part, cpu) in after["processes"].items():
        earlier = before["processes"].get(pid)
        used[part] = used.get(part, 0.0) + cpu - (earlier[1] if earlier and earlier[0] == part else 0.0)
    cores = total / seconds if seconds else 0
    print(f"CPU over the {seconds:.0f} s of the run ({cores:.1f} cores, {total:.0f} CPU seconds; idle "
          f"{100 * idle / total:.0f}%):")
    named = 0.0
    for name, _ in PARTS:
        named += used.get(name, 0.0)
        print(f"  {name:36s} {used.get(name, 0.0):7.0f} s  {100 * used.get(name, 0.0) / total:4.0f}%")
    other = max(0.0, total - idle - named)
    print(f"  {'other (kernel, the sampler, ...)':36s} {other:7.0f} s  {100 * other / total:4.0f}%")


if __name__ == "__main__":
    {"snapshot": snapshot, "report": report}[sys.argv[1]](*(Path(arg) for arg in sys.argv[2:]))
