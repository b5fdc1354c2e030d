"""Humans and each judge together on a pairwise-preference campaign (reports.ppi): each system's win rate (a win 1,
a tie or both bad one half, a loss 0, over its pairs), from the humans' verdicts on the pairs they judged and a
judge's on every pair, the prompt the unit (a prompt's pairs are judged together). A system's value on a prompt is
counted where the side decided every pair of it there. The active and stratified plans spend labels on the prompts
where the campaign's other judges' verdicts differ from this one's (no other judge: the uniform plan). A judge read
on one part of a development split has no block; nor has a campaign whose candidates are each compared on one prompt
only (a topic's pool of passages: its "systems" are passages, each with a handful of pairs). docs/statistics/ppi.md.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from reports.ppi import Measure, Recorded, Units, committees, measure_block, ppi_options, ppi_section
from reports.selectors import JudgeLabels

WIN_RATE = Measure("win_rate", "win rate")


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


def _disagreement(own: dict[int, str], committee: dict[int, list[str]], pairs: dict, three: dict) -> dict:
    """{prompt: the mean over its pairs of the share of the other judges whose verdict (as THREE words it) differs
    from OWN's}."""
    shares: dict[Hashable, list[float]] = {}
    for item, label in own.items():
        if committee.get(item) and item in pairs and label in three:
            shares.setdefault(pairs[item][0], []).append(
                float(np.mean([three.get(other) != three[label] for other in committee[item]])))
    return {prompt: float(np.mean(values)) for prompt, values in shares.items()}


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
    blocks = {}
    for judge in judges:
        if judge.part is not None:
            continue
        judged = win_rates(judge.labels, pairs, three)
        values = {system: (humans.get(system, {}), by_prompt) for system, by_prompt in judged.items()}
        errors = _disagreement(judge.labels, found[judge.name], pairs, three)
        block = measure_block(Units.from_values(values, errors), options=settings, measure=WIN_RATE,
                              recorded=Recorded.of(plan, by_id=False))
        if block is not None:
            blocks[judge.name] = block
    return ppi_section([(WIN_RATE, blocks)], options=options, unit_one="prompt")
