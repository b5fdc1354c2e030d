"""The answer_ranking agreement report: per-topic Kendall tau-b of rankers vs humans, checked by hand.

The campaign follows docs/answer_ranking.md: four topics, each with three generated answers (a1..a3) and two
documents (d1, d2); one Unit per topic; rankings as tie groups of Item pks in HumanJudgment.value["rankings"].

Human rankings ("overall"):
  101  ann1 = ann2: a1 > a2 > d1 > a3 > d2
  102  ann1: a1 > a2 > a3 > d1 > d2;  ann2: a1 > a2 > a3 > d2 > d1
  103  ann1 only, with a tie: d1 = a1 > a2 > a3 > d2
  104  ann1: a1 > a2 > a3 > d1 > d2;  ann2 the reverse;  adjudicated: ann1's order
"""

import csv
import io
import json
import math
from statistics import mean

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from statsmodels.stats.weightstats import DescrStatsW

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Role
from judges.models import Judge, ModelJudgment
from tests.factories import (
    PASSWORD,
    CampaignFactory,
    ItemFactory,
    MembershipFactory,
    TopicFactory,
    UnitFactory,
    UserFactory,
)
from tests.report_support import report_stored

CANDIDATES = [("a1", "answer"), ("a2", "answer"), ("a3", "answer"), ("d1", "document"), ("d2", "document")]
RANKINGS = {
    "101": {"ann1": "a1 a2 d1 a3 d2", "ann2": "a1 a2 d1 a3 d2"},
    "102": {"ann1": "a1 a2 a3 d1 d2", "ann2": "a1 a2 a3 d2 d1"},
    "103": {"ann1": "d1=a1 a2 a3 d2"},
    "104": {"ann1": "a1 a2 a3 d1 d2", "ann2": "d2 d1 a3 a2 a1"},
}
ADJUDICATED = {"104": "a1 a2 a3 d1 d2"}
SCORES = {
    # follows the humans closely
    "good": {
        "101": {"a1": 5, "a2": 4, "d1": 3, "a3": 2, "d2": 1},
        "102": {"a1": 5, "a2": 4, "a3": 3, "d1": 2, "d2": 1},
        "103": {"d1": 5, "a1": 4, "a2": 3, "a3": 2, "d2": 1},
        "104": {"a1": 5, "a2": 4, "a3": 3, "d1": 2, "d2": 1},
    },
    # reversed on 101, ties on 102, failed on 103's answers, mostly wrong on 104
    "bm25": {
        "101": {"a1": 1, "a2": 2, "d1": 3, "a3": 4, "d2": 5},
        "102": {"a1": 3, "a2": 3, "a3": 3, "d1": 1, "d2": 2},
        "103": {"a1": None, "a2": None, "a3": None, "d1": 1, "d2": 2},
        "104": {"a1": 2, "a2": 1, "a3": 3, "d1": 5, "d2": 4},
    },
}
# Hand-computed per-topic tau-b (C concordant, D discordant, ties corrected as in tau-b):
GOOD_TAU = {
    "101": 1.0,  # both annotators, both 1
    "102": (1.0 + 0.8) / 2,  # vs ann1 1; vs ann2 9 C 1 D -> 0.8; averaged
    "103": 9 / math.sqrt(90),  # one tie on the human side
    "104": 1.0,  # the adjudicated order, not ann2's reverse
}
GOOD_TAU_ANSWERS = {"101": 1.0, "102": 1.0, "103": 1.0, "104": 1.0}
BM25_TAU = {
    "101": -1.0,
    # three tied answers in the scores (n2 = 3): vs ann1 6 C 1 D, vs ann2 7 C 0 D, over sqrt(10 * 7)
    "102": (5 / math.sqrt(70) + 7 / math.sqrt(70)) / 2,
    "103": -1.0,  # only d1 and d2 scored: d1 ranked above d2, scored below
    "104": -0.6,  # 2 C, 8 D
}
BM25_TAU_ANSWERS = {"101": -1.0, "102": None, "103": None, "104": -1 / 3}  # 102: constant; 103: no answer scored
HUMAN_TAU = {"101": 1.0, "102": 0.8, "104": -1.0}  # 103 has one annotator
HUMAN_TAU_ANSWERS = {"101": 1.0, "102": 1.0, "104": -1.0}


def _groups(spec, pks):
    return [[pks[name] for name in group.split("=")] for group in spec.split()]


def _rank(unit, user, groups, *, kind="annotation", version=1, is_current=True, dimension="overall"):
    return HumanJudgment.objects.create(
        unit=unit, annotator=user, kind=kind, source="import", value={"rankings": {dimension: groups}},
        label="ranked", version=version, is_current=is_current,
    )


def _topic(campaign, qid):
    topic = TopicFactory(campaign=campaign, external_id=qid, text=f"query {qid}", data={})
    pks = {
        name: ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/{name}", kind=kind, text=name).pk
        for name, kind in CANDIDATES
    }
    unit = UnitFactory(campaign=campaign, topic=topic, item=None)
    return unit, pks


def _judge(campaign, name, scores, pks_by_topic, family="external"):
    judge = Judge.objects.create(campaign=campaign, name=name, family=family, config_hash=f"hash-{name}")
    for qid, by_name in scores.items():
        for candidate, score in by_name.items():
            ModelJudgment.objects.create(
                judge=judge, item_id=pks_by_topic[qid][candidate], score=score, label="",
                raw="no score" if score is None else f"score {score}", failed=score is None,
            )
    return judge


@pytest.fixture
def ranking_campaign(db, researcher):
    campaign = CampaignFactory(slug="rank", task_type="answer_ranking", overlap=2, options={"ties": True})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    users = {name: UserFactory(username=name) for name in ("ann1", "ann2", "adj")}
    pks_by_topic = {}
    for qid, by_annotator in RANKINGS.items():
        unit, pks = _topic(campaign, qid)
        pks_by_topic[qid] = pks
        for name, spec in by_annotator.items():
            _rank(unit, users[name], _groups(spec, pks))
        if qid in ADJUDICATED:
            _rank(unit, users["adj"], _groups(ADJUDICATED[qid], pks), kind="adjudication")
    # an earlier, superseded version of ann2's ranking of 101 never counts
    unit_101 = campaign.units.get(topic__external_id="101")
    _rank(unit_101, users["ann2"], _groups("d2 d1 a3 a2 a1", pks_by_topic["101"]), version=0, is_current=False)
    for name, scores in SCORES.items():
        _judge(campaign, name, scores, pks_by_topic)
    # another campaign's judge with the same name never leaks in
    other = CampaignFactory(slug="other-rank", task_type="answer_ranking")
    _, other_pks = _topic(other, "101")
    _judge(other, "good", {"101": {"a1": 1, "a2": 2}}, {"101": other_pks})
    return campaign


def _rows(report, judge):
    return {row["topic"]: row for row in report["judges"][judge]["per_topic"]}


def _t_interval(values):
    return list(DescrStatsW(np.array(values)).tconfint_mean(alpha=0.05))


def _bootstrap_interval(values, resamples=20_000):
    """An independent percentile bootstrap of the mean: numpy's own resampling, many more resamples."""
    data = np.asarray(values, dtype=float)
    draws = np.random.default_rng(7).integers(0, data.size, size=(resamples, data.size))
    return list(np.percentile(data[draws].mean(axis=1), [2.5, 97.5]))


def _mean_only(summary):
    return {key: summary[key] for key in ("mean", "ci95", "n")}


def test_per_topic_tau_b_against_hand_computed_values(ranking_campaign):
    report = agreement_report_build(campaign=ranking_campaign)
    assert list(report["judges"]) == ["bm25", "good"]
    for judge, expected, expected_answers in [
        ("good", GOOD_TAU, GOOD_TAU_ANSWERS), ("bm25", BM25_TAU, BM25_TAU_ANSWERS),
    ]:
        rows = _rows(report, judge)
        assert list(rows) == ["101", "102", "103", "104"]
        for qid, tau in expected.items():
            assert rows[qid]["kendall_tau_b"] == pytest.approx(tau), (judge, qid)
            if expected_answers[qid] is None:
                assert rows[qid]["kendall_tau_b_answers_only"] is None, (judge, qid)
            else:
                assert rows[qid]["kendall_tau_b_answers_only"] == pytest.approx(expected_answers[qid]), (judge, qid)
    bm25 = _rows(report, "bm25")
    assert bm25["103"]["n"] == 2 and bm25["103"]["n_answers"] == 0  # failed answers are not scores
    assert report["judges"]["bm25"]["item"] == {"n": 17, "failed": 3}


def test_reference_choice_and_orders(ranking_campaign):
    rows = _rows(agreement_report_build(campaign=ranking_campaign), "good")
    assert [rows[q]["reference"] for q in ("101", "102", "103", "104")] == [
        "annotator_mean", "annotator_mean", "annotator", "adjudication",
    ]
    assert "mean over the 2 annotators" in rows["102"]["note"]
    assert rows["102"]["human_order"] is None
    assert rows["102"]["human_orders"]["ann2"] == [["102/a1"], ["102/a2"], ["102/a3"], ["102/d2"], ["102/d1"]]
    assert rows["103"]["human_order"] == [["103/d1", "103/a1"], ["103/a2"], ["103/a3"], ["103/d2"]]
    assert rows["103"]["judge_order"] == ["103/d1", "103/a1", "103/a2", "103/a3", "103/d2"]
    bm25_102 = _rows(agreement_report_build(campaign=ranking_campaign), "bm25")["102"]
    assert bm25_102["judge_order"] == ["102/a1", "102/a2", "102/a3", "102/d2", "102/d1"]  # flat, ties by id
    assert bm25_102["judge_groups"] == [["102/a1", "102/a2", "102/a3"], ["102/d2"], ["102/d1"]]
    assert rows["104"]["human_order"] == [["104/a1"], ["104/a2"], ["104/a3"], ["104/d1"], ["104/d2"]]
    assert rows["101"]["dimension"] == "overall" and rows["101"]["n"] == 5 and rows["101"]["n_answers"] == 3
    assert rows["101"]["answer_ids"] == ["101/a1", "101/a2", "101/a3"]


def test_topic_means_with_t_interval(ranking_campaign):
    report = agreement_report_build(campaign=ranking_campaign)
    good = report["judges"]["good"]["topic_mean"]
    values = list(GOOD_TAU.values())
    assert good["kendall_tau_b"]["n"] == 4
    assert good["kendall_tau_b"]["mean"] == pytest.approx(mean(values))
    assert good["kendall_tau_b"]["ci95"] == pytest.approx(_t_interval(values))  # the published kind, in the JSON
    # The interval the page shows: a bootstrap over topics, inside [min, max] of the per-topic values.
    low, high = good["kendall_tau_b"]["bootstrap_ci95"]
    assert min(values) <= low <= high <= max(values)
    assert [low, high] == pytest.approx(_bootstrap_interval(values), abs=0.05)
    assert good["kendall_tau_b"]["small"] is True and "bootstrap over topics" in good["kendall_tau_b"]["ci_method"]
    assert _mean_only(good["kendall_tau_b_answers_only"]) == {
        "mean": pytest.approx(1.0),
        "ci95": pytest.approx([1.0, 1.0]),
        "n": 4,
    }
    bm25 = report["judges"]["bm25"]["topic_mean"]
    assert bm25["kendall_tau_b"]["mean"] == pytest.approx(mean(BM25_TAU.values()))
    defined = [v for v in BM25_TAU_ANSWERS.values() if v is not None]
    assert bm25["kendall_tau_b_answers_only"]["n"] == 2  # undefined topics left out
    assert bm25["kendall_tau_b_answers_only"]["mean"] == pytest.approx(-2 / 3)
    assert bm25["kendall_tau_b_answers_only"]["ci95"] == pytest.approx(_t_interval(defined))
    # The t interval leaves the range of tau-b on two topics; two topics are too few to resample, and it says so.
    assert bm25["kendall_tau_b_answers_only"]["bootstrap_ci95"] is None
    assert bm25["kendall_tau_b_answers_only"]["ci_note"] == ("too few topics to resample: 2 "
                                                             "(an interval needs at least 4)")
    assert report["judges"]["good"]["topic_mean_by_dimension"] == {"overall": good}


def test_human_ceiling(ranking_campaign):
    humans = agreement_report_build(campaign=ranking_campaign)["humans"]
    assert humans["annotators"] == 2  # the adjudicator gives verdicts, not rankings
    assert humans["topics"] == 4 and humans["topics_ranked"] == 4 and humans["adjudicated"] == 1
    assert {row["topic"]: row["kendall_tau_b"] for row in humans["per_topic"]} == pytest.approx(HUMAN_TAU)
    ceiling = humans["ceiling"]
    assert ceiling["kendall_tau_b"]["n"] == 3
    assert ceiling["kendall_tau_b"]["mean"] == pytest.approx(mean(HUMAN_TAU.values()))
    assert ceiling["kendall_tau_b"]["ci95"] == pytest.approx(_t_interval(list(HUMAN_TAU.values())))
    assert ceiling["kendall_tau_b_answers_only"]["mean"] == pytest.approx(mean(HUMAN_TAU_ANSWERS.values()))
    assert humans["pairwise_kendall_tau_b"] == [
        {"a": "ann1", "b": "ann2", "kendall_tau_b": pytest.approx(mean(HUMAN_TAU.values())), "n": 3}
    ]


def test_rank_alpha_among_annotators_with_n_and_why_no_interval(ranking_campaign, client):
    alpha = agreement_report_build(campaign=ranking_campaign)["humans"]["rank_alpha"]
    # Rank positions (tie-group index) per candidate, annotators as raters, over the topics both ranked.
    position = {qid: {who: {name: i for i, group in enumerate(spec.split()) for name in group.split("=")}
                      for who, spec in by.items()} for qid, by in RANKINGS.items() if len(by) == 2}
    reliability = [[position[qid][who][name] for qid in sorted(position) for name, _ in CANDIDATES]
                   for who in ("ann1", "ann2")]
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="ordinal")
    assert alpha["krippendorff_alpha_ordinal"] == pytest.approx(expected)
    assert (alpha["krippendorff_alpha_items"], alpha["topics"], alpha["raters"]) == (15, 3, 2)
    assert alpha["krippendorff_alpha_ordinal_ci95"] is None
    assert alpha["krippendorff_alpha_ordinal_ci_note"] == "too few topics to resample: 3 (an interval needs at least 4)"
    report_stored(ranking_campaign)  # as the worker leaves it: a first open never builds
    client.login(username="res", password=PASSWORD)
    html = client.get("/campaigns/rank/report/").content.decode()
    assert "n = 15 candidates over 3 topics, 2 annotators" in html
    assert "no interval: too few topics to resample: 3" in html


def test_one_annotator_has_no_ceiling_and_unranked_topics_are_null(db):
    campaign = CampaignFactory(slug="solo", task_type="answer_ranking")
    unit, pks = _topic(campaign, "7")
    _rank(unit, UserFactory(username="only"), _groups("a1 a2 a3 d1 d2", pks))
    _, pks8 = _topic(campaign, "8")  # nobody ranked it
    _judge(campaign, "j", {"7": {"a1": 3, "a2": 2, "a3": 1}, "8": {"a1": 1, "a2": 2}}, {"7": pks, "8": pks8})
    report = agreement_report_build(campaign=campaign)
    assert report["humans"]["annotators"] == 1 and report["humans"]["ceiling"] is None
    rows = _rows(report, "j")
    assert rows["7"]["kendall_tau_b"] == pytest.approx(1.0) and rows["7"]["n"] == 3  # documents unscored
    assert rows["8"]["reference"] is None and rows["8"]["kendall_tau_b"] is None
    assert rows["8"]["note"] == "no human ranking of this topic yet"
    mean_all = report["judges"]["j"]["topic_mean"]["kendall_tau_b"]
    assert _mean_only(mean_all) == {"mean": pytest.approx(1.0), "ci95": None, "n": 1}  # one topic: no interval
    assert mean_all["bootstrap_ci95"] is None


def test_several_dimensions(db):
    campaign = CampaignFactory(
        slug="dims", task_type="answer_ranking", options={"dimensions": ["relevance", "readability"]}
    )
    ann = UserFactory(username="d-ann")
    unit, pks = _topic(campaign, "1")
    HumanJudgment.objects.create(
        unit=unit,
        annotator=ann,
        source="web",
        label="ranked",
        value={
            "rankings": {"relevance": _groups("a1 a2 a3 d1 d2", pks), "readability": _groups("d2 d1 a3 a2 a1", pks)}
        },
    )
    _judge(campaign, "j", {"1": {"a1": 5, "a2": 4, "a3": 3, "d1": 2, "d2": 1}}, {"1": pks})
    block = agreement_report_build(campaign=campaign)["judges"]["j"]
    assert [(row["topic"], row["dimension"]) for row in block["per_topic"]] == [
        ("1", "relevance"),
        ("1", "readability"),
    ]
    assert [row["kendall_tau_b"] for row in block["per_topic"]] == pytest.approx([1.0, -1.0])
    assert list(block["topic_mean_by_dimension"]) == ["relevance", "readability"]
    assert block["topic_mean_by_dimension"]["readability"]["kendall_tau_b"]["mean"] == pytest.approx(-1.0)
    assert block["topic_mean"] == block["topic_mean_by_dimension"]["relevance"]


def test_json_document_fields(client, ranking_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(ranking_campaign)
    document = json.loads(client.get("/campaigns/rank/report/report.json").content)
    assert set(document) == {
        "campaign",
        "task_type",
        "layout",
        "rank_agreement",
        "nrp",
        "nrp_dimensions",
        "humans",
        "judges",
        "systems",
        "qrels",
        "adjudication",
        "budget",
        "ppi",
        "software",
        "random_stream",
        "interval_errors",
    }
    assert document["task_type"] == "answer_ranking" and document["layout"] == "ranking" and document["systems"] == []
    assert document["ppi"] is None  # four topics: too few for the block (tests/tasktypes/test_ranking_ppi.py)
    row = document["judges"]["good"]["per_topic"][0]
    assert {
        "topic",
        "n",
        "kendall_tau_b",
        "kendall_tau_b_answers_only",
        "dimension",
        "human_order",
        "judge_order",
    } <= set(row)
    assert set(document["judges"]["good"]["topic_mean"]) == {"kendall_tau_b", "kendall_tau_b_answers_only", "tau_ap",
                                                              "rbo", "overlap_at_k", "kendall_tau_b_at_k"}
    assert set(document["judges"]["good"]["topic_mean"]["kendall_tau_b"]) == {
        "mean",
        "ci95",
        "n",
        "bootstrap_ci95",
        "ci_method",
        "ci_over",
        "small",
        "ci_note",
    }
    # the API and the command serve the same document
    assert client.get("/api/campaigns/rank/agreement/").json() == document
    out = io.StringIO()
    call_command("agreement_report", campaign="rank", json=True, stdout=out)
    assert json.loads(out.getvalue()) == document


def test_command_summary_text(ranking_campaign):
    out = io.StringIO()
    call_command("agreement_report", campaign="rank", stdout=out)
    text = out.getvalue()
    assert "good [overall]: 0.962" in text and "human vs human tau-b" in text


def test_page_shows_means_ceiling_and_topic_table(client, ranking_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(ranking_campaign)
    html = client.get("/campaigns/rank/report/").content.decode()
    assert 'id="ranking-summary"' in html and "Humans (ceiling)" in html
    assert f"{mean(GOOD_TAU.values()):.3f}" in html
    # The page shows the bootstrap interval (the t-based one of the JSON can leave [-1, 1]) and says which.
    low, high = agreement_report_build(campaign=ranking_campaign)["judges"]["good"]["topic_mean"]["kendall_tau_b"][
        "bootstrap_ci95"]
    assert f'[{low:.3f}, {high:.3f}] <span class="ci-over">over topics</span></span>' in html
    assert "95% percentile bootstrap over topics" in html
    assert f"{mean(HUMAN_TAU.values()):.3f}" in html
    # the per-topic table: human order (ties joined by "=") and the ranker's order, short labels
    assert "d1 = a1 &gt; a2 &gt; a3 &gt; d2" in html
    assert "a1 &gt; a2 &gt; d1 &gt; a3 &gt; d2" in html
    assert "d2 &gt; a3 &gt; d1 &gt; a2 &gt; a1" in html  # bm25's order of 101
    assert "a1 = a2 = a3 &gt; d2 &gt; d1" in html  # bm25's equal scores on 102
    assert "1 topic adjudicated" in html
    assert "0.949" in html  # good, topic 103
    assert 'href="/campaigns/rank/report/topics.csv"' in html and "systems.csv" not in html


def test_topics_csv(client, ranking_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(ranking_campaign)
    response = client.get("/campaigns/rank/report/topics.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == 'attachment; filename="rank-topics.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 8
    by_key = {(row["judge"], row["topic"]): row for row in rows}
    assert float(by_key[("good", "103")]["kendall_tau_b"]) == pytest.approx(9 / math.sqrt(90))
    assert by_key[("bm25", "102")]["kendall_tau_b_answers_only"] == ""  # undefined: empty cell
    assert by_key[("good", "103")]["human_order"] == "d1 = a1 > a2 > a3 > d2"
    assert by_key[("good", "102")]["human_order"] == "ann1: a1 > a2 > a3 > d1 > d2 | ann2: a1 > a2 > a3 > d2 > d1"
    assert by_key[("bm25", "101")]["judge_order"] == "d2 > a3 > d1 > a2 > a1"
    assert by_key[("bm25", "102")]["judge_order"] == "a1 = a2 = a3 > d2 > d1"  # equal scores shown as ties


def test_judges_csv_for_rankings(client, ranking_campaign):
    client.login(username="res", password=PASSWORD)
    report_stored(ranking_campaign)
    rows = list(csv.DictReader(io.StringIO(client.get("/campaigns/rank/report/judges.csv").content.decode())))
    assert [(row["judge"], row["dimension"]) for row in rows] == [("bm25", "overall"), ("good", "overall")]
    assert float(rows[1]["tau_b_mean"]) == pytest.approx(mean(GOOD_TAU.values())) and rows[1]["tau_b_topics"] == "4"


def _big_campaign(slug, n_topics):
    campaign = CampaignFactory(slug=slug, task_type="answer_ranking")
    users = [UserFactory(username=f"{slug}-{i}") for i in range(3)]
    pks_by_topic = {}
    for t in range(n_topics):
        unit, pks = _topic(campaign, str(t))
        pks_by_topic[str(t)] = pks
        for user in users:
            _rank(unit, user, _groups("a1 a2 a3 d1 d2", pks))
    for name in ("j1", "j2"):
        _judge(campaign, f"{slug}-{name}", {q: {"a1": 1, "a2": 3, "d1": 2} for q in pks_by_topic}, pks_by_topic)
    return campaign


def test_query_count_is_bounded(db, django_assert_max_num_queries):
    small, large = _big_campaign("few", 2), _big_campaign("many", 25)
    with django_assert_max_num_queries(7):
        agreement_report_build(campaign=small)
    with django_assert_max_num_queries(7):
        report = agreement_report_build(campaign=large)
    assert len(report["judges"]["many-j1"]["per_topic"]) == 25
    assert report["humans"]["ceiling"]["kendall_tau_b"]["n"] == 25


def test_annotators_get_403_on_the_topics_csv(client, ranking_campaign, annotator):
    MembershipFactory(campaign=ranking_campaign, user=annotator, role=Role.ANNOTATOR)
    client.login(username="ann", password=PASSWORD)
    assert client.get("/campaigns/rank/report/topics.csv").status_code == 403  # a member: told it is the researchers'
    client.login(username=UserFactory(username="stranger").username, password=PASSWORD)
    assert client.get("/campaigns/rank/report/topics.csv").status_code == 404


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_researcher_reads_the_ranking_report_in_chromium(ranking_campaign, login_page, live_server, tmp_path):
    page = login_page("res")
    report_stored(ranking_campaign)
    page.goto(f"{live_server.url}/campaigns/rank/report/")
    summary = page.locator("#ranking-summary tbody tr")
    assert summary.count() == 3  # the human ceiling, then the two rankers
    assert summary.nth(2).locator("td").nth(4).inner_text() == f"{mean(GOOD_TAU.values()):.3f}"
    bm25_topics = page.locator("details.judge-topics").nth(0)
    good_topics = page.locator("details.judge-topics").nth(1)
    assert bm25_topics.locator("tbody tr").nth(0).is_visible()  # the first ranker's table starts open
    assert not good_topics.locator("tbody tr").nth(0).is_visible()
    good_topics.locator("summary").click()
    row = good_topics.locator("tbody tr").nth(2)
    assert row.locator("td").nth(1).inner_text().startswith("d1 = a1 > a2 > a3 > d2")
    assert row.locator("td").nth(4).inner_text() == "0.949"
    page.screenshot(path=str(tmp_path / "ranking-report.png"), full_page=True)
    with page.expect_download() as download:
        page.click("text=Download topics CSV")
    with open(download.value.path(), encoding="utf-8") as handle:
        assert handle.readline().startswith("judge,topic,dimension,n,")


def test_rankers_against_document_qrels_and_nrp_among_judged_documents(ranking_campaign):
    """Qrels set "relevance": 101 grades d1 2 (d2 unjudged); 102 grades d1 0 and d2 1. System S answers a3 on both."""
    from annotate.models import Item, SystemOutput

    for external_id, grade in (("101/d1", 2), ("102/d1", 0), ("102/d2", 1)):
        item = Item.objects.get(campaign=ranking_campaign, external_id=external_id)
        item.data = {**item.data, "qrels": {"relevance": grade}}
        item.save(update_fields=["data"])
    for qid in ("101", "102"):
        item = Item.objects.get(campaign=ranking_campaign, external_id=f"{qid}/a3")
        SystemOutput.objects.create(campaign=ranking_campaign, system="S", topic=item.topic, item=item)
    report = agreement_report_build(campaign=ranking_campaign)
    qrels = report["qrels"]
    assert qrels["sets"] == [{"name": "relevance", "dimension": "overall", "topics": 2, "documents": 3}]
    good, bm25 = qrels["judges"]["good"]["relevance"], qrels["judges"]["bm25"]["relevance"]
    # good: 101 puts d1 first (NDCG 1, AP 1); 102 puts the relevant d2 second (NDCG 1/log2(3), AP 0.5).
    assert good["ndcg_cut_10"]["mean"] == pytest.approx((1 + 1 / math.log2(3)) / 2) and good["ndcg_cut_10"]["n"] == 2
    assert good["map"]["mean"] == pytest.approx(0.75)
    # bm25 the other way round on each topic.
    assert bm25["ndcg_cut_10"]["mean"] == pytest.approx((1 / math.log2(3) + 1) / 2)
    assert good["ndcg_cut_10"]["bootstrap_ci95"] is None  # two topics: too few to resample, and said
    assert good["ndcg_cut_10"]["ci_note"] == "too few topics to resample: 2 (an interval needs at least 4)"
    (row,) = report["systems"]
    # Among all documents a3 sits above d2 only in 101 (NRP 0.5) and above both in 102 (1); among the judged ones
    # 101 has only d1, above a3 (0).
    assert row["human_nrp"]["mean"] == pytest.approx(0.75) and row["human_nrp_judged"]["mean"] == pytest.approx(0.5)
    assert row["judges_nrp"]["good"]["mean"] == pytest.approx(0.75)
    assert row["judges_nrp_judged"]["good"]["mean"] == pytest.approx(0.5)


def test_no_qrels_no_block(ranking_campaign):
    report = agreement_report_build(campaign=ranking_campaign)
    assert report["qrels"] is None and report["systems"] == []


def test_page_shows_rankers_against_qrels(client, ranking_campaign):
    from annotate.models import Item

    item = Item.objects.get(campaign=ranking_campaign, external_id="101/d1")
    item.data = {**item.data, "qrels": {"relevance": 2}}
    item.save(update_fields=["data"])
    client.login(username="res", password=PASSWORD)
    report_stored(ranking_campaign)
    html = client.get("/campaigns/rank/report/").content.decode()
    assert 'id="ranker-qrels"' in html and "<td>relevance</td>" in html and "1.000" in html  # good puts d1 first
