"""The LLM judges' ablation: configurations compared on the same items, as agreement with humans and as cost.

Several `llm` judges of one campaign differ in one or more settings (chain of thought or not, n samples,
decoding, model). Compared on their whole verdict sets they would be compared on different items (a run
stopped early, failures), so every row is computed over the SAME items: those with a human label that
every LLM judge has been asked about. A failed verdict there counts as a disagreement in `accuracy`
and is left out of kappa (reported as `failed`).
"""

from __future__ import annotations

from agreement import stats
from agreement.selectors import HumanLabels, JudgeLabels, LlmJudgeCost

# The settings that tell one configuration from another, in the order the table shows them.
SETTINGS = ("backend", "model", "cot", "n", "decoding", "temperature", "top_p", "num_beams", "max_new_tokens")


def ablation_build(*, judges: list[JudgeLabels], humans: HumanLabels, costs: list[LlmJudgeCost]) -> dict | None:
    """{"items": n, "settings": [...], "rows": [...]} over the LLM judges; None when the campaign has none."""
    by_name = {judge.name: judge for judge in judges}
    costs = [cost for cost in costs if cost.name in by_name]
    if not costs:
        return None
    asked = [set(by_name[cost.name].labels) | by_name[cost.name].failed for cost in costs]
    items = sorted(set(humans.item_label).intersection(*asked))
    rows = []
    for cost in costs:
        judge = by_name[cost.name]
        judged = [item for item in items if item in judge.labels]
        human = [humans.item_label[item] for item in judged]
        model = [judge.labels[item] for item in judged]
        agree = sum(a == b for a, b in zip(human, model))
        n_asked = len(judge.labels) + len(judge.failed)
        rows.append({
            "judge": cost.name,
            "settings": {key: cost.config.get(key) for key in SETTINGS if key in cost.config},
            "n": len(items),
            "cohen_kappa": stats.cohen_kappa(human, model),
            "accuracy": agree / len(items) if items else None,
            "failed": len(items) - len(judged),
            "samples": cost.samples,
            "seconds_per_item": cost.seconds / n_asked if n_asked else None,
            "items_per_second": n_asked / cost.seconds if cost.seconds else None,
            "run_seconds": cost.run_seconds,
            "tokens_per_item": (cost.prompt_tokens + cost.completion_tokens) / n_asked if n_asked else None,
        })
    return {"items": len(items), "settings": _varied(rows), "rows": rows}


def _varied(rows: list[dict]) -> list[str]:
    """The settings that tell the rows apart (all of them for a single judge): the table's columns."""
    present = [key for key in SETTINGS if any(key in row["settings"] for row in rows)]
    if len(rows) < 2:
        return present
    return [key for key in present if len({repr(row["settings"].get(key)) for row in rows}) > 1]
