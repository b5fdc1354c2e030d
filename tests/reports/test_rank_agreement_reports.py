"""Ranking agreement at the top in the reports: tau-AP, RBO, overlap@k, tau-b@k and swaps, checked by hand."""

import pytest

from agreement.report import agreement_report_build
from annotate.models import Role
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (a fixture)
from tests.factories import PASSWORD, CampaignFactory, MembershipFactory, UserFactory
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_graded import passage_campaign  # noqa: F401 (a fixture)
from tests.tasktypes.test_agreement_ranking import _groups, _judge, _rank, _topic

P = 0.9


def rbo_by_hand(x: dict[int, float], s: int, l: int, p: float = P) -> float:  # noqa: E741 - the paper's l
    """Webber et al.'s eq. 32 written out, X_d given per depth."""
    first = sum(x[d] / d * p**d for d in range(1, l + 1))
    second = sum(x[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * (first + second) + ((x[l] - x[s]) / l + x[s] / s) * p**l


@pytest.fixture
def top_campaign(db, researcher):
    """Topic 1: ann1 and ann2 rank every candidate, the last two swapped; topic 2: ann1 ties d1 and a1 first;
    topic 3: ann1 ranks only a1 > d1 (a partial ranking). Judge "good" scores a1..d2 = 5..1 except on topic 2."""
    campaign = CampaignFactory(slug="top", task_type="answer_ranking", options={"ties": True, "top_k": 2})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    ann1, ann2 = UserFactory(username="ann1"), UserFactory(username="ann2")
    pks = {}
    for qid, rankings in {"1": {ann1: "a1 a2 a3 d1 d2", ann2: "a1 a2 a3 d2 d1"},
                          "2": {ann1: "d1=a1 a2 a3 d2"}, "3": {ann1: "a1 d1"}}.items():
        unit, pks[qid] = _topic(campaign, qid)
        for user, spec in rankings.items():
            _rank(unit, user, _groups(spec, pks[qid]))
    straight = {"a1": 5, "a2": 4, "a3": 3, "d1": 2, "d2": 1}
    _judge(campaign, "good", {"1": straight, "2": {"d1": 5, "a1": 4, "a2": 3, "a3": 2, "d2": 1}, "3": straight}, pks)
    return campaign


def test_ranking_report_top_measures_by_hand(top_campaign):
    report = agreement_report_build(campaign=top_campaign)
    assert report["rank_agreement"] == {"rbo_p": 0.9, "top_k": 2}
    rows = {row["topic"]: row for row in report["judges"]["good"]["per_topic"]}
    # Topic 1, two annotators: each measure is the mean over them. Against ann1 every measure is 1; against ann2
    # tau_AP: C(5) = 3/4 (d1 above d2 in the judge, below in ann2) -> 2/4 (1 + 1 + 1 + 3/4) - 1 = 0.875.
    assert rows["1"]["tau_ap"] == pytest.approx((1 + 0.875) / 2)
    assert rows["1"]["rbo"] == pytest.approx((1 + rbo_by_hand({1: 1, 2: 2, 3: 3, 4: 3, 5: 5}, 5, 5)) / 2)
    assert rows["1"]["overlap_at_k"] == 1.0 and rows["1"]["kendall_tau_b_at_k"] == pytest.approx(1.0)
    # Topic 2: ann1 ties d1 and a1 first; the judge puts d1 before a1. tau_AP: C(2) = 1/2 (a tie counts half),
    # C(3..5) = 2, 3, 4 -> 2/4 (1/2 + 1 + 1 + 1) - 1 = 0.75. RBO: X_1 = 1/2 (d1 is ann1's first half the time).
    assert rows["2"]["tau_ap"] == pytest.approx(0.75)
    assert rows["2"]["rbo"] == pytest.approx(rbo_by_hand({1: 0.5, 2: 2, 3: 3, 4: 4, 5: 5}, 5, 5))
    assert rows["2"]["overlap_at_k"] == 1.0
    # Either top 2 is {d1, a1}, tied by ann1: tau-b is undefined there.
    assert rows["2"]["kendall_tau_b_at_k"] is None and rows["2"]["n_at_k"] == 2
    # Topic 3, partial: ann1 ranks a1 > d1; a2, a3, d2 count as tied below d1. Judge a1 a2 a3 d1 d2:
    # C(2) = 1 (a1 above a2), C(3) = 1 + 1/2 (a1; a2 tied), C(4) = 1 (a1 only), C(5) = 1 + 1/2 + 1/2 + 1.
    assert rows["3"]["tau_ap"] == pytest.approx(2 / 4 * (1 + 1.5 / 2 + 1 / 3 + 3 / 4) - 1)
    # RBO on what was ranked: ann1's list a1 d1 (s = 2) against the judge's five; X_d = 1, 1, 1, 2, 2.
    assert rows["3"]["rbo"] == pytest.approx(rbo_by_hand({1: 1, 2: 1, 3: 1, 4: 2, 5: 2}, 2, 5))
    # overlap@2: {a1, a2} against {a1, d1} -> 1/2; tau-b over either top 2 {a1, a2, d1}: judge a1 > a2 > d1,
    # ann1 a1 > d1 > a2 -> 2 concordant, 1 discordant, 1/3.
    assert rows["3"]["overlap_at_k"] == pytest.approx(0.5)
    assert rows["3"]["kendall_tau_b_at_k"] == pytest.approx(1 / 3) and rows["3"]["n_at_k"] == 3
    mean = report["judges"]["good"]["topic_mean"]["tau_ap"]
    assert mean["n"] == 3 and mean["mean"] == pytest.approx((0.9375 + 0.75 + rows["3"]["tau_ap"]) / 3)
    assert mean["bootstrap_ci95"] is None and mean["ci_method"].startswith("95% percentile bootstrap over topics")
    assert mean["ci_note"] == "too few topics to resample: 3 (an interval needs at least 4)"
    assert report["judges"]["good"]["topic_mean"]["kendall_tau_b_at_k"]["n"] == 2  # topic 2's is undefined
    # The ceiling: ann1 against ann2 on topic 1 only, tau-AP both ways (the same here: 0.875).
    humans = report["humans"]
    assert humans["per_topic"][0]["tau_ap"] == pytest.approx(0.875)
    assert humans["ceiling"]["rbo"]["mean"] == pytest.approx(rbo_by_hand({1: 1, 2: 2, 3: 3, 4: 3, 5: 5}, 5, 5))
    assert humans["ceiling"]["overlap_at_k"] == {**humans["ceiling"]["overlap_at_k"], "mean": 1.0, "n": 1}


def test_the_options_change_p_and_k(top_campaign):
    top_campaign.options = {**top_campaign.options, "rbo_p": 0.5, "top_k": 1}
    top_campaign.save()
    report = agreement_report_build(campaign=top_campaign)
    rows = {row["topic"]: row for row in report["judges"]["good"]["per_topic"]}
    assert report["rank_agreement"] == {"rbo_p": 0.5, "top_k": 1}
    assert rows["2"]["rbo"] == pytest.approx(rbo_by_hand({1: 0.5, 2: 2, 3: 3, 4: 4, 5: 5}, 5, 5, p=0.5))
    assert rows["2"]["overlap_at_k"] == pytest.approx(0.5)  # d1 is ann1's first half the time


def test_the_ranking_page_shows_the_top_measures(client, top_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(top_campaign)
    page = client.get("/campaigns/top/report/").content.decode()
    assert 'id="ranking-top"' in page and "τ<sub>AP</sub>" in page and "RBO (p = 0.9)" in page
    assert "overlap@2" in page and "τ<sub>b</sub>@2" in page
    report = agreement_report_build(campaign=top_campaign)
    assert f'{report["judges"]["good"]["topic_mean"]["tau_ap"]["mean"]:.3f}' in page


# --- System orders ---

def test_system_orders_top_measures_and_swaps_by_hand():
    from reports.system_level import SystemRows, system_level_block

    def system(name, human, judge):
        rows = SystemRows(system=name, outputs=len(human))
        for topic, (h, j) in enumerate(zip(human, judge, strict=True)):
            rows.add(f"t{topic}", float(h), float(j), evidence=True)
        return rows

    # Humans: A 1.0 > B 0.75 > C 0.25; the judge: B 1.0 > A 0.5 > C 0.25, the top two swapped.
    systems = [system("A", [1, 1, 1, 1], [1, 0, 0, 1]), system("B", [1, 1, 0, 1], [1, 1, 1, 1]),
               system("C", [0, 1, 0, 0], [0, 0, 0, 1])]
    block = system_level_block(systems, min_outputs=1, min_coverage=0.0, rbo_p=0.9, top_k=2)
    # tau_AP of B A C against A B C: C(2) = 0 (B is below A for the humans), C(3) = 2 -> 2/2 (0 + 2/2) - 1 = 0.
    assert block["tau_ap"] == pytest.approx(0.0)
    # RBO: X_1 = 0, X_2 = 2, X_3 = 3 (equal lengths).
    assert block["rbo"] == pytest.approx(rbo_by_hand({1: 0, 2: 2, 3: 3}, 3, 3))
    assert block["overlap_at_k"] == 1.0  # {A, B} both ways
    assert block["kendall_tau_b_at_k"] == pytest.approx(-1.0) and block["n_at_k"] == 2
    assert (block["n_pairs"], block["n_swaps"]) == (3, 1)
    assert block["swaps"] == [{"systems": ["A", "B"], "human": [1.0, 0.75], "judge": [0.5, 1.0]}]
    for key in ("tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k"):  # three systems: no interval, and why
        assert block[f"{key}_ci95"] is None
        assert block[f"{key}_ci_note"] == "too few systems to resample: 3 (an interval needs at least 4)"
    # k = 1: A against B at the top.
    assert system_level_block(systems, min_outputs=1, min_coverage=0.0, top_k=1)["overlap_at_k"] == 0.0


def test_the_qa_report_page_shows_the_system_orders_at_the_top(client, small_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(small_campaign)
    page = client.get(f"/campaigns/{small_campaign.slug}/report/").content.decode()
    assert "τ<sub>AP</sub>" in page and "RBO (p = 0.9)" in page and "overlap@5" in page
    document = client.get(f"/api/campaigns/{small_campaign.slug}/agreement/").json()
    system = next(iter(document["judges"].values()))["system"]
    assert {"tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k", "swaps", "n_swaps"} <= set(system)
    assert document["options"]["rbo_p"] == 0.9 and document["options"]["top_k"] == 5


def test_graded_run_orders_top_measures(passage_campaign):
    report = agreement_report_build(campaign=passage_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    ndcg = report["judges"]["grader"]["system"]["ndcg_cut_10"]
    # The judge swaps r1 and r2 of three runs: tau_AP is 0 when they are the humans' top two, 1/2 when the bottom two
    # (2/2 (C(2) + C(3)/2) - 1 with C = 0, 2 or 1, 1).
    human_order = sorted(rows, key=lambda name: -rows[name]["human"]["ndcg_cut_10"])
    assert ndcg["tau_ap"] == pytest.approx(0.0 if set(human_order[:2]) == {"r1", "r2"} else 0.5)
    assert 0 < ndcg["rbo"] < 1 and ndcg["tau_ap_ci95"] is None
    assert ndcg["tau_ap_ci_note"] == "too few runs to resample: 3 (an interval needs at least 4)"
    assert report["rank_agreement"] == {"rbo_p": 0.9, "top_k": 5}
