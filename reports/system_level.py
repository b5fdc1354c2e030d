"""System-level agreement: does a judge order the systems as the humans do? With coverage, never silent loss.

Pure functions (no Django). Each system brings the outputs that BOTH sides labelled, one (topic, human score,
judge score) row each; its scores under each side are the means over those rows, so the two sides are compared
on the same outputs. A system whose covered outputs are fewer than `min_outputs`, or less than `min_coverage` of
all its outputs, is left out of the correlation, with the reason: three toy systems of one, two and four outputs
must not move a correlation over twelve real ones. Intervals resample topics and recompute every system's score
(stats.system_order.system_correlation_intervals).

Beside the correlations, agreement at the top of the two orders (stats.rank_agreement; systems ranked by score,
best first, equal scores tied): tau-AP of the judge's order against the humans', RBO_ext with persistence `rbo_p`,
overlap@k and tau-b over the systems in either top k (`top_k`), with intervals from the same resamples; and the swaps,
the pairs of systems the two orders put the other way round (stats.retrieval.swapped_pairs: the largest human gap
first, the swaps a reader should doubt the judge on most).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from stats import correlation, rank_agreement, retrieval, system_order, uncertainty

# Defaults of the campaign options that say which systems a correlation may rest on (README "Coverage").
MIN_SYSTEM_OUTPUTS = 10
MIN_SYSTEM_COVERAGE = 0.5
# Fewer systems than this make a system-level correlation a small sample: shown, flagged, with its interval.
SMALL_SYSTEMS = 5


@dataclass
class SystemRows:
    """One system's outputs labelled by both sides: (topic, human score, judge score); OUTPUTS all its outputs."""

    system: str
    outputs: int
    rows: list[tuple[object, float, float]] = field(default_factory=list)
    # Of the rows, those both sides actually judged (or that a rule both apply decides, such as a gold match):
    # the measure of coverage. A protocol's default (an output nobody judged is not correct) is compared, but is
    # no evidence that the system was looked at.
    evidence: int = 0

    def add(self, topic, human: float, judge: float, *, evidence: bool) -> None:
        self.rows.append((topic, human, judge))
        self.evidence += bool(evidence)

    @property
    def covered(self) -> int:
        return len(self.rows)

    def means(self) -> tuple[float | None, float | None]:
        if not self.rows:
            return None, None
        return (float(np.mean([h for _, h, _ in self.rows])), float(np.mean([j for _, _, j in self.rows])))

    def sides(self) -> tuple[list[tuple[object, float]], list[tuple[object, float]]]:
        """(topic, score) per output under the humans, and under the judge: the same outputs on both sides."""
        return [(t, h) for t, h, _ in self.rows], [(t, j) for t, _, j in self.rows]

    def exclusion(self, *, min_outputs: int, min_coverage: float) -> str | None:
        return exclusion_reason(self, min_outputs=min_outputs, min_coverage=min_coverage)


@dataclass
class SystemSides:
    """One system scored by each side over every output that side decided, (topic, score) each: the humans' outputs
    and the judge's need not be the same ones (a judge's score over all it scored, beside the human-rated subset)."""

    system: str
    outputs: int
    human: list[tuple[object, float]] = field(default_factory=list)
    judge: list[tuple[object, float]] = field(default_factory=list)
    # The judge's own scores (a probability, a token F1) over the outputs it scored, for its mean-score order.
    scores: list[tuple[object, float]] = field(default_factory=list)
    # Every output, decided or not, as (topic, item, human, verdict, score), None where that side has none: the humans
    # and the judge together (reports.ppi).
    each: list[tuple[object, int, float | None, float | None, float | None]] = field(default_factory=list)

    def means(self) -> tuple[float | None, float | None]:
        return (float(np.mean([h for _, h in self.human])) if self.human else None,
                float(np.mean([j for _, j in self.judge])) if self.judge else None)

    def sides(self) -> tuple[list[tuple[object, float]], list[tuple[object, float]]]:
        return self.human, self.judge

    def exclusion(self, *, min_outputs: int, min_coverage: float) -> str | None:
        if not self.human:
            return f"none of its {self.outputs} outputs has a human verdict"
        if not self.judge:
            return f"the judge scored none of its {self.outputs} outputs"
        fewest = min(len(self.human), len(self.judge))
        if fewest < min_outputs:
            return (f"{len(self.human)} outputs with a human verdict and {len(self.judge)} scored by the judge, of "
                    f"{self.outputs}; each side needs at least {min_outputs} (option min_system_outputs)")
        return None


def judge_columns(coverage: dict[str, list[SystemRows]], index: int, *, of: int) -> dict:
    """The systems table's columns for system INDEX from each judge's COVERAGE rows: the judge's score and the
    humans' on the outputs they were compared on (the x and y of that judge's correlation), and [compared, OF]."""
    columns: dict = {"judges": {}, "human_by_judge": {}, "coverage": {}}
    for name, systems in coverage.items():
        system = systems[index]
        columns["human_by_judge"][name], columns["judges"][name] = system.means()
        columns["coverage"][name] = [system.covered, of]
    return columns


def exclusion_reason(system: SystemRows, *, min_outputs: int, min_coverage: float) -> str | None:
    """Why SYSTEM cannot take part in a correlation, or None when it can."""
    if system.covered == 0:
        return f"none of its {system.outputs} outputs is labelled by both the humans and the judge"
    if system.covered < min_outputs:
        return (f"{system.covered} of its {system.outputs} outputs labelled by both; a system needs at least "
                f"{min_outputs} (option min_system_outputs)")
    if system.evidence < min_coverage * system.outputs:
        return (f"{system.evidence} of its {system.outputs} outputs judged by both sides, under "
                f"{min_coverage:.0%} (option min_system_coverage)")
    return None


def _included_means(system: SystemRows | SystemSides) -> tuple[float, float]:
    """SYSTEM's (human, judge) means; a system a correlation includes (no exclusion) has outputs on both sides."""
    human, judge = system.means()
    assert human is not None and judge is not None
    return human, judge


def system_level_block(systems: Sequence[SystemRows | SystemSides], *, min_outputs: int = MIN_SYSTEM_OUTPUTS,
                       min_coverage: float = MIN_SYSTEM_COVERAGE, topics_word: str = "topics",
                       rbo_p: float = rank_agreement.RBO_P, top_k: int = rank_agreement.TOP_K) -> dict:
    """Kendall's tau-b, Spearman's rho and Pearson's r between the systems' human and judge scores, with 95%
    intervals (bootstrap over topics), their mean absolute difference, the systems left out and why, and why a
    statistic is undefined."""
    included, excluded = [], []
    for system in systems:
        reason = system.exclusion(min_outputs=min_outputs, min_coverage=min_coverage)
        if reason:
            excluded.append({"system": system.system, "reason": reason})
        else:
            included.append(system)
    means = [_included_means(system) for system in included]
    human = [h for h, _ in means]
    judge = [j for _, j in means]
    block = {
        "n_systems": len(included),
        "kendall_tau_b": correlation.kendall_tau_b(human, judge),
        "spearman": correlation.spearman(human, judge),
        "pearson": correlation.pearson(human, judge),
        # The mean absolute difference between the systems' human and judge scores (in accuracy: a share).
        "mae": float(np.mean(np.abs(np.subtract(human, judge)))) if included else None,
        "excluded": excluded,
        "small": 0 < len(included) < SMALL_SYSTEMS,
        "why": _undefined_why(included, human, judge, excluded),
    }
    block["ci_method"] = uncertainty.bootstrap_method(f"{topics_word}, every system's score recomputed")
    names = [system.system for system in included]
    block.update(rank_agreement.order_agreement(dict(zip(names, human)), dict(zip(names, judge)), p=rbo_p, k=top_k))
    swapped = retrieval.swapped_pairs(dict(zip(names, human)), dict(zip(names, judge)))
    block.update(n_pairs=swapped["n_pairs"], n_swaps=swapped["n_swaps"],
                 swaps=[{"systems": swap["runs"], "human": swap["first"], "judge": swap["second"]}
                        for swap in swapped["swaps"]])
    matrices = topic_matrices(included)
    intervals = (system_order.system_correlation_intervals(*matrices, top={"p": rbo_p, "k": top_k})
                 if len(included) >= 2 else {})
    # Each with its interval, or None and why (too few systems or topics, all resamples equal): *_ci_note.
    uncertainty.put_order_intervals(block, intervals, ("kendall_tau_b", "spearman", "pearson", *rank_agreement.TOP_KEYS,
                                               "mae"),
                              systems=len(included), topics=matrices[0].shape[1], topics_word=topics_word)
    return block


def _undefined_why(included: Sequence[SystemRows | SystemSides], human: list, judge: list,
                   excluded: list) -> str | None:
    if len(included) < 2:
        left = f"; {len(excluded)} left out (see excluded)" if excluded else ""
        return f"{len(included)} system(s) with enough outputs labelled by both sides, at least 2 needed{left}"
    if len(set(human)) < 2:
        return "every system has the same score under the humans"
    if len(set(judge)) < 2:
        return "every system has the same score under the judge"
    return None


def topic_matrices(systems: Sequence[SystemRows | SystemSides]) -> tuple[np.ndarray, ...]:
    """(human sums, judge sums, human counts, judge counts), each systems x topics, over each side's outputs."""
    sides = [system.sides() for system in systems]
    topics = {topic: i for i, topic in enumerate(dict.fromkeys(t for pair in sides for rows in pair for t, _ in rows))}
    matrices = [np.zeros((len(systems), len(topics))) for _ in range(4)]
    for row, pair in enumerate(sides):
        for side, rows in enumerate(pair):
            sums, counts = matrices[side], matrices[side + 2]
            for topic, value in rows:
                sums[row, topics[topic]] += value
                counts[row, topics[topic]] += 1
    return tuple(matrices)
