"""The tables of a graded relevance report as CSV (its report presentation, tasktypes.graded.presentation): the runs
under each source's qrels (the systems table), the judges' item and run-order statistics, and the judges' grades
topic by topic."""

from __future__ import annotations

from reports.tables import SpreadsheetCsv, interval_cells, interval_columns, value_cell
from stats.interrater import ALPHA_LEVELS
from stats.rank_agreement import TOP_INTERVAL_KEYS, TOP_KEYS
from tasktypes.graded.report import report_measures

# The item-level statistics of a graded report, overall (with intervals) and per topic.
GRADE_STATISTICS = ("cohen_kappa", "cohen_kappa_linear", "accuracy", "cohen_kappa_binary", "cohen_kappa_quadratic",
                    *(f"krippendorff_alpha_{level}" for level in ALPHA_LEVELS))


GRADE_TOPIC_COLUMNS = ["judge", "topic", "n", *GRADE_STATISTICS]


def topics_csv(*, report: dict) -> str:
    """Graded relevance: one row per judge and topic, the judge's grades against the assessors' on that topic."""
    writer = SpreadsheetCsv()
    writer.writerow(GRADE_TOPIC_COLUMNS)
    for name, block in report["judges"].items():
        for row in block.get("per_topic", []):
            writer.writerow([name, row["topic"], row["n"], *(value_cell(row[key]) for key in GRADE_STATISTICS)])
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
        writer.writerow([row["system"], " ".join(row["tags"]), *(value_cell(row["human"].get(m)) for m in measures),
                         *(value_cell(row["judges"].get(name, {}).get(m)) for name in judges for m in measures)])
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
                     *interval_columns(*ITEM_STATISTICS),
                     *interval_columns(*(f"{m}_{stat}" for m in measures for stat in RUN_ORDER_STATISTICS)),
                     # Agreement at the top of each measure's run order (stats.rank_agreement), then intervals.
                     *(f"{m}_{key}" for m in measures for key in (*TOP_KEYS, "n_at_k")),
                     *interval_columns(*(f"{m}_{key}" for m in measures for key in TOP_INTERVAL_KEYS))])
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        delta = system.get("relative_delta") or {}
        writer.writerow([name, block["family"], block["mapping"]["rule"], item["n"],
                         *(value_cell(item[key]) for key in ITEM_STATISTICS), item["failed"], system["n_systems"],
                         *(value_cell(value) for m in measures for value in (
                             *(system[m][stat] for stat in RUN_ORDER_STATISTICS), system[m]["n_pairs"],
                             system[m]["n_swaps"], delta.get(m))),
                         *(cell for key in ITEM_STATISTICS for cell in interval_cells(item.get(f"{key}_ci95"))),
                         *(cell for m in measures for key in RUN_ORDER_STATISTICS
                           for cell in interval_cells(system[m].get(f"{key}_ci95"))),
                         *(value_cell(system[m].get(key)) if key != "n_at_k" else system[m].get("n_at_k", "")
                           for m in measures for key in (*TOP_KEYS, "n_at_k")),
                         *(cell for m in measures for key in TOP_INTERVAL_KEYS
                           for cell in interval_cells(system[m].get(f"{key}_ci95")))])
    return writer.text()
