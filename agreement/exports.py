"""The report's tables as CSV: one file for the systems table, one for the judges table, one for topics; and the
items CSV, one row per item with its category, its human label and every judge's verdict (items_csv).

Two files rather than one with a section column, because the two tables have different columns
and each file should open as a plain table in a spreadsheet or pandas. Numbers unrounded; an
undefined statistic is an empty cell.

Every cell goes through spreadsheet_cell (by way of SpreadsheetCsv, the one writer here): text a spreadsheet would run
as a formula is neutralised as the OWASP CSV Injection page recommends, since system, judge, topic and annotator names
are whatever an import or a researcher gave them.
"""

from __future__ import annotations

import csv
import io
import re

from annotate.task_types import LAYOUT_ATTRIBUTION, LAYOUT_GRADES, LAYOUT_RANKING
from stats.interrater import ALPHA_LEVELS
from stats.rank_agreement import TOP_INTERVAL_KEYS, TOP_KEYS
from tasktypes.answer_ranking.report import TAU, TAU_ANSWERS, order_text
from tasktypes.graded.report import report_measures


# The first characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell as a formula or a DDE
# command: OWASP's CSV Injection list.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A plain decimal number, as Python writes a float or an int ("-0.25", "1e-05", "+3"): it stays a number.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(value):
    """VALUE as a CSV cell that a spreadsheet shows as written: text beginning with =, +, -, @, a tab or a carriage
    return gets a leading single quote (OWASP CSV Injection), unless it is a plain number; numbers and other text as
    they are. A reader that wants the text back drops one leading quote from a cell that starts with "'" and one of
    those characters or another "'": so text that itself begins so (an id "'=1", "''") gets a quote too, and every
    name comes back exactly."""
    if isinstance(value, str) and ((value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value))
                                   or (value[:1] == "'" and value[1:2] in (*FORMULA_STARTS, "'"))):
        return "'" + value
    return value


class SpreadsheetCsv:
    """A CSV text built row by row, every cell (header included: judge names make column names) through
    spreadsheet_cell. The only CSV writer of the downloads: tests/test_csv_injection.py fails on another."""

    def __init__(self):
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n")

    def writerow(self, row) -> None:
        self._writer.writerow([spreadsheet_cell(cell) for cell in row])

    def text(self) -> str:
        return self._buffer.getvalue()


def _cell(value):
    return "" if value is None else value


def _bounds(interval) -> list:
    """A 95% interval [low, high] as two cells; empty cells when there is none."""
    return [_cell(interval[0]), _cell(interval[1])] if interval else ["", ""]


def _bound_columns(*names: str) -> list[str]:
    return [f"{name}_ci95_{end}" for name in names for end in ("low", "high")]


def items_csv(*, rows, human_label: dict[int, str], judges: list) -> str:
    """The items CSV: ROWS of (item id, topic, item, kind, category) (reports.selectors.item_rows_get), each with
    its human label (HUMAN_LABEL, the label the report uses: adjudicated, else the decided majority; empty where
    there is none) and, per judge of JUDGES (reports.selectors.JudgeLabels), its label and score as the judge
    gave them (empty where it gave none; a graded report may map scores to grades on top). Columns: topic, item,
    kind, category, human_label, then `<judge>_label` and `<judge>_score` per judge."""
    out = SpreadsheetCsv()
    out.writerow(["topic", "item", "kind", "category", "human_label"]
                 + [f"{judge.name}_{what}" for judge in judges for what in ("label", "score")])
    for pk, topic, external_id, kind, category in rows:
        out.writerow([topic, external_id, kind, category, human_label.get(pk, "")]
                     + [cell for judge in judges for cell in (judge.labels.get(pk, ""), _cell(judge.scores.get(pk)))])
    return out.text()


def systems_csv(*, report: dict) -> str:
    """Rows: systems; columns: system, n, human, then one accuracy column per judge (on the outputs compared with the
    humans), then per judge its accuracy over every output it decided, how many, and its mean score where it scores.

    For ais, after human: its bootstrap standard error (human_se), all outputs and tied outputs.
    """
    if report["layout"] == LAYOUT_GRADES:
        return runs_csv(report=report)
    judges = list(report["judges"])
    ais = report["layout"] == LAYOUT_ATTRIBUTION
    extra = ["human_se", "outputs", "ties", "open"] if ais else []
    writer = SpreadsheetCsv()
    every = [f"{name}_{suffix}" for name in judges for suffix in ("all", "all_n", "mean_score")]
    writer.writerow(["system", "n", "human", *extra, *judges, *every])
    for row in report["systems"]:
        cells = [row.get("judges_all", {}).get(name, {}) for name in judges]
        writer.writerow(
            [row["system"], row["n"], _cell(row["human"]), *(_cell(row[key]) for key in extra),
             *(_cell(row["judges"].get(name)) for name in judges),
             *(value for cell in cells for value in (_cell(cell.get("accuracy")), cell.get("n", 0),
                                                    _cell(cell.get("mean_score"))))]
        )
    return writer.text()


JUDGE_COLUMNS = [
    "judge", "family", "n", "cohen_kappa", "accuracy", "failed",
    "n_systems", "kendall_tau_b", "spearman", "pearson",
    # Intervals after the statistics (the report's ci_method says how they were made), then the systems left out.
    *_bound_columns("cohen_kappa", "accuracy", "kendall_tau_b", "spearman", "pearson"), "systems_left_out",
    # The same system order with each side over every output it decided, and by the judge's mean score.
    *(f"{way}_{key}" for way in ("all", "mean_score")
      for key in ("n_systems", "kendall_tau_b", "spearman", "pearson")),
    *_bound_columns(*(f"{way}_{key}" for way in ("all", "mean_score") for key in ("kendall_tau_b", "spearman",
                                                                                   "pearson"))),
    # Agreement at the top of the headline system order (stats.rank_agreement), its swaps, then its intervals.
    *TOP_KEYS, "n_at_k", "n_pairs", "n_swaps", *_bound_columns(*TOP_INTERVAL_KEYS),
]
SYSTEM_ORDERS = (("all", "system_all"), ("mean_score", "system_mean_score"))


def judges_csv(*, report: dict) -> str:
    """Rows: judges; columns: item-level n, kappa, accuracy, failed; system-level tau-b, Spearman, Pearson.

    For answer_ranking: the mean per-topic tau-b of each judge and dimension, with its CI (see ranking_judges_csv).
    """
    if report["layout"] == LAYOUT_RANKING:
        return ranking_judges_csv(report=report)
    if report["layout"] == LAYOUT_GRADES:
        return graded_judges_csv(report=report)
    writer = SpreadsheetCsv()
    writer.writerow(JUDGE_COLUMNS)
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        writer.writerow(
            [
                name, block.get("family", ""), item["n"], _cell(item["cohen_kappa"]), _cell(item["accuracy"]),
                item.get("failed", 0), system["n_systems"], _cell(system["kendall_tau_b"]),
                _cell(system["spearman"]), _cell(system["pearson"]),
                *_bounds(item.get("cohen_kappa_ci95")), *_bounds(item.get("accuracy_ci95")),
                *(cell for key in ("kendall_tau_b", "spearman", "pearson") for cell in _bounds(system.get(f"{key}_ci95"))),
                "; ".join(f"{row['system']}: {row['reason']}" for row in system.get("excluded", [])),
                *_order_cells([block.get(key) for _, key in SYSTEM_ORDERS]),
                *(_cell(system.get(key)) for key in TOP_KEYS), system.get("n_at_k", ""), system.get("n_pairs", ""),
                system.get("n_swaps", ""),
                *(cell for key in TOP_INTERVAL_KEYS for cell in _bounds(system.get(f"{key}_ci95"))),
            ]
        )
    return writer.text()


def _order_cells(orders: list[dict | None]) -> list:
    """The judges CSV's cells of the further system orders: the figures of each, then their bounds; empty if none."""
    keys = ("kendall_tau_b", "spearman", "pearson")
    figures = [cell for order in orders for cell in ([order["n_systems"], *(_cell(order[key]) for key in keys)]
                                                     if order else ["", "", "", ""])]
    bounds = [cell for order in orders for key in keys for cell in _bounds((order or {}).get(f"{key}_ci95"))]
    return figures + bounds


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
    return [_cell(summary["mean"]), _cell(ci[0]), _cell(ci[1]), summary["n"]]


def ranking_judges_csv(*, report: dict) -> str:
    """answer_ranking rows: one per (judge, dimension); the topic mean tau-b with its 95% CI, all and answers only."""
    writer = SpreadsheetCsv()
    writer.writerow(RANKING_JUDGE_COLUMNS)
    for name, block in report["judges"].items():
        for dimension, means in block["topic_mean_by_dimension"].items():
            writer.writerow(
                [name, block["family"], dimension, block["item"]["n"], block["item"]["failed"],
                 *_mean_cells(means[TAU]), *_mean_cells(means[TAU_ANSWERS]),
                 *_bounds(means[TAU].get("bootstrap_ci95")), *_bounds(means[TAU_ANSWERS].get("bootstrap_ci95")),
                 *(cell for key in TOP_KEYS for cell in (_cell(means[key]["mean"]),
                                                         *_bounds(means[key].get("bootstrap_ci95")), means[key]["n"]))]
            )
    return writer.text()


TOPIC_COLUMNS = [
    "judge", "topic", "dimension", "n", "n_answers", "kendall_tau_b", "kendall_tau_b_answers_only",
    "reference", "human_order", "judge_order", "note", *TOP_KEYS, "n_at_k",
]


def topics_csv(*, report: dict) -> str:
    """One row per judge, topic and dimension: n, tau-b (all candidates, answers only) and both orders.

    Orders are one cell each, best first, "a > b = c" (ties, equal scores for the judge, joined by "="), candidates by their external
    id without the "<qid>/" prefix. When the reference is the mean over several annotators, human_order
    holds each annotator's order as "name: order" joined by " | ". Header only for task types without
    per-topic statistics.
    """
    if report.get("layout") == LAYOUT_GRADES:
        return _grade_topics_csv(report=report)
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
                [name, topic, row["dimension"], row["n"], row.get("n_answers", ""), _cell(row[TAU]),
                 _cell(row[TAU_ANSWERS]), _cell(row.get("reference")), human,
                 order_text(row.get("judge_groups"), topic), row.get("note", ""),
                 *(_cell(row.get(key)) for key in TOP_KEYS), row.get("n_at_k", "")]
            )
    return writer.text()


# The item-level statistics of a graded report, overall (with intervals) and per topic.
GRADE_STATISTICS = ("cohen_kappa", "cohen_kappa_linear", "accuracy", "cohen_kappa_binary", "cohen_kappa_quadratic",
                    *(f"krippendorff_alpha_{level}" for level in ALPHA_LEVELS))
GRADE_TOPIC_COLUMNS = ["judge", "topic", "n", *GRADE_STATISTICS]


def _grade_topics_csv(*, report: dict) -> str:
    """Graded relevance: one row per judge and topic, the judge's grades against the assessors' on that topic."""
    writer = SpreadsheetCsv()
    writer.writerow(GRADE_TOPIC_COLUMNS)
    for name, block in report["judges"].items():
        for row in block.get("per_topic", []):
            writer.writerow([name, row["topic"], row["n"], *(_cell(row[key]) for key in GRADE_STATISTICS)])
    return writer.text()


def _run_measures(report: dict) -> list[str]:
    """The keys of the measures a graded report scored its runs with (ndcg_cut_10, map, p_10, then the track's:
    ndcg_cut_20, ndcg_cut_100, recall_100, recall_1000, judged_10, compat), in its order."""
    return [measure["key"] for measure in report_measures(report)]


def runs_csv(*, report: dict) -> str:
    """Graded relevance: rows are runs; columns: run, tags, each measure under the human qrels, then each judge's."""
    judges = list(report["judges"])
    measures = _run_measures(report)
    writer = SpreadsheetCsv()
    writer.writerow(["system", "tags", *(f"human_{m}" for m in measures),
                     *(f"{name}_{m}" for name in judges for m in measures)])
    for row in report["systems"]:
        writer.writerow([row["system"], " ".join(row["tags"]), *(_cell(row["human"].get(m)) for m in measures),
                         *(_cell(row["judges"].get(name, {}).get(m)) for name in judges for m in measures)])
    return writer.text()


ITEM_STATISTICS = ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic", "cohen_kappa_binary",
                   *(f"krippendorff_alpha_{level}" for level in ALPHA_LEVELS), "accuracy")
RUN_ORDER_STATISTICS = ("kendall_tau_b", "spearman", "pearson")


def graded_judges_csv(*, report: dict) -> str:
    """Graded relevance: rows are judges; the item-level statistics and, per measure, the run-order correlations,
    the pairs of runs compared and swapped, and Relative Δ of the bias tag; then every interval."""
    measures = _run_measures(report)
    writer = SpreadsheetCsv()
    writer.writerow(["judge", "family", "mapping", "n", *ITEM_STATISTICS, "failed",
                     "n_systems", *(f"{m}_{stat}" for m in measures
                                    for stat in (*RUN_ORDER_STATISTICS, "n_pairs", "n_swaps", "relative_delta")),
                     *_bound_columns(*ITEM_STATISTICS),
                     *_bound_columns(*(f"{m}_{stat}" for m in measures for stat in RUN_ORDER_STATISTICS)),
                     # Agreement at the top of each measure's run order (stats.rank_agreement), then intervals.
                     *(f"{m}_{key}" for m in measures for key in (*TOP_KEYS, "n_at_k")),
                     *_bound_columns(*(f"{m}_{key}" for m in measures for key in TOP_INTERVAL_KEYS))])
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        delta = system.get("relative_delta") or {}
        writer.writerow([name, block["family"], block["mapping"]["rule"], item["n"],
                         *(_cell(item[key]) for key in ITEM_STATISTICS), item["failed"], system["n_systems"],
                         *(_cell(value) for m in measures for value in (
                             *(system[m][stat] for stat in RUN_ORDER_STATISTICS), system[m]["n_pairs"],
                             system[m]["n_swaps"], delta.get(m))),
                         *(cell for key in ITEM_STATISTICS for cell in _bounds(item.get(f"{key}_ci95"))),
                         *(cell for m in measures for key in RUN_ORDER_STATISTICS
                           for cell in _bounds(system[m].get(f"{key}_ci95"))),
                         *(_cell(system[m].get(key)) if key != "n_at_k" else system[m].get("n_at_k", "")
                           for m in measures for key in (*TOP_KEYS, "n_at_k")),
                         *(cell for m in measures for key in TOP_INTERVAL_KEYS
                           for cell in _bounds(system[m].get(f"{key}_ci95")))])
    return writer.text()
