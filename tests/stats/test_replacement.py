"""May a judge replace an annotator (stats.replacement) and the kappa-paradox panel (stats.paradox): planted answers in
simulations, hand-worked examples from the definitions, and the libraries' own figures."""

import numpy as np
import pytest
from scipy.stats import ttest_1samp
from sklearn.metrics import cohen_kappa_score

from stats import paradox, replacement

ITEMS = 120


def alt_test(annotators, judge, *, numeric=False, **options):
    return replacement.alt_test(replacement.rater_labels_of(annotators, judge, numeric=numeric), **options)


def human_likeness(annotators, judge):
    return replacement.human_likeness(replacement.rater_labels_of(annotators, judge))


def _simulated(seed: int, *, annotators: int = 4, annotator_accuracy: float = 0.8):
    """A truth with a skew (30% positive), annotators right with ANNOTATOR_ACCURACY, and a copy-maker for judges."""
    rng = np.random.default_rng(seed)
    truth = {item: int(rng.random() < 0.3) for item in range(ITEMS)}

    def rater(accuracy: float) -> dict:
        return {item: label if rng.random() < accuracy else 1 - label for item, label in truth.items()}

    return truth, {f"h{n}": rater(annotator_accuracy) for n in range(annotators)}, rater, rng


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_alt_test_passes_a_better_judge_and_fails_a_coin(seed):
    truth, humans, rater, rng = _simulated(seed)
    better = alt_test(humans, rater(0.97))
    assert better["ran"] and better["passes"] and better["winning_rate"] == 1.0 and better["rejected"] == 4
    coin = alt_test(humans, {item: int(rng.random() < 0.5) for item in truth})
    assert not coin["passes"] and coin["winning_rate"] < 0.5
    assert better["advantage"] > coin["advantage"]  # rho ranks the judges
    for result in (better, coin):
        low, high = result["advantage_ci95"]
        assert low <= result["advantage"] <= high and result["n_items"] == ITEMS
    # With no margin (epsilon 0) a judge exactly as good as an annotator no longer passes for free.
    strict = alt_test(humans, rater(0.8), epsilon=0.0)
    lenient = alt_test(humans, rater(0.8), epsilon=0.3)
    assert strict["winning_rate"] <= lenient["winning_rate"]


def test_the_alt_test_by_hand_on_three_annotators():
    # Three annotators on 60 items (b copies a; c differs from a on 50-59); the judge copies a on 0-39, then says "x".
    a = {i: "p" if i % 3 else "q" for i in range(60)}
    b = dict(a)
    c = {i: a[i] if i < 50 else ("q" if a[i] == "p" else "p") for i in range(60)}
    judge = {i: a[i] if i < 40 else "x" for i in range(60)}
    result = alt_test({"a": a, "b": b, "c": c}, judge, epsilon=0.2)
    rows = {row["annotator"]: row for row in result["annotators"]}
    for name, own in (("a", a), ("b", b), ("c", c)):
        others = [labels for who, labels in (("a", a), ("b", b), ("c", c)) if who != name]
        judge_wins, own_wins = [], []
        for i in range(60):
            judge_score = np.mean([labels[i] == judge[i] for labels in others])
            own_score = np.mean([labels[i] == own[i] for labels in others])
            judge_wins.append(judge_score >= own_score)
            own_wins.append(own_score >= judge_score)
        assert rows[name]["n"] == 60
        assert rows[name]["rho"] == pytest.approx(np.mean(judge_wins))
        assert rows[name]["human_rho"] == pytest.approx(np.mean(own_wins))
        differences = np.array(own_wins, dtype=float) - np.array(judge_wins, dtype=float)
        assert rows[name]["p_value"] == pytest.approx(ttest_1samp(differences, 0.2, alternative="less").pvalue)
    assert result["advantage"] == pytest.approx(np.mean([row["rho"] for row in rows.values()]))
    # The judge loses a third of the items to every annotator: more than epsilon, so it holds up against none.
    assert result["winning_rate"] == 0.0 and not result["passes"]

    # Grades 0-3 scored by minus the root mean squared distance, item by item from the definition.
    rng = np.random.default_rng(8)
    graders = {name: {i: int(rng.integers(0, 4)) for i in range(60)} for name in ("a", "b", "c", "d")}
    del graders["d"][5], graders["c"][7]  # an item with three graders
    grade_judge = {i: int(rng.integers(0, 4)) for i in range(60)}
    rows = {row["annotator"]: row for row in alt_test(graders, grade_judge, numeric=True)["annotators"]}
    for name, own in graders.items():
        judge_wins, own_wins = [], []
        for i in own:
            others = np.array([labels[i] for who, labels in graders.items() if who != name and i in labels])
            judge_score = -np.sqrt(np.mean((others - grade_judge[i]) ** 2))
            own_score = -np.sqrt(np.mean((others - own[i]) ** 2))
            judge_wins.append(judge_score >= own_score - 1e-12)
            own_wins.append(own_score >= judge_score - 1e-12)
        assert (rows[name]["n"], rows[name]["rho"], rows[name]["human_rho"]) == pytest.approx(
            (len(own), np.mean(judge_wins), np.mean(own_wins)))


def test_the_alt_test_says_what_is_missing_instead_of_a_number():
    truth, humans, rater, _ = _simulated(4, annotators=2)
    result = alt_test(humans, rater(0.9))
    assert not result["ran"] and "winning_rate" not in result
    assert result["missing"] == ("needs 3 annotators with 30 or more items each, on 50 items or more that the judge "
                                 "and at least two annotators labelled; this campaign has 2 annotators, 120 such "
                                 "items, and 2 annotators with 30 or more of them")
    _, three, rater, _ = _simulated(5, annotators=3)
    few = {name: {item: label for item, label in labels.items() if item < 40} for name, labels in three.items()}
    assert "3 annotators, 40 such items, and 3 annotators with 30" in alt_test(few, rater(0.9))["missing"]
    # A distance scale scores by minus the root mean squared distance.
    grades = {name: {item: int(label) * 2 for item, label in labels.items()} for name, labels in three.items()}
    graded = alt_test(grades, {item: 2 * label for item, label in truth.items()}, numeric=True)
    assert graded["ran"] and graded["passes"] and graded["scoring"] == "neg_rmse"


def test_the_human_likeness_z_places_the_judge_among_the_humans(monkeypatch):
    truth, humans, rater, rng = _simulated(6, annotators=4, annotator_accuracy=0.85)
    truthful = human_likeness(humans, dict(truth))
    coin = human_likeness(humans, {item: int(rng.random() < 0.5) for item in truth})
    assert truthful["z"] > replacement.HUMAN_LIKE_Z and truthful["verdict"].startswith("above the humans")
    assert coin["z"] < -replacement.HUMAN_LIKE_Z and coin["verdict"] == "below the humans"
    # Its parts are scikit-learn's kappas.
    names = sorted(humans)
    pairs = [cohen_kappa_score([humans[a][i] for i in range(ITEMS)], [humans[b][i] for i in range(ITEMS)])
             for n, a in enumerate(names) for b in names[n + 1:]]
    judge = [cohen_kappa_score([truth[i] for i in range(ITEMS)], [humans[a][i] for i in range(ITEMS)]) for a in names]
    assert truthful["human_kappa_mean"] == pytest.approx(np.mean(pairs))
    assert truthful["human_kappa_sd"] == pytest.approx(np.std(pairs, ddof=1))
    assert truthful["judge_kappa"] == pytest.approx(np.mean(judge))
    assert truthful["z"] == pytest.approx((np.mean(judge) - np.mean(pairs)) / np.std(pairs, ddof=1))
    low, high = truthful["z_ci95"]
    assert low <= truthful["z"] <= high
    # Rows too many to resample in memory: the same z, no interval, and why.
    monkeypatch.setattr(replacement, "MAX_BOOTSTRAP_CELLS", 100)
    large = human_likeness(humans, dict(truth))
    assert large["z"] == truthful["z"] and large["z_ci95"] is None
    assert large["ci_note"] == "too many pairs of raters (10) on 120 items to resample here"
    two = human_likeness({"a": humans["h0"], "b": humans["h1"]}, dict(truth))
    assert not two["ran"] and two["missing"] == (
        "needs 3 annotators who share 10 items or more with each other and with the judge; this campaign has 2 "
        "annotators, 1 pair of them sharing that many, and the judge labelled 120 of their items")
    # Many annotators who each label a few items (a crowd, an arena): pairs are found item by item, and too few
    # share enough items for a kappa.
    crowd = {f"voter{n}": {item: truth[item]} for n, item in enumerate(range(ITEMS))}
    assert not human_likeness(crowd, dict(truth))["ran"]


def test_the_paradox_panel_on_the_classic_skewed_table():
    # 125 items, one label nearly everywhere: agreement 0.944, kappa below zero.
    table = [[118, 5], [2, 0]]
    panel = paradox.paradox_panel(table)
    first = [0] * 118 + [0] * 5 + [1] * 2
    second = [0] * 118 + [1] * 5 + [0] * 2
    assert panel["n"] == 125 and panel["agreement"] == pytest.approx(118 / 125)
    assert panel["cohen_kappa"] == pytest.approx(cohen_kappa_score(first, second))
    # AC1 from Gwet's definition: chance agreement 2 pi (1 - pi), pi the mean share of the first label.
    share = ((123 + 120) / 250)
    chance = 2 * share * (1 - share)
    assert panel["ac"] == pytest.approx((118 / 125 - chance) / (1 - chance)) and panel["ac_name"] == "AC1"
    assert panel["bp"] == pytest.approx(2 * 118 / 125 - 1) and panel["bp_name"] == "PABAK"
    assert panel["prevalence_index"] == pytest.approx(118 / 125) and panel["bias_index"] == pytest.approx(3 / 125)
    assert panel["paradox"]
    for key in ("agreement", "cohen_kappa", "ac", "bp", "prevalence_index", "bias_index"):
        low, high = panel[f"{key}_ci95"]
        assert low <= panel[key] <= high, key


def test_the_paradox_panel_on_a_graded_scale_weighs_ac2_and_cuts_for_the_indices():
    table = np.array([[30, 5, 1], [4, 20, 3], [0, 2, 10]])
    binary = [[30, 6], [4, 35]]
    panel = paradox.paradox_panel(table, ordinal=True, binary=binary)
    n = table.sum()
    weights = 1 - np.abs(np.subtract.outer(range(3), range(3))) / 2  # linear agreement weights
    agreement = (weights * table).sum() / n
    shares = (table.sum(axis=0) + table.sum(axis=1)) / (2 * n)
    chance = weights.sum() * (shares * (1 - shares)).sum() / (3 * 2)
    assert panel["ac_name"] == "AC2 (linear weights)"
    assert panel["ac"] == pytest.approx((agreement - chance) / (1 - chance))
    assert panel["bp_name"] == "Brennan-Prediger" and panel["bp"] == pytest.approx((60 / 75 - 1 / 3) / (1 - 1 / 3))
    assert panel["prevalence_index"] == pytest.approx(5 / 75) and panel["bias_index"] == pytest.approx(2 / 75)
    assert not panel["paradox"]
    nominal = paradox.paradox_panel(table)
    assert nominal["prevalence_index"] is None and nominal["index_table"] is None
    # Few items and poor agreement: irrCAC's t interval of a share would reach below 0; it is kept within 0 to 1.
    small = paradox.paradox_panel([[0, 5], [6, 1]])
    assert small["agreement"] == pytest.approx(1 / 12) and small["agreement_ci95"][0] == 0.0
    assert all(-1 <= end <= 1 for key in ("cohen_kappa", "ac", "bp") for end in small[f"{key}_ci95"])
