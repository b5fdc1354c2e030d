"""NRP (normalised rank position) of generated answers among their topic's documents, per (system, prompt)."""

import pytest

from agreement.report import agreement_report_build
from agreement.stats import mean_interval, normalised_rank_position, spread
from annotate.models import HumanJudgment, SystemOutput
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory
from tests.reports import report_stored


@pytest.mark.parametrize("answer,documents,expected", [
    (9.0, [1.0, 2.0, 3.0, 4.0], 1.0),  # above every document: r = 0
    (0.0, [1.0, 2.0, 3.0, 4.0], 0.0),  # below all four: r = 4
    (2.5, [1.0, 2.0, 3.0, 4.0], 0.5),  # two documents above
    (3.0, [1.0, 2.0, 3.0, 4.0], 0.75),  # a tie with a document goes in the answer's favour
    (1.0, [], None),
])
def test_normalised_rank_position(answer, documents, expected):
    assert normalised_rank_position(answer, documents) == expected


@pytest.mark.parametrize("answer,documents,expected", [
    (9.0, [1.0, 2.0, 3.0, 4.0], 1.0),
    (0.0, [1.0, 2.0, 3.0, 4.0], 0.2),  # below all four: 1 - 4/5
    (2.5, [1.0, 2.0, 3.0, 4.0], 0.6),
])
def test_normalised_rank_position_as_the_study_code_computes_it(answer, documents, expected):
    assert normalised_rank_position(answer, documents, rule="study-code") == pytest.approx(expected)


def test_the_nrp_interval_resamples_topics_whole():
    """Ten answers a topic, all alike within a topic: resampling answers one by one would see 40 values and a narrow
    interval; resampling the 4 topics whole sees 4 and says so, and with 8 topics gives the topics' spread."""
    from agreement.report_ranking import _nrp_summary

    four = [(str(topic), value) for topic, value in enumerate([0.1, 0.4, 0.6, 0.9]) for _ in range(10)]
    block = _nrp_summary(four)
    assert (block["n"], block["topics"], block["mean"]) == (40, 4, pytest.approx(0.5))
    assert block["mean_ci95"] is not None and block["mean_ci95"][0] < 0.3 and block["mean_ci95"][1] > 0.7
    answers_alone = mean_interval([value for _, value in four])
    assert answers_alone[1] - answers_alone[0] < (block["mean_ci95"][1] - block["mean_ci95"][0]) / 2
    three = _nrp_summary(four[:30])
    assert three["mean_ci95"] is None and three["mean_ci_note"].startswith("too few topics to resample: 3")


def test_spread():
    assert spread([0.0, 0.5, 1.0, None]) == {"mean": 0.5, "sd": 0.5, "min": 0.0, "max": 1.0, "n": 3}
    assert spread([None])["mean"] is None and spread([0.25])["sd"] is None


def test_report_gives_mean_nrp_per_system_and_prompt(db):
    """Two topics, each: answers from (sysA, p1) and (sysB, p1), four documents d1..d4.

    Judge scores: topic 1: sysA 3.5 (d4=4 above: r 1 -> 0.75), sysB 0 (r 4 -> 0.0)
                  topic 2: sysA 10 (r 0 -> 1.0),  sysB 2.5 (d3, d4 above: r 2 -> 0.5)
    Human order, topic 1 only: sysA d1 d2 sysB d3 d4 -> sysA 1.0, sysB 0.5; topic 2 not ranked yet.
    """
    campaign = CampaignFactory(slug="nrp", task_type="answer_ranking")
    judge = Judge.objects.create(campaign=campaign, name="ranker", family="external", config={"x": 1})
    scores = {"1": {"A": 3.5, "B": 0.0}, "2": {"A": 10.0, "B": 2.5}}
    items = {}
    for qid in ("1", "2"):
        topic = TopicFactory(campaign=campaign, external_id=qid)
        UnitFactory(campaign=campaign, topic=topic, item=None)
        for system in ("A", "B"):
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/{system}", kind="answer")
            SystemOutput.objects.create(campaign=campaign, system=f"sys{system}", topic=topic, item=item,
                                        data={"prompt": "p1"})
            ModelJudgment.objects.create(judge=judge, item=item, score=scores[qid][system])
            items[(qid, system)] = item
        for n in range(1, 5):
            doc = ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/d{n}", kind="document")
            ModelJudgment.objects.create(judge=judge, item=doc, score=float(n))
            items[(qid, f"d{n}")] = doc
    order = ["A", "d1", "d2", "B", "d3", "d4"]
    unit = campaign.units.get(topic__external_id="1")
    HumanJudgment.objects.create(unit=unit, annotator=UserFactory(username="expert"), label="ranked",
                                 value={"rankings": {"overall": [[items[("1", key)].pk] for key in order]}})
    unit.judgments_done = 1
    unit.save()

    systems = {row["system"]: row for row in agreement_report_build(campaign=campaign)["systems"]}
    assert set(systems) == {"sysA", "sysB"} and systems["sysA"]["prompt"] == "p1" and systems["sysA"]["n"] == 2
    assert systems["sysA"]["judges"]["ranker"] == pytest.approx((0.75 + 1.0) / 2)
    assert systems["sysB"]["judges"]["ranker"] == pytest.approx((0.0 + 0.5) / 2)
    assert systems["sysB"]["judges_nrp"]["ranker"]["min"] == 0.0 and systems["sysB"]["judges_nrp"]["ranker"]["max"] == 0.5
    assert systems["sysA"]["human"] == 1.0 and systems["sysB"]["human"] == 0.5
    assert systems["sysA"]["human_nrp"]["n"] == 1  # the unranked topic does not count for humans

    # The study code's rule, as an option: 1 - r/(|D| + 1); the report says which rule it used.
    campaign.options = {**campaign.options, "nrp_rule": "study-code"}
    campaign.save(update_fields=["options"])
    report = agreement_report_build(campaign=campaign)
    systems = {row["system"]: row for row in report["systems"]}
    assert report["nrp"]["rule"] == "study-code" and report["nrp"]["formula"].startswith("1 − r/(|D| + 1)")
    assert systems["sysA"]["judges"]["ranker"] == pytest.approx((0.8 + 1.0) / 2)
    assert systems["sysB"]["judges"]["ranker"] == pytest.approx((0.2 + 0.6) / 2)
    campaign.options = {key: value for key, value in campaign.options.items() if key != "nrp_rule"}
    campaign.save(update_fields=["options"])


def test_report_page_shows_the_nrp_table_and_plot(client, db):
    test_report_gives_mean_nrp_per_system_and_prompt(db)
    researcher = UserFactory(username="nrp-researcher")
    from annotate.models import Campaign, Membership, Role

    Membership.objects.create(campaign=Campaign.objects.get(slug="nrp"), user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    report_stored("nrp")
    page = client.get("/campaigns/nrp/report/").content.decode()
    assert "Generated answers among the documents (NRP)" in page
    assert "sysA" in page and "0.875" in page and "<svg" in page
    assert "NRP = 1 − r/|D|, as the paper defines it (option nrp_rule: paper)" in page
    assert client.get("/campaigns/nrp/report/systems.csv").status_code == 200
