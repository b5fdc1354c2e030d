"""NRP (normalised rank position) of generated answers among their topic's documents, per (system, prompt)."""

import pytest

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, Item, SystemOutput
from judges.models import Judge, ModelJudgment
from stats.correlation import normalised_rank_position
from stats.uncertainty import mean_interval, spread
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored


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
    assert normalised_rank_position(answer, documents, plus_one=True) == pytest.approx(expected)


def test_the_nrp_interval_resamples_topics_whole():
    """Ten answers a topic, all alike within a topic: resampling answers one by one would see 40 values and a narrow
    interval; resampling the 4 topics whole sees 4 and says so, and with 8 topics gives the topics' spread."""
    from tasktypes.answer_ranking.report import _nrp_summary

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
    assert (
        systems["sysB"]["judges_nrp"]["ranker"]["min"] == 0.0 and systems["sysB"]["judges_nrp"]["ranker"]["max"] == 0.5
    )
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


def test_nrp_by_dimension_selects_each_dimensions_best_ranker_and_weights_them(db):
    """Two dimensions, each with its qrels set: ranker r1 orders the documents as "relevance" grades them, r2 as
    "correctness" does, so each dimension selects its own ranker (by nDCG@10), and the answers' NRPs under the two
    are combined with the weights 3 and 1 (option nrp_weights).

    Documents d1..d4; r1 scores dn = n, A 3.5, B 0; r2 scores dn = 5 - n, A 0, B 4.5.
    r1: A below d4 only -> 0.75, B below all -> 0;  r2: A below all -> 0, B above all -> 1.
    Humans: relevance  A d4 d3 B d2 d1 -> A 1.0, B 0.5;  correctness  B d1 A d2 d3 d4 -> B 1.0, A 0.75.
    """
    campaign = CampaignFactory(slug="nrp-dims", task_type="answer_ranking",
                               options={"dimensions": ["relevance", "correctness"],
                                        "nrp_weights": {"relevance": 3, "correctness": 1}})
    topic = TopicFactory(campaign=campaign, external_id="1")
    unit = UnitFactory(campaign=campaign, topic=topic, item=None)
    judges = {name: Judge.objects.create(campaign=campaign, name=name, family="external", config={"x": name},
                                      config_hash=name)
              for name in ("r1", "r2")}
    grades = {"relevance": {1: 0, 2: 0, 3: 1, 4: 2}, "correctness": {1: 2, 2: 1, 3: 0, 4: 0}}
    items = {}
    for system, r1, r2 in (("A", 3.5, 0.0), ("B", 0.0, 4.5)):
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"1/{system}", kind="answer")
        SystemOutput.objects.create(campaign=campaign, system=f"sys{system}", topic=topic, item=item,
                                    data={"prompt": "p1"})
        ModelJudgment.objects.create(judge=judges["r1"], item=item, score=r1)
        ModelJudgment.objects.create(judge=judges["r2"], item=item, score=r2)
        items[system] = item
    for n in range(1, 5):
        doc = ItemFactory(campaign=campaign, topic=topic, external_id=f"1/d{n}", kind="document",
                          data={"qrels": {dimension: grades[dimension][n] for dimension in grades}})
        ModelJudgment.objects.create(judge=judges["r1"], item=doc, score=float(n))
        ModelJudgment.objects.create(judge=judges["r2"], item=doc, score=float(5 - n))
        items[f"d{n}"] = doc
    orders = {"relevance": ["A", "d4", "d3", "B", "d2", "d1"], "correctness": ["B", "d1", "A", "d2", "d3", "d4"]}
    HumanJudgment.objects.create(unit=unit, annotator=UserFactory(username="expert2"), label="ranked", value={
        "rankings": {dimension: [[items[key].pk] for key in order] for dimension, order in orders.items()}})
    unit.judgments_done = 1
    unit.save()

    block = agreement_report_build(campaign=campaign)["nrp_dimensions"]
    selection = {step["dimension"]: step for step in block["selection"]}
    assert selection["relevance"]["ranker"] == "r1" and selection["correctness"]["ranker"] == "r2"
    assert selection["relevance"]["ndcg_cut_10"]["r1"] == pytest.approx(1.0)
    assert selection["relevance"]["ndcg_cut_10"]["r2"] < 1.0  # the score that decided it, shown
    assert block["weights"] == {"relevance": 3.0, "correctness": 1.0}
    rows = {row["system"]: row for row in block["systems"]}
    assert rows["sysA"]["by_dimension"]["relevance"]["ranker_nrp"]["mean"] == pytest.approx(0.75)
    assert rows["sysA"]["by_dimension"]["correctness"]["ranker_nrp"]["mean"] == pytest.approx(0.0)
    assert rows["sysA"]["ranker_nrp"]["mean"] == pytest.approx((3 * 0.75 + 0.0) / 4)
    assert rows["sysB"]["ranker_nrp"]["mean"] == pytest.approx((3 * 0.0 + 1.0) / 4)
    assert rows["sysA"]["human_nrp"]["mean"] == pytest.approx((3 * 1.0 + 0.75) / 4)
    assert rows["sysB"]["human_nrp"]["mean"] == pytest.approx((3 * 0.5 + 1.0) / 4)

    researcher = UserFactory(username="dims-researcher")
    from django.test import Client

    from annotate.models import Membership, Role

    Membership.objects.create(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client = Client()
    client.force_login(researcher)
    report_stored(campaign)
    page = client.get("/campaigns/nrp-dims/report/").content.decode()
    assert 'id="nrp-selection"' in page and "<b>r1</b>" in page and "relevance (r1)" in page
    assert "0.562" in page and "0.938" in page  # sysA combined: rankers, humans

    # After a development split (rankers not marked final are read on the development part), each selected ranker's
    # NRP is compared with the humans' over the same part: here d3 and B are held out, so A's correctness NRP among
    # d1, d2 and d4 is 1 - 1/3 (below d1 only), and sysA's combined human NRP (3 x 1.0 + 2/3) / 4, not 0.938.
    Item.objects.filter(pk__in=[items["d3"].pk, items["B"].pk]).update(split="held_out")
    Item.objects.filter(campaign=campaign, split="").update(split="development")
    Campaign.objects.filter(pk=campaign.pk).update(development_split={"held_out": 0.33, "seed": 0,
                                                                      "stratify": "topic"})
    campaign.refresh_from_db()
    rows = {row["system"]: row for row in agreement_report_build(campaign=campaign)["nrp_dimensions"]["systems"]}
    assert rows["sysA"]["by_dimension"]["correctness"]["human_nrp"]["mean"] == pytest.approx(2 / 3)
    assert rows["sysA"]["human_nrp"]["mean"] == pytest.approx((3 * 1.0 + 2 / 3) / 4)
