"""Times the platform on the real NQ-open 301 data: import, EM + F1 judge runs on a real worker, the report.

Prints one line per figure. Run through `bench/run`.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main():
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}")
    os.environ.setdefault("CELERY_BROKER_URL", f"sqla+sqlite:///{workdir / 'broker.sqlite3'}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DEBUG"] = "false"

    import django

    django.setup()
    from django.core.management import call_command

    from agreement.report import agreement_report_build
    from annotate.models import Campaign, Item
    from judges.models import JudgeRun, ModelJudgment

    print(f"database {os.environ['DATABASE_URL']}, broker {os.environ['CELERY_BROKER_URL']}")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)

    started = time.perf_counter()
    call_command(
        "import_data", "--campaign", "bench", "--task-type", "qa_correctness", "--format", "nq301",
        str(ROOT / "fixtures" / "nq301"), stdout=open(os.devnull, "w"),
    )
    import_s = time.perf_counter() - started
    campaign = Campaign.objects.get(slug="bench")
    items = Item.objects.filter(campaign=campaign).count()
    print(f"import nq301 folder: {import_s:.2f} s ({items} items)")

    worker = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "celery"), "-A", "config", "worker", "-Q", "judges", "--concurrency", "2",
         "--loglevel", "WARNING"],
        cwd=ROOT, env=os.environ.copy(),
    )
    try:
        for name, family in (("em", "em"), ("f1", "f1")):
            started = time.perf_counter()
            call_command("run_judge", "--campaign", "bench", "--judge", name, "--family", family, "--wait",
                         stdout=open(os.devnull, "w"))
            run_s = time.perf_counter() - started
            judged = ModelJudgment.objects.filter(judge__campaign=campaign, judge__name=name).count()
            run = JudgeRun.objects.filter(judge__campaign=campaign, judge__name=name).latest("id")
            busy_s = (run.finished_at - run.started_at).total_seconds()
            print(f"judge run {name}: {run_s:.2f} s from the command (worker start-up and polling included); "
                  f"{busy_s:.2f} s from first batch to last ({judged} items, {judged / busy_s:.0f} items/s)")
    finally:
        worker.terminate()
        worker.wait(timeout=30)

    timings = []
    for _ in range(5):
        started = time.perf_counter()
        report = agreement_report_build(campaign=campaign)
        timings.append(time.perf_counter() - started)
    print(f"agreement report build: median {statistics.median(timings) * 1000:.0f} ms over 5 "
          f"({len(report['judges'])} judges, {len(report['systems'])} systems)")


if __name__ == "__main__":
    main()
