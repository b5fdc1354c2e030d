"""Humans and a judge together (stats.ppi) and the plans that choose which units humans label (stats.label_plans):
the estimates are ppi_py's, checked here against its functions called directly and against the formulas written out;
the plans' probabilities against what each plan promises; unbiasedness and never-wider on simulated studies."""

import warnings

import numpy as np
import pytest
import scipy.stats

from stats import label_plans, ppi

with warnings.catch_warnings():
    import ppi_py


def _study(seed: int, units: int = 600, flip: float = 0.1, shift: float = 0.0):
    """Human values (0/1) on UNITS units, a judge that flips a share FLIP of them and adds SHIFT to every value."""
    rng = np.random.default_rng(seed)
    human = (rng.random(units) < 0.6).astype(float)
    judge = np.where(rng.random(units) < flip, 1 - human, human) + shift
    return rng, human, judge


def test_the_combined_estimate_is_ppi_pys_power_tuned_interval():
    rng, human, judge = _study(1, flip=0.15)
    labelled = label_plans.drawn(label_plans.uniform_inclusion(len(human), 60), rng)
    assert labelled.sum() == 60  # a simple random sample of the budget
    result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled)
    y, yhat, rest = human[labelled], judge[labelled], judge[~labelled]
    # ppi_py's standard error, with the t quantile of n - 1 = 59 degrees of freedom in place of the normal one.
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    half = (high[0] - low[0]) / 2 / 1.959964 * scipy.stats.t.ppf(0.975, 59)
    centre = (high[0] + low[0]) / 2
    assert result.combined.ci95 == pytest.approx((centre - half, centre + half))
    assert result.combined.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yhat, rest)[0]))
    low, high = ppi_py.classical_mean_ci(y, alpha=0.05)
    half = (high - low) / 2 / 1.959964 * scipy.stats.t.ppf(0.975, 59)
    assert result.human.ci95 == pytest.approx((y.mean() - half, y.mean() + half))
    assert result.human.value == pytest.approx(y.mean()) and result.judge == pytest.approx(judge.mean())
    # The lambda reported is the one used: the estimate written out with it.
    lam = result.combined.lam
    assert 0 < lam <= 1
    assert result.combined.value == pytest.approx(lam * rest.mean() + (y - lam * yhat).mean())
    # A judge right on 90% of units is worth more labels than the humans gave.
    assert result.combined.width < result.human.width
    # Uniform: the humans-only interval is that of a simple random sample, and the labels the judge was worth are
    # the sample whose humans-only interval would be as narrow.
    assert result.human_uniform_width == pytest.approx(result.human.width)
    assert result.effective_labels == pytest.approx(60 * (result.human.width / result.combined.width) ** 2)
    assert result.effective_labels > 100 and result.units == 600


def test_unequal_inclusion_weights_each_labelled_unit_by_its_inverse_probability():
    """The active inference form with weighted means, written out here: the humans' weighted mean plus lambda times
    (the judge's mean over all units less its weighted mean over the labelled units), its standard error from the
    per-unit terms; with equal probabilities its point estimate is ppi_py's with the judge's part over all units."""
    rng, human, judge = _study(2, flip=0.15)
    inclusion = label_plans.active_inclusion(np.where(judge > 0.5, 0.05, 0.2), budget=80)
    labelled = label_plans.drawn(inclusion, rng)
    result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled, inclusion)
    y, yhat, weights = human[labelled], judge[labelled], 1 / inclusion[labelled]
    human_mean, judge_mean = np.average(y, weights=weights), np.average(yhat, weights=weights)
    lam = result.combined.lam
    assert 0 < lam <= 1
    assert result.combined.value == pytest.approx(human_mean + lam * (judge.mean() - judge_mean))
    xi_over_pi = labelled / inclusion
    a = human_mean + xi_over_pi * (np.nan_to_num(np.where(labelled, human, 0)) - human_mean)
    b = (judge - judge_mean) * (1 - xi_over_pi)
    terms = a + lam * b
    quantile = scipy.stats.t.ppf(0.975, labelled.sum() - 1)
    half = quantile * terms.std(ddof=1) / np.sqrt(len(terms))
    assert result.combined.ci95 == pytest.approx((terms.mean() - half, terms.mean() + half))
    # lambda is the one that makes those terms' variance least.
    variances = [np.var(a + other * b, ddof=1) for other in np.linspace(0, 1, 101)]
    assert np.var(terms, ddof=1) <= min(variances) + 1e-12
    # The humans alone: their weighted mean, the same terms with lambda 0.
    assert result.human.value == pytest.approx(human_mean)
    assert result.human.ci95 == pytest.approx((human_mean - quantile * a.std(ddof=1) / np.sqrt(len(a)),
                                               human_mean + quantile * a.std(ddof=1) / np.sqrt(len(a))))
    # What the humans alone would have from a simple random sample of as many units, and the labels the judge was
    # worth against it.
    spread = np.sqrt(np.average((y - np.average(y, weights=weights)) ** 2, weights=weights))
    assert result.human_uniform_width == pytest.approx(2 * quantile * spread / np.sqrt(len(y)))
    assert result.effective_labels == pytest.approx(len(y) * (result.human_uniform_width / result.combined.width) ** 2)
    # Equal probabilities: the point estimate is ppi_py's, the judge's part over all units.
    even = np.full(len(human), 0.2)
    drawn = label_plans.drawn(even, rng)
    written = ppi.combined_mean(np.where(drawn, human, np.nan), judge, drawn, even)
    assert written.combined.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(
        human[drawn], judge[drawn], judge, lam=written.combined.lam)[0]))


def test_with_too_few_disagreements_the_humans_stand_alone():
    """A judge that differs from the humans on 2 of the 50 labelled units: its errors are not measured by 2, so the
    combined figure is the humans' own (without the rule, a judge flipping 2% of 100 labels got 90% coverage in
    bench/bench_ppi.py)."""
    human = np.r_[np.ones(30), np.zeros(20), np.ones(450)]
    judge = human.copy()
    judge[:2] = 0
    labelled = np.r_[np.ones(50, dtype=bool), np.zeros(450, dtype=bool)]
    result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled)
    assert ppi.disagreements(human[labelled], judge[labelled]) == 2 < ppi.MIN_DISAGREEMENTS
    assert result.combined.ci95 == result.human.ci95 and result.combined.lam == 0.0
    judge[2:6] = 0  # six: the judge's part counts
    result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled)
    assert result.combined.lam > 0 and result.combined.width < result.human.width


def test_intervals_stay_within_the_measures_range():
    human = np.r_[np.ones(19), 0.0, np.ones(80)]
    labelled = np.r_[np.ones(20, dtype=bool), np.zeros(80, dtype=bool)]
    loose = ppi.combined_mean(np.where(labelled, human, np.nan), human, labelled)
    assert loose.human.ci95[1] > 1  # the normal interval of 19 of 20
    kept = ppi.combined_mean(np.where(labelled, human, np.nan), human, labelled, bounds=(0, 1))
    assert kept.human.ci95 == (loose.human.ci95[0], 1) and kept.combined.ci95[1] <= 1


def test_a_judge_that_knows_nothing_never_narrows_and_never_widens_the_interval():
    rng = np.random.default_rng(3)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        human = (rng.random(400) < 0.5).astype(float)
        judge = (rng.random(400) < 0.5).astype(float)  # independent of the humans
        labelled = label_plans.drawn(label_plans.uniform_inclusion(400, 40), rng)
        result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled)
        assert result.combined.width <= result.human.width + 1e-12
        assert result.effective_labels <= 40 * 1.25  # it may gain a little by chance, never much


def test_a_biased_judge_leaves_the_combined_estimate_unbiased():
    """The judge says 0.3 more than the humans on every unit: its own mean is off by 0.3, the combined estimate's
    mean over 300 studies is within its Monte Carlo error of the humans' mean, and 95% intervals cover it."""
    values, covered, judged = [], 0, []
    for seed in range(300):
        rng, human, judge = _study(seed, units=500, flip=0.1, shift=0.3)
        labelled = label_plans.drawn(label_plans.uniform_inclusion(500, 50), rng)
        result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled)
        values.append(result.combined.value - human.mean())
        judged.append(result.judge - human.mean())
        covered += result.combined.ci95[0] <= 0.6 <= result.combined.ci95[1]
    assert abs(np.mean(values)) < 3 * np.std(values) / np.sqrt(300)
    assert np.mean(judged) == pytest.approx(0.3 + 0.1 * (0.4 - 0.6), abs=0.01)
    assert 0.9 <= covered / 300 <= 0.99


def test_too_few_labels_give_no_interval_and_bad_input_is_refused():
    human, judge = np.array([1.0, 0, 1, 1]), np.array([1.0, 0, 0, 1])
    one = np.array([True, False, False, False])
    result = ppi.combined_mean(np.where(one, human, np.nan), judge, one)
    assert (result.combined.ci95, result.human.ci95, result.combined.n, result.effective_labels) == (None, None, 1,
                                                                                                       None)
    with pytest.raises(ValueError, match="a labelled unit has no human value"):
        ppi.combined_mean(np.full(4, np.nan), judge, one)
    with pytest.raises(ValueError, match="differ in shape"):
        ppi.combined_mean(human, judge[:3], one)
    with pytest.raises(ValueError, match="inclusion probabilities"):
        ppi.combined_mean(human, judge, one, np.array([0.0, 0.5, 0.5, 0.5]))


def test_each_plan_spends_the_budget_with_no_probability_over_one():
    error = np.r_[np.full(90, 0.01), np.full(10, 0.25)]
    uniform = label_plans.uniform_inclusion(100, 20)
    active = label_plans.active_inclusion(error, 20)
    stratified = label_plans.stratified_inclusion(["easy"] * 90 + ["hard"] * 10, 20, error)
    for plan in (uniform, active, stratified):
        assert plan.sum() == pytest.approx(20) and plan.max() <= 1
    assert set(uniform) == {0.2}
    # Active: half the budget uniform, half in proportion to sqrt(error): a hard unit 5 times an easy one there.
    easy, hard = active[0], active[-1]
    assert hard / easy == pytest.approx((0.5 + 0.5 * 0.5 / 0.14) / (0.5 + 0.5 * 0.1 / 0.14))
    # Stratified (Neyman): n_h in proportion to N_h * s_h: 90 * 0.1 against 10 * 0.5.
    assert stratified[:90].sum() / stratified[90:].sum() == pytest.approx(9 / 5)
    # A budget that would put more than 1 on a unit: that unit is certain, the rest share what is left.
    capped = label_plans.active_inclusion(np.r_[np.zeros(9), 100.0], 3, uniform_share=0.0)
    assert capped[-1] == 1 and capped.sum() == pytest.approx(1)  # units with no error get none
    assert label_plans.uniform_inclusion(10, 50).tolist() == [1.0] * 10
    with pytest.raises(ValueError, match="positive number of labels"):
        label_plans.uniform_inclusion(10, 0)
    with pytest.raises(ValueError, match="non-negative"):
        label_plans.active_inclusion([-1.0, 1.0], 1)


def test_draws_spend_the_budget_and_label_each_unit_as_often_as_its_probability_says():
    inclusion = label_plans.active_inclusion(np.r_[np.full(50, 0.01), np.full(50, 0.25)], 30)
    rng = np.random.default_rng(5)
    draws = [label_plans.drawn(inclusion, rng) for _ in range(2000)]
    assert {int(draw.sum()) for draw in draws} == {30}
    counts = sum(draw.astype(int) for draw in draws)
    # Each unit's share of 2,000 draws within 4.5 binomial standard errors of its probability.
    assert np.all(np.abs(counts / 2000 - inclusion) < 4.5 * np.sqrt(inclusion * (1 - inclusion) / 2000))


def test_the_labels_needed_are_what_a_simulation_of_that_many_labels_gives():
    """A population of 2,000 units whose judge flips 4% of one half's labels and 30% of the other's; 80 labelled at
    random. The labels needed for a combined interval 0.06 wide, under the uniform plan and under the active one
    (more labels where the judge errs more): 300 fresh draws of that many labels by that plan give intervals 0.06
    wide on average (within 8%), and a tenth fewer labels visibly wider ones; the active plan needs fewer labels."""
    rng = np.random.default_rng(3)
    units = 2000
    hard = np.arange(units) < units // 2
    truth = (rng.random(units) < 0.7).astype(float)
    judge = np.where(rng.random(units) < np.where(hard, 0.30, 0.04), 1 - truth, truth)
    errors = np.where(hard, 0.30, 0.04)
    labelled = label_plans.drawn(label_plans.uniform_inclusion(units, 80), rng)
    lam = ppi.combined_mean(np.where(labelled, truth, np.nan), judge, labelled).combined.lam

    def uniform(budget):
        return label_plans.uniform_inclusion(units, budget)

    def active(budget):
        return label_plans.active_inclusion(errors, budget)

    needed = {name: ppi.labels_needed(np.where(labelled, truth, np.nan), judge, labelled, None, lam, 0.06, plan)
              for name, plan in (("uniform", uniform), ("active", active))}
    assert needed["active"] < needed["uniform"] < units, needed
    for name, plan in (("uniform", uniform), ("active", active)):
        for budget, expected in ((needed[name], (0.92, 1.08)), (int(0.9 * needed[name]), (1.0, 1.2))):
            inclusion = plan(budget)
            widths = []
            for _ in range(300):
                drawn = label_plans.drawn(inclusion, rng)
                result = ppi.combined_mean(np.where(drawn, truth, np.nan), judge, drawn,
                                           None if name == "uniform" else inclusion)
                widths.append(result.combined.width)
            ratio = float(np.mean(widths)) / 0.06
            assert expected[0] <= ratio <= expected[1], (name, budget, ratio)


def test_the_beginning_of_a_sequential_plans_order_is_a_sample_of_that_plan():
    """Sequential Poisson sampling (label_plans.sequential_keys): the first 60 of 600 units in the order of their keys,
    weighted by the plan's probabilities at 60 (from_weights), give combined intervals that hold the population's
    mean about 95% of the time over 400 orders, with weights from 0.5 to 2.5 (the units the judge errs on most
    weighted most)."""
    rng = np.random.default_rng(8)
    units = 600
    flips = np.linspace(0.02, 0.4, units)
    human = (rng.random(units) < 0.65).astype(float)
    judge = np.where(rng.random(units) < flips, 1 - human, human)
    weights = 0.5 + 5 * flips
    inclusion = label_plans.from_weights(weights, 60)
    assert inclusion.sum() == pytest.approx(60) and inclusion.max() <= 1
    covered, estimates = 0, []
    for _ in range(400):
        first = np.argsort(label_plans.sequential_keys(weights, rng))[:60]
        labelled = np.zeros(units, dtype=bool)
        labelled[first] = True
        result = ppi.combined_mean(np.where(labelled, human, np.nan), judge, labelled, inclusion)
        low, high = result.combined.ci95
        covered += low <= human.mean() <= high
        estimates.append(result.combined.value)
    assert 0.92 <= covered / 400 <= 0.98, covered
    assert abs(np.mean(estimates) - human.mean()) < 0.01
