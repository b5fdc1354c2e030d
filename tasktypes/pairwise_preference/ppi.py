"""Humans and each judge together on a pairwise-preference campaign (reports.ppi): each system's win rate (a win 1,
a tie or both bad one half, a loss 0, over its pairs), from the humans' verdicts on the pairs they judged and a
judge's on every pair, the prompt the unit (a prompt's pairs are judged together); and each system's Bradley-Terry
strength (stats.ppi_bt: PPI++ for the logistic model, the prompt the cluster), centred, on the prompts whose every
pair the humans decided. A campaign whose humans decided (nearly) every prompt gets for the strengths one check on a
draw (CHECK_SEED, a share of the prompts: the option ppi_check_share, at least stats.ppi.MIN_LABELLED), each beside
the humans' fit on every prompt; the win rates get the full check of reports.ppi. A system's value on a prompt is
counted where the side decided every pair of it there. The active and stratified plans spend labels on the prompts
where the campaign's other judges' verdicts differ from this one's (no other judge: the uniform plan). A judge read
on one part of a development split has no block; nor has a campaign whose candidates are each compared on one prompt
only (a topic's pool of passages: its "systems" are passages, each with a handful of pairs). docs/statistics/ppi.md.
"""

from __future__ import annotations

import numpy as np

from reports.ppi import (
    CHECK_SEED,
    CHECKED_FROM,
    FEW_LABELS,
    MIN_UNITS,
    Measure,
    Recorded,
    Units,
    check_budget,
    check_summary,
    committees,
    disagreement_by_topic,
    measure_block,
    ppi_options,
    ppi_section,
)
from reports.selectors import JudgeLabels
from stats import ppi, ppi_bt

WIN_RATE = Measure("win_rate", "win rate")
BRADLEY_TERRY = Measure("bradley_terry", "Bradley-Terry strength", (-20.0, 20.0), "normal")


def _wins(label: str, a: str, b: str, three: dict[str, str]) -> dict[str, float] | None:
    """{system: its points} from a verdict LABEL on a pair of A and B (THREE: a label as a, b or tie); None for a
    label that is no verdict."""
    side = three.get(label)
    if side is None:
        return None
    return {a: 1.0 if side == "a" else 0.5 if side == "tie" else 0.0,
            b: 1.0 if side == "b" else 0.5 if side == "tie" else 0.0}


def win_rates(labels: dict[int, str], pairs: dict[int, tuple[str, str, str]],
              three: dict[str, str]) -> dict[str, dict[str, float]]:
    """{system: {prompt: its win rate there}} from LABELS (item -> verdict) on PAIRS (item -> (prompt, a, b)), a
    prompt only where LABELS decide every pair of the system on it."""
    points: dict[str, dict[str, list[float]]] = {}
    pending: dict[tuple[str, str], int] = {}
    for item, (prompt, a, b) in pairs.items():
        if a == b:
            continue
        for system in (a, b):
            pending[(system, prompt)] = pending.get((system, prompt), 0) + 1
        won = _wins(labels[item], a, b, three) if item in labels else None
        for system, value in (won or {}).items():
            points.setdefault(system, {}).setdefault(prompt, []).append(value)
    return {system: {prompt: float(np.mean(v)) for prompt, v in by_prompt.items()
                     if len(v) == pending[(system, prompt)]} for system, by_prompt in points.items()}


def preference_ppi(*, human: dict[int, str], judges: list[JudgeLabels], pairs: dict[int, tuple[str, str, str]],
                   three: dict[str, str], pooled: bool, options: dict,
                   plan: tuple[str, list[list]] | None = None) -> dict | None:
    """The report's `ppi` block (reports.ppi.ppi_section): per judge, each system's win rate by prompt under the
    humans' verdicts (HUMAN: item -> the humans' label) and the judge's; None where POOLED (each candidate compared
    on one prompt only)."""
    if pooled:
        return None
    settings = ppi_options(options)
    humans = win_rates(human, pairs, three)
    found = committees({judge.name: judge.labels for judge in judges})
    prompt_of = {item: prompt for item, (prompt, _, _) in pairs.items()}
    blocks, strengths = {}, {}
    for judge in judges:
        if judge.part is not None:
            continue
        judged = win_rates(judge.labels, pairs, three)
        values = {system: (humans.get(system, {}), by_prompt) for system, by_prompt in judged.items()}
        errors = disagreement_by_topic({item: label for item, label in judge.labels.items() if label in three},
                                       found[judge.name], prompt_of, key=three.get)
        block = measure_block(Units.from_values(values, errors), options=settings, measure=WIN_RATE,
                              recorded=Recorded.of(plan, by_id=False))
        if block is not None:
            blocks[judge.name] = block
        strength = _strength_block(human, judge.labels, pairs, three, settings)
        if strength is not None:
            strengths[judge.name] = strength
    return ppi_section([(WIN_RATE, blocks), (BRADLEY_TERRY, strengths)], options=options, unit_one="prompt")


def _points(label: str | None, three: dict[str, str]) -> float | None:
    """A verdict as the first system's points: 1, 0.5 or 0; None for no verdict."""
    side = three.get(label or "")
    return None if side is None else 1.0 if side == "a" else 0.5 if side == "tie" else 0.0


def _strength_block(human: dict[int, str], labels: dict[int, str], pairs: dict, three: dict,
                    options: dict) -> dict | None:
    """One judge's block of Bradley-Terry strengths (shaped as reports.ppi.measure_block's, without labels needed):
    over the pairs the judge decided, the prompts whose every such pair the humans decided labelled; a check on one
    uniform draw where they are (nearly) all. None with fewer than MIN_UNITS prompts."""
    items = sorted(item for item, (_, a, b) in pairs.items() if a != b and _points(labels.get(item), three) is not None)
    prompts = [pairs[item][0] for item in items]
    everyone = sorted(set(prompts), key=str)
    if len(everyone) < MIN_UNITS:
        return None
    comparisons = [(pairs[item][1], pairs[item][2], None) for item in items]
    judge = [_points(labels[item], three) for item in items]
    truth = [_points(human.get(item), three) for item in items]
    undecided = {prompt for prompt, value in zip(prompts, truth, strict=True) if value is None}
    labelled = set(everyone) - undecided
    checked = len(labelled) >= CHECKED_FROM * len(everyone)
    chosen = labelled
    if checked:
        budget = min(len(labelled) - 1, round(check_budget(len(everyone), options["check_share"])))
        ordered = sorted(labelled, key=str)
        rng = np.random.default_rng(CHECK_SEED)
        chosen = {ordered[n] for n in rng.choice(len(ordered), size=budget, replace=False)}
    found = ppi_bt.combined_bradley_terry(comparisons, prompts, [t if p in chosen else None for t, p in
                                                                  zip(truth, prompts, strict=True)], judge)
    if found is None:
        return None
    all_human = None
    if checked:
        all_human = ppi_bt.strengths([(a, b, t) for (a, b, _), t, p in zip(comparisons, truth, prompts, strict=True)
                                      if p in labelled], [p for p in prompts if p in labelled], found.systems)
    rows = []
    for system, combined, alone, judged in zip(found.systems, found.combined, found.human, found.judge, strict=True):
        row = {"system": system, "combined": combined.as_dict(), "human": alone.as_dict(), "judge": judged,
               "units": len(everyone), "human_uniform_width": alone.width,
               "effective_labels": len(chosen) * (alone.width / combined.width) ** 2
               if combined.width and alone.width else None}
        if all_human is not None:
            row["all_human"] = all_human.get(system)
            ci = combined.ci95
            row["covers"] = None if ci is None or row["all_human"] is None else ci[0] <= row["all_human"] <= ci[1]
        rows.append(row)
    rows.sort(key=lambda row: -row["combined"]["value"])
    order = [row["system"] for row in rows]
    pairs = []
    for (i, j), (combined, alone) in found.differences.items():
        first, second = found.systems[i], found.systems[j]
        if order.index(first) > order.index(second):  # the stronger first, as the order reads
            first, second = second, first
            combined = ppi.Estimate(-combined.value, None if combined.ci95 is None else
                                    (-combined.ci95[1], -combined.ci95[0]), combined.n, combined.lam)
            alone = ppi.Estimate(-alone.value, None if alone.ci95 is None else (-alone.ci95[1], -alone.ci95[0]),
                                 alone.n, alone.lam)
        ci = combined.ci95
        pairs.append({"first": first, "second": second, "difference": combined.as_dict(), "human": alone.as_dict(),
                      "separated": ci is not None and (ci[0] > 0 or ci[1] < 0),
                      "adjacent": order.index(second) == order.index(first) + 1, "needed": None})
    pairs.sort(key=lambda pair: (order.index(pair["first"]), order.index(pair["second"])))
    block = {"units": len(everyone), "labelled_units": len(labelled), "plan": "uniform" if checked else None,
             "check": None, "followed": None, "few_labels": len(chosen) < FEW_LABELS, "systems": rows,
             "order": order, "pairs": pairs, "separated_count": sum(pair["separated"] for pair in pairs),
             "needed": None}
    if checked:
        block["check"] = {"share": options["check_share"], "seed": CHECK_SEED, "drawn": len(chosen), "draws": None,
                          **check_summary(rows)}
    return block
