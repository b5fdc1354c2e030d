"""How a pairwise_preference report is shown: its body (templates/pairwise_preference/report_body.html), its judges
and systems tables, its plots (scores with intervals, the humans' win rates), its text."""

from collections.abc import Callable

from reports.presentation import ReportPresentation, three_decimals
from reports.tables import SpreadsheetCsv, interval_cells, value_cell
from stats.preference import SCOPE_PROMPT


class PreferencePresentation(ReportPresentation):
    body_template = "pairwise_preference/report_body.html"

    def plots(self, report: dict) -> dict[str, Callable]:
        from tasktypes.pairwise_preference.plots import scores_plot, win_rates_plot

        return {"scores": scores_plot, "win-rates": win_rates_plot}

    def page_context(self, report: dict, *, judge_names: list[str], plots: dict[str, str]) -> dict:
        humans = report["scores"]["humans"]
        orders = [block["order"] for block in report["judges"].values()]
        context = {"scores_svg": plots.get("scores"), "win_rates_svg": plots.get("win-rates"),
                   "order_method": orders[0]["method"] if orders else "", "pooled": _pooled(report)}
        if context["pooled"]:
            # Thousands of candidates, each scored within its prompt's pool: the page lists the prompts (the CSV
            # of systems every candidate).
            return {**context, "score_rows": [], "prompt_rows": _prompt_rows(report, judge_names),
                    "candidates": len(humans["scores"])}
        return {**context, "score_rows": [
            {"system": system, "human": humans["scores"][system], "human_ci95": humans["scores_ci95"][system],
             "judges": [{"score": report["judges"][name]["scores"]["scores"].get(system),
                         "ci95": report["judges"][name]["scores"]["scores_ci95"].get(system)} for name in judge_names]}
            for system in humans["systems"]]}

    def judges_csv(self, report: dict) -> str:
        writer = SpreadsheetCsv()
        writer.writerow(["judge", "family", "n", "cohen_kappa", "cohen_kappa_ci95_low", "cohen_kappa_ci95_high",
                         "accuracy", "accuracy_ci95_low", "accuracy_ci95_high", "n_decided", "decided_agreement",
                         "decided_agreement_ci95_low", "decided_agreement_ci95_high", "inconsistent",
                         "n_both_orders", "position_consistency", "position_consistency_ci95_low",
                         "position_consistency_ci95_high", "n_first_position", "first_position_rate",
                         "first_position_rate_ci95_low", "first_position_rate_ci95_high", "n_systems",
                         "kendall_tau_b", "kendall_tau_b_ci95_low", "kendall_tau_b_ci95_high", "spearman",
                         "spearman_ci95_low", "spearman_ci95_high", "swaps_count", "largest_swaps"])
        for name, block in report["judges"].items():
            item, decided, order = block["item"], block["decided"], block["order"]
            position = block["position"] or {}
            consistency, first = position.get("consistency") or {}, position.get("first") or {}
            writer.writerow([name, block["family"], item["n"], value_cell(item["cohen_kappa"]),
                             *interval_cells(item["cohen_kappa_ci95"]), value_cell(item["accuracy"]),
                             *interval_cells(item["accuracy_ci95"]), decided["n"], value_cell(decided["share"]),
                             *interval_cells(decided["share_ci95"]), block["inconsistent"],
                             consistency.get("n", ""), value_cell(consistency.get("share")),
                             *interval_cells(consistency.get("share_ci95")), first.get("n", ""),
                             value_cell(first.get("rate")), *interval_cells(first.get("rate_ci95")),
                             order["n_systems"], value_cell(order["kendall_tau_b"]),
                             *interval_cells(order["kendall_tau_b_ci95"]), value_cell(order["spearman"]),
                             *interval_cells(order["spearman_ci95"]), order.get("swaps_count", len(order["swaps"])),
                             "; ".join(f"{x} > {y}" for x, y in order["swaps"])])
        return writer.text()

    def systems_csv(self, report: dict) -> str:
        """Each system's Bradley-Terry score under the humans and under each judge, with its interval."""
        sources = {"human": report["scores"]["humans"],
                   **{name: block["scores"] for name, block in report["judges"].items()}}
        pools = report["scores"]["humans"].get("pools")
        writer = SpreadsheetCsv()
        writer.writerow(["system", *(["prompt"] if pools is not None else []),
                         *(f"{source}_{what}" for source in sources for what in ("score", "ci95_low", "ci95_high"))])
        for system in report["scores"]["humans"]["systems"]:
            writer.writerow([system, *([pools[system]] if pools is not None else []), *(
                cell for block in sources.values() for cell in (
                value_cell(block["scores"].get(system)), *interval_cells(block["scores_ci95"].get(system))))])
        return writer.text()

    def text(self, report: dict) -> str:
        position = report["position"]["humans"]
        lines = [f"Agreement report: {report['campaign']} ({report['task_type']})", "",
                 f"Humans: Fleiss' kappa {three_decimals(report['humans']['fleiss_kappa'])} over "
                 f"{report['humans']['fleiss_items']} pairs; first-position rate {three_decimals(position['rate'])} "
                 f"(n = {position['n']})", "", "Judges (against the humans' majority, a, b or tie):"]
        for name, block in report["judges"].items():
            lines.append(
                f"  {name}: kappa {three_decimals(block['item']['cohen_kappa'])} (n = {block['item']['n']}), "
                f"agreement {three_decimals(block['item']['accuracy'])}; system order tau-b "
                f"{three_decimals(block['order']['kendall_tau_b'])} over {block['order']['n_systems']} systems"
            )
            position = block["position"]
            if position:
                lines.append(f"    position consistency {three_decimals(position['consistency']['share'])} "
                             f"(n = {position['consistency']['n']}), first-position rate "
                             f"{three_decimals(position['first']['rate'])} (n = {position['first']['n']}); "
                             f"{block['inconsistent']} order-inconsistent verdicts")
        scores = report["scores"]["humans"]
        if _pooled(report):
            lines += ["", f"Candidates: {len(scores['scores'])}, each scored within its prompt's pool "
                          f"({scores['n_prompts']} prompts; every score in the systems CSV)"]
            return "\n".join(lines)
        lines += ["", "Systems (Bradley-Terry under the humans):"]
        lines += [f"  {system}: {three_decimals(scores['scores'][system])}" for system in scores["systems"]]
        return "\n".join(lines)


def _pooled(report: dict) -> bool:
    """Whether the report scored each candidate within its prompt's pool (stats.preference.pool_preference_scores)."""
    return report["scores"]["humans"].get("scope") == SCOPE_PROMPT


def _prompt_rows(report: dict, judge_names: list[str]) -> list[dict]:
    """A row per prompt: its candidates and verdicts under the humans, and each judge's order agreement there."""
    humans = report["scores"]["humans"]
    candidates: dict = {}
    for prompt in humans["pools"].values():
        candidates[prompt] = candidates.get(prompt, 0) + 1
    by_judge = {name: {str(row["prompt"]): row for row in report["judges"][name]["order"].get("per_prompt", [])}
                for name in judge_names}
    return [{"prompt": prompt, "candidates": count,
             "judges": [by_judge[name].get(str(prompt)) for name in judge_names]}
            for prompt, count in sorted(candidates.items(), key=lambda entry: str(entry[0]))]
