"""An answer's nugget scores and a run's mean over topics (docs/task-types/nugget_evaluation.md says what each means).

Pure numpy, no Django: marks in, numbers out. Marks are integer codes (MARK_CODES: support 0, partial support 1, not
supported 2, UNMARKED -1), one row per answer and one column per nugget of the topic's frozen list, so a topic's
answers are scored at once. An unmarked nugget (a judge's failed one) is left out of an answer's score: it is neither
supported nor unsupported, only unknown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from stats import resampling
from stats.uncertainty import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from tasktypes.nugget_evaluation.layout import NOT_SUPPORT, PARTIAL, SUPPORT, VITAL

MARK_CODES = {SUPPORT: 0, PARTIAL: 1, NOT_SUPPORT: 2}
UNMARKED = -1
# The scores, in the order the report shows them. "vital_strict" is the headline (TREC 2024 RAG's V_strict).
SCORES = ("all_strict", "vital_strict", "all", "vital", "weighted")
HEADLINE = "vital_strict"
# A mark's credit, by code (support, partial, not): strict counts only support; the others half for partial support.
STRICT_CREDIT = np.array([1.0, 0.0, 0.0])
CREDIT = np.array([1.0, 0.5, 0.0])
# The weighted score's weight of a nugget by importance: vital 1, okay 0.5.
VITAL_WEIGHT, OKAY_WEIGHT = 1.0, 0.5


def marks_codes(order: Sequence[str], marks: dict | None) -> np.ndarray:
    """MARKS {nugget id: mark} over the nuggets in ORDER as codes (UNMARKED where a nugget has no known mark)."""
    marks = marks or {}
    return np.fromiter((MARK_CODES.get(str(marks.get(nugget)), UNMARKED) for nugget in order), dtype=np.int8,
                       count=len(order))


def answer_scores(codes: np.ndarray, vital: np.ndarray) -> dict[str, np.ndarray]:
    """Every score of each answer: CODES (answers x nuggets, MARK_CODES or UNMARKED), VITAL (nuggets,) whether each
    nugget is vital. name -> (answers,) floats, NaN where the score's denominator is 0 (no vital nugget marked, or
    no nugget marked at all)."""
    codes = np.atleast_2d(np.asarray(codes, dtype=np.int64))
    vital = np.asarray(vital, dtype=bool)
    marked = codes >= 0
    safe = np.where(marked, codes, 2)
    strict = np.where(marked, STRICT_CREDIT[safe], 0.0)
    half = np.where(marked, CREDIT[safe], 0.0)
    weight = np.where(vital, VITAL_WEIGHT, OKAY_WEIGHT)[np.newaxis, :] * marked
    on_vital = marked & vital[np.newaxis, :]
    count, count_vital = marked.sum(axis=1), on_vital.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "all_strict": strict.sum(axis=1) / count,
            "vital_strict": (strict * on_vital).sum(axis=1) / count_vital,
            "all": half.sum(axis=1) / count,
            "vital": (half * on_vital).sum(axis=1) / count_vital,
            "weighted": (half * weight).sum(axis=1) / weight.sum(axis=1),
        }


def answer_score_dict(nuggets: Sequence[dict], marks: dict) -> dict[str, float | None]:
    """One answer's scores: NUGGETS the frozen list [{"id", "importance"}], MARKS {nugget id: mark}; None where
    undefined."""
    codes = marks_codes([nugget["id"] for nugget in nuggets], marks)
    vital = np.array([nugget["importance"] == VITAL for nugget in nuggets], dtype=bool)
    found = answer_scores(codes[np.newaxis, :], vital)
    return {name: (None if np.isnan(values[0]) else float(values[0])) for name, values in found.items()}


def run_topic_sums(values: np.ndarray, runs: np.ndarray, topics: np.ndarray, *, n_runs: int,
                   n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(sums, counts), each runs x topics: the defined VALUES (one per answer, NaN where undefined) of each run on
    each topic, and how many. With one answer per run and topic a run's sum over topics over its count is its mean
    over the topics where its score is defined."""
    values = np.asarray(values, dtype=float)
    defined = np.isfinite(values)
    cell = runs[defined] * n_topics + topics[defined]
    sums = np.bincount(cell, weights=values[defined], minlength=n_runs * n_topics).reshape(n_runs, n_topics)
    counts = np.bincount(cell, minlength=n_runs * n_topics).reshape(n_runs, n_topics).astype(float)
    return sums, counts


def run_means(sums: np.ndarray, counts: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES,
              seed: int = BOOTSTRAP_SEED) -> tuple[list[float | None], list[list[float] | None], list[int]]:
    """Each run's mean over topics (SUMS and COUNTS runs x topics, run_topic_sums'), its 95% percentile bootstrap
    interval resampling topics (every run's score recomputed on the same draw of topics, stats.resampling), and the
    topics it has a score on. None where a run has no score; a run absent from a resample sits that resample out."""
    n_runs = sums.shape[0]
    total, count = sums.sum(axis=1), counts.sum(axis=1)
    means = [float(total[r] / count[r]) if count[r] else None for r in range(n_runs)]
    topics = [int(n) for n in (counts > 0).sum(axis=1)]
    rows = np.concatenate([sums, counts]).T  # a topic's row: every run's sum there, then every run's count

    def statistic(drawn: np.ndarray) -> np.ndarray:
        return (drawn[:, :n_runs] / drawn[:, n_runs:]).T

    intervals = resampling.sum_bootstrap(rows, statistic, resamples=resamples, seed=seed) if n_runs else []
    return means, intervals, topics
