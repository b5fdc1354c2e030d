"""The tables of an answer_ranking report as CSV (its report presentation, tasktypes.answer_ranking.presentation):
the judges table, one row per judge and dimension, and the topics table, one row per judge, topic and dimension."""

from __future__ import annotations

from reports.tables import TOPIC_COLUMNS, SpreadsheetCsv, interval_cells, value_cell
from stats.rank_agreement import TOP_KEYS
from tasktypes.answer_ranking.report import TAU, TAU_ANSWERS, order_text

RANKING_JUDGE_COLUMNS = [
    "judge", "family", "dimension", "scored_items", "failed",
    "tau_b_mean", "tau_b_ci95_low", "tau_b_ci95_high", "tau_b_topics",
    "tau_b_answers_only_mean", "tau_b_answers_only_ci95_low", "tau_b_answers_only_ci95_high",
    "tau_b_answers_only_topics",
    # The bootstrap intervals over topics the page shows (the columns above keep the t-based ones, as published).
    "tau_b_bootstrap_ci95_low", "tau_b_bootstrap_ci95_high",
    "tau_b_answers_only_bootstrap_ci95_low", "tau_b_answers_only_bootstrap_ci95_high",
    # Agreement at the top (stats.rank_agreement): each measure's topic mean, bootstrap interval and topics.
    *(f"{key}_{part}" for key in TOP_KEYS for part in ("mean", "bootstrap_ci95_low", "bootstrap_ci95_high", "topics")),
]


def _mean_cells(summary: dict) -> list:
    ci = summary["ci95"] or [None, None]
    return [value_cell(summary["mean"]), value_cell(ci[0]), value_cell(ci[1]), summary["n"]]


def ranking_judges_csv(*, report: dict) -> str:
    """answer_ranking rows: one per (judge, dimension); the topic mean tau-b with its 95% CI, all and answers only."""
    writer = SpreadsheetCsv()
    writer.writerow(RANKING_JUDGE_COLUMNS)
    for name, block in report["judges"].items():
        for dimension, means in block["topic_mean_by_dimension"].items():
            writer.writerow(
                [
                    name,
                    block["family"],
                    dimension,
                    block["item"]["n"],
                    block["item"]["failed"],
                    *_mean_cells(means[TAU]),
                    *_mean_cells(means[TAU_ANSWERS]),
                    *interval_cells(means[TAU].get("bootstrap_ci95")),
                    *interval_cells(means[TAU_ANSWERS].get("bootstrap_ci95")),
                    *(
                        cell
                        for key in TOP_KEYS
                        for cell in (
                            value_cell(means[key]["mean"]),
                            *interval_cells(means[key].get("bootstrap_ci95")),
                            means[key]["n"],
                        )
                    ),
                ]
            )
    return writer.text()


def topics_csv(*, report: dict) -> str:
    """One row per judge, topic and dimension: n, tau-b (all candidates, answers only) and both orders.

    Orders are one cell each, best first, "a > b = c" (ties, equal scores for the judge, joined by "="), candidates by
    their external
    id without the "<qid>/" prefix. When the reference is the mean over several annotators, human_order
    holds each annotator's order as "name: order" joined by " | ". Header only for task types without
    per-topic statistics.
    """
    writer = SpreadsheetCsv()
    writer.writerow(TOPIC_COLUMNS)
    for name, block in report["judges"].items():
        for row in block.get("per_topic", []):
            topic = row["topic"]
            if row.get("human_orders"):
                human = " | ".join(f"{who}: {order_text(order, topic)}" for who, order in row["human_orders"].items())
            else:
                human = order_text(row.get("human_order"), topic)
            writer.writerow(
                [name, topic, row["dimension"], row["n"], row.get("n_answers", ""), value_cell(row[TAU]),
                 value_cell(row[TAU_ANSWERS]), value_cell(row.get("reference")), human,
                 order_text(row.get("judge_groups"), topic), row.get("note", ""),
                 *(value_cell(row.get(key)) for key in TOP_KEYS), row.get("n_at_k", "")]
            )
    return writer.text()
