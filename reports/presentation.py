"""How a report document is shown, asked of its task type (TaskTypeSpec.report_presentation): the page's body and
what it needs beside the document, the CSV tables, the plots and the plain text of the command. The agreement app
(the page shell, the downloads, the plots' serving, the command) calls these and never looks at the document's
layout itself.

ReportPresentation is the default, and VerdictPresentation that of a verdict report (reports.verdicts: qa_correctness,
ais). A task type whose report has its own shape has its own subclass in its package
(tasktypes/<name>/presentation.py), with its templates beside it.
"""

from __future__ import annotations

from collections.abc import Callable

# What the page calls the further system orders of a verdict report's judges (reports.verdicts).
SYSTEM_ORDER_WORDS = (
    ("system", "each system on the outputs both sides decided"),
    ("system_all", "each side over every output it decided"),
    ("system_mean_score", "the judge's mean score over every output it scored"),
)


def three_decimals(value) -> str:
    return "—" if value is None else f"{value:.3f}"


# How the page names the part of a development split a judge is read on (reports.verdicts._judge_block "part"; looked
# up with None too, for a judge read on no part).
PART_WORDS: dict[str | None, str] = {"development": "development", "held_out": "held-out"}


def partial_coverage(coverage):
    """[compared, of] where some were left out, else None."""
    return coverage if coverage and coverage[0] < coverage[1] else None


class ReportPresentation:
    """A report shape's page, tables, plots and text. The defaults show what every report has."""

    # The template of the page's body, between the downloads and the blocks every report has (arms, adjudication,
    # categories, budget), and the rows of the adjudication block's table.
    body_template = "agreement/_verdicts.html"
    adjudication_template = "agreement/_adjudication_items.html"
    # What the report's units are, in the adjudication block's words.
    unit_noun = "units"
    # The tables the page offers for download before the judges table (agreement's systems.csv or topics.csv; the
    # judges and items CSVs and the JSON document are offered for every report, and every table can be downloaded).
    page_tables: tuple[str, ...] = ("systems",)

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        """What the body template needs beside REPORT (JUDGE_NAMES its judges in order, PLOTS the drawn plots' SVG
        by name)."""
        return {}

    def plots(self, report: dict) -> dict[str, Callable]:
        """The plots of REPORT's page, in page order, the main one first: name -> function(report=) -> Plot or None.
        The agreement app adds the labelling budget's, which every report has."""
        return {}

    def systems_csv(self, report: dict) -> str:
        from reports.tables import systems_csv

        return systems_csv(report=report)

    def judges_csv(self, report: dict) -> str:
        from reports.tables import judges_csv

        return judges_csv(report=report)

    def topics_csv(self, report: dict) -> str:
        from reports.tables import topics_header_csv

        return topics_header_csv(report=report)

    def text(self, report: dict) -> str:
        """The report as aligned plain text (manage.py agreement_report), three decimals, "—" where a statistic is
        undefined: the humans, each judge at the item and system level, and the systems' accuracy."""
        humans = report["humans"]
        lines = [
            f"Agreement report: {report['campaign']} ({report['task_type']})",
            "",
            f"Humans: {humans['annotators']} annotators, {humans['items_labelled']} items with a human label "
            f"({humans['adjudicated']} adjudicated, {humans['ties']} ties, {humans.get('items_open', 0)} still open)",
            f"  Fleiss' kappa {three_decimals(humans['fleiss_kappa'])} over {humans['fleiss_items']} items; "
            f"Krippendorff's alpha {three_decimals(humans['krippendorff_alpha'])}",
        ]
        for pair in humans["pairwise_cohen_kappa"]:
            lines.append(
                f"  Cohen's kappa {pair['a']} vs {pair['b']}: {three_decimals(pair['kappa'])} (n = {pair['n']})"
            )
        lines += ["", "Judges (item level vs the human label; system level vs human accuracies):"]
        if not report["judges"]:
            lines.append("  none")
        width = max([len(name) for name in report["judges"]] + [5])
        if report["judges"]:
            lines.append(f"  {'judge':<{width}}  {'n':>6}  {'kappa':>6}  {'agree':>6}  {'failed':>6}  {'tau-b':>6}  "
                         f"{'rho':>6}  {'r':>6}")
        for name, block in report["judges"].items():
            item, system = block["item"], block["system"]
            lines.append(
                f"  {name:<{width}}  {item['n']:>6}  {three_decimals(item['cohen_kappa']):>6}  "
                f"{three_decimals(item['accuracy']):>6}  "
                f"{item.get('failed', 0):>6}  {three_decimals(system['kendall_tau_b']):>6}  "
                f"{three_decimals(system['spearman']):>6}  "
                f"{three_decimals(system['pearson']):>6}"
            )
        for name, block in report["judges"].items():
            for key, words in (("system_all", "each side over every output it decided"),
                               ("system_mean_score", "by the judge's mean score")):
                order = block.get(key)
                if order and order is not block["system"]:
                    lines.append(f"  {name:<{width}}  systems {words}: tau-b {three_decimals(order['kendall_tau_b'])}, "
                                 f"rho {three_decimals(order['spearman'])}, r {three_decimals(order['pearson'])} "
                                 f"({order['n_systems']} systems)")
        if report["systems"]:
            names = list(report["judges"])
            swidth = max(len(row["system"]) for row in report["systems"])
            counting = report.get("counting")
            rule = f" (counting rule {counting['rule']}: {counting['description']})" if counting else ""
            lines += ["", f"System accuracy{rule}:",
                      "  " + "  ".join([f"{'system':<{swidth}}", f"{'n':>5}", f"{'human':>6}", *names])]
            for row in report["systems"]:
                cells = [f"{row['system']:<{swidth}}", f"{row['n']:>5}", f"{three_decimals(row['human']):>6}"]
                cells += [f"{three_decimals(row['judges'].get(name)):>{max(6, len(name))}}" for name in names]
                lines.append("  " + "  ".join(cells))
        return "\n".join(lines)


class VerdictPresentation(ReportPresentation):
    """A verdict report (reports.verdicts): systems by accuracy under the humans and each judge, the judges' system
    orders, the systems' accuracy scatter."""

    # What the systems scatter's axes call a system's score.
    measure = "accuracy"

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        return {
            "system_rows": [
                {**row, "judge_values": [row["judges"].get(name) for name in judge_names],
                 # Per judge: its accuracy and [outputs compared with the humans, outputs] where some were left out,
                 # and over every output it decided ("all"), with its mean score where it scores.
                 # A judge read on one part of a development split: that part's name, and the humans' accuracy on the
                 # same outputs, so that the two figures side by side are over the same outputs.
                 "judge_cells": [{"value": row["judges"].get(name),
                                  "cover": partial_coverage((row.get("coverage") or {}).get(name)),
                                  "all": (row.get("judges_all") or {}).get(name),
                                  "part": PART_WORDS.get((report["judges"].get(name) or {}).get("part")),
                                  "human": (row.get("human_by_judge") or {}).get(name)}
                                 for name in judge_names]}
                for row in report["systems"]
            ],
            # Each judge's system orders three ways (reports.verdicts._judge_block).
            "order_rows": [
                {"name": name, "orders": [(words, block.get(key)) for key, words in SYSTEM_ORDER_WORDS]}
                for name, block in report["judges"].items()
            ],
        }

    def plots(self, report: dict) -> dict[str, Callable]:
        from reports.plots import system_accuracy_plot

        return {"systems": lambda *, report: system_accuracy_plot(report=report, measure=self.measure)}
