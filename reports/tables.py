"""The report's tables as CSV, the kit every task type's tables use: the one CSV writer (SpreadsheetCsv), its cell
helpers, the items CSV (one row per item with its category, its human label and every judge's verdict), and the
systems, judges and topics tables of a verdict report (qa_correctness, ais), which a task type's report presentation
(reports.presentation) keeps or replaces with its own (tasktypes/<name>/tables.py).

One file per table rather than one with a section column, because the tables have different columns and each file
should open as a plain table in a spreadsheet or pandas. Numbers unrounded; an undefined statistic is an empty cell.

Every cell goes through spreadsheet_cell (by way of SpreadsheetCsv, the one writer): text a spreadsheet would run
as a formula is neutralised as the OWASP CSV Injection page recommends, since system, judge, topic and annotator names
are whatever an import or a researcher gave them.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata

from stats.rank_agreement import TOP_INTERVAL_KEYS, TOP_KEYS

# The first characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell as a formula or a DDE
# command: OWASP's CSV Injection list.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# What a spreadsheet passes over before it decides that a cell is a formula: leading spaces (a no-break space too),
# line feeds and invisible characters (zero-width space, joiners, word joiner, byte order mark). It also reads the
# full-width forms of = + - @ (which Unicode's NFKC folds to them) as the ASCII ones.
_SKIPPED = " \n\u00a0\u200b\u200c\u200d\u2060\ufeff"

# A plain decimal number, as Python writes a float or an int ("-0.25", "1e-05", "+3"): it stays a number.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _formula_like(text: str) -> bool:
    """Whether a spreadsheet could read TEXT as a formula: past what it skips, a formula's first character (or its
    full-width form), unless the text is a plain ASCII number."""
    head = text.lstrip(_SKIPPED)
    return unicodedata.normalize("NFKC", head[:1])[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(head)


def spreadsheet_cell(value):
    """VALUE as a CSV cell that a spreadsheet shows as written: text that could be a formula (_formula_like: =, +, -,
    @, a tab or a carriage return first, after any leading spaces, line feeds or invisible characters, in ASCII or
    full-width) gets a leading single quote (OWASP CSV Injection), unless it is a plain number; numbers and other
    text as they are. spreadsheet_text reads a cell back: it drops one leading quote from a cell whose rest could be
    a formula or starts with another "'", so text that itself begins so (an id "'=1", "''") gets a quote too, and
    every name comes back exactly."""
    if isinstance(value, str) and (_formula_like(value)
                                   or (value[:1] == "'" and (value[1:2] == "'" or _formula_like(value[1:])))):
        return "'" + value
    return value


def spreadsheet_text(cell: str) -> str:
    """The text a CSV cell written by spreadsheet_cell stands for: its escaping quote dropped."""
    if cell[:1] == "'" and (cell[1:2] == "'" or _formula_like(cell[1:])):
        return cell[1:]
    return cell


class SpreadsheetCsv:
    """A CSV text built row by row, every cell (header included: judge names make column names) through
    spreadsheet_cell. The only CSV writer of the downloads: tests/agreement/test_csv_injection.py fails on another."""

    def __init__(self):
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n")

    def writerow(self, row) -> None:
        self._writer.writerow([spreadsheet_cell(cell) for cell in row])

    def text(self) -> str:
        return self._buffer.getvalue()


def value_cell(value):
    return "" if value is None else value


def interval_cells(interval) -> list:
    """A 95% interval [low, high] as two cells; empty cells when there is none."""
    return [value_cell(interval[0]), value_cell(interval[1])] if interval else ["", ""]


def interval_columns(*names: str) -> list[str]:
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
        out.writerow(
            [topic, external_id, kind, category, human_label.get(pk, "")]
            + [cell for judge in judges for cell in (judge.labels.get(pk, ""), value_cell(judge.scores.get(pk)))]
        )
    return out.text()


def systems_csv(*, report: dict, extra: tuple[str, ...] = ()) -> str:
    """Rows: systems; columns: system, n, human, then one accuracy column per judge (on the outputs compared with the
    humans), then per judge its accuracy over every output it decided, how many, and its mean score where it scores.

    EXTRA: the further columns of the systems' rows to write after human (ais: its bootstrap standard error, all
    outputs, tied and open outputs).
    """
    judges = list(report["judges"])
    writer = SpreadsheetCsv()
    every = [f"{name}_{suffix}" for name in judges for suffix in ("all", "all_n", "mean_score")]
    writer.writerow(["system", "n", "human", *extra, *judges, *every])
    for row in report["systems"]:
        cells = [row.get("judges_all", {}).get(name, {}) for name in judges]
        writer.writerow(
            [row["system"], row["n"], value_cell(row["human"]), *(value_cell(row[key]) for key in extra),
             *(value_cell(row["judges"].get(name)) for name in judges),
             *(value for cell in cells for value in (value_cell(cell.get("accuracy")), cell.get("n", 0),
                                                    value_cell(cell.get("mean_score"))))]
        )
    return writer.text()


JUDGE_COLUMNS = [
    "judge", "family", "n", "cohen_kappa", "accuracy", "failed",
    "n_systems", "kendall_tau_b", "spearman", "pearson",
    # Intervals after the statistics (the report's ci_method says how they were made), then the systems left out.
    *interval_columns("cohen_kappa", "accuracy", "kendall_tau_b", "spearman", "pearson"), "systems_left_out",
    # The same system order with each side over every output it decided, and by the judge's mean score.
    *(f"{way}_{key}" for way in ("all", "mean_score")
      for key in ("n_systems", "kendall_tau_b", "spearman", "pearson")),
    *interval_columns(*(f"{way}_{key}" for way in ("all", "mean_score") for key in ("kendall_tau_b", "spearman",
                                                                                   "pearson"))),
    # Agreement at the top of the headline system order (stats.rank_agreement), its swaps, then its intervals.
    *TOP_KEYS, "n_at_k", "n_pairs", "n_swaps", *interval_columns(*TOP_INTERVAL_KEYS),
]


SYSTEM_ORDERS = (("all", "system_all"), ("mean_score", "system_mean_score"))


def judges_csv(*, report: dict) -> str:
    """Rows: judges; columns: item-level n, kappa, accuracy, failed; system-level tau-b, Spearman, Pearson."""
    writer = SpreadsheetCsv()
    writer.writerow(JUDGE_COLUMNS)
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        writer.writerow(
            [
                name,
                block.get("family", ""),
                item["n"],
                value_cell(item["cohen_kappa"]),
                value_cell(item["accuracy"]),
                item.get("failed", 0),
                system["n_systems"],
                value_cell(system["kendall_tau_b"]),
                value_cell(system["spearman"]),
                value_cell(system["pearson"]),
                *interval_cells(item.get("cohen_kappa_ci95")),
                *interval_cells(item.get("accuracy_ci95")),
                *(
                    cell
                    for key in ("kendall_tau_b", "spearman", "pearson")
                    for cell in interval_cells(system.get(f"{key}_ci95"))
                ),
                "; ".join(f"{row['system']}: {row['reason']}" for row in system.get("excluded", [])),
                *_order_cells([block.get(key) for _, key in SYSTEM_ORDERS]),
                *(value_cell(system.get(key)) for key in TOP_KEYS),
                system.get("n_at_k", ""),
                system.get("n_pairs", ""),
                system.get("n_swaps", ""),
                *(cell for key in TOP_INTERVAL_KEYS for cell in interval_cells(system.get(f"{key}_ci95"))),
            ]
        )
    return writer.text()


def _order_cells(orders: list[dict | None]) -> list:
    """The judges CSV's cells of the further system orders: the figures of each, then their bounds; empty if none."""
    keys = ("kendall_tau_b", "spearman", "pearson")
    figures = [cell for order in orders for cell in ([order["n_systems"], *(value_cell(order[key]) for key in keys)]
                                                     if order else ["", "", "", ""])]
    bounds = [cell for order in orders for key in keys for cell in interval_cells((order or {}).get(f"{key}_ci95"))]
    return figures + bounds


# The topics table's columns (a ranking report's: tasktypes.answer_ranking.tables); a report without per-topic
# statistics
# has this header and no rows.
TOPIC_COLUMNS = [
    "judge", "topic", "dimension", "n", "n_answers", "kendall_tau_b", "kendall_tau_b_answers_only",
    "reference", "human_order", "judge_order", "note", *TOP_KEYS, "n_at_k",
]


def topics_header_csv(*, report: dict) -> str:
    """The topics table of a report without per-topic statistics: its header alone."""
    writer = SpreadsheetCsv()
    writer.writerow(TOPIC_COLUMNS)
    return writer.text()
