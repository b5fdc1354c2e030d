"""IR measures of runs under qrels (trec_eval's definitions through ir_measures), their names on leaderboards, and
how two qrels order the same runs (correlations with intervals, relative deltas, swapped pairs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import ir_measures
import numpy as np

from stats import resampling
from stats.checks import finite
from stats.compatibility import COMPAT_P, compatibility_per_topic
from stats.system_order import system_correlation_intervals
from stats.uncertainty import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

# Report key -> the ir_measures measure it is; "{rel}" stands for the lowest relevant grade (the binary measures:
# trec_eval's -l, 1 by default on a 0/1/2 scale, 2 on TREC's 0-3). nDCG uses the grades as gains.
IR_MEASURES = {"ndcg_cut_10": "nDCG@10", "map": "AP(rel={rel})", "p_10": "P(rel={rel})@10"}
# What a TREC Deep Learning or RAG organiser reports beside those: deeper nDCG, recall, and Judged@10, the share of a
# run's first 10 documents (of those it ranks, if fewer) that have a grade in the qrels, where holes in a pool show.
TRACK_MEASURES = {"ndcg_cut_20": "nDCG@20", "ndcg_cut_100": "nDCG@100", "recall_100": "R(rel={rel})@100",
                  "recall_1000": "R(rel={rel})@1000", "judged_10": "Judged@10"}
# Clarke et al.'s compatibility, as its authors' script computes it (stats.compatibility; ir_measures' Compat
# gives other numbers), with the persistence the caller gives.
COMPAT = "compat"
RUN_MEASURES = (*IR_MEASURES, *TRACK_MEASURES, COMPAT)  # every measure run_measures knows, in the reports' order
# trec_eval's names of the measures it shares with RUN_MEASURES. Its relevance level (-l) is not in its output: a
# trec_eval leaderboard is read at the campaign's relevant_from, as is an ir_measures name without `rel=`.
TREC_EVAL_NAMES = {"ndcg_cut_10": "ndcg_cut_10", "map": "map", "p_10": "P_10", "ndcg_cut_20": "ndcg_cut_20",
                   "ndcg_cut_100": "ndcg_cut_100", "recall_100": "recall_100", "recall_1000": "recall_1000"}
LEADERBOARD_ALL = "all"  # a leaderboard line's topic for the run's mean over topics (TREC AutoJudge)


def leaderboard_names(*, relevant_from: int, compat_p: float = COMPAT_P) -> dict[str, str]:
    """Report key -> the measure's name as ir_measures writes it (nDCG@10, AP(rel=2), P(rel=2)@10, R(rel=2)@100,
    Judged@10, Compat(p=0.8)): the names a leaderboard file (TREC AutoJudge) gives its measures, so other tools read
    it. The one mapping: the report's export and the trec-leaderboard import both use it."""
    specs = {**IR_MEASURES, **TRACK_MEASURES, COMPAT: f"Compat(p={compat_p:g})"}
    return {key: str(ir_measures.parse_measure(specs[key].format(rel=relevant_from))) for key in RUN_MEASURES}


def leaderboard_measure(name: str, *, relevant_from: int, compat_p: float = COMPAT_P) -> tuple[str | None, str]:
    """(report key, "") for a leaderboard's measure NAME: its ir_measures name (leaderboard_names), the same
    without `rel=` or `p=`, or its trec_eval name, in any case; else (None, why it is not one Concord computes,
    worded to follow "lines")."""
    names = leaderboard_names(relevant_from=relevant_from, compat_p=compat_p)
    known = {}
    for key, exact in names.items():
        bare = re.sub(r"\((rel|p)=[^)]*\)", "", exact)
        for alias in (exact, bare, TREC_EVAL_NAMES.get(key, exact)):
            known[alias.lower()] = key
    found = known.get(name.lower())
    if found is not None:
        return found, ""
    level = re.search(r"rel=(\d+)", name)
    if level and known.get(re.sub(r"\(rel=\d+\)", "", name).lower()):
        return None, (f"naming a measure at relevance level {level.group(1)}, not the campaign's relevant_from "
                      f"({relevant_from})")
    if name.lower().startswith("compat"):
        return None, f"naming compatibility at another persistence than the campaign's compat_p ({compat_p:g})"
    return None, "naming a measure Concord does not compute"


def _ir_measures(keys: Sequence[str], relevant_from: int) -> dict:
    """ir_measures measure -> report key, for the ir_measures ones among KEYS."""
    specs = {**IR_MEASURES, **TRACK_MEASURES}
    return {ir_measures.parse_measure(specs[key].format(rel=relevant_from)): key for key in keys if key in specs}


def run_measures_per_topic(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                           relevant_from: int = 1, measures: Sequence[str] = tuple(IR_MEASURES),
                           compat_p: float = COMPAT_P) -> dict[str, dict[str, float]]:
    """{measure: {topic: value}} of RUN ({topic: {doc: score}}) under QRELS ({topic: {doc: grade}}) for each of
    MEASURES (keys of RUN_MEASURES; default nDCG@10, MAP and P@10), per topic: what a bootstrap over topics resamples.

    trec_eval's rule for the ir_measures ones (ir_measures.iter_calc): a topic counts when the run ranks it and the
    qrels grade some document of it; unjudged documents are not relevant. Compatibility (COMPAT, persistence
    COMPAT_P) keeps its reference's rule: a topic counts when the qrels grade some document of it above 0."""
    unknown = [key for key in measures if key not in RUN_MEASURES]
    if unknown:
        raise ValueError(f"no such run measure: {', '.join(unknown)}")
    out: dict[str, dict[str, float]] = {key: {} for key in measures}
    judged = {topic: docs for topic, docs in qrels.items() if docs and topic in run}
    by_measure = _ir_measures(measures, relevant_from)
    if judged and by_measure:
        for metric in ir_measures.iter_calc(list(by_measure), judged, {topic: run[topic] for topic in judged}):
            value = finite(metric.value)
            if value is not None:
                out[by_measure[metric.measure]][metric.query_id] = value
    if COMPAT in out:
        out[COMPAT] = {topic: value for topic, value in compatibility_per_topic(judged, run, p=compat_p).items()
                       if finite(value) is not None}
    return out


def mean_grade_per_topic(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                         levels: Sequence[int], depth: int = 10) -> dict[str, float]:
    """{topic: the mean grade of RUN's first DEPTH documents} under QRELS (unjudged documents, and places the run
    leaves empty, grade 0; the qrels' topics the run ranks): the sum over the grades r above 0 of LEVELS of
    ir_measures' P(rel=r)@DEPTH, the share of the first DEPTH documents graded r or more."""
    judged = {topic: docs for topic, docs in qrels.items() if docs and topic in run}
    out: dict[str, float] = {}
    measures = [ir_measures.parse_measure(f"P(rel={level})@{depth}") for level in levels if level > 0]
    if judged and measures:
        for metric in ir_measures.iter_calc(measures, judged, {topic: run[topic] for topic in judged}):
            out[metric.query_id] = out.get(metric.query_id, 0.0) + float(metric.value)
    return out


def run_measures_mean(per_topic: dict[str, dict[str, float]]) -> dict[str, float | None]:
    """Each measure's mean over its topics (run_measures_per_topic's PER_TOPIC); None where no topic counts."""
    return {key: float(np.mean(list(values.values()))) if values else None for key, values in per_topic.items()}


def run_measures(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                 relevant_from: int = 1, measures: Sequence[str] = tuple(IR_MEASURES),
                 compat_p: float = COMPAT_P) -> dict[str, float | None]:
    """{measure: mean} of RUN under QRELS for each of MEASURES: the mean over the topics that count
    (run_measures_per_topic says which), as trec_eval's summary line gives it; None where no topic counts."""
    return run_measures_mean(run_measures_per_topic(qrels, run, relevant_from=relevant_from, measures=measures,
                                                    compat_p=compat_p))


def shared_topics(human: dict[str, dict[str, float]], judge: dict[str, dict[str, float]]) -> list[str]:
    """The topics run_correlation_intervals resamples: those with a value under both qrels for some run."""
    return sorted({t for run in set(human) & set(judge) for t in human[run] if t in judge[run]})


def run_correlation_intervals(human: dict[str, dict[str, float]], judge: dict[str, dict[str, float]], *,
                              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                              top: dict | None = None) -> dict:
    """Intervals of tau-b, rho and r between runs' scores under two qrels, resampling topics and recomputing each
    run's mean (system_correlation_intervals). HUMAN[run][topic] and JUDGE[run][topic] are per-topic values."""
    runs = sorted(set(human) & set(judge))
    topics = shared_topics(human, judge)
    h = np.zeros((len(runs), len(topics)))
    j = np.zeros_like(h)
    counts = np.zeros_like(h)
    column = {topic: i for i, topic in enumerate(topics)}
    for row, run in enumerate(runs):
        for topic, value in human[run].items():
            if topic in judge[run]:
                h[row, column[topic]], j[row, column[topic]], counts[row, column[topic]] = value, judge[run][topic], 1
    return system_correlation_intervals(h, j, counts, resamples=resamples, seed=seed, top=top)


def relative_delta_interval(values: dict[str, dict[str, float]], tagged: set[str], *,
                            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% interval of relative_delta between the runs in TAGGED and the others, resampling topics and recomputing
    each run's mean: VALUES[run][topic] is a run's per-topic measure."""
    runs = sorted(values)
    topics = sorted({topic for run in runs for topic in values[run]})
    if len(topics) < 2 or not any(run in tagged for run in runs) or all(run in tagged for run in runs):
        return None
    column = {topic: i for i, topic in enumerate(topics)}
    table = np.full((len(runs), len(topics)), np.nan)
    for row, run in enumerate(runs):
        for topic, value in values[run].items():
            table[row, column[topic]] = value
    group = np.array([run in tagged for run in runs])

    def statistic(sums: np.ndarray) -> np.ndarray:
        means = _run_means(sums, len(runs))  # a run with no judged topic drawn: NaN, left out
        a, b = np.nanmean(means[:, group], axis=1), np.nanmean(means[:, ~group], axis=1)
        return 200.0 * (a - b) / np.where(a + b == 0, np.nan, a + b)

    return resampling.sum_bootstrap(_topic_rows(table), statistic, resamples=resamples, seed=seed)[0]


def _topic_rows(table: np.ndarray) -> np.ndarray:
    """A runs x topics table of per-topic measures (NaN where a run has none) as one row per topic: the runs' values
    (0 for none), then which runs have one."""
    defined = np.isfinite(table)
    return np.concatenate([np.where(defined, table, 0.0), defined.astype(float)]).T


def _run_means(sums: np.ndarray, runs: int) -> np.ndarray:
    """(resamples, runs): each run's mean over the drawn topics it has, from the sums of _topic_rows; NaN for a run
    none of whose topics was drawn."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, :runs] / sums[:, runs:]


def run_mean_intervals(values: dict[str, dict[str, float]], *, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> dict[str, list[float] | None]:
    """95% intervals of each run's mean measure, resampling topics (the same draws for every run, as the run orders'
    intervals do) and averaging each run over the drawn topics it has: VALUES[run][topic] is a run's per-topic
    measure. A resample that draws none of a run's topics leaves it out of that run's interval."""
    runs = sorted(values)
    topics = sorted({topic for run in runs for topic in values[run]})
    if not runs or len(topics) < 2:
        return {run: None for run in runs}
    column = {topic: i for i, topic in enumerate(topics)}
    table = np.full((len(runs), len(topics)), np.nan)
    for row, run in enumerate(runs):
        for topic, value in values[run].items():
            table[row, column[topic]] = value

    intervals = resampling.sum_bootstrap(_topic_rows(table), lambda sums: _run_means(sums, len(runs)).T,
                                         resamples=resamples, seed=seed)
    return dict(zip(runs, intervals, strict=True))


def relative_delta(group: Sequence[float], others: Sequence[float]) -> float | None:
    """Relative Δ = 2 (M_group - M_others) / (M_group + M_others) x 100 %, M the mean of each set (Yang & Lin)."""
    if not group or not others:
        return None
    a, b = float(np.mean(group)), float(np.mean(others))
    if a + b == 0:
        return None
    return finite(200.0 * (a - b) / (a + b))


def swapped_pairs(first: Mapping[str, float | None], second: Mapping[str, float | None]) -> dict:
    """The pairs of systems whose order two scorings disagree on: {"n_pairs", "n_swaps", "swaps"}.

    FIRST and SECOND map a system to its score under each (the human qrels and a judge's); a pair counts when both
    of its systems have both scores, and swaps when one system is strictly ahead under FIRST and strictly behind
    under SECOND (a tie on either side is no swap: Kendall's tau-b counts it apart). Each swap is {"runs": [a, b],
    "first": [a's, b's], "second": [a's, b's]} with a the one ahead under FIRST; the largest gaps under FIRST first,
    as those are the swaps a reader should doubt the judge on.
    """
    firsts = {name: score for name, score in first.items() if score is not None}
    seconds = {name: score for name, score in second.items() if score is not None}
    names = sorted(firsts.keys() & seconds.keys())
    swaps: list[dict[str, Any]] = []
    for index, a in enumerate(names):
        for b in names[index + 1:]:
            if (firsts[a] - firsts[b]) * (seconds[a] - seconds[b]) < 0:
                ahead, behind = (a, b) if firsts[a] > firsts[b] else (b, a)
                swaps.append({"runs": [ahead, behind], "first": [firsts[ahead], firsts[behind]],
                              "second": [seconds[ahead], seconds[behind]]})
    swaps.sort(key=lambda swap: (-(swap["first"][0] - swap["first"][1]), swap["runs"]))
    return {"n_pairs": len(names) * (len(names) - 1) // 2, "n_swaps": len(swaps), "swaps": swaps}
