"""The report's tables as CSV: one file for the systems table, one for the judges table.

Two files rather than one with a section column, because the two tables have different columns
and each file should open as a plain table in a spreadsheet or pandas. Numbers unrounded; an
undefined statistic is an empty cell.
"""

from __future__ import annotations

import csv
import io


def _cell(value):
    return "" if value is None else value


def systems_csv(*, report: dict) -> str:
    """Rows: systems; columns: system, n, human, then one accuracy column per judge."""
    judges = list(report["judges"])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["system", "n", "human", *judges])
    for row in report["systems"]:
        writer.writerow(
            [row["system"], row["n"], _cell(row["human"]), *(_cell(row["judges"].get(name)) for name in judges)]
        )
    return buffer.getvalue()


JUDGE_COLUMNS = [
    "judge", "family", "n", "cohen_kappa", "accuracy", "failed",
    "n_systems", "kendall_tau_b", "spearman", "pearson",
]


def judges_csv(*, report: dict) -> str:
    """Rows: judges; columns: item-level n, kappa, accuracy, failed; system-level tau-b, Spearman, Pearson."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(JUDGE_COLUMNS)
    for name, block in report["judges"].items():
        item, system = block["item"], block["system"]
        writer.writerow(
            [
                name, block.get("family", ""), item["n"], _cell(item["cohen_kappa"]), _cell(item["accuracy"]),
                item.get("failed", 0), system["n_systems"], _cell(system["kendall_tau_b"]),
                _cell(system["spearman"]), _cell(system["pearson"]),
            ]
        )
    return buffer.getvalue()
