"""The report's adjudication block (report["adjudication"], every task type; README "Adjudication").

Which label the report uses: a unit's adjudicated verdict where it has one (the most recent current adjudication when
several adjudicators settled it), else the majority of its current annotations once decided (answer_ranking: the
adjudicated ranking, else the annotators' rankings; tasktypes.answer_ranking.report). How many units were adjudicated.
And
how each annotator and each judge agrees with the adjudicated labels, over the adjudicated units they judged:

- verdicts on items: n, the share agreeing with its 95% Wilson interval (statsmodels proportion_confint), and Cohen's
  kappa (stats.interrater.cohen_kappa) with a 95% percentile bootstrap interval over topics
  (stats.interrater.item_agreement_intervals); a graded report's judges by the grades it gives them (their own, or
  mapped from their scores);
- rankings of topics: Kendall's tau-b between each ranking and the adjudicated one, per topic and dimension, and its
  mean over topics with the intervals the ranking report gives (stats.uncertainty.topic_mean_summary).

The statistics are the pure functions below; the task types' report builders call the blocks with what they have read.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from reports.selectors import HumanLabels, RankingData
from stats import correlation, interrater, uncertainty
from stats.interrater import WILSON, share_with_interval
from stats.ratings import groups_of

LABEL_RULE_ITEMS = "adjudicated where present, else the majority of the current annotations"
LABEL_RULE_RANKING = ("the adjudicated ranking where present, else the annotators' rankings (one annotator's, or the "
                      "mean over several)")


# --- Pure statistics ---


def agreement_with_reference(labels: Sequence[Hashable], reference: Sequence[Hashable],
                             clusters: Sequence[Hashable]) -> dict:
    """How LABELS agree with the REFERENCE labels of the same units (CLUSTERS: each unit's topic, what the kappa
    interval resamples): {"n", "agree", "share", "share_ci95", "kappa", "kappa_ci95"}; kappa and its interval are None
    where undefined (fewer than two units, one label throughout)."""
    n = len(labels)
    agree = sum(a == b for a, b in zip(labels, reference, strict=True))
    row = {"n": n, "agree": agree, **share_with_interval(agree, n)}
    row["kappa"] = interrater.cohen_kappa(list(labels), list(reference))
    row["kappa_ci95"] = (interrater.item_agreement_intervals(list(labels), list(reference),
                                                             list(clusters))["cohen_kappa"]
                         if row["kappa"] is not None else None)
    return row


def ranking_agreement_with_reference(pairs: Sequence[tuple[str, Sequence, Sequence]]) -> dict:
    """Kendall's tau-b between each ranking and its reference, both tie groups best first: PAIRS of (topic, ranking,
    reference). {"n": topics with a defined tau, "per_topic": [{"topic", "kendall_tau_b"}], and the mean over topics
    with its intervals (topic_mean_summary)}."""
    per_topic: list[dict[str, Any]] = [
        {"topic": topic, "kendall_tau_b": correlation.ranking_ranking_tau_b(ranking, reference)}
        for topic, ranking, reference in pairs]
    summary = uncertainty.topic_mean_summary([row["kendall_tau_b"] for row in per_topic])
    return {**summary, "per_topic": per_topic}


# --- The blocks, from what the report builders have read ---


def adjudication_items_block(*, humans: HumanLabels, judges: list[tuple[str, str, dict[int, str]]]) -> dict:
    """The block from the campaign's HUMANS labels and its JUDGES as (name, family, {item: label})."""
    settled = sorted(humans.adjudicated_items)
    reference = {item: humans.item_label[item] for item in settled}

    def row(name: str, pairs: list[tuple[str, int]]) -> dict:
        return {"name": name, **agreement_with_reference([label for label, _ in pairs],
                                                         [reference[item] for _, item in pairs],
                                                         [humans.item_topic.get(item, item) for _, item in pairs])}

    # Each annotator's ratings of the adjudicated items, in unit order (the rows are; the sort by rater is stable).
    ratings = humans.ratings
    rows = np.flatnonzero(np.isin(ratings.item, settled))
    rows = rows[np.argsort(ratings.rater[rows], kind="stable")]
    _, starts, sizes = groups_of(ratings.rater[rows])
    annotators = []
    for start, size in zip(starts.tolist(), sizes.tolist(), strict=True):
        own = rows[start:start + size]
        labels = [ratings.labels[code] for code in ratings.label[own].tolist()]
        annotators.append(row(ratings.raters[ratings.rater[own[0]]],
                              list(zip(labels, ratings.item[own].tolist(), strict=True))))
    judge_rows = [dict(row(name, [(labels[item], item) for item in settled if item in labels]), family=family)
                  for name, family, labels in judges]
    return {
        "label_rule": LABEL_RULE_ITEMS,
        "units_labelled": len(humans.item_label),
        "adjudicated": len(settled),
        "annotators": annotators,
        "judges": judge_rows,
        "method": f"over the adjudicated units each rater judged: share agreeing with the adjudicated label, {WILSON}; "
                  f"Cohen's kappa, {uncertainty.bootstrap_method('topics')}",
    }


def adjudication_ranking_block(data: RankingData) -> dict:
    """The block for answer_ranking: tau-b against the adjudicated ranking, per annotator and per judge."""
    settled = [topic for topic in data.topics if topic.adjudicated]
    primary = data.dimensions[0]

    def summary(pairs_by_dimension: dict[str, list]) -> dict:
        by_dimension = {dimension: ranking_agreement_with_reference(pairs)
                        for dimension, pairs in pairs_by_dimension.items()}
        main = by_dimension.get(primary) or ranking_agreement_with_reference([])
        return {**main, "by_dimension": by_dimension}

    annotators = []
    for name in data.annotators:
        pairs = {dimension: [(topic.external_id, topic.rankings[name][dimension], topic.adjudicated[dimension])
                             for topic in settled if topic.rankings.get(name, {}).get(dimension)
                             and topic.adjudicated.get(dimension)] for dimension in data.dimensions}
        annotators.append({"name": name, **summary(pairs)})
    judges = []
    for judge in data.judges:
        pairs = {}
        for dimension in data.dimensions:
            pairs[dimension] = []
            for topic in settled:
                scores = {c.pk: judge.scores[c.pk] for c in topic.candidates if c.pk in judge.scores}
                if len(scores) > 1 and topic.adjudicated.get(dimension):
                    # The judge's scores as tie groups, best first (equal scores tied).
                    groups = [[pk for pk in scores if scores[pk] == value]
                              for value in sorted(set(scores.values()), reverse=True)]
                    pairs[dimension].append((topic.external_id, groups, topic.adjudicated[dimension]))
        judges.append({"name": judge.name, "family": judge.family, **summary(pairs)})
    return {
        "label_rule": LABEL_RULE_RANKING,
        "units_labelled": sum(1 for topic in data.topics if topic.rankings or topic.adjudicated),
        "adjudicated": len(settled),
        "dimension": primary,
        "annotators": annotators,
        "judges": judges,
        "method": "Kendall's tau-b against the adjudicated ranking per topic, over the candidates both rank; the mean "
                  f"over topics with its {uncertainty.bootstrap_method('topics')} (t-based ci95 beside it)",
    }
