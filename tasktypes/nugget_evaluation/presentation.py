"""How a nugget_evaluation report is shown: its body (templates/nugget_evaluation/report_body.html), its tables
(tables.py: runs as the systems table, agreement per topic as the topics table, the judges' run-level correlations as
the judges table, and every answer's scores), its plots (plots.py), its methods in words and its text."""

from __future__ import annotations

from collections.abc import Callable

from reports.presentation import ReportPresentation, three_decimals
from tasktypes.nugget_evaluation import tables
from tasktypes.nugget_evaluation.plots import SCORE_WORDS

HUMANS = "humans"
FROZEN = "frozen"

METHODS = (
    "Each answer is scored against its topic's frozen nugget list from the marks given to it: the share of the "
    "nuggets it supports (all, strict), of the vital nuggets it supports (vital, strict), the same two with partial "
    "support earning half a nugget (all, vital), and a weighted share in which a vital nugget weighs 1 and an okay "
    "one 0.5 (weighted). A vital score is undefined for a topic without vital nuggets, and a nugget left unmarked (a "
    "judge's failed one) is left out of the answer's score. The humans' mark of a nugget on an answer is the most "
    "frequent of its assessors' marks, the earliest judgment's among tied marks. A run's score is its answers' mean "
    "over topics. Its 95% interval resamples topics (1,000 percentile bootstrap draws, seed 0), since a run's answers "
    "on one topic share that topic's difficulty. Assignment agreement is Cohen's kappa over the nugget marks pooled "
    "over answers, once over the three marks and once over supported against the rest (partial counted as not "
    "supported, as the strict scores count it): between every two assessors who marked the same answer, and between "
    "each judge and the humans' mark. Its interval resamples the topic's answers within a topic and topics overall. "
    "Run-level agreement compares the runs' means under the humans and under a judge on the answers both marked "
    "(Kendall's tau-b, Spearman's rho, Pearson's r), each with an interval from the same bootstrap over topics in "
    "which every run's two means are recomputed; the pairs of runs the two order oppositely are listed; and per "
    "topic Kendall's tau-b between the runs' two scores there, summarised by its mean (with a bootstrap interval "
    "over topics), standard deviation and quartiles. A judge that marks the answers against a judge's nugget lists "
    "(its own, the fully automatic condition, or another judge's) is scored under those lists and compared with the "
    "humans in the same way (the combinations of whose nuggets and whose marks); its marks are not compared with the "
    "humans' nugget by nugget, since the nuggets differ. Two judges of one family that mark against different lists "
    "are compared with each other in the same way: how much the runs' order depends on whose nuggets are used. "
    "Creation compares each assessor's list with the list it was "
    "started from: kept, edited, added and removed nuggets, and the source's recovery, the share of the assessor's "
    "nuggets kept or edited from it as the assessor recorded (not string matching), pooled over lists, its interval "
    "resampling topics."
)


class NuggetPresentation(ReportPresentation):
    body_template = "nugget_evaluation/report_body.html"
    unit_noun = "answers"
    page_tables = ("systems", "topics")

    def plots(self, report: dict) -> dict[str, Callable]:
        from tasktypes.nugget_evaluation.plots import runs_plot, topic_tau_plot

        return {"runs": runs_plot, "topic-tau": topic_tau_plot}

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        score = report["headline"]
        sources = [HUMANS, *judge_names]
        return {
            "runs_svg": plots.get("runs"),
            "topic_tau_svg": plots.get("topic-tau"),
            "headline_words": SCORE_WORDS.get(score, score),
            "score_words": [SCORE_WORDS.get(name, name) for name in report["scores"]],
            "sources": sources,
            "run_rows": [{"run": row["run"], "cells": [row["sources"][source][score] for source in sources]}
                         for row in report["runs"]["rows"]],
            "agreement_rows": [
                {"who": "Assessors, pairs on the same answer", **self._variants(report["assessors"])},
                *({"who": f"{name} vs the humans", **self._variants(block["assignment"])}
                  for name, block in _frozen_judges(report).items())],
            "order_rows": [{"name": name, "family": block["family"], "order": block["runs"][score],
                            "summary": block["runs"][score]["per_topic"]["summary"],
                            "others": [(SCORE_WORDS.get(other, other), block["runs"][other])
                                       for other in report["scores"] if other != score]}
                           for name, block in report["judges"].items()],
            "topic_rows": self._topic_rows(report),
            "combination_rows": [{**row, "order": row["runs"][score],
                                  "others": [(SCORE_WORDS.get(other, other), row["runs"][other])
                                             for other in report["scores"] if other != score]}
                                 for row in report.get("combinations", {}).get("rows", [])],
            "sensitivity_rows": [{**row, "order": row["runs"][score]}
                                 for row in report.get("combinations", {}).get("sensitivity", [])],
            "frozen_sources": report.get("combinations", {}).get("frozen_sources", {}),
            "methods": METHODS,
        }

    @staticmethod
    def _variants(block: dict) -> dict:
        return {"three": block["three"], "binary": block["binary"]}

    @staticmethod
    def _topic_rows(report: dict) -> list[dict]:
        """Per topic: the assessors' kappa and each judge's against the humans (three marks), with n and interval."""
        by_rater = [{row["topic"]: row for row in report["assessors"]["three"]["per_topic"]},
                    *({row["topic"]: row for row in block["assignment"]["three"]["per_topic"]}
                      for block in _frozen_judges(report).values())]
        taus = [{row["topic"]: row for row in block["runs"][report["headline"]]["per_topic"]["rows"]}
                for block in report["judges"].values()]
        topics = sorted({topic for rows in by_rater for topic in rows})
        return [{"topic": topic, "cells": [rows.get(topic) for rows in by_rater],
                 "taus": [rows.get(topic) for rows in taus]} for topic in topics]

    def systems_csv(self, report: dict) -> str:
        return tables.runs_csv(report)

    def topics_csv(self, report: dict) -> str:
        return tables.topics_csv(report)

    def judges_csv(self, report: dict) -> str:
        return tables.judges_csv(report)

    def answers_csv(self, report: dict) -> str:
        return tables.answers_csv(report)

    def text(self, report: dict) -> str:
        score = report["headline"]
        lines = [f"Agreement report: {report['campaign']} ({report['task_type']})", "",
                 f"{report['n_topics']} topics, {report['n_runs']} runs, {report['n_answers']} answers, "
                 f"{report['n_nuggets']} nuggets; {report['humans']['annotators']} assessors marked "
                 f"{report['humans']['answers_marked']} answers", "", "Assignment agreement (Cohen's kappa):"]
        rows = [("assessors", report["assessors"]),
                *((f"{name} vs humans", block["assignment"]) for name, block in _frozen_judges(report).items())]
        for who, block in rows:
            for variant, words in (("three", "three marks"), ("binary", "supported or not")):
                figure = block[variant]
                lines.append(f"  {who}, {words}: {three_decimals(figure['cohen_kappa'])} "
                             f"{_interval(figure.get('cohen_kappa_ci95'))} (n = {figure['n']} marks, "
                             f"{figure['n_topics']} topics)")
        lines += ["", f"Runs by the {SCORE_WORDS.get(score, score)} score, judge vs humans:"]
        for name, block in report["judges"].items():
            order = block["runs"][score]
            summary = order["per_topic"]["summary"]
            lines.append(f"  {name}: Kendall tau-b {three_decimals(order['kendall_tau_b'])} "
                         f"{_interval(order.get('kendall_tau_b_ci95'))}, Spearman "
                         f"{three_decimals(order['spearman'])} {_interval(order.get('spearman_ci95'))}, Pearson "
                         f"{three_decimals(order['pearson'])} {_interval(order.get('pearson_ci95'))} "
                         f"(n = {order['n_systems']} runs, {order['n_topics']} topics); {order['n_swaps']} of "
                         f"{order['n_pairs']} pairs swap; per-topic tau mean {three_decimals(summary['mean'])} "
                         f"{_interval(summary.get('bootstrap_ci95'))}, sd {three_decimals(summary['sd'])} "
                         f"(n = {summary['n']} topics)")
        combinations = report.get("combinations") or {}
        if combinations.get("rows"):
            lines += ["", f"Humans' nuggets and marks vs each judge, {SCORE_WORDS.get(score, score)} run scores:"]
            for row in combinations["rows"]:
                lines.append(f"  {row['judge']} ({row['nuggets_words']}, its marks): " + _order_words(
                    row["runs"][score]))
        if combinations.get("sensitivity"):
            lines += ["", "Sensitivity to whose nuggets are used (one family's two judges):"]
            for row in combinations["sensitivity"]:
                lines.append(f"  {row['first']} ({row['first_nuggets']}) vs {row['second']} ({row['second_nuggets']}): "
                             + _order_words(row["runs"][score]))
        lines += ["", f"Runs ({SCORE_WORDS.get(score, score)}, mean over topics):"]
        for row in report["runs"]["rows"]:
            cells = ", ".join(f"{source} {three_decimals(row['sources'][source][score]['mean'])}"
                              for source in report["runs"]["sources"])
            lines.append(f"  {row['run']}: {cells}")
        creation = report["creation"]
        if creation["n_lists"]:
            lines += ["", f"Creation: {creation['n_lists']} lists"]
            for source, block in creation["sources"].items():
                lines.append(f"  recovery of {source}: {three_decimals(block['recovery'])} "
                             f"{_interval(block.get('recovery_ci95'))} (n = {block['n']} nuggets, "
                             f"{block['n_topics']} topics)")
        return "\n".join(lines)


def _frozen_judges(report: dict) -> dict:
    """The judges that mark against the frozen lists: only their marks compare with the humans' nugget by nugget."""
    return {name: block for name, block in report["judges"].items() if block.get("nuggets", FROZEN) == FROZEN}


def _order_words(order: dict) -> str:
    summary = order["per_topic"]
    return (f"Kendall tau-b {three_decimals(order['kendall_tau_b'])} {_interval(order.get('kendall_tau_b_ci95'))}, "
            f"Spearman {three_decimals(order['spearman'])} {_interval(order.get('spearman_ci95'))}, Pearson "
            f"{three_decimals(order['pearson'])} {_interval(order.get('pearson_ci95'))} (n = {order['n_systems']} "
            f"runs, {order['n_topics']} topics); {order['n_swaps']} of {order['n_pairs']} pairs swap; per-topic tau "
            f"mean {three_decimals(summary['mean'])}, sd {three_decimals(summary['sd'])} (n = {summary['n']} topics)")


def _interval(interval) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "[no interval]"
