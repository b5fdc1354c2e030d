"""The report's budget block (report["budget"], every task type; README "Labelling budget"): per judge and headline
statistic, how the 95% interval narrows with more human labels and how many more labels the campaign's target width
(option budget_width) needs. The arithmetic is stats.budget's; the builders call these with the data they have
read already, so the block costs no query.

Headline statistics: item-level Cohen's kappa between the human labels and the judge's (verdict and graded reports,
resampling questions or topics as the report's interval does); Kendall's tau-b between the human and judge system
orders (verdicts: the `system` order, every system's accuracy; graded: NDCG@10 of the runs), resampling topics; and
the mean per-topic tau-b of answer_ranking, resampling topics.
"""

from __future__ import annotations

import numpy as np

from reports.system_level import SystemRows, topic_matrices
from stats import budget

KAPPA = "cohen_kappa"
SYSTEM_TAU = "system_kendall_tau_b"
TOPIC_TAU = "topic_mean_kendall_tau_b"
TITLES = {KAPPA: "Cohen's kappa (items)", SYSTEM_TAU: "Kendall's tau-b (system order)",
          TOPIC_TAU: "mean per-topic Kendall's tau-b"}


def _kappa_input(name: str, found: tuple[int, budget.Statistic], labels: int, *, current, why,
                 unit_noun: str) -> budget.BudgetInput:
    """The budget input of a judge's item kappa, FOUND (units, statistic: stats.budget.kappa_statistic) over LABELS
    items."""
    units, statistic = found
    return budget.BudgetInput(judge=name, statistic_key=KAPPA, title=TITLES[KAPPA], unit_noun=unit_noun,
                              n_units=units, n_labels=labels, statistic=statistic, current=current, why=why)


def _tau_input(name: str, matrices: tuple, *, current, why) -> budget.BudgetInput:
    units, statistic = budget.system_tau_statistic(*matrices)
    labels = int(matrices[2].sum()) if units else 0
    return budget.BudgetInput(judge=name, statistic_key=SYSTEM_TAU, title=TITLES[SYSTEM_TAU], unit_noun="topics",
                              n_units=units, n_labels=labels, statistic=statistic, current=current, why=why)


def verdict_budget(*, report: dict, judges, paired: dict, coverage: dict[str, list[SystemRows]], options: dict,
                   target: float) -> dict:
    """qa_correctness and ais: each judge's item kappa (the items both labelled, by question: PAIRED, name ->
    reports.selectors.Paired) and its system order's tau-b (the systems the report's `system` block keeps, by
    question), from what _verdict_report_build has read."""
    inputs = []
    for judge in judges:
        block, pairs = report["judges"][judge.name], paired[judge.name]
        inputs.append(_kappa_input(judge.name, budget.kappa_statistic_of_tables(pairs.tables), len(pairs.item),
                                   current=block["item"]["cohen_kappa_ci95"],
                                   why=block["item"]["why"] or block["item"]["cohen_kappa_ci_note"],
                                   unit_noun="questions"))
        included = [rows for rows in coverage[judge.name]
                    if rows.exclusion(min_outputs=options["min_system_outputs"],
                                      min_coverage=options["min_system_coverage"]) is None]
        system = block["system"]
        inputs.append(_tau_input(judge.name, topic_matrices(included), current=system["kendall_tau_b_ci95"],
                                 why=system["why"] or system["kendall_tau_b_ci_note"]))
    return budget.budget_block(inputs, target=target)


def graded_budget(*, report: dict, human_grade: dict[int, int], judge_labels: list, items: dict, levels: list[int],
                  per_topic_humans: dict, per_topic_judges: dict, target: float) -> dict:
    """Graded relevance: each judge's item kappa over the items both graded (by topic), and the tau-b of the runs'
    NDCG@10 under the human qrels against the judge's (by topic), from what graded_report_build has read.
    PER_TOPIC_HUMANS[judge]: the runs' measures under the human qrels the judge is compared with (those of its part
    of a development split, where there is one)."""
    measure = "ndcg_cut_10"
    inputs = []
    for name, _, labels in judge_labels:
        block = report["judges"][name]
        shared = sorted(item for item in labels if item in human_grade)
        inputs.append(_kappa_input(name, budget.kappa_statistic([human_grade[i] for i in shared],
                                                                [int(labels[i]) for i in shared],
                                                                [items[i][0] for i in shared], levels=levels),
                                   len(shared), current=block["item"]["cohen_kappa_ci95"],
                                   why=block["item"]["cohen_kappa_ci_note"] if shared else "no item graded by both",
                                   unit_noun="topics"))
        system = block["system"][measure]
        humans = per_topic_humans[name]
        inputs.append(_tau_input(name, _run_matrices({run: values[measure] for run, values in humans.items()},
                                                     {run: values[measure] for run, values in
                                                      per_topic_judges[name].items()}),
                                 current=system["kendall_tau_b_ci95"],
                                 why=system["kendall_tau_b_ci_note"] if system["kendall_tau_b"] is not None
                                 else "tau-b undefined on the runs"))
    return budget.budget_block(inputs, target=target)


def _run_matrices(human: dict[str, dict[str, float]], judge: dict[str, dict[str, float]]) -> tuple:
    """(human, judge, counts) runs x topics, as stats.run_correlation_intervals builds them."""
    runs = sorted(set(human) & set(judge))
    topics = sorted({t for run in runs for t in human[run] if t in judge[run]})
    column = {topic: i for i, topic in enumerate(topics)}
    h, j, counts = (np.zeros((len(runs), len(topics))) for _ in range(3))
    for row, run in enumerate(runs):
        for topic, value in human[run].items():
            if topic in judge[run]:
                h[row, column[topic]], j[row, column[topic]], counts[row, column[topic]] = value, judge[run][topic], 1
    return h, j, counts


def ranking_budget(*, report: dict, target: float) -> dict:
    """answer_ranking: each judge's mean per-topic tau-b (first dimension, every candidate) over the topics ranked,
    from the report's own per-topic rows."""
    inputs = []
    for name, block in report["judges"].items():
        dimension = block["per_topic"][0]["dimension"] if block["per_topic"] else None
        values = [row["kendall_tau_b"] for row in block["per_topic"] if row["dimension"] == dimension]
        units, statistic = budget.mean_statistic(values)
        summary = block["topic_mean"].get("kendall_tau_b") or {}
        inputs.append(budget.BudgetInput(
            judge=name, statistic_key=TOPIC_TAU, title=TITLES[TOPIC_TAU], unit_noun="topics", n_units=units,
            n_labels=units, statistic=statistic, current=summary.get("bootstrap_ci95"),
            why=summary.get("ci_note") if units >= 2 else f"{units} topic(s) with a defined tau-b, at least 2 needed"))
    return budget.budget_block(inputs, target=target)
