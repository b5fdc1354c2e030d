"""How an answer_ranking report is shown (reports.presentation): per-topic rankings, Kendall's tau-b per topic and
dimension, NRP per system, the rankers against the document qrels (templates/answer_ranking/); its judges and topics
tables (tasktypes.answer_ranking.tables), its NRP plot, and its text."""

from collections.abc import Callable

from reports.presentation import ReportPresentation, three_decimals


def _mean_ci(summary: dict | None) -> str:
    if not summary:
        return "—"
    ci = summary["ci95"]
    interval = f" [{three_decimals(ci[0])}, {three_decimals(ci[1])}]" if ci else ""
    return f"{three_decimals(summary['mean'])}{interval} (n = {summary['n']})"


class RankingPresentation(ReportPresentation):
    body_template = "answer_ranking/report_body.html"
    adjudication_template = "answer_ranking/adjudication_rows.html"
    unit_noun = "topics"
    page_tables = ("topics",)

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        return {
            # With a development split, beside each judge's NRP the humans' over the same part (its n).
            "nrp_rows": [{**row, "judge_nrp": [{**row["judges_nrp"].get(name, {}),
                                               "human_part": (row.get("human_by_judge") or {}).get(name)}
                                              for name in judge_names]}
                         for row in report["systems"]],
            # Rankers against the document qrels: one row per (ranker, qrels set).
            "qrels_rows": [
                {"judge": name, "set": qrels_set,
                 "measures": [by_set[qrels_set["name"]][key] for key in ("ndcg_cut_10", "map", "p_10")]}
                for name, by_set in (report.get("qrels") or {}).get("judges", {}).items()
                for qrels_set in report["qrels"]["sets"]
            ],
            "nrp_judged_rows": [
                {**row, "judge_nrp_judged": [row["judges_nrp_judged"].get(name, {}) for name in judge_names]}
                for row in report["systems"] if "human_nrp_judged" in row
            ],
        }

    def plots(self, report: dict) -> dict[str, Callable]:
        from tasktypes.answer_ranking.plots import nrp_plot

        return {"nrp": nrp_plot}

    def judges_csv(self, report: dict) -> str:
        from tasktypes.answer_ranking.tables import ranking_judges_csv

        return ranking_judges_csv(report=report)

    def topics_csv(self, report: dict) -> str:
        from tasktypes.answer_ranking.tables import topics_csv

        return topics_csv(report=report)

    def text(self, report: dict) -> str:
        """Mean per-topic Kendall tau-b with its 95% CI per ranker, and the human ceiling."""
        humans = report["humans"]
        ceiling = humans["ceiling"] or {}
        lines = [
            f"Agreement report: {report['campaign']} ({report['task_type']})",
            "",
            f"Humans: {humans['annotators']} annotators, {humans['topics_ranked']} of {humans['topics']} topics ranked "
            f"({humans['adjudicated']} adjudicated)",
            f"  human vs human tau-b, mean over topics: {_mean_ci(ceiling.get('kendall_tau_b'))}; "
            f"answers only: {_mean_ci(ceiling.get('kendall_tau_b_answers_only'))}",
            "",
            "Rankers (per-topic Kendall tau-b vs the human order, mean over topics with 95% CI):",
        ]
        if not report["judges"]:
            lines.append("  none")
        for name, block in report["judges"].items():
            for dimension, means in block["topic_mean_by_dimension"].items():
                lines.append(f"  {name} [{dimension}]: {_mean_ci(means['kendall_tau_b'])}; "
                             f"answers only: {_mean_ci(means['kendall_tau_b_answers_only'])}")
        return "\n".join(lines)
