"""May a judge replace an annotator (stats.replacement) and the kappa-paradox panel (stats.paradox): planted answers in
simulations, hand-worked examples from the definitions, and the libraries' own figures."""

import numpy as np
import pytest
from scipy.stats import ttest_1samp
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.multitest import multipletests

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
    # Three others on two labels never split evenly: every item counts, as in the published procedure.
    assert better["undecidable"] == {} and better["left_out"] == [] and better["rests_on"] == ["h0", "h1", "h2", "h3"]
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
                                 "items, and 2 annotators with 30 or more of them (h0 and h1)")
    _, three, rater, _ = _simulated(5, annotators=3)
    few = {name: {item: label for item, label in labels.items() if item < 40} for name, labels in three.items()}
    # Three annotators on two labels: where the two others split, the item decides nothing and is not counted, which
    # leaves each annotator fewer than 30 of the 40, and each is named with the reason.
    few_result = alt_test(few, rater(0.9))
    assert few_result["missing"].startswith("needs 3 annotators") and few_result["missing"].endswith(
        "this campaign has 3 annotators, 40 such items, and 0 annotators with 30 or more of them, not counting the "
        "items where the other annotators' labels split evenly, which decide nothing")
    assert [row["annotator"] for row in few_result["left_out"]] == ["h0", "h1", "h2"]
    assert all(row["n"] + row["undecidable"] == 40 and row["n"] < 30 and row["reason"].endswith(
        f"which leaves {row['n']} items, fewer than 30") for row in few_result["left_out"])
    # A distance scale scores by minus the root mean squared distance.
    # A distance scale scores by minus the root mean squared distance. On grades 0 and 2 alone, two others who split
    # put their mean halfway, where both grades score alike: those items are not counted there either.
    three_truth = _simulated(5, annotators=3)[0]
    grades = {name: {item: int(label) * 2 for item, label in labels.items()} for name, labels in three.items()}
    graded = alt_test(grades, {item: 2 * label for item, label in three_truth.items()}, numeric=True)
    assert graded["ran"] and graded["passes"] and graded["scoring"] == "neg_rmse"
    splits = {name: sum(len({grades[other][item] for other in grades if other != name}) == 2 for item in range(ITEMS))
              for name in grades}
    assert graded["undecidable"] == splits and all(row["n"] == ITEMS - splits[row["annotator"]]
                                                    for row in graded["annotators"])
    # The truth of another draw agrees with these annotators' truth on 74 of 120 items: with the split items counted
    # as wins for both it held up against 2 of 3 of them at epsilon 0.2; on the items the others decide, against none.
    unrelated = alt_test(grades, {item: 2 * label for item, label in truth.items()}, numeric=True)
    assert sum(truth[i] == three_truth[i] for i in range(ITEMS)) == 74
    assert unrelated["ran"] and (unrelated["rejected"], unrelated["passes"]) == (0, False)


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


def _selected_study(seed: int, *, agreed: int, fifth: bool = False):
    """240 answers (40% correct). a and b judge all of them, d the first 120; c is sent every answer from 120 on that
    a and b split on, and the first AGREED of those they agree on (a selected sample, as NQ-open 301's annotator 3);
    with FIFTH, e judges all of them too. Annotators but c are right 80% of the time, c and the judge 85%."""
    rng = np.random.default_rng(seed)
    truth = {item: int(rng.random() < 0.4) for item in range(240)}

    def rater(accuracy: float, items) -> dict:
        return {item: truth[item] if rng.random() < accuracy else 1 - truth[item] for item in items}

    a, b, d = rater(0.8, range(240)), rater(0.8, range(240)), rater(0.8, range(120))
    split = [item for item in range(120, 240) if a[item] != b[item]]
    agree = [item for item in range(120, 240) if a[item] == b[item]][:agreed]
    annotators = {"a": a, "b": b, "c": rater(0.85, split + agree), "d": d}
    if fifth:
        annotators["e"] = rater(0.8, range(240))
    return annotators, rater(0.85, range(240)), split


def _decidable_wins(annotators: dict, judge: dict) -> dict:
    """From the definition, item by item: each annotator's (judge wins, own wins) over the items on which the other
    annotators' labels do not score every label in use alike."""
    in_use = {label for labels in annotators.values() for label in labels.values()} | set(judge.values())
    result = {}
    for name, own in annotators.items():
        judge_wins, own_wins = [], []
        for item, mine in sorted(own.items()):
            others = [labels[item] for who, labels in annotators.items() if who != name and item in labels]
            if not others or item not in judge:
                continue
            score = {label: np.mean([other == label for other in others]) for label in in_use}
            if len(set(score.values())) == 1:  # the others split evenly: no label can win or lose here
                continue
            judge_wins.append(score[judge[item]] >= score[mine])
            own_wins.append(score[mine] >= score[judge[item]])
        result[name] = (np.array(judge_wins, dtype=float), np.array(own_wins, dtype=float))
    return result


def test_an_annotator_sent_the_items_the_others_split_on_is_tested_where_they_decide():
    annotators, judge, split = _selected_study(3, agreed=35)
    result = alt_test(annotators, judge, epsilon=0.15, selected=["c"])
    rows = {row["annotator"]: row for row in result["annotators"]}
    # c's items the others split on are left out: c is tested on the 35 answers a and b agree on, no more.
    assert (rows["c"]["compared"], rows["c"]["undecidable"], rows["c"]["n"]) == (len(split) + 35, len(split), 35)
    assert rows["c"]["selected_sample"] and result["rests_on"] == ["a", "b", "c", "d"] and result["left_out"] == []
    # Every figure equals an independent computation on the same kept items: scipy's t-test per annotator,
    # statsmodels' Benjamini-Yekutieli over the four, at each epsilon shown and at the campaign's own (0.15).
    wins = _decidable_wins(annotators, judge)
    for name, (judge_wins, own_wins) in wins.items():
        assert (rows[name]["n"], rows[name]["rho"], rows[name]["human_rho"]) == pytest.approx(
            (len(judge_wins), judge_wins.mean(), own_wins.mean()))
    assert [each["epsilon"] for each in result["by_epsilon"]] == [0.05, 0.1, 0.15, 0.2]
    for each in result["by_epsilon"]:
        p_values = [ttest_1samp(wins[name][1] - wins[name][0], each["epsilon"], alternative="less").pvalue
                    for name in "abcd"]
        rejected = multipletests(p_values, alpha=0.05, method="fdr_by")[0]
        assert each["held_up_against"] == [name for name, reject in zip("abcd", rejected) if reject]
        assert (each["winning_rate"], each["passes"], each["of"]) == (rejected.mean(), rejected.mean() >= 0.5, 4)
        assert each["campaign"] == (each["epsilon"] == 0.15)
        if each["campaign"]:
            assert [rows[name]["p_value"] for name in "abcd"] == pytest.approx(p_values)
            assert result["winning_rate"] == each["winning_rate"] and result["passes"] == each["passes"]

    # With fewer such answers than the t-test wants, c is left out, named, and the reason said.
    annotators, judge, split = _selected_study(3, agreed=20)
    result = alt_test(annotators, judge, selected=["c"])
    assert result["ran"] and result["rests_on"] == ["a", "b", "d"]
    (row,) = result["left_out"]
    assert (row["annotator"], row["n"], row["undecidable"], row["selected_sample"]) == ("c", 20, len(split), True)
    assert row["reason"] == (f"judged a selected sample: on {len(split)} of their {len(split) + 20} items the "
                             f"other annotators' labels split evenly and decide nothing, which leaves 20 items, "
                             f"fewer than 30")


def test_the_human_likeness_z_leaves_a_selected_sample_out():
    annotators, judge, _ = _selected_study(4, agreed=35, fifth=True)
    data = replacement.rater_labels_of(annotators, judge)
    every, comparable = replacement.human_likeness(data), replacement.human_likeness(data, selected=["c"])
    assert comparable["left_out"] == ["c"] and every["left_out"] == []
    assert "a / c" in every["human_pairs"] and "a / c" not in comparable["human_pairs"]
    assert "c" in every["judge_kappas"] and "c" not in comparable["judge_kappas"]

    def kappa(first: dict, second: dict) -> float:
        shared = sorted(set(first) & set(second))
        return cohen_kappa_score([first[i] for i in shared], [second[i] for i in shared])

    names = ["a", "b", "d", "e"]
    pairs = [kappa(annotators[x], annotators[y]) for n, x in enumerate(names) for y in names[n + 1:]]
    judge_kappa = np.mean([kappa(judge, annotators[name]) for name in names])
    assert comparable["human_kappa_sd"] == pytest.approx(np.std(pairs, ddof=1))
    assert comparable["z"] == pytest.approx((judge_kappa - np.mean(pairs)) / np.std(pairs, ddof=1))
    # c's kappas over the split answers sit far below the others' and widen their spread.
    assert every["human_kappa_sd"] > comparable["human_kappa_sd"]
    # With two comparable annotators left there is no spread, and the report says who was left out.
    three = replacement.rater_labels_of({name: annotators[name] for name in "abc"}, judge)
    assert replacement.human_likeness(three)["ran"]
    alone = replacement.human_likeness(three, selected=["c"])
    assert not alone["ran"] and "this campaign has 2 annotators besides c, left out as a selected sample, 1 pair" \
        in alone["missing"]


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


@pytest.mark.parametrize("selected", [(), ("h1",)])
def test_annotators_found_once_serve_every_judge_as_if_found_for_each(selected):
    """A report of several judges finds the annotators' side once (Annotators over the rows without a judge) and puts
    each judge beside the same rows (with_judge): the figures are those of each judge's rows built whole."""
    truth, humans, rater, rng = _simulated(5, annotators=5)
    alone = replacement.rater_labels_of(humans, {})
    annotators = replacement.Annotators(alone, selected=selected)
    for judge in (rater(0.9), rater(0.6), {item: label for item, label in rater(0.8).items() if item % 3}):
        whole = replacement.rater_labels_of(humans, judge)
        beside = replacement.with_judge(alone, judge)
        assert beside is not None and beside.item is alone.item
        for name in ("item", "rater", "label", "judge"):
            assert np.array_equal(getattr(beside, name), getattr(whole, name)), name
        assert (beside.items, beside.labels) == (whole.items, whole.labels)
        assert replacement.human_likeness(beside, selected=selected, annotators=annotators) == \
            replacement.human_likeness(whole, selected=selected)
    # A judge's item or label the annotators never had: not the same rows, built whole instead.
    assert replacement.with_judge(alone, {ITEMS + 5: 1}) is None
    assert replacement.with_judge(alone, {0: 7}) is None
    other = replacement.rater_labels_of({name: labels for name, labels in humans.items() if name != "h0"}, {})
    with pytest.raises(ValueError, match="other rows"):
        replacement.human_likeness(replacement.with_judge(other, rater(0.9)), annotators=annotators)
