"""Humans and each ranker together on an answer-ranking campaign (reports.ppi): each (system, prompt)'s mean NRP,
its answers' place among their topic's documents, from the humans' rankings of the topics they ranked and a ranker's
scores on every topic, the topic the unit (the answers of one topic are ranked together). The active and stratified
plans spend labels on the topics where the campaign's other rankers place the answers furthest from this one (no
other ranker: the uniform plan). A ranker read on one part of a development split has no block. docs/statistics/
ppi.md.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from reports.ppi import Measure, Recorded, Units, measure_block, ppi_options, ppi_section

NRP = Measure("nrp", "NRP")

# (system, prompt) -> [(topic, an answer's NRP or None)]: what AnswerNrps.by_system gives
ByAnswer = dict[tuple[str, str], list[tuple[str, float | None]]]


def topic_means(values: list[tuple[str, float | None]]) -> dict[str, float]:
    """{topic: the mean of its defined VALUES}."""
    found: dict[str, list[float]] = {}
    for topic, value in values:
        if value is not None:
            found.setdefault(topic, []).append(value)
    return {topic: float(np.mean(v)) for topic, v in found.items()}


def _spread(own: ByAnswer, others: list[ByAnswer]) -> dict[Hashable, float]:
    """{topic: the mean over its answers and the other rankers of |this ranker's NRP - theirs|}."""
    gaps: dict[Hashable, list[float]] = {}
    for key, values in own.items():
        for other in others:
            theirs = dict(other.get(key, []))
            for topic, value in values:
                if value is not None and theirs.get(topic) is not None:
                    gaps.setdefault(topic, []).append(abs(value - theirs[topic]))
    return {topic: float(np.mean(v)) for topic, v in gaps.items()}


def _label(key: tuple[str, str], prompts: int) -> str:
    system, prompt = key
    return f"{system} ({prompt})" if prompts > 1 and prompt else system


def ranking_ppi(*, human: ByAnswer, judges: dict[str, ByAnswer], split: set[str], options: dict,
                plan: tuple[str, list[list]] | None = None) -> dict | None:
    """The report's `ppi` block (reports.ppi.ppi_section): per ranker of JUDGES not in SPLIT (read on a part of a
    development split), each (system, prompt)'s NRP by topic under the HUMAN rankings and under the ranker."""
    settings = ppi_options(options)
    prompts = len({prompt for _, prompt in human})
    blocks = {}
    for name, ranked in judges.items():
        if name in split:
            continue
        values = {_label(key, prompts): (topic_means(human.get(key, [])), topic_means(answers))
                  for key, answers in ranked.items()}
        errors = _spread(ranked, [other for o, other in judges.items() if o != name])
        block = measure_block(Units.from_values(values, errors), options=settings, measure=NRP,
                              recorded=Recorded.of(plan, by_id=False))
        if block is not None:
            blocks[name] = block
    return ppi_section([(NRP, blocks)], options=options, unit_one="topic")
