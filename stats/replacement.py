"""May a judge replace an annotator? Two published tests, from every annotator's own labels and the judge's.

The alternative annotator test (Calderon, Reichart and Dror, ACL 2025). Each annotator j is left out in turn. On each
item j labelled that at least one other annotator labelled too, the judge and j are each scored by how well they match
the *other* annotators' labels of the item (the share equal, for labels; minus the root mean squared distance, for a
numeric scale). The judge wins the item when its score is at least j's, j wins when j's is at least the judge's (a
tie is a win for both). rho_j, the judge's advantage probability against j, is the share of j's items the judge wins.
Items the others cannot decide are not counted (a departure from the published procedure, the same for every
annotator): on an item where the other annotators' labels give every label in use the same score (two labels, the
others split evenly) the judge and j tie whatever they say, so the item tells nothing about either; it only pulls j's
wins minus the judge's towards 0, below any epsilon, so that the more the others split, the easier the judge passes.
An annotator sent mostly such items (a third annotator sent the items the first two split on: a selected sample,
stats.selection) would otherwise hand the judge a near-certain win. On a numeric scale the squared distance always
prefers the grades nearest the others' mean: an item is undecidable only when the grades in use are one, or two that
the others' mean falls halfway between. Where nothing is undecidable (any odd number of others on two labels, say)
the figures are the published procedure's.
For each j a one-sided one-sample t-test (scipy) asks whether j's wins minus the judge's wins average below epsilon
(H0: they average epsilon or more, the judge is worse than j by epsilon or more); epsilon is the cost-benefit margin
the researcher grants the judge for being cheaper (the authors' rule of thumb: 0.2 for experts, 0.15 for trained
annotators, 0.1 for crowd workers). The annotators' p-values are corrected together by Benjamini-Yekutieli at
level q = 0.05 (statsmodels multipletests, fdr_by). The winning rate is the share of annotators whose null hypothesis
is rejected; the judge may replace the annotators when it is at least 0.5. The average advantage probability (the
mean of rho_j) compares judges. An annotator with fewer than MIN_ITEMS_PER_ANNOTATOR such items (decidable ones) is
left out of the test, with the reason (the t-test wants that many), and the test needs MIN_ANNOTATORS annotators and
MIN_ITEMS items: with fewer it is not run and says what is missing. The verdict is also given at each of EPSILONS,
the same p-values' tests against other margins, since the choice of epsilon often decides it.

The human-likeness z-score (Han et al. 2025, "Judge's Verdict"): the judge's mean Cohen's kappa with each annotator,
placed in the distribution of the annotators' kappas with each other, z = (mean judge-human kappa - mean human-human
kappa) / standard deviation of the human-human kappas. |z| <= 1 reads as within the humans' spread; z > 1 as agreeing
with the humans more than they agree with each other; z < -1 as below them. It needs MIN_ANNOTATORS annotators (three
pairs at least, for a standard deviation). An annotator who judged a selected sample is left out of it altogether:
their kappas with the others, and the judge's with them, are over the items the others split on, not comparable
with kappas over a random sample, and they would widen the humans' spread and so shrink z.

Intervals: the average advantage probability, each rho_j (as a share, Wilson) and z carry 95% intervals; the
average and z by a percentile bootstrap over items (1000 resamples, seed 0), every kappa and every rho_j computed
again on each resample's items.

The labels come as rows (RaterLabels: item, annotator, label code), as reports.selectors holds them, so that a
campaign of a million labels, or of thousands of annotators who each label a few items (an arena), costs array
operations over its rows and no table of every item by every annotator. Pure functions, no Django (STYLE.md).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from stats import batch_stats, resampling
from stats.checks import finite
from stats.distinct import distinct, lookup, narrow, rows_distinct, text_order
from stats.quiet import quiet

EPSILON = 0.2  # the authors' rule of thumb for expert annotators; campaign option alt_test_epsilon
FDR_Q = 0.05
PASS_RATE = 0.5
MIN_ANNOTATORS = 3
MIN_ITEMS = 50
MIN_ITEMS_PER_ANNOTATOR = 30
# Two raters count in the human-likeness z when they share this many items (a kappa over fewer is noise).
MIN_PAIR_ITEMS = 10
# At most this many numbers in a bootstrap's rows (items x annotators; classes of items x rater pairs x cells): 160 MB.
MAX_BOOTSTRAP_CELLS = 20_000_000
HUMAN_LIKE_Z = 1.0
# The margins every report gives the verdict at, beside the campaign's own: the authors' rule of thumb for crowd
# workers (0.1) and experts (0.2), and a stricter one.
EPSILONS = (0.05, 0.1, 0.2)
ALT_TEST_METHOD = ("alternative annotator test (Calderon, Reichart and Dror 2025): each annotator left out in turn, "
                   "one-sided one-sample t-test (scipy) per annotator, Benjamini-Yekutieli correction at q = 0.05 "
                   "(statsmodels); winning rate = share of annotators rejected, passing at 0.5 or more")
BOOTSTRAP_METHOD = (f"95% percentile bootstrap over items ({resampling.RESAMPLES} resamples, seed {resampling.SEED})")

Labels = dict[Hashable, Hashable]  # item -> label


@dataclass(frozen=True)
class RaterLabels:
    """Annotators' labels as rows, and a judge's: row r is annotator RATER[r]'s label LABEL[r] (a position in LABELS)
    of item ITEM[r] (a position in ITEMS); JUDGE[i] is the judge's label of item i, -1 where it has none. LABELS are
    sorted (as numbers when NUMERIC, else as text); an (item, annotator) has one row at most."""

    item: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    judge: np.ndarray
    items: list
    raters: list[str]
    labels: list
    numeric: bool = False

    @functools.cached_property
    def item_lookup(self) -> tuple[np.ndarray, np.ndarray]:
        """(ITEMS sorted, each one's position in ITEMS): found once for these rows, whatever judge comes beside them
        (with_judge_coded)."""
        ids = np.asarray(self.items)
        order = np.argsort(ids, kind="stable")
        return ids[order], order


def rater_labels(items: Sequence[Hashable] | np.ndarray, raters: Sequence[int] | np.ndarray,
                 values: Sequence | np.ndarray, names: list[str], judge: Labels, *,
                 numeric: bool = False) -> RaterLabels:
    """RaterLabels from one row per label: ITEMS[r] the item's id, RATERS[r] the annotator's position in NAMES,
    VALUES[r] the label (None: left out); JUDGE {item id: label} (None values left out)."""
    values = np.asarray(values, dtype=object)
    kept = np.fromiter((value is not None for value in values), dtype=bool, count=len(values))
    judged = {item: label for item, label in judge.items() if label is not None}
    distinct = {*values[kept].tolist(), *judged.values()}
    labels = sorted(distinct) if numeric else sorted(distinct, key=str)
    position = {label: index for index, label in enumerate(labels)}
    row_items = np.asarray(items, dtype=object)[kept]
    all_items = sorted({*row_items.tolist(), *judged}, key=str)
    index = {item: i for i, item in enumerate(all_items)}
    judge_codes = np.full(len(all_items), -1, dtype=np.int64)
    for item, label in judged.items():
        judge_codes[index[item]] = position[label]
    return RaterLabels(item=np.fromiter(map(index.__getitem__, row_items), dtype=np.int64, count=len(row_items)),
                       rater=np.asarray(raters, dtype=np.int64)[kept],
                       label=np.fromiter(map(position.__getitem__, values[kept]), dtype=np.int64,
                                         count=int(kept.sum())),
                       judge=judge_codes, items=all_items, raters=list(names), labels=labels, numeric=numeric)


def rater_labels_coded(items: np.ndarray, raters: np.ndarray, codes: np.ndarray, code_values: Sequence,
                       names: list[str], judge: Labels, *, numeric: bool = False) -> RaterLabels:
    """What rater_labels gives for rows whose labels come coded, as a campaign's ratings hold them: ITEMS[r] an
    integer item id, RATERS[r] the annotator's position in NAMES, CODES[r] the label's position in CODE_VALUES (a
    value, or None: left out); JUDGE {integer item id: label} (no None). The same RaterLabels, item order (sorted as
    text) included, from array operations over the rows rather than a Python step per row."""
    items, raters, codes = (np.asarray(column, dtype=np.int64) for column in (items, raters, codes))
    value_kept = np.array([value is not None for value in code_values] + [False], dtype=bool)
    kept = value_kept[codes] if len(code_values) else np.zeros(len(codes), dtype=bool)
    used = np.flatnonzero(np.bincount(codes[kept], minlength=len(code_values))).tolist()
    in_use = {*(code_values[code] for code in used), *judge.values()}
    labels = sorted(in_use) if numeric else sorted(in_use, key=str)
    position = {label: index for index, label in enumerate(labels)}
    label_of_code = np.array([position[value] if value is not None else -1 for value in code_values] + [-1],
                             dtype=np.int64)
    judged_items = np.fromiter(judge.keys(), dtype=np.int64, count=len(judge))
    row_items = items[kept]
    ids = distinct(np.concatenate([row_items, judged_items]))
    by_text = text_order(ids)  # the items sorted as text, as rater_labels sorts them
    rank = np.empty(len(ids), dtype=np.int64)
    rank[by_text] = np.arange(len(ids))
    judge_codes = np.full(len(ids), -1, dtype=np.int64)
    judge_codes[rank[np.searchsorted(ids, judged_items)]] = np.fromiter(map(position.__getitem__, judge.values()),
                                                                        dtype=np.int64, count=len(judge))
    return RaterLabels(item=rank[np.searchsorted(ids, row_items)], rater=raters[kept], label=label_of_code[codes[kept]],
                       judge=judge_codes, items=ids[by_text].tolist(), raters=list(names), labels=labels,
                       numeric=numeric)


def with_judge(data: RaterLabels, judge: Labels) -> RaterLabels | None:
    """DATA with JUDGE's labels {item: label} (no None) in place of its judge's, when every item and label of JUDGE's
    is among DATA's items and labels: what rater_labels gives for DATA's rows with JUDGE, its rows' arrays shared
    (so that Annotators found on DATA serve it); None otherwise."""
    values = list(dict.fromkeys(judge.values()))
    code = {label: index for index, label in enumerate(values)}
    return with_judge_coded(data, np.asarray(list(judge.keys())),
                            np.fromiter(map(code.__getitem__, judge.values()), dtype=np.int64, count=len(judge)),
                            values)


def with_judge_coded(data: RaterLabels, items: np.ndarray, codes: np.ndarray, values: Sequence) -> RaterLabels | None:
    """with_judge for the judge's labels as codes: item ITEMS[i] (distinct) labelled VALUES[CODES[i]]."""
    position = {label: index for index, label in enumerate(data.labels)}
    used = [values[code] for code in distinct(codes).tolist()]
    if not all(value in position for value in used):
        return None
    known, where = data.item_lookup
    at, found = lookup(known, items)
    if not found.all():
        return None  # an item DATA does not have
    judge = np.full(len(data.items), -1, dtype=np.int64)
    judge[where[at]] = np.array([position.get(value, -1) for value in values], dtype=np.int64)[codes]
    return dataclasses.replace(data, judge=judge)


def rater_labels_of(annotators: dict[str, Labels], judge: Labels, *, numeric: bool = False) -> RaterLabels:
    """RaterLabels from {annotator: {item: label}} and the judge's {item: label}."""
    names = sorted(annotators)
    rows = [(item, n, label) for n, name in enumerate(names) for item, label in annotators[name].items()]
    return rater_labels([row[0] for row in rows], [row[1] for row in rows], [row[2] for row in rows], names, judge,
                        numeric=numeric)


@dataclass(frozen=True)
class _Wins:
    """Per row of the RaterLabels that can be compared (the judge and another annotator labelled its item too): its
    item, annotator, whether the judge won it, whether the annotator won it, and whether the item is undecidable for
    that annotator (the others' labels score every label alike: module docstring)."""

    item: np.ndarray
    rater: np.ndarray
    judge: np.ndarray
    own: np.ndarray
    undecidable: np.ndarray

    def decidable(self) -> _Wins:
        keep = ~self.undecidable
        return _Wins(item=self.item[keep], rater=self.rater[keep], judge=self.judge[keep], own=self.own[keep],
                     undecidable=self.undecidable[keep])


def _wins(data: RaterLabels, scoring: str) -> _Wins:
    """Each comparable row's two wins (module docstring): the judge's label and the row's each scored against the
    other annotators' labels of the item, by the share equal (ACCURACY: counts of equal labels, one denominator) or
    minus the root mean squared distance (NEG_RMSE: sums of squares, one denominator)."""
    items, levels = len(data.items), max(len(data.labels), 1)
    count = np.bincount(data.item, minlength=items)
    judge = data.judge[data.item]
    comparable = (judge >= 0) & (count[data.item] >= 2)
    item, rater, label, judge = data.item[comparable], data.rater[comparable], data.label[comparable], judge[comparable]
    if scoring == "accuracy":
        per_label = np.bincount(data.item * levels + data.label, minlength=items * levels).reshape(items, levels)
        own_score = per_label[item, label] - 1  # the others who gave the row's label
        judge_score = per_label[item, judge] - (label == judge)  # the others who gave the judge's label
        judge_win, own_win = judge_score >= own_score, own_score >= judge_score
        # The others' count of every label: all equal, every label scores alike (one row, the labels in use, each).
        others = per_label[item]
        others[np.arange(len(item)), label] -= 1
        undecidable = np.ones(len(item), dtype=bool)
        for column in range(1, levels):
            undecidable &= others[:, column] == others[:, 0]
    else:
        value = np.asarray(data.labels, dtype=float)
        x = value[data.label]
        first = np.bincount(data.item, weights=x, minlength=items)
        second = np.bincount(data.item, weights=x * x, minlength=items)
        n, s1, s2 = count[item], first[item], second[item]
        mine, theirs = value[label], value[judge]
        own_loss = s2 - 2 * mine * s1 + n * mine ** 2  # the row's own term is 0
        judge_loss = s2 - 2 * theirs * s1 + n * theirs ** 2 - (mine - theirs) ** 2
        tolerance = 1e-9 * np.maximum(1.0, np.abs(own_loss) + np.abs(judge_loss))
        judge_win, own_win = judge_loss <= own_loss + tolerance, own_loss <= judge_loss + tolerance
        # A grade's summed squared distance to the others is a parabola in the grade with its minimum at their mean:
        # every grade in use scores alike only with one grade in use, or two equally far from that mean.
        if len(value) == 1:
            undecidable = np.ones(len(item), dtype=bool)
        elif len(value) == 2:
            others, others_sum = n - 1, s1 - mine
            undecidable = np.abs(others * (value[0] + value[1]) - 2 * others_sum) <= 1e-9 * np.maximum(1.0, others)
        else:
            undecidable = np.zeros(len(item), dtype=bool)
    return _Wins(item=item, rater=rater, judge=judge_win.astype(float), own=own_win.astype(float),
                 undecidable=undecidable)


def _p_values(differences: np.ndarray, epsilons: Sequence[float]) -> list[float]:
    """The one-sided p-values of H0: mean(DIFFERENCES) >= epsilon, for each of EPSILONS (one t-test, the margins side
    by side). With no spread (every difference equal) the t-test is undefined; the answer is then plain: 0 when the
    differences sit below epsilon, else 1."""
    if np.ptp(differences) == 0:
        return [0.0 if differences[0] < epsilon else 1.0 for epsilon in epsilons]
    with quiet(RuntimeWarning):
        return scipy_stats.ttest_1samp(differences[None, :], np.asarray(epsilons, dtype=float)[:, None], axis=1,
                                       alternative="less").pvalue.tolist()


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def missing_words(*, annotators: int, enough: int, items: int, names: Sequence[str] = (),
                  undecidable: bool = False) -> str | None:
    """What a campaign lacks for the alt-test, in words (its ANNOTATORS, the ITEMS it could compare on, ENOUGH
    annotators with MIN_ITEMS_PER_ANNOTATOR of those, named when NAMES are given; UNDECIDABLE: whether items the
    others split evenly on were not counted); None when it has enough."""
    if enough >= MIN_ANNOTATORS and items >= MIN_ITEMS:
        return None
    named = f" ({_names(names)})" if names else ""
    return (f"needs {MIN_ANNOTATORS} annotators with {MIN_ITEMS_PER_ANNOTATOR} or more items each, on {MIN_ITEMS} "
            f"items or more that the judge and at least two annotators labelled; this campaign has "
            f"{_plural(annotators, 'annotator')}, {_plural(items, 'such item')}, and {enough} annotator"
            f"{'' if enough == 1 else 's'} with {MIN_ITEMS_PER_ANNOTATOR} or more of them{named}"
            + (", not counting the items where the other annotators' labels split evenly, which decide nothing"
               if undecidable else ""))


def _names(names: Sequence[str]) -> str:
    return " and ".join(names) if len(names) <= 2 else f"{', '.join(names[:-1])} and {names[-1]}"


def _left_out_reason(*, kept: int, compared: int, undecidable: int, selected: bool) -> str:
    """Why an annotator with KEPT decidable items of the COMPARED ones is not tested, in words."""
    if not undecidable:
        return (f"{_plural(kept, 'item')} shared with the judge and another annotator, fewer than "
                f"{MIN_ITEMS_PER_ANNOTATOR}")
    sample = "judged a selected sample: " if selected else ""
    return (f"{sample}on {undecidable} of their {compared} items the other annotators' labels split evenly and decide "
            f"nothing, which leaves {_plural(kept, 'item')}, fewer than {MIN_ITEMS_PER_ANNOTATOR}")


def _verdicts(p_values: list[float], names: list[str], *, epsilon: float, q: float) -> dict:
    """The test's verdict at EPSILON from each tested annotator's p-value there (_p_values, in the order of NAMES):
    which null hypotheses Benjamini-Yekutieli rejects at Q, the winning rate."""
    rejected = [bool(reject) for reject in multipletests(p_values, alpha=q, method="fdr_by")[0]]
    winning_rate = float(np.mean(rejected))
    return {"epsilon": epsilon, "p_values": p_values, "rejected_each": rejected, "winning_rate": winning_rate,
            "rejected": int(sum(rejected)), "of": len(names), "passes": winning_rate >= PASS_RATE,
            "held_up_against": [name for name, reject in zip(names, rejected, strict=True) if reject]}


def alt_test(data: RaterLabels, *, epsilon: float = EPSILON, q: float = FDR_Q,
             selected: Collection[str] = ()) -> dict:
    """The alternative annotator test of DATA's judge against its annotators, scored by the share of labels equal, or
    with NUMERIC labels by minus the root mean squared distance, on the items each annotator's others can decide
    (module docstring). SELECTED: the annotators who judged a selected sample (stats.selection), named as such when
    they are left out. {"ran": False, "missing": words} when there are too few annotators or items; else {"ran": True,
    "epsilon", "q", "winning_rate", "rejected" (how many annotators' null hypotheses), "passes", "advantage",
    "advantage_ci95" (or "advantage_ci_note"), "n_items",
    "annotators": [{"annotator", "n" (decidable items), "compared", "undecidable", "selected_sample", "rho",
    "rho_ci95", "human_rho", "human_rho_ci95", "p_value", "rejected"}], "by_epsilon": [the verdict at each of
    EPSILONS and EPSILON: {"epsilon", "winning_rate", "rejected", "of", "passes", "held_up_against"}]}; both with
    "rests_on" (the annotators with enough items, tested when it ran, by name), "n_per_annotator" {name: decidable
    items}, "left_out": [{"annotator", "n",
    "compared", "undecidable", "selected_sample", "reason"}], "skipped": {name: n},
    "undecidable" {name: items not counted}, "method", "ci_method"."""
    scoring = "neg_rmse" if data.numeric else "accuracy"
    every = _wins(data, scoring)
    compared = np.bincount(every.rater, minlength=len(data.raters))
    undecidable = np.bincount(every.rater, weights=every.undecidable, minlength=len(data.raters)).astype(int)
    wins = every.decidable()
    per_rater = np.bincount(wins.rater, minlength=len(data.raters))
    tested = [n for n in range(len(data.raters)) if per_rater[n] >= MIN_ITEMS_PER_ANNOTATOR]
    in_test = np.isin(wins.rater, tested)
    labelled = np.bincount(data.rater, minlength=len(data.raters))
    missing = missing_words(annotators=int((labelled > 0).sum()), enough=len(tested), items=len(distinct(wins.item)),
                            names=[data.raters[n] for n in tested], undecidable=bool(undecidable.any()))
    selected = set(selected)
    left_out = [{"annotator": data.raters[n], "n": int(per_rater[n]), "compared": int(compared[n]),
                 "undecidable": int(undecidable[n]), "selected_sample": data.raters[n] in selected,
                 "reason": _left_out_reason(kept=int(per_rater[n]), compared=int(compared[n]),
                                            undecidable=int(undecidable[n]), selected=data.raters[n] in selected)}
                for n in range(len(data.raters)) if compared[n] and per_rater[n] < MIN_ITEMS_PER_ANNOTATOR]
    used = distinct(wins.item[in_test])  # the items the test reads
    base = {"epsilon": epsilon, "q": q, "scoring": scoring, "n_items": len(used),
            "method": ALT_TEST_METHOD, "ci_method": BOOTSTRAP_METHOD, "left_out": left_out,
            "rests_on": [data.raters[n] for n in tested],
            "n_per_annotator": {data.raters[n]: int(per_rater[n]) for n in range(len(data.raters)) if compared[n]},
            "skipped": {row["annotator"]: row["n"] for row in left_out if row["n"]},
            "undecidable": {data.raters[n]: int(undecidable[n]) for n in range(len(data.raters)) if undecidable[n]}}
    if missing:
        return {"ran": False, "missing": missing, **base}
    order = np.argsort(narrow(wins.rater), kind="stable")
    bounds = np.searchsorted(wins.rater[order], np.arange(len(data.raters) + 1))
    rows: list[dict[str, Any]] = []
    differences: list[np.ndarray] = []
    for n in tested:
        mine = order[bounds[n]:bounds[n + 1]]
        judge_wins, own_wins = wins.judge[mine], wins.own[mine]
        differences.append(own_wins - judge_wins)
        rows.append({"annotator": data.raters[n], "n": len(mine), "compared": int(compared[n]),
                     "undecidable": int(undecidable[n]), "selected_sample": data.raters[n] in selected,
                     "rho": float(judge_wins.mean()), "rho_ci95": _wilson(judge_wins),
                     "human_rho": float(own_wins.mean()), "human_rho_ci95": _wilson(own_wins)})
    names = [row["annotator"] for row in rows]
    margins = sorted({*EPSILONS, epsilon})
    p_values = np.array([_p_values(own_minus_judge, margins) for own_minus_judge in differences]).reshape(
        len(differences), len(margins))  # an annotator's row: its p-value at each margin
    by_epsilon = [_verdicts(p_values[:, column].tolist(), names, epsilon=margin, q=q)
                  for column, margin in enumerate(margins)]
    verdict = by_epsilon[margins.index(epsilon)]
    for row, p_value, reject in zip(rows, verdict["p_values"], verdict["rejected_each"], strict=True):
        row.update(p_value=p_value, rejected=reject)
    interval, note = _advantage_interval(wins, tested, in_test, used, items=len(data.items))
    return {"ran": True, **base, "winning_rate": verdict["winning_rate"], "rejected": verdict["rejected"],
            "passes": verdict["passes"], "advantage": float(np.mean([row["rho"] for row in rows])),
            "advantage_ci95": interval, "advantage_ci_note": note, "annotators": rows,
            "by_epsilon": [{key: value for key, value in each.items() if key not in ("p_values", "rejected_each")}
                           | {"campaign": each["epsilon"] == epsilon} for each in by_epsilon]}


def _wilson(wins: np.ndarray) -> list[float]:
    low, high = proportion_confint(int(wins.sum()), len(wins), alpha=0.05, method="wilson")
    return [float(low), float(high)]


def _advantage_interval(wins: _Wins, tested: list[int], in_test: np.ndarray, used: np.ndarray, *,
                        items: int) -> tuple[list[float] | None, str | None]:
    """The bootstrap interval of the average advantage probability (or why none) over USED (the items the test reads,
    sorted): per item, each tested annotator's (judge win, compared) as sums, so a resample's rho_j is its summed wins
    over its summed items."""
    if len(used) * 2 * len(tested) > MAX_BOOTSTRAP_CELLS:
        return None, f"too many annotators ({len(tested)}) on {len(used)} items to resample here"
    row_of = np.full(items, -1, dtype=np.int64)
    row_of[used] = np.arange(len(used))
    column_of = np.full(int(wins.rater.max(initial=0)) + 1, -1, dtype=np.int64)
    column_of[tested] = np.arange(len(tested))
    # Each item's row: per tested annotator, (the judge's win, 1) where they labelled it; given by its cells, as an
    # item has a few annotators of many (resampling.distinct_rows_sparse: the same classes as the rows written out).
    where, column = row_of[wins.item[in_test]], column_of[wins.rater[in_test]]
    unique, multiplicity = resampling.distinct_rows_sparse(
        (len(used), 2 * len(tested)), np.concatenate([where, where]), np.concatenate([2 * column, 2 * column + 1]),
        np.concatenate([wins.judge[in_test], np.ones(len(where))]))

    def statistic(sums: np.ndarray) -> np.ndarray:
        return (sums[:, 0::2] / sums[:, 1::2]).mean(axis=1)

    return resampling.class_bootstrap(unique, multiplicity, statistic)[0], None


def _rater_items(data: RaterLabels) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per annotator: (the items they labelled, sorted; their labels of them)."""
    order = np.lexsort((data.item, data.rater))
    bounds = np.searchsorted(data.rater[order], np.arange(len(data.raters) + 1))
    return [(data.item[order[a:b]], data.label[order[a:b]]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _pair_cells(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray],
                levels: int) -> tuple[np.ndarray, np.ndarray]:
    """(the items both raters labelled, each one's cell of their contingency table: first's label x levels +
    second's)."""
    shared, left, right = np.intersect1d(first[0], second[0], assume_unique=True, return_indices=True)
    return shared, first[1][left] * levels + second[1][right]


def _judge_cells(judge: np.ndarray, rater: tuple[np.ndarray, np.ndarray], levels: int) -> tuple[np.ndarray, np.ndarray]:
    """_pair_cells of the judge (JUDGE: its label's code per item, -1 where it has none) and RATER (their items,
    sorted, and labels): the items both labelled and the cells, the judge's label first, read off the judge's labels
    at the rater's items rather than found by an intersection."""
    items, labels = rater
    has = judge[items] >= 0
    shared = items[has]
    return shared, judge[shared] * levels + labels[has]


def _sharing_pairs(data: RaterLabels) -> list[tuple[int, int]]:
    """The pairs of annotators (positions) who labelled MIN_PAIR_ITEMS items or more in common: a sparse product of
    the items-by-annotators incidence, so thousands of annotators who each label a few items cost little."""
    incidence = sparse.csr_matrix((np.ones(len(data.item)), (data.item, data.rater)),
                                  shape=(len(data.items), len(data.raters)))
    shared = sparse.triu(incidence.T @ incidence, k=1).tocoo()
    keep = shared.data >= MIN_PAIR_ITEMS
    return sorted(zip(shared.row[keep].tolist(), shared.col[keep].tolist()))


def _places(cells: list[tuple[np.ndarray, np.ndarray]], size: int, *, items: int, first: int = 0,
            before: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each of ITEMS items' places in CELLS (pair p's cell c is place p * SIZE + c, the pairs numbered from FIRST):
    (how many places each item has; one row per item of its places in ascending order, padded with -1). BEFORE: the
    places of the pairs numbered below FIRST, in the same form, which come first in each row."""
    known_count, known = before if before is not None else (np.zeros(items, np.int64), np.zeros((items, 0), np.int64))
    count = known_count.copy()
    for shared, _ in cells:
        count[shared] += 1  # a pair's items are distinct
    places = np.full((items, int(count.max(initial=0))), -1, dtype=np.int64)
    places[:, :known.shape[1]] = known
    filled = known_count.copy()
    for p, (shared, cell) in enumerate(cells, start=first):
        places[shared, filled[shared]] = p * size + cell
        filled[shared] += 1
    return count, places


def _likeness_intervals(cells: list[tuple[np.ndarray, np.ndarray]], size: int, statistic, *,
                        known: tuple[int, np.ndarray, np.ndarray] | None = None) -> tuple[list, str | None]:
    """The bootstrap intervals of the human-likeness statistics (or why none), resampling items. An item's row holds
    a one in the cell each pair of raters gave it, for every pair that rated it: few ones in a wide row. Items whose
    ones fall in the same places are one class, found from those places (_places: a small sort), and the bootstrap
    draws the classes (stats.resampling.class_bootstrap) without ever writing a row per item. KNOWN: (how many of the
    first CELLS, the places of every item in those), found once for several calls (Annotators.places)."""
    # An item's row lists its places in ascending order: pair by pair, a pair's places above the one's before it.
    first, before = (known[0], known[1:]) if known is not None else (0, None)
    items = max([int(shared.max(initial=-1)) + 1 for shared, _ in cells[first:]]
                + [len(before[0]) if before is not None else 0])
    count, places = _places(cells[first:], size, items=items, first=first, before=before)
    pattern = places[np.flatnonzero(count)]
    classes, multiplicity = rows_distinct(pattern)
    if classes.shape[0] * len(cells) * size > MAX_BOOTSTRAP_CELLS:  # even the classes' rows would not fit
        return [None] * 4, f"too many pairs of raters ({len(cells)}) on {len(pattern)} items to resample here"
    unique = np.zeros((classes.shape[0], len(cells) * size))
    row, slot = np.nonzero(classes >= 0)
    unique[row, classes[row, slot]] = 1
    return resampling.class_bootstrap(unique, multiplicity, statistic), None


class Annotators:
    """What human_likeness reads of the annotators alone, the same whichever judge's labels come with their rows: a
    report of several judges finds it once (annotators_of) and hands it to each judge's human_likeness."""

    def __init__(self, data: RaterLabels, *, selected: Collection[str] = ()):
        self._rows: tuple = (data.item, data.rater, data.label, data.items, data.raters, data.labels)
        selected = set(selected)
        gone = [n for n, name in enumerate(data.raters) if name in selected and np.any(data.rater == n)]
        self.left_out = [data.raters[n] for n in gone]
        if gone:
            keep = ~np.isin(data.rater, gone)
            data = dataclasses.replace(data, item=data.item[keep], rater=data.rater[keep], label=data.label[keep])
        self.data = data  # the rows without the left-out annotators' (any judge's labels beside them)
        self.levels = max(len(data.labels), 1)
        self.human_pairs = _sharing_pairs(data)
        self.names = sorted({n for pair in self.human_pairs for n in pair})
        self.per_rater = _rater_items(data)
        self.labelled = distinct(data.item)

    def found_on(self, data: RaterLabels) -> bool:
        """Whether these are the annotators of DATA's rows (whatever judge's labels come with them)."""
        arrays, lists = self._rows[:3], self._rows[3:]
        return (all(mine is theirs or np.array_equal(mine, theirs)
                    for mine, theirs in zip(arrays, (data.item, data.rater, data.label), strict=True))
                and lists == (data.items, data.raters, data.labels))

    @functools.cached_property
    def cells(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each sharing pair's items and cells (_pair_cells)."""
        return [_pair_cells(self.per_rater[a], self.per_rater[b], self.levels) for a, b in self.human_pairs]

    @functools.cached_property
    def places(self) -> tuple[int, np.ndarray, np.ndarray]:
        """What _likeness_intervals reads of the sharing pairs' cells, found once for every judge: (how many pairs;
        each item's places in their cells, _places)."""
        return len(self.cells), *_places(self.cells, self.levels * self.levels, items=len(self.data.items))


def human_likeness(data: RaterLabels, *, selected: Collection[str] = (), annotators: Annotators | None = None) -> dict:
    """The human-likeness z-score of DATA's judge among its annotators, leaving out the SELECTED ones (those who
    judged a selected sample, module docstring): {"ran": False, "missing"} with fewer than MIN_ANNOTATORS others who
    share MIN_PAIR_ITEMS items with each other; else {"ran": True, "z", "judge_kappa" (the mean; "judge_kappas" per
    annotator), "human_kappa_mean", "human_kappa_sd" (each of those four with its _ci95; "ci_note" when there is
    none), "human_pairs" (each pair's kappa), "n_items", "judge_items", "verdict", "method", "ci_method"}; both with
    "left_out" (the selected annotators who labelled something, by name). ANNOTATORS: Annotators(DATA's rows,
    selected=SELECTED), found once for several judges' labels over the same rows (else found here)."""
    if annotators is None:
        annotators = Annotators(data, selected=selected)
    elif not annotators.found_on(data):
        raise ValueError("these annotators were found on other rows")
    left_out, levels, human_pairs, names, per_rater = (annotators.left_out, annotators.levels, annotators.human_pairs,
                                                       annotators.names, annotators.per_rater)
    data = dataclasses.replace(annotators.data, judge=data.judge)
    judge_cells = {n: _judge_cells(data.judge, per_rater[n], levels) for n in names}
    judged = [n for n in names if len(judge_cells[n][0]) >= MIN_PAIR_ITEMS]
    labelled = annotators.labelled
    base = {"n_items": len(labelled), "judge_items": int(np.count_nonzero(data.judge[labelled] >= 0)),
            "ci_method": BOOTSTRAP_METHOD, "left_out": left_out,
            "method": "human-likeness z-score (Han et al. 2025): Cohen's kappa of the judge with each annotator, "
                      "against the annotators' kappas with each other"}
    if len(names) < MIN_ANNOTATORS or len(human_pairs) < 3 or not judged:
        annotators_n = len(distinct(data.rater))
        sample = "a selected sample" if len(left_out) == 1 else "selected samples"
        aside = f" besides {', '.join(left_out)}, left out as {sample}" if left_out else ""
        return {"ran": False, "missing": f"needs {MIN_ANNOTATORS} annotators who share {MIN_PAIR_ITEMS} items or "
                f"more with each other and with the judge; this campaign has {_plural(annotators_n, 'annotator')}"
                f"{aside}, {_plural(len(human_pairs), 'pair')} of them sharing that many, and the judge labelled "
                f"{base['judge_items']} of their items", **base}
    cells = list(annotators.cells)
    cells += [judge_cells[n] for n in judged]
    hh, size = len(human_pairs), levels * levels

    def statistic(sums: np.ndarray) -> np.ndarray:
        tables = sums.reshape(len(sums), len(cells), levels, levels)
        with np.errstate(invalid="ignore", divide="ignore"):
            kappas = batch_stats.kappa_of_tables(tables)
            human, machine = kappas[:, :hh], kappas[:, hh:]
            return np.vstack([(machine.mean(axis=1) - human.mean(axis=1)) / human.std(axis=1, ddof=1),
                              machine.mean(axis=1), human.mean(axis=1), human.std(axis=1, ddof=1)])

    tables = np.stack([np.bincount(cell, minlength=size) for _, cell in cells]).astype(float)
    point = statistic(tables.reshape(1, -1))[:, 0]
    z, judge_mean, human_mean, human_sd = (finite(value) for value in point)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappas = batch_stats.kappa_of_tables(tables.reshape(len(cells), levels, levels))
    intervals, note = _likeness_intervals(cells, size, statistic, known=annotators.places)
    verdict = None if z is None else ("within the humans' spread" if abs(z) <= HUMAN_LIKE_Z else
                                      "above the humans: agrees with them more than they agree with each other"
                                      if z > HUMAN_LIKE_Z else "below the humans")
    return {"ran": True, **base, "ci_note": note, "z": z, "z_ci95": intervals[0] if z is not None else None,
            "judge_kappa": judge_mean, "judge_kappa_ci95": intervals[1] if judge_mean is not None else None,
            "human_kappa_mean_ci95": intervals[2] if human_mean is not None else None,
            "human_kappa_sd_ci95": intervals[3] if human_sd is not None else None,
            "judge_kappas": {data.raters[n]: finite(kappa) for n, kappa in zip(judged, kappas[hh:], strict=True)},
            "human_kappa_mean": human_mean, "human_kappa_sd": human_sd,
            "human_pairs": {f"{data.raters[a]} / {data.raters[b]}": finite(kappa)
                            for (a, b), kappa in zip(human_pairs, kappas[:hh], strict=True)},
            "verdict": verdict}
