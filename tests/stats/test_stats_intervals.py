"""Every interval the reports print, against an independent computation on small data: numpy's own resampling
(another generator, many more resamples) and the libraries' point statistics. Percentile intervals agree to the
Monte Carlo error of 1,000 resamples; each must stay within its statistic's range."""

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from stats import interrater, retrieval, system_order, uncertainty

RNG = np.random.default_rng(11)
TOLERANCE = 0.07


def _percentiles(values) -> list[float]:
    values = np.asarray([v for v in values if v is not None and np.isfinite(v)])
    return list(np.percentile(values, [2.5, 97.5]))


def _labels(n, flip):
    truth = RNG.integers(0, 2, size=n)
    other = np.where(RNG.random(n) < flip, 1 - truth, truth)
    return [("yes" if t else "no") for t in truth], [("yes" if o else "no") for o in other]


def test_item_kappa_and_agreement_by_a_bootstrap_over_topics():
    first, second = _labels(120, 0.2)
    topics = [i // 4 for i in range(120)]  # 30 topics of four items
    got = interrater.item_agreement_intervals(first, second, topics)
    draws = np.random.default_rng(3).integers(0, 30, size=(3000, 30))
    kappas, rates = [], []
    for draw in draws:
        idx = [i for topic in draw for i in range(topic * 4, topic * 4 + 4)]
        a, b = [first[i] for i in idx], [second[i] for i in idx]
        kappas.append(cohen_kappa_score(a, b))
        rates.append(np.mean([x == y for x, y in zip(a, b, strict=True)]))
    assert got["cohen_kappa"] == pytest.approx(_percentiles(kappas), abs=TOLERANCE)
    assert got["accuracy"] == pytest.approx(_percentiles(rates), abs=TOLERANCE)
    assert -1 <= got["cohen_kappa"][0] <= interrater.cohen_kappa(first, second) <= got["cohen_kappa"][1] <= 1


def test_weighted_kappa_interval_on_grades():
    truth = RNG.integers(0, 3, size=90)
    other = np.clip(truth + RNG.integers(-1, 2, size=90), 0, 2)
    got = interrater.item_agreement_intervals(list(truth), list(other), list(range(90)), levels=[0, 1, 2],
                                              weighted=True)
    draws = np.random.default_rng(4).integers(0, 90, size=(2500, 90))
    linear = [cohen_kappa_score(truth[d], other[d], weights="linear", labels=[0, 1, 2]) for d in draws]
    assert got["cohen_kappa_linear"] == pytest.approx(_percentiles(linear), abs=TOLERANCE)


def test_fleiss_and_krippendorff_by_a_bootstrap_over_units():
    ratings = [list(RNG.choice(["a", "b", "c"], size=3, p=[0.6, 0.3, 0.1])) for _ in range(80)]
    coded = np.array([[{"a": 0, "b": 1, "c": 2}[x] for x in row] for row in ratings])
    table, _ = aggregate_raters(coded, n_cat=3)
    draws = np.random.default_rng(5).integers(0, 80, size=(3000, 80))
    fleiss = [fleiss_kappa(table[d]) for d in draws]
    assert interrater.fleiss_kappa_interval(ratings) == pytest.approx(_percentiles(fleiss), abs=TOLERANCE)
    counts = np.stack([np.bincount(row, minlength=3) for row in coded]).astype(float)
    alphas = [krippendorff.alpha(value_counts=counts[d], level_of_measurement="nominal") for d in draws[:1500]]
    low, high = interrater.krippendorff_alpha_interval(ratings)
    assert [low, high] == pytest.approx(_percentiles(alphas), abs=TOLERANCE)
    assert -1 <= low <= interrater.krippendorff_alpha_units(ratings) <= high <= 1
    # The report's calls: the value and its interval from one table.
    assert interrater.fleiss_kappa_with_interval(ratings) == (interrater.fleiss_kappa(ratings),
                                                              interrater.fleiss_kappa_interval(ratings))
    assert interrater.krippendorff_alpha_with_interval(ratings) == (interrater.krippendorff_alpha_units(ratings),
                                                                    [low, high])
    assert interrater.fleiss_kappa_with_interval([["a", "a"], ["a", "a"]]) == (None, None)


def test_system_correlations_by_resampling_topics_and_rescoring_systems():
    systems, topics = 8, 40
    quality = np.linspace(0.3, 0.8, systems)
    human = (RNG.random((systems, topics)) < quality[:, None]).astype(float)
    judge = np.where(RNG.random((systems, topics)) < 0.8, human, 1 - human)
    counts = np.ones_like(human)
    got = system_order.system_correlation_intervals(human, judge, counts)
    draws = np.random.default_rng(6).integers(0, topics, size=(3000, topics))
    taus = [scipy_stats.kendalltau(human[:, d].mean(1), judge[:, d].mean(1)).statistic for d in draws]
    rs = [scipy_stats.pearsonr(human[:, d].mean(1), judge[:, d].mean(1)).statistic for d in draws]
    assert got["kendall_tau_b"] == pytest.approx(_percentiles(taus), abs=TOLERANCE)
    assert got["pearson"] == pytest.approx(_percentiles(rs), abs=TOLERANCE)
    assert all(-1 <= value <= 1 for interval in got.values() for value in interval)


def test_a_mean_of_per_topic_statistics_stays_inside_their_range():
    values = [1.0, 0.8, -0.2, 1.0, 0.4, None]
    summary = uncertainty.topic_mean_summary(values)
    low, high = summary["bootstrap_ci95"]
    assert summary["n"] == 5 and summary["small"] is True
    assert -0.2 <= low <= high <= 1.0
    assert summary["ci95"][1] > 1.0  # the t interval the studies publish can leave [-1, 1]; it stays in the JSON
    data = np.array([v for v in values if v is not None])
    means = data[np.random.default_rng(8).integers(0, 5, size=(20000, 5))].mean(axis=1)
    assert [low, high] == pytest.approx(_percentiles(means), abs=TOLERANCE)


def test_intervals_are_repeatable_and_undefined_where_the_statistic_is():
    first, second = _labels(40, 0.3)
    topics = list(range(40))
    assert (interrater.item_agreement_intervals(first, second, topics)
            == interrater.item_agreement_intervals(first, second, topics))
    assert interrater.item_agreement_intervals(["yes"], ["no"], [1]) == {"cohen_kappa": None, "accuracy": None}
    assert interrater.fleiss_kappa_interval([["a", "a"], ["a", "a"]]) is None  # one label throughout
    assert uncertainty.mean_interval([0.5]) is None
    # One label on both sides throughout: kappa is 0/0 in every resample.
    assert interrater.item_agreement_intervals(["yes"] * 40, ["yes"] * 40, topics)["cohen_kappa"] is None


def test_relative_delta_interval_by_resampling_topics():
    runs = {f"r{i}": {f"t{t}": float(RNG.random() * (0.6 if i < 2 else 1.0)) for t in range(30)} for i in range(5)}
    tagged = {"r0", "r1"}
    got = retrieval.relative_delta_interval(runs, tagged)
    table = np.array([[runs[r][f"t{t}"] for t in range(30)] for r in sorted(runs)])
    group = np.array([r in tagged for r in sorted(runs)])
    draws = np.random.default_rng(9).integers(0, 30, size=(4000, 30))
    deltas = [retrieval.relative_delta(list(table[group][:, d].mean(1)), list(table[~group][:, d].mean(1)))
              for d in draws]
    assert got == pytest.approx(_percentiles(deltas), abs=2.0)  # percentage points
    point = retrieval.relative_delta(list(table[group].mean(1)), list(table[~group].mean(1)))
    assert got[0] <= point <= got[1]
    assert retrieval.relative_delta_interval(runs, set()) is None  # no tagged run: nothing to compare


# --- An interval that degenerates says so (uncertainty.interval_checked), never a zero-width [x, x] ---


def test_an_interval_whose_resamples_are_all_equal_is_none_with_a_note():
    assert uncertainty.interval_checked([1.0, 1.0], value=1.0, units=12, noun="topics") == (
        None, "all resamples equal (1.000): no spread to show")
    assert uncertainty.interval_checked([0.2, 0.6], value=0.4, units=12, noun="topics") == ([0.2, 0.6], None)
    # An undefined statistic has its own why; no note about an interval it never had.
    assert uncertainty.interval_checked(None, value=None, units=1, noun="topics") == (None, None)


def test_too_few_units_to_resample_give_no_interval_and_say_how_many():
    interval, note = uncertainty.interval_checked([0.1, 0.9], value=0.5, units=3, noun="topics")
    assert interval is None and note == "too few topics to resample: 3 (an interval needs at least 4)"


def test_three_runs_over_four_topics_give_no_system_order_interval():
    # Three runs that every topic orders alike: tau-b is 1 in every resample of the four topics.
    per_topic = {run: {t: base + 0.01 * i for i, t in enumerate("abcd")} for run, base in
                 (("r1", 0.2), ("r2", 0.5), ("r3", 0.8))}
    intervals = retrieval.run_correlation_intervals(per_topic, per_topic)
    assert intervals["kendall_tau_b"] == [1.0, 1.0]  # what the page used to print as [1.000, 1.000]
    block = {"kendall_tau_b": 1.0, "spearman": 1.0}
    uncertainty.put_order_intervals(block, intervals, ("kendall_tau_b", "spearman"), systems=3, topics=4,
                                    systems_word="runs")
    assert block["kendall_tau_b_ci95"] is None and block["spearman_ci95"] is None
    assert block["kendall_tau_b_ci_note"] == "too few runs to resample: 3 (an interval needs at least 4)"


def test_rater_agreement_carries_n_raters_and_intervals_of_fleiss_and_alpha():
    ratings = [list(RNG.choice(["a", "b"], size=3, p=[0.7, 0.3])) for _ in range(60)] + [["a"]] * 5
    block = interrater.rater_agreement(ratings, raters=3)
    assert block["raters"] == 3
    assert block["fleiss_items"] == 60 and block["krippendorff_alpha_items"] == 60  # single ratings read by neither
    assert block["fleiss_kappa"] == pytest.approx(interrater.fleiss_kappa(ratings))
    assert block["krippendorff_alpha"] == pytest.approx(interrater.krippendorff_alpha_units(ratings))
    for key in ("fleiss_kappa", "krippendorff_alpha"):
        low, high = block[f"{key}_ci95"]
        assert -1 <= low < block[key] < high <= 1 and block[f"{key}_ci_note"] is None
    # Three items rated twice: too few to resample, said with the count.
    few = interrater.rater_agreement([["a", "b"], ["a", "a"], ["b", "b"]], raters=2)
    assert few["fleiss_kappa"] is not None and few["fleiss_kappa_ci95"] is None
    assert few["fleiss_kappa_ci_note"] == "too few items to resample: 3 (an interval needs at least 4)"


def test_topic_mean_of_equal_values_has_no_bootstrap_interval_but_a_note():
    summary = uncertainty.topic_mean_summary([1.0, 1.0, 1.0, 1.0, 1.0])
    assert summary["bootstrap_ci95"] is None
    assert summary["ci_note"] == "all resamples equal (1.000): no spread to show"


def test_rank_alpha_has_an_interval_over_topics_when_there_are_enough():
    rng = np.random.default_rng(7)
    topics = []
    for _ in range(12):  # two annotators who mostly agree on five candidates
        order = rng.permutation(5)
        other = order.copy()
        i = rng.integers(0, 4)
        other[[i, i + 1]] = other[[i + 1, i]]
        topics.append([[int(order[c]), int(other[c])] for c in range(5)])
    block = interrater.rank_alpha(topics, raters=2)
    assert (block["krippendorff_alpha_items"], block["topics"]) == (60, 12)
    reliability = [[unit[r] for topic in topics for unit in topic] for r in (0, 1)]
    assert block["krippendorff_alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="ordinal"))
    low, high = block["krippendorff_alpha_ordinal_ci95"]
    assert -1 <= low < block["krippendorff_alpha_ordinal"] < high <= 1


def test_the_page_prints_a_bound_a_hair_below_zero_as_zero_not_minus_zero():
    from agreement.templatetags.agreement_format import interval, num3

    assert "[0.000, 0.429]" in interval([-1e-12, 0.4291])
    assert num3(-0.0001) == "0.000" and num3(-0.0006) == "-0.001"
