"""Benchmark of image_relevance's data path: pooling 16 runs x 74 topics x 1,000 lines, and the report on 10,000
graded pairs with two judges (NDCG@10 and MAP of every run under the human and each judge's qrels).

Synthetic runs over 20,000 image ids; human grades and judge scores drawn at random for 10,000 pooled pairs
(depth 10 per run gives about 74 x 135 = 10,000 pairs). SQLite in a temp folder unless DATABASE_URL is set.

    .venv/bin/python bench/bench_images.py [--depth 10]
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        os.environ["MEDIA_ROOT"] = f"{tmp}/media"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from django.contrib.auth import get_user_model

        from agreement.report import agreement_report_build
        from annotate.models import Campaign, HumanJudgment, Item, Unit
        from interchange.importers.service import import_data_run
        from judges.models import Judge, ModelJudgment
        from tests.image_synthetic import runs_write, topics_write

        folder = Path(tmp)
        topics = topics_write(folder / "topics.jsonl", topics=74)
        runs = [f"run{n:02d}" for n in range(16)]
        runs_write(folder / "runs.txt", topics=topics, runs=runs, images=20_000, lines=1_000, seed=1)
        import_data_run(slug="bench", task_type="image_relevance", fmt="jsonl", paths=[folder / "topics.jsonl"])
        started = time.perf_counter()
        summary = import_data_run(slug="bench", task_type="image_relevance", fmt="trec-run",
                                  paths=[folder / "runs.txt"], depth=args.depth)
        pool_s = time.perf_counter() - started
        print(f"== image_relevance on {os.environ['DATABASE_URL'].split(':', 1)[0]}")
        print(f"pooling {len(runs)} runs x {len(topics)} topics x 1,000 lines (depth {args.depth}): {pool_s:.2f} s; "
              f"{summary.items_created:,} pooled images, {summary.system_outputs_created:,} run lines linked")

        campaign = Campaign.objects.get(slug="bench")
        rng = random.Random(2)
        assessor = get_user_model().objects.create(username="bench-assessor")
        units = list(Unit.objects.filter(campaign=campaign).values_list("id", flat=True))[:10_000]
        HumanJudgment.objects.bulk_create(
            [
                HumanJudgment(unit_id=unit, annotator=assessor, value={"grade": g}, label=str(g))
                for unit, g in ((u, rng.choice((0, 0, 1, 2))) for u in units)
            ],
            batch_size=2000,
        )
        for name in ("clip", "vlm"):
            judge = Judge.objects.create(campaign=campaign, name=name, family="external", config_hash=name)
            ModelJudgment.objects.bulk_create([ModelJudgment(judge=judge, item_id=item, score=rng.random(), label="")
                                               for item in Item.objects.filter(campaign=campaign).values_list(
                                                   "id", flat=True)], batch_size=2000)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            report = agreement_report_build(campaign=campaign)
            times.append(time.perf_counter() - started)
        print(
            f"report on {report['humans']['items_labelled']:,} graded pairs, 2 judges, {len(report['systems'])} runs: "
            f"median {sorted(times)[1]:.2f} s of 3 (min {min(times):.2f} s)"
        )


if __name__ == "__main__":
    main()
