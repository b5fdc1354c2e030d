"""How much the verdicts on one unit disagree: what orders the adjudication queue (annotate.selectors.adjudication).

Pure functions, no Django: labels or orders in, a number out.

- Categorical verdicts (items): the Shannon entropy of the votes, in bits (scipy.stats.entropy of the label counts):
  0 when every vote is the same, 1 for an even split of two labels, log2(m) for an even split of m labels.
- Orders (answer_ranking topics): 1 - the mean Kendall tau-b (scipy) over every pair of orders, over the candidates
  both order: 0 when all orders agree, 1 when they are unrelated on average, up to 2 when they are reversed.
(A judge's confidence in a verdict, which breaks ties in the queue, is
annotate.selectors.adjudication.judge_confidence.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import combinations

from scipy.stats import entropy

from stats import correlation, uncertainty


def vote_entropy(labels: Sequence[Hashable]) -> float:
    """The entropy of LABELS' counts in bits; 0.0 for no labels or one label only."""
    counts = list(Counter(labels).values())
    if len(counts) < 2:
        return 0.0
    return float(entropy(counts, base=2))


def order_disagreement(orders: Sequence[dict[Hashable, float]]) -> float | None:
    """1 - the mean Kendall tau-b over every pair of ORDERS ({candidate: preference}, higher = better; ties are equal
    values), each pair over the candidates both order. None with fewer than two orders or no pair defined (fewer than
    two shared candidates, or a constant order)."""
    taus = []
    for first, second in combinations(orders, 2):
        shared = sorted((c for c in first if c in second), key=str)
        taus.append(correlation.kendall_tau_b([first[c] for c in shared], [second[c] for c in shared]))
    mean = uncertainty.mean_defined(taus)
    return None if mean is None else 1.0 - mean


def groups_as_order(groups: Sequence[Sequence[Hashable]]) -> dict[Hashable, float]:
    """A ranking given as tie groups, best first, as {candidate: preference} (the best group highest)."""
    return {candidate: -float(position) for candidate, position in correlation.tie_group_positions(groups).items()}


# --- The task types' rules (TaskTypeSpec.adjudication_disagreement, annotate.task_types.spec) ---
# Each takes HUMANS (the unit's current annotations as (label, value)), JUDGES ({judge: {item: verdict}}, a verdict
# having .label, .score and .confidence), the KINDS switched on, JUDGE (the judge of kind "judge"), NEEDED (the unit's
# k) and HUMAN_LABEL (the task type's rule for an item's human label), and gives {"kinds", "score", "confidence"} or
# None when no kind switched on is found.

HUMANS, JUDGE, JUDGES = "humans", "judge", "judges"  # annotate.adjudication_kinds.ADJUDICATION_KINDS


def items_disagreement(*, humans, judges, kinds, judge, needed, human_label) -> dict | None:
    """Items: "humans" when the human labels differ; "judge" when the human label (HUMAN_LABEL, once decided: not a tie,
    not open) differs from JUDGE's label; "judges" when the judges' labels differ (a judge with no label, a ranker's
    bare score, has no vote). The score is the entropy of the votes in bits: the human labels, plus JUDGE's label with
    "judge" on, plus every other judge's label with "judges" on; the confidence is the mean confidence of the judges
    in the kinds found."""
    labels = [label for label, _ in humans if label]
    verdicts = {name: next(iter(by_item.values())) for name, by_item in judges.items() if by_item}
    verdicts = {name: verdict for name, verdict in verdicts.items() if verdict.label}
    found, votes, involved = [], list(labels), {}
    if HUMANS in kinds and len(set(labels)) > 1:
        found.append(HUMANS)
    chosen = verdicts.get(judge) if judge and JUDGE in kinds and labels else None
    if chosen is not None:
        votes.append(chosen.label)
        human = human_label(labels, needed=needed)
        if human and human != chosen.label:  # None (a tie) and "" (still open) are no label
            found.append(JUDGE)
            involved[judge] = chosen
    if JUDGES in kinds:
        votes += [verdict.label for name, verdict in verdicts.items() if not (chosen is not None and name == judge)]
        if len({verdict.label for verdict in verdicts.values()}) > 1:
            found.append(JUDGES)
            involved.update(verdicts)
    if not found:
        return None
    confidences = [verdict.confidence for verdict in involved.values() if verdict.confidence is not None]
    return {"kinds": found, "score": vote_entropy(votes),
            "confidence": sum(confidences) / len(confidences) if confidences else None}


def rankings_disagreement(*, humans, judges, kinds, judge, needed, human_label) -> dict | None:
    """Ranked topics, per dimension, with the orders in play: the human rankings (value["rankings"]), plus JUDGE's
    scores with "judge" on, plus every judge's scores with "judges" on. A kind is found where its own orders are not all
    the same (order_disagreement above 0, averaged over the dimensions): "humans" between the human rankings, "judge"
    between each human ranking and JUDGE, "judges" between the judges. The score is order_disagreement over all the
    orders in play, averaged over the dimensions. A judge's scores carry no confidence here (None)."""
    rankings = [value["rankings"] for _, value in humans
                if isinstance(value, dict) and isinstance(value.get("rankings"), dict)]
    dimensions = sorted({name for ranking in rankings for name in ranking}) or ["overall"]
    scores = {name: {pk: verdict.score for pk, verdict in by_item.items() if verdict.score is not None}
              for name, by_item in judges.items()}
    scores = {name: order for name, order in scores.items() if len(order) > 1}
    chosen = scores.get(judge) if judge and JUDGE in kinds else None
    found: dict[str, list] = {}
    overall = []
    for dimension in dimensions:
        human_orders = [groups_as_order(r[dimension]) for r in rankings if isinstance(r.get(dimension), list)]
        in_play = list(human_orders)
        if HUMANS in kinds:
            found.setdefault(HUMANS, []).append(order_disagreement(human_orders))
        if chosen is not None and human_orders:
            in_play.append(chosen)
            found.setdefault(JUDGE, []).append(
                uncertainty.mean_defined([order_disagreement([order, chosen]) for order in human_orders]))
        if JUDGES in kinds:
            in_play += [order for name, order in scores.items() if order is not chosen]
            found.setdefault(JUDGES, []).append(order_disagreement(list(scores.values())))
        overall.append(order_disagreement(in_play))
    kinds_found = [kind for kind in (HUMANS, JUDGE, JUDGES)
                   if (uncertainty.mean_defined(found.get(kind, [])) or 0.0) > 1e-9]
    if not kinds_found:
        return None
    return {"kinds": kinds_found, "score": uncertainty.mean_defined(overall) or 0.0, "confidence": None}
