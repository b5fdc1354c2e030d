"""stats.rank_agreement against the papers' examples, hand computations and brute force over tie-breakings."""

from itertools import permutations, product

import pytest
from scipy import stats as scipy_stats

from stats.rank_agreement import (
    complete,
    overlap_at_k,
    rank_agreement,
    rbo_ext,
    score_groups,
    tau_ap,
    tau_ap_symmetric,
    tau_b_at_k,
    top_k_ids,
)


def singletons(order):
    return [[i] for i in order]


def tie_breakings(groups):
    """Every flat order that breaks GROUPS' ties."""
    for parts in product(*(permutations(group) for group in groups)):
        yield [i for part in parts for i in part]


# --- tau-AP ---

def test_tau_ap_weighs_a_swap_at_the_top_more_than_one_at_the_bottom_as_yilmaz_et_al_show():
    # Yilmaz, Aslam & Robertson (2008) §3: the same Kendall tau, a different tau_AP by where the swap is.
    truth = singletons([1, 2, 3, 4, 5])
    top, bottom = singletons([2, 1, 3, 4, 5]), singletons([1, 2, 3, 5, 4])
    # By hand: top swap C(2..5) = 0, 2, 3, 4 -> sum C(i)/(i-1) = 0 + 1 + 1 + 1 = 3, tau_AP = 2/4 * 3 - 1.
    assert tau_ap(top, truth) == pytest.approx(2 / 4 * 3 - 1)  # 0.5
    # Bottom swap: C = 1, 2, 3, 3 -> 1 + 1 + 1 + 3/4 = 3.75, tau_AP = 2/4 * 3.75 - 1.
    assert tau_ap(bottom, truth) == pytest.approx(2 / 4 * 3.75 - 1)  # 0.875
    tau = scipy_stats.kendalltau([1, 2, 3, 4, 5], [2, 1, 3, 4, 5]).statistic
    assert tau == pytest.approx(0.8) == scipy_stats.kendalltau([1, 2, 3, 4, 5], [1, 2, 3, 5, 4]).statistic


def test_tau_ap_is_one_for_the_same_order_minus_one_reversed_and_asymmetric():
    truth = singletons("abcd")
    assert tau_ap(truth, truth) == pytest.approx(1.0)
    assert tau_ap(singletons("dcba"), truth) == pytest.approx(-1.0)
    mixed = singletons("bcad")
    # bcad against abcd: C(2)=1 (b above c), C(3)=0 (a below b, c), C(4)=3 -> (1 + 0 + 1) * 2/3 - 1 = 1/3.
    assert tau_ap(mixed, truth) == pytest.approx((1 + 0 + 1) * 2 / 3 - 1)
    # abcd against bcad: C(2)=0, C(3)=1 (c: b above it in both), C(4)=3 -> (0 + 1/2 + 1) * 2/3 - 1 = 0.
    assert tau_ap(truth, mixed) == pytest.approx((0 + 0.5 + 1) * 2 / 3 - 1)
    assert tau_ap_symmetric(mixed, truth) == pytest.approx((1 / 3 + 0) / 2)


@pytest.mark.parametrize(("ranking", "reference"), [
    ([["a", "b"], ["c"], ["d"]], singletons("cadb")),
    (singletons("abcd"), [["b"], ["a", "c", "d"]]),
    ([["a"], ["b", "c", "d"], ["e"]], [["c", "a"], ["e"], ["b", "d"]]),
])
def test_tau_ap_with_ties_is_the_mean_over_every_way_of_breaking_them(ranking, reference):
    values = [tau_ap(singletons(x), singletons(y)) for x in tie_breakings(ranking) for y in tie_breakings(reference)]
    assert tau_ap(ranking, reference) == pytest.approx(sum(values) / len(values))


def test_tau_ap_of_a_partial_ranking_puts_the_unranked_in_one_bottom_group():
    judge = singletons("acbd")
    human = [["a"], ["b"]]  # c and d unranked: tied below b
    assert tau_ap(judge, human, universe="abcd") == pytest.approx(tau_ap(judge, [["a"], ["b"], ["c", "d"]]))
    # By hand: a c b d against a > b > {c, d}: C(2) = 1 (a above c), C(3) = 1 (a above b; c is not), C(4) = 2.5
    # (a, b above d; c tied with d: 1/2) -> (1 + 1/2 + 2.5/3) * 2/3 - 1.
    assert tau_ap(judge, human, universe="abcd") == pytest.approx((1 + 0.5 + 2.5 / 3) * 2 / 3 - 1)
    # Without a universe only the ids both rank: a and b, in the same order.
    assert tau_ap(judge, human) == pytest.approx(1.0)


def test_tau_ap_is_undefined_without_an_order_on_either_side():
    assert tau_ap([["a", "b", "c"]], singletons("abc")) is None
    assert tau_ap(singletons("abc"), [["a"]], universe="a") is None
    assert tau_ap(singletons("ab"), singletons("cd")) is None  # nothing in common


# --- RBO ---

def test_rbo_ext_of_the_rankmeasures_example_and_by_hand():
    # The example of the rankmeasures README (RBO.eval(List(1,2,3,4,5), List(2,3,4,1,5), 0.9) = 0.828).
    # By hand: X_d = 0, 1, 2, 4, 5; RBO_ext = X_5/5 p^5 + (1-p)/p sum X_d/d p^d (equal lengths, eq. 30).
    p = 0.9
    by_hand = 1 * p**5 + (1 - p) / p * (0 + 1 / 2 * p**2 + 2 / 3 * p**3 + 4 / 4 * p**4 + 5 / 5 * p**5)
    value = rbo_ext(singletons([1, 2, 3, 4, 5]), singletons([2, 3, 4, 1, 5]), p=p)
    assert value == pytest.approx(by_hand) and round(value, 3) == 0.828


def test_rbo_ext_is_one_for_a_list_and_its_prefix_and_zero_for_disjoint_lists():
    # Webber et al.'s extrapolation assumes the shorter list goes on as the longer one does: a prefix agrees fully.
    assert rbo_ext(singletons("abc"), singletons("abcdef"), p=0.9) == pytest.approx(1.0)
    assert rbo_ext(singletons("abc"), singletons("abc"), p=0.5) == pytest.approx(1.0)
    assert rbo_ext(singletons("abc"), singletons("xyz"), p=0.9) == 0.0
    assert rbo_ext([], singletons("abc"), p=0.9) is None
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        rbo_ext(singletons("ab"), singletons("ab"), p=1.0)


def test_rbo_ext_of_uneven_lists_by_hand():
    # S = a b (s = 2), L = b c a (l = 3), p = 0.5. X_1 = 0, X_2 = 1, X_3 = |{a,b} ∩ {b,c,a}| = 2.
    p, s, l = 0.5, 2, 3  # noqa: E741 - the paper's l
    x = {1: 0, 2: 1, 3: 2}
    first = sum(x[d] / d * p**d for d in (1, 2, 3))
    second = x[s] * (3 - s) / (s * 3) * p**3
    by_hand = (1 - p) / p * (first + second) + ((x[l] - x[s]) / l + x[s] / s) * p**l
    assert rbo_ext(singletons("ab"), singletons("bca"), p=p) == pytest.approx(by_hand)
    assert rbo_ext(singletons("bca"), singletons("ab"), p=p) == pytest.approx(by_hand)  # symmetric


@pytest.mark.parametrize(("a", "b"), [
    ([["a", "b"], ["c"]], singletons("cab")),
    ([["a"], ["b", "c", "d"]], [["d", "a"], ["b"]]),  # ties and uneven lengths
])
def test_rbo_ext_with_ties_is_the_mean_over_every_way_of_breaking_them(a, b):
    values = [rbo_ext(singletons(x), singletons(y), p=0.8) for x in tie_breakings(a) for y in tie_breakings(b)]
    assert rbo_ext(a, b, p=0.8) == pytest.approx(sum(values) / len(values))


# --- overlap@k and tau-b@k ---

def test_overlap_at_k_by_hand_with_a_tie_across_the_cut_and_a_partial_ranking():
    assert overlap_at_k(singletons("abcd"), singletons("bdac"), k=2) == pytest.approx(1 / 2)  # {a,b} ∩ {b,d}
    # a = {b, c} tied first, cut at 1: b is in a's top 1 half the time; b is b's top 1 -> 1/2.
    assert overlap_at_k([["b", "c"], ["a"]], singletons("bac"), k=1) == pytest.approx(1 / 2)
    # The human ranked a only; with universe a..d the unranked b, c, d fill its top 3 at random (2 of 3 each).
    # Judge top 3 = a, b, c: a is shared; b and c each with chance 2/3 -> (1 + 2/3 + 2/3) / 3.
    assert overlap_at_k(singletons("abcd"), [["a"]], k=3, universe="abcd") == pytest.approx((1 + 4 / 3) / 3)
    # Without the universe k is cut to the shorter list: a's top 1 against {a}.
    assert overlap_at_k(singletons("abcd"), [["a"]], k=3) == 1.0


def test_tau_b_at_k_reads_the_ids_in_either_top_k():
    assert top_k_ids([["a"], ["b", "c"], ["d"]], 2) == {"a", "b", "c"}
    judge, human = singletons("abcde"), singletons("bafce")
    tau, n = tau_b_at_k(judge, human, k=2, universe="abcdef")
    # Either top 2: a, b (both). Over {a, b}: judge a > b, human b > a -> -1.
    assert (tau, n) == (pytest.approx(-1.0), 2)
    tau, n = tau_b_at_k(judge, human, k=3, universe="abcdef")
    ids = ["a", "b", "c", "f"]  # judge top 3 a b c, human top 3 b a f; f is the judge's bottom (unranked) group
    judge_rank = {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4, "f": 5}
    human_rank = {"b": 0, "a": 1, "f": 2, "c": 3, "e": 4, "d": 5}
    expected = scipy_stats.kendalltau([-judge_rank[i] for i in ids], [-human_rank[i] for i in ids]).statistic
    assert n == 4 and tau == pytest.approx(expected)


def test_score_groups_and_complete():
    assert score_groups({"a": 0.2, "b": 0.9, "c": 0.2, "d": None}) == [["b"], ["a", "c"]]
    assert complete([["b"], ["x"]], ["a", "b", "c"]) == [["b"], ["a", "c"]]


def test_rank_agreement_bundles_the_four_measures():
    judge, human = singletons("abcd"), [["b"], ["a"]]
    got = rank_agreement(judge, human, p=0.9, k=2, universe="abcd")
    assert got["tau_ap"] == pytest.approx(tau_ap(judge, human, universe="abcd"))
    assert got["rbo"] == pytest.approx(rbo_ext(judge, human, p=0.9))  # RBO on the ranked prefix b, a
    assert got["overlap_at_k"] == 1.0 and got["kendall_tau_b_at_k"] == pytest.approx(-1.0) and got["n_at_k"] == 2
    both = rank_agreement(judge, human, p=0.9, k=2, universe="abcd", symmetric=True)
    assert both["tau_ap"] == pytest.approx(tau_ap_symmetric(judge, human, universe="abcd"))


def test_the_batch_of_resamples_gives_what_each_resample_gives_alone():
    # The system orders' bootstrap computes tau-AP, RBO, overlap@k and tau-b@k for all resamples at once: resample by
    # resample the same numbers as order_agreement (tie groups, brute-force-checked above), ties and all.
    import numpy as np

    from stats.rank_agreement import TOP_INTERVAL_KEYS, order_agreement, order_agreement_batch

    rng = np.random.default_rng(5)
    for systems in (2, 3, 8, 13):
        human = rng.integers(0, 4, size=(60, systems)).astype(float)
        judge = rng.integers(0, 4, size=(60, systems)).astype(float)
        human[0] = 1.0  # every system tied: no order, tau-AP undefined
        batch = order_agreement_batch(human, judge, p=0.9, k=5)
        for row, (h, y) in enumerate(zip(human, judge, strict=True)):
            alone = order_agreement(dict(enumerate(h)), dict(enumerate(y)), p=0.9, k=5)
            assert list(batch[:, row]) == pytest.approx(
                [np.nan if alone[key] is None else alone[key] for key in TOP_INTERVAL_KEYS],
                abs=1e-12, nan_ok=True)
