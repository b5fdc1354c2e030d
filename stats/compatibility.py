"""Compatibility (Clarke, Vtyurina and Smucker: "Offline evaluation by maximum similarity to an ideal ranking",
CIKM 2020; "Assessing top-k preferences", TOIS 2021): how close a run's ranking of a topic is to the best ideal
ranking the qrels allow, by rank-biased overlap.

Computed as the authors' reference script (github.com/claclark/Compatibility, compatibility.py) computes it, which
the ir_measures `Compat` measure does not reproduce (it counts topics the reference leaves out, and differs per topic):
- the ideal ranking holds the topic's documents graded above 0 (a document graded twice keeps its higher grade),
  best grade first; among equal grades, in the order the run ranks them, those it does not rank last;
- the run is ordered by score, highest first, equal scores by document id (ascending, as text);
- RBO is summed to depth 1000 with weights p^i, divided by the sum of those weights, then normalised by the ideal
  ranking's RBO with itself (the reference's NORMALIZE, its default since the TOIS paper);
- a topic counts when the run ranks it and the qrels grade some document of it above 0; the mean is over those.

Numbers computed here match the reference script to 1e-12 (tests/stats/test_compatibility.py).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

# The reference script's default persistence ("roughly equivalent to NSCG@20") and depth.
COMPAT_P = 0.95
DEPTH = 1000


def _overlap_rbo(first: list[str], second: list[str], weights: np.ndarray) -> float:
    """sum_i w_i |first[:i+1] & second[:i+1]| / (i+1), over the sum of the weights: the reference's rbo().

    A document in both lists joins the overlap at the depth where the later of its two ranks is reached, so the
    overlap at each depth is a cumulative count of those depths."""
    rank_second = {doc: i for i, doc in enumerate(second[:DEPTH])}
    joined = [max(i, rank_second[doc]) for i, doc in enumerate(first[:DEPTH]) if doc in rank_second]
    overlap = np.cumsum(np.bincount(np.asarray(joined, dtype=int), minlength=DEPTH)[:DEPTH])
    return float(np.sum(weights * overlap / np.arange(1, DEPTH + 1)) / weights.sum())


def compatibility_per_topic(qrels: Mapping[str, Mapping[str, float]], run: dict[str, dict[str, float]], *,
                            p: float = COMPAT_P) -> dict[str, float]:
    """{topic: compatibility} of RUN ({topic: {doc: score}}) under QRELS ({topic: {doc: grade}}) with persistence P,
    for the topics the run ranks that have a document graded above 0."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"the persistence of compatibility must be between 0 and 1, not {p!r}")
    weights = p ** np.arange(DEPTH, dtype=float)
    out = {}
    for topic, scores in run.items():
        grades = {doc: grade for doc, grade in (qrels.get(topic) or {}).items() if grade > 0}
        if not grades:
            continue
        ranking = sorted(scores, key=lambda doc: (-scores[doc], doc))
        rank = {doc: i for i, doc in enumerate(ranking)}
        ideal = sorted(grades, key=lambda doc: (-grades[doc], rank.get(doc, len(ranking))))
        best = _overlap_rbo(ideal, ideal, weights)
        out[topic] = _overlap_rbo(ranking, ideal, weights) / best if best > 0.0 else best
    return out


def compatibility(qrels: Mapping[str, Mapping[str, float]], run: dict[str, dict[str, float]], *,
                  p: float = COMPAT_P) -> float | None:
    """The mean compatibility of RUN over its topics that QRELS grade (compatibility_per_topic); None when none."""
    values = compatibility_per_topic(qrels, run, p=p)
    return float(np.mean(list(values.values()))) if values else None
