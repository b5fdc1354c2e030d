"""The labelling budget on NQ301: humans replayed from the study's verdicts in the default queue order and in the
informative one (option queue_order), and the human labels each needs before the 95% interval of GPT-4's item-level
Cohen's kappa is as narrow as the target width (0.1, the option budget_width's default); then what the report's
budget block adds to the report's build time.

Replay: the campaign is imported from fixtures/nq301 (humans: the study's verdicts, each item's human label the
report's; judges: GPT-4 and text-davinci-003 as external judges). The units are put in each order
(annotate.selectors.queue_order.units_in_order), and the first L of them count as labelled, for L = 50, 100, ...: the
interval is the report's (stats.interrater.item_agreement_intervals, a bootstrap over questions). The budget block's
prediction from the first 300 labels of the default order is printed beside it.

Prints one line per figure. Run through `bench/run`, or alone: .venv/bin/python bench/bench_budget.py
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 0.1
STEP = 50
JUDGE = "gpt-4"


def main():
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-budget-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DEBUG"] = "false"

    import django

    django.setup()
    from django.core.management import call_command

    import reports.verdicts as report_module
    from agreement.report import agreement_report_build
    from annotate.models import Campaign, Unit
    from annotate.selectors.queue_order import units_in_order
    from reports.selectors import human_labels_get, judge_labels_get
    from stats import budget, interrater

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_data", "--campaign", "nq301", "--task-type", "qa_correctness", "--format", "nq301",
                 str(ROOT / "fixtures" / "nq301"), stdout=open(os.devnull, "w"))
    campaign = Campaign.objects.get(slug="nq301")
    humans = human_labels_get(campaign=campaign)
    judge = next(j for j in judge_labels_get(campaign=campaign) if j.name == JUDGE)
    unit_item = dict(Unit.objects.filter(campaign=campaign).values_list("id", "item_id"))

    def replay(order: str) -> tuple[int | None, list[tuple[int, float]]]:
        items = [unit_item[pk] for pk in units_in_order(campaign=campaign, order=order)]
        items = [item for item in items if item in humans.item_label and item in judge.labels]
        widths, reached = [], None
        for labels in range(STEP, len(items) + STEP, STEP):
            shown = items[:labels]
            interval = interrater.item_agreement_intervals([humans.item_label[i] for i in shown],
                                                           [judge.labels[i] for i in shown],
                                                           [humans.item_topic[i] for i in shown])["cohen_kappa"]
            width = None if interval is None else interval[1] - interval[0]
            widths.append((min(labels, len(items)), width))
            if reached is None and width is not None and width <= TARGET:
                reached = min(labels, len(items))
        return reached, widths

    print(f"NQ301: {len(humans.item_label)} items with a human label, judge {JUDGE}, target width {TARGET} "
          f"for its item-level Cohen's kappa (95% bootstrap over questions)")
    for order in ("position", "informative"):
        reached, widths = replay(order)
        shown = ", ".join(f"{labels}: {width:.3f}" for labels, width in widths[1::4] if width is not None)
        print(f"order {order}: target reached at {reached if reached else 'never'} labels; widths by labels "
              f"{shown}")

    # The budget block's own estimate from the first 300 labels of the default order, against the replay.
    items = [unit_item[pk] for pk in units_in_order(campaign=campaign, order="position")]
    first = [item for item in items if item in humans.item_label and item in judge.labels][:300]
    human, model = [humans.item_label[i] for i in first], [judge.labels[i] for i in first]
    topics = [humans.item_topic[i] for i in first]
    units, statistic = budget.kappa_statistic(human, model, topics)
    row = budget.budget_estimate(budget.BudgetInput(
        judge=JUDGE, statistic_key="cohen_kappa", title="kappa", unit_noun="questions", n_units=units,
        n_labels=len(first), statistic=statistic,
        current=interrater.item_agreement_intervals(human, model, topics)["cohen_kappa"]), target=TARGET)
    print(f"budget estimate from the first 300 labels (position order, {units} questions): width {row['width']:.3f}, "
          f"fitted exponent {row['fit']['exponent']:.2f}, {row['labels_needed']} labels needed for width {TARGET}")

    def build_ms(repeats: int = 5) -> float:
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            agreement_report_build(campaign=campaign)
            timings.append(time.perf_counter() - started)
        return statistics.median(timings) * 1000

    with_budget = build_ms()
    kept = report_module.verdict_budget
    report_module.verdict_budget = lambda **kwargs: None
    try:
        without = build_ms()
    finally:
        report_module.verdict_budget = kept
    report = agreement_report_build(campaign=campaign)
    print(f"report build on nq301 ({len(report['judges'])} judges): median {with_budget:.0f} ms with the budget "
          f"block, {without:.0f} ms without it (+{with_budget - without:.0f} ms)")


if __name__ == "__main__":
    main()
