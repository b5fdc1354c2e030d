"""The report's adjudication block (reports.adjudication) on campaigns whose answers are known, its page,
and adjudications through a campaign archive (export, then import)."""

import math

import pytest

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, JudgmentKind, Role, Unit
from annotate.services.adjudication import adjudication_submit
from interchange.archive import campaign_export, campaign_import
from judges.models import Judge, ModelJudgment
from reports.adjudication import agreement_with_reference, share_with_interval
from tests.adjudication_support import disagreement_campaign
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UserFactory
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db

Z = 1.959963984540054  # the 97.5th percentile of the standard normal


def wilson(agree: int, n: int) -> list[float]:
    """Wilson's score interval, from its formula (Wilson 1927), to check the report's figures against."""
    p = agree / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return [centre - half, centre + half]


@pytest.fixture
def settled(researcher):
    """The disagreement campaign with u1 settled as not correct, u3 as correct and u4 as not correct."""
    campaign, people, units = disagreement_campaign(researcher=researcher)
    for unit, correct, note in ((units[1], False, "names the wrong painter"), (units[3], True, ""),
                                (units[4], False, "")):
        adjudication_submit(unit=unit, adjudicator=people["adj"], value={"correct": correct}, note=note)
    return campaign, people, units


def test_the_share_and_its_wilson_interval():
    assert share_with_interval(2, 3) == {"share": pytest.approx(2 / 3), "share_ci95": pytest.approx(wilson(2, 3))}
    assert share_with_interval(0, 0) == {"share": None, "share_ci95": None}
    row = agreement_with_reference(["yes", "yes", "no", "no"], ["yes", "no", "no", "no"], ["t1", "t1", "t2", "t3"])
    # kappa: observed 3/4, by chance 2/4 * 1/4 + 2/4 * 3/4 = 1/2 -> (3/4 - 1/2) / (1 - 1/2) = 0.5
    assert (row["n"], row["agree"], row["kappa"]) == (4, 3, pytest.approx(0.5))
    assert row["kappa_ci95"] is not None and -1 <= row["kappa_ci95"][0] <= 0.5 <= row["kappa_ci95"][1] <= 1


def test_the_report_says_which_label_it_uses_and_how_each_rater_agrees_with_the_adjudications(settled):
    campaign, people, units = settled
    block = agreement_report_build(campaign=campaign)["adjudication"]
    assert block["label_rule"] == "adjudicated where present, else the majority of the current annotations"
    assert (block["adjudicated"], block["units_labelled"]) == (3, 5)  # u0 and u2 by their majority
    rows = {row["name"]: row for row in block["annotators"] + block["judges"]}
    # Settled: u1 no, u3 yes, u4 no. a1 said yes, yes, no; a2 yes, no, yes; a3 no, no (not u4); llm no, no, no;
    # em yes, no, yes.
    expected = {"a1": (3, 2), "a2": (3, 0), "a3": (2, 1), "llm": (3, 2), "em": (3, 0)}
    assert {name: (row["n"], row["agree"]) for name, row in rows.items()} == expected
    for name, (n, agree) in expected.items():
        assert rows[name]["share"] == pytest.approx(agree / n)
        assert rows[name]["share_ci95"] == pytest.approx(wilson(agree, n))
    # a1 against the adjudications: observed 2/3, by chance 2/3 * 1/3 + 1/3 * 2/3 = 4/9 -> kappa 0.4; em: -0.8.
    assert rows["a1"]["kappa"] == pytest.approx(0.4) and rows["em"]["kappa"] == pytest.approx(-0.8)
    assert rows["a2"]["kappa"] == pytest.approx(-0.8)
    # Every unit is of one question: a bootstrap over topics has one topic to draw, so no interval.
    assert rows["a1"]["kappa_ci95"] is None
    assert rows["llm"]["family"] == "llm"


def test_without_adjudications_the_block_says_so(researcher):
    campaign, _, _ = disagreement_campaign(researcher=researcher)
    block = agreement_report_build(campaign=campaign)["adjudication"]
    assert block["adjudicated"] == 0 and block["annotators"] == [] and all(row["n"] == 0 for row in block["judges"])


def test_the_report_page_shows_the_block_with_its_n(client, settled, researcher):
    client.force_login(researcher)
    report_stored("adj")
    page = client.get("/campaigns/adj/report/").content.decode()
    assert 'id="adjudication"' in page
    assert "The human label: adjudicated where present, else the majority of the current annotations." in page
    assert "<b>3</b> of 5 units with a human label were adjudicated" in page
    assert "<td>a1</td><td class=\"num\">3</td><td class=\"num\">2</td><td class=\"num\">0.667" in page


def test_the_ranking_report_gives_each_raters_tau_with_the_adjudicated_ranking(researcher):
    campaign = CampaignFactory(slug="rank", task_type="answer_ranking", overlap=2, options={"dimensions": ["overall"]})
    r1, r2, adj = (UserFactory(username=name) for name in ("r1", "r2", "radj"))
    for user, role in ((r1, Role.ANNOTATOR), (r2, Role.ANNOTATOR), (adj, Role.ADJUDICATOR),
                       (researcher, Role.RESEARCHER)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    topic = TopicFactory(campaign=campaign, external_id="1", text="query", data={})
    c = [ItemFactory(campaign=campaign, topic=topic, external_id=f"1/c{n}", text=f"candidate {n}").pk for n in range(4)]
    unit = Unit.objects.create(campaign=campaign, topic=topic, item=None, judgments_needed=2, judgments_done=2)
    for user, order in ((r1, [0, 1, 2, 3]), (r2, [0, 3, 2, 1])):
        HumanJudgment.objects.create(
            unit=unit, annotator=user, value={"rankings": {"overall": [[c[n]] for n in order]}}, label="ranked"
        )
    judge = Judge.objects.create(campaign=campaign, name="ranker", family="bm25", config={}, config_hash="ranker")
    for n, score in enumerate([4.0, 3.0, 2.0, 1.0]):
        ModelJudgment.objects.create(judge=judge, item_id=c[n], score=score, label="")
    adjudication_submit(unit=unit, adjudicator=adj, value={"rankings": {"overall": [[c[1]], [c[0]], [c[2]], [c[3]]]}})
    block = agreement_report_build(campaign=campaign)["adjudication"]
    assert block["adjudicated"] == 1 and block["dimension"] == "overall"
    rows = {row["name"]: row for row in block["annotators"] + block["judges"]}
    # Against c1 > c0 > c2 > c3: r1 (c0 > c1 > c2 > c3) swaps one pair of six, tau (5 - 1) / 6; r2 (c0 > c3 > c2 >
    # c1) agrees on 2 pairs and swaps 4, tau -2 / 6; the ranker orders as r1 does.
    assert rows["r1"]["mean"] == pytest.approx(4 / 6) and rows["r2"]["mean"] == pytest.approx(-2 / 6)
    assert rows["ranker"]["mean"] == pytest.approx(4 / 6)
    assert all(row["n"] == 1 and row["bootstrap_ci95"] is None for row in rows.values())  # one topic: no interval
    assert rows["r1"]["per_topic"] == [{"topic": "1", "kendall_tau_b": pytest.approx(4 / 6)}]


def test_adjudications_and_their_notes_survive_an_archive(settled, tmp_path, researcher):
    campaign, people, units = settled
    path = tmp_path / "adj.zip"
    campaign_export(campaign, path)
    before = agreement_report_build(campaign=campaign)["adjudication"]
    campaign_import(path, slug="adj-copy", owner=researcher)
    copy = Campaign.objects.get(slug="adj-copy")
    rows = sorted(HumanJudgment.objects.filter(unit__campaign=copy, kind=JudgmentKind.ADJUDICATION).values_list(
        "unit__item__external_id", "annotator__username", "label", "note", "source", "is_current"))
    assert rows == [("u1", "adj", "no", "names the wrong painter", "web", True), ("u3", "adj", "yes", "", "web", True),
                    ("u4", "adj", "no", "", "web", True)]
    assert HumanJudgment.objects.filter(unit__campaign=copy, kind=JudgmentKind.ANNOTATION).count() == 14
    assert agreement_report_build(campaign=copy)["adjudication"] == before


def test_a_graded_report_compares_the_judges_grades_with_the_adjudicated_grades(researcher):
    campaign = CampaignFactory(slug="psg", task_type="passage_relevance", overlap=2)
    g1, g2, adj = (UserFactory(username=name) for name in ("g1", "g2", "gadj"))
    for user, role in ((g1, Role.ANNOTATOR), (g2, Role.ANNOTATOR), (adj, Role.ADJUDICATOR),
                       (researcher, Role.RESEARCHER)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    judge = Judge.objects.create(campaign=campaign, name="llm-grader", family="llm", config={}, config_hash="g")
    units = []
    for n, (first, second, settled, judged) in enumerate([(0, 3, 0, 0), (2, 3, 3, 2), (1, 1, None, 1)]):
        topic = TopicFactory(campaign=campaign, external_id=f"q{n}", text=f"query {n}", data={})
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"q{n}/d{n}", kind="passage",
                           text=f"passage {n}", data={"docid": f"d{n}"})
        unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=2, judgments_done=2,
                                   position=n)
        for user, grade in ((g1, first), (g2, second)):
            HumanJudgment.objects.create(unit=unit, annotator=user, value={"grade": grade}, label=str(grade))
        ModelJudgment.objects.create(judge=judge, item=item, label=str(judged), score=None, raw="{}")
        if settled is not None:
            adjudication_submit(unit=unit, adjudicator=adj, value={"grade": settled})
        units.append(unit)
    block = agreement_report_build(campaign=campaign)["adjudication"]
    rows = {row["name"]: row for row in block["annotators"] + block["judges"]}
    # Settled: q0 grade 0, q1 grade 3. g1 gave 0 and 2, g2 3 and 3, the judge 0 and 2.
    assert block["adjudicated"] == 2
    assert {name: (row["n"], row["agree"]) for name, row in rows.items()} == {
        "g1": (2, 1), "g2": (2, 1), "llm-grader": (2, 1)}
    assert rows["g1"]["share_ci95"] == pytest.approx(wilson(1, 2))
