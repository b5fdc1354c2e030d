"""How a graded relevance report is shown (reports.presentation): the runs under the human qrels and each judge's,
the track's measures, the run orders, imported leaderboards, the judges' grades (templates/graded/); its tables
(tasktypes.graded.tables) and its plots (tasktypes.graded.plots); the qrels it serves beside the document are
tasktypes.graded.downloads'."""

from collections.abc import Callable

from reports.presentation import ReportPresentation


def _run_orders(system: dict, measures: list[dict]) -> list[dict]:
    """A judge's system block as one row per measure, with the measure's name and its Relative Δ."""
    delta = system.get("relative_delta") or {}
    return [{**system[m["key"]], "key": m["key"], "label": m["label"], "relative_delta": delta.get(m["key"]),
             "relative_delta_ci95": delta.get(f"{m['key']}_ci95")} for m in measures if m["key"] in system]


def _track_tables(report: dict, measures: list[dict], judge_names: list[str]) -> list[dict]:
    """The track measures, one table each: every run's mean under the humans' qrels and each judge's, with its n
    (topics) and interval."""
    from tasktypes.graded.report import TRACK

    def cells(row: dict, key: str) -> list[dict | None]:
        means = row.get("means") or {}
        return [(means.get("human") or {}).get(key),
                *(((means.get("judges") or {}).get(name) or {}).get(key) for name in judge_names)]

    return [{**m, "rows": [{"system": row["system"], "cells": cells(row, m["key"])} for row in report["systems"]]}
            for m in measures if m["group"] == TRACK]


def _leaderboard_order(name: str, block: dict, systems: list[dict], measures: list[dict]) -> dict:
    """An imported leaderboard's block for the page: its run orders per measure it has, and each run's figures under
    its first three measures (the JSON has them all) beside the humans'."""
    own = [m for m in measures if m["key"] in block["measures"]]
    shown = own[:3]
    return {"name": name, "runs_not_in_report": block["runs_not_in_report"],
            "measures": _run_orders(block["system"], own), "shown": shown,
            "rows": [{"system": row["system"],
                      "cells": [(row["human"].get(m["key"]), (block["values"].get(row["system"]) or {}).get(m["key"]))
                                for m in shown]}
                     for row in systems]}


class GradedPresentation(ReportPresentation):
    body_template = "graded/report_body.html"

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        from tasktypes.graded.report import MAIN, report_measures

        measures = report_measures(report)
        main = [m for m in measures if m["group"] == MAIN]
        return {
            # Each run's main measures (the studies' three), under the humans and then judge by judge; the track's
            # measures in a table each; the run orders under every measure.
            "run_measures": main,
            "run_rows": [
                {**row, "human_values": [row["human"].get(m["key"]) for m in main],
                 # With, for a judge read on one part of a development split, the run under the human qrels of
                 # that part: what its figure is compared with (None for a judge read on every item).
                 "judge_values": [{"value": (row["judges"].get(name) or {}).get(m["key"]),
                                   "human": ((row.get("human_by_judge") or {}).get(name) or {}).get(m["key"])}
                                  for name in judge_names for m in main]}
                for row in report["systems"]
            ],
            "track_tables": _track_tables(report, measures, judge_names),
            "run_orders": [{"name": name, "measures": _run_orders(block["system"], measures)}
                           for name, block in report["judges"].items()],
            # Imported leaderboards (format trec-leaderboard) against the human one, and each run's figures on both.
            "leaderboard_orders": [_leaderboard_order(name, block, report["systems"], measures)
                                   for name, block in (report.get("leaderboards") or {}).items()],
            "cdf_svg": plots.get("cdf"),
            "confusion_svg": plots.get("confusion"),
        }

    def text(self, report: dict) -> str:
        """The report as aligned plain text (manage.py agreement_report, the methods section): the assessors, each
        judge's grades against theirs, and the runs' order under each judge by the main measures."""
        from reports.presentation import three_decimals
        from tasktypes.graded.report import MAIN, report_measures

        humans = report["humans"]
        main = [m for m in report_measures(report) if m["group"] == MAIN]
        lines = [f"Agreement report: {report['campaign']} ({report['task_type']})", "",
                 f"Assessors: {humans['annotators']} annotator{'' if humans['annotators'] == 1 else 's'}, "
                 f"{humans['items_labelled']} {report['item_noun']}s "
                 f"with a human grade; Fleiss' kappa {three_decimals(humans['fleiss_kappa'])} over "
                 f"{humans['fleiss_items']} items; Krippendorff's alpha {three_decimals(humans['krippendorff_alpha'])}",
                 "", f"Judges ({report['item_noun']} grades against the human grade, relevant from "
                 f"{report['relevant_from']}):"]
        if not report["judges"]:
            lines.append("  none")
        for name, block in report["judges"].items():
            item = block["item"]
            lines.append(f"  {name}: n = {item['n']}, kappa {three_decimals(item['cohen_kappa'])}, quadratic "
                         f"{three_decimals(item['cohen_kappa_quadratic'])}, relevant or not "
                         f"{three_decimals(item['cohen_kappa_binary'])}, agreement {three_decimals(item['accuracy'])}")
            for measure in main:
                order = block["system"].get(measure["key"]) or {}
                lines.append(f"    runs by {measure['label']} (n = {order.get('n', 0)} runs): tau-b "
                             f"{three_decimals(order.get('kendall_tau_b'))}, "
                             f"rho {three_decimals(order.get('spearman'))}")
        if report["systems"]:
            lines += ["", "Runs (" + ", ".join(m["label"] for m in main) + "; under the humans, then each judge):"]
            for row in report["systems"]:
                cells = [three_decimals(row["human"].get(m["key"])) for m in main]
                for name in report["judges"]:
                    cells += [three_decimals((row["judges"].get(name) or {}).get(m["key"])) for m in main]
                lines.append(f"  {row['system']}: " + " ".join(cells))
        return "\n".join(lines)

    def plots(self, report: dict) -> dict[str, Callable]:
        from tasktypes.graded.plots import confusion_plot, runs_scatter_plot, scores_cdf_plot

        return {"runs": runs_scatter_plot, "cdf": scores_cdf_plot, "confusion": confusion_plot}

    def systems_csv(self, report: dict) -> str:
        from tasktypes.graded.tables import runs_csv

        return runs_csv(report=report)

    def judges_csv(self, report: dict) -> str:
        from tasktypes.graded.tables import graded_judges_csv

        return graded_judges_csv(report=report)

    def topics_csv(self, report: dict) -> str:
        from tasktypes.graded.tables import topics_csv

        return topics_csv(report=report)
