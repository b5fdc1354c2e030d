"""The LLM judges' ablation: configurations compared on the same items, as agreement with humans and as cost.

Several `llm` judges of one campaign differ in one or more settings (chain of thought or not, n samples,
decoding, model). Compared on their whole verdict sets they would be compared on different items (a run
stopped early, failures), so every row is computed over the SAME items: those with a human label that
every LLM judge has been asked about. A failed verdict there counts as a disagreement in `accuracy`
and is left out of kappa (reported as `failed`). A judge asked about none of the items with a human label (a run
that failed before any verdict, one still queued) is left out of that intersection, and listed in `left_out` with
its latest run, rather than leaving every row with no items; so is a judge marked final in a campaign with a
development split, read on the held-out part while the others are read on the development part.

In the study's terms each row also carries its system-level figures (`system`: Kendall's tau-b and Spearman's rho
between the systems' human and judge accuracies, with intervals, and `mae`, the mean absolute difference of the two
accuracies over the systems) computed over the same items: each system on its outputs among them, plus its outputs that
match a gold answer and no human judged (correct for both, the protocol's rule). When those items are a sample of the
human-labelled ones the block says so (`sample`), and a system needs only one output there. Each row is compared with a
base row (option ablation_base, else the first): the differences of its figures, and for agreement a paired test
(stats.system_tests) on the items.
"""

from __future__ import annotations

from typing import Any

from reports.selectors import HumanLabels, JudgeLabels, LlmJudgeCost, SystemOutputs
from reports.system_level import SystemRows, system_level_block
from stats import interrater
from stats.system_tests import paired_test

POSITIVE = "yes"

# The settings that tell one configuration from another, in the order the table shows them.
SETTINGS = ("backend", "model", "cot", "n", "decoding", "temperature", "top_p", "num_beams", "max_new_tokens")


def ablation_build(*, judges: list[JudgeLabels], humans: HumanLabels, costs: list[LlmJudgeCost],
                   outputs: SystemOutputs | None = None, base: str | None = None) -> dict | None:
    """{"items": n, "settings": [...], "rows": [...], "left_out": [...], "base", "sample"} over the LLM judges; None
    when the campaign has none. With OUTPUTS each row gets its system-level figures; BASE names the row the others are
    compared with."""
    by_name = {judge.name: judge for judge in judges}
    costs = [cost for cost in costs if cost.name in by_name]
    if not costs:
        return None
    labelled = set(humans.item_label)
    asked = {cost.name: (set(by_name[cost.name].labels) | by_name[cost.name].failed) & labelled for cost in costs}
    # With a development split, the configurations being developed are read on the development part and a final one
    # on the held-out part: no item is common to both, so the final ones are listed apart.
    apart = ({cost.name for cost in costs if by_name[cost.name].held_out}
             if len({by_name[cost.name].held_out for cost in costs}) > 1 else set())
    left_out = [{"judge": cost.name, "settings": _settings(cost),
                 "why": "marked final: read on the held-out part of the development split, on which the other "
                        "configurations are not scored" if cost.name in apart else
                        f"asked about none of the {len(labelled)} items with a human label"
                        + (f" ({cost.last_run})" if cost.last_run else " (never run)")}
                for cost in costs if cost.name in apart or not asked[cost.name]]
    costs = [cost for cost in costs if asked[cost.name] and cost.name not in apart]
    if not costs:
        return {"items": 0, "settings": _varied(left_out), "rows": [], "left_out": left_out, "base": None,
                "base_why": None, "sample": False, "labelled": len(labelled)}
    items = sorted(labelled.intersection(*(asked[cost.name] for cost in costs)))
    # The rows share one part of a development split (the final ones are apart): the items they could be asked about
    # are that part's, which is what "a sample" is measured against.
    part = by_name[costs[0].name]
    labelled_here = sum(part.reads_item(item) for item in labelled)
    rows: list[dict[str, Any]] = []
    for cost in costs:
        judge = by_name[cost.name]
        judged = [item for item in items if item in judge.labels]
        human = [humans.item_label[item] for item in judged]
        model = [judge.labels[item] for item in judged]
        agree = sum(a == b for a, b in zip(human, model))
        n_asked = len(judge.labels) + len(judge.failed)
        rows.append({
            "judge": cost.name,
            "settings": _settings(cost),
            "n": len(items),
            "cohen_kappa": interrater.cohen_kappa(human, model),
            "accuracy": agree / len(items) if items else None,
            "failed": len(items) - len(judged),
            "samples": cost.samples,
            "seconds_per_item": cost.seconds / n_asked if n_asked else None,
            "items_per_second": n_asked / cost.seconds if cost.seconds else None,
            "run_seconds": cost.run_seconds,
            "tokens_per_item": (cost.prompt_tokens + cost.completion_tokens) / n_asked if n_asked else None,
            "tokens": cost.prompt_tokens + cost.completion_tokens,
        })
    sample = len(items) < labelled_here
    if outputs is not None:
        for row in rows:
            row.update(_system_figures(judge=by_name[row["judge"]], humans=humans, outputs=outputs, items=set(items)))
    names = [row["judge"] for row in rows]
    base_row = next((row for row in rows if row["judge"] == base), rows[0])
    for row in rows:
        row["vs_base"] = None if row is base_row else _versus(row, base_row, judges=by_name, humans=humans,
                                                              items=items)
    return {"items": len(items), "settings": _varied(rows + left_out), "rows": rows, "left_out": left_out,
            "base": base_row["judge"],
            "base_why": f"{base!r} is not an LLM judge of this campaign (those: {', '.join(names)}); the first row is "
                        f"the base" if base and base not in names else None,
            # The rows' items are a sample of the items with a human label (judges run on --sample).
            "sample": sample, "labelled": labelled_here}


def _settings(cost: LlmJudgeCost) -> dict:
    """The judge's configuration in SETTINGS' order, those it sets only."""
    return {key: cost.config.get(key) for key in SETTINGS if key in cost.config}


def _system_figures(*, judge: JudgeLabels, humans: HumanLabels, outputs: SystemOutputs, items: set) -> dict:
    """The row's system order against the humans' over the ablation's items, and the mean absolute error. With a
    development split, over the outputs of the judge's part only: a gold match on the other part is nothing the
    judge was read on."""
    systems = []
    for system, pairs in outputs.outputs.items():
        pairs = [(topic, item) for topic, item in pairs if judge.reads_item(item)]
        rows = SystemRows(system=system, outputs=len(pairs))
        for topic, item in pairs:
            if item in items:
                rows.add(topic, float(humans.item_label[item] == POSITIVE), float(judge.labels.get(item) == POSITIVE),
                         evidence=True)
            elif item not in humans.item_label and item not in humans.ties and item not in humans.open \
                    and outputs.gold_match.get(item):
                rows.add(topic, 1.0, 1.0, evidence=True)
        systems.append(rows)
    block = system_level_block(systems, min_outputs=1, min_coverage=0.0, topics_word="questions")
    return {"system": block, "mae": block["mae"], "mae_systems": block["n_systems"]}


def _versus(row: dict, base: dict, *, judges: dict, humans: HumanLabels, items: list) -> dict:
    """ROW's figures minus BASE's; agreement as a paired test on the items (a failed verdict is a disagreement)."""
    def agrees(name):
        return [float(judges[name].labels.get(item) == humans.item_label[item]) for item in items]

    def minus(first, second):
        return None if first is None or second is None else first - second

    figures = {key: minus(row.get(key), base.get(key)) for key in ("cohen_kappa", "mae")}
    for key in ("kendall_tau_b", "spearman"):
        figures[key] = minus((row.get("system") or {}).get(key), (base.get("system") or {}).get(key))
    return {"base": base["judge"], **figures, "accuracy": paired_test(agrees(row["judge"]), agrees(base["judge"]))}


def _varied(rows: list[dict]) -> list[str]:
    """The settings that tell the rows apart (all of them for a single judge): the table's columns."""
    present = [key for key in SETTINGS if any(key in row["settings"] for row in rows)]
    if len(rows) < 2:
        return present
    return [key for key in present if len({repr(row["settings"].get(key)) for row in rows}) > 1]
