"""The report's arms section recovers what simulated annotators whose behaviour is known did.

A QA campaign with an adjudicated truth on every unit and a judge right on 70% of them. Blind annotators are right
with probability 0.8 and take 10-30 s; assisted annotators accept a right suggestion, copy a wrong one 30% of the time
(else answer correctly) and take 5-15 s. So: blind agreement with the truth 0.8, assisted 0.7 + 0.3 * 0.7 = 0.91;
with the judge, blind 0.8 * 0.7 + 0.2 * 0.3 = 0.62, assisted 0.7 + 0.3 * 0.3 = 0.79; assisted judgments equal to a
right suggestion 1.0, to a wrong one 0.3; median seconds 20 and 10. Every figure's interval must hold its true value.
"""

import random
from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from scipy.special import comb

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Item, JudgmentKind, JudgmentSource, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from judges.models import Judge, ModelJudgment
from stats import stats_arms
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored
from tests.tasktypes.test_ranking_services import ranking_campaign

UNITS = 150
ANNOTATORS = 12  # six per arm
SEED = 1


def inside(summary, truth):
    low, high = summary["ci95"]
    return low <= truth <= high


@pytest.fixture
def simulated(db):
    rng = random.Random(SEED)
    campaign = CampaignFactory(slug="sim", task_type="qa_correctness", overlap=2,
                               options={"arms": ["blind", "assisted:gpt"]})
    judge = Judge.objects.create(campaign=campaign, name="gpt", family="external", config_hash="gpt")
    adjudicator = UserFactory(username="adj")
    truth = {}
    for n in range(UNITS):
        topic = TopicFactory(campaign=campaign, external_id=str(n))
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"i{n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=2, position=n)
        truth[unit.pk] = rng.random() < 0.5
        judge_right = rng.random() < 0.7
        ModelJudgment.objects.create(judge=judge, item=item, score=0.5,
                                     label="yes" if truth[unit.pk] == judge_right else "no")
        HumanJudgment.objects.create(unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION,
                                     source=JudgmentSource.WEB, value={"correct": truth[unit.pk]},
                                     label="yes" if truth[unit.pk] else "no", version=1, is_current=True)
    people = [UserFactory(username=f"sim{n}") for n in range(ANNOTATORS)]
    for person in people:
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
    # Arms are drawn from the system's randomness; seeded here, so every run deals the same arms to the same
    # annotators, the simulation's draws fall on the same units, and the intervals below are checked on one sample.
    with mock.patch("annotate.services.arms._random", random.Random(SEED)):
        _simulate(campaign, people, truth, rng)
    return campaign


def _simulate(campaign, people, truth, rng):
    busy = True
    while busy:
        busy = False
        for person in people:
            assignment = unit_lease_next(campaign=campaign, annotator=person)
            if assignment is None:
                continue
            busy = True
            right = truth[assignment.unit_id]
            if assignment.arm == "blind":
                answer = right if rng.random() < 0.8 else not right
                seconds = rng.uniform(10, 30)
            else:
                suggested = assignment.suggestion["correct"]
                answer = suggested if suggested == right or rng.random() < 0.3 else right
                seconds = rng.uniform(5, 15)
            # The verdict arrives exactly `seconds` after the lease: the clock is the simulation's, not the
            # machine's, so a loaded CI machine adds nothing to the times the report must recover.
            submitted = assignment.leased_at + timedelta(seconds=seconds)
            with mock.patch("annotate.services.annotation.timezone.now", return_value=submitted):
                judgment_submit(assignment=assignment, annotator=person, value={"correct": answer})


def test_the_report_recovers_the_simulated_annotators_behaviour(simulated):
    report = agreement_report_build(campaign=simulated)
    arms = report["arms"]
    assert arms["arms"] == ["blind", "assisted:gpt"] and arms["per"] == "annotator"
    assert arms["adjudicated_units"] == UNITS
    blind, assisted = arms["per_arm"]
    assert blind["annotators"] == assisted["annotators"] == ANNOTATORS // 2  # balanced
    assert blind["judgments"] + assisted["judgments"] == 2 * UNITS

    assert inside(blind["reference"], 0.8) and inside(assisted["reference"], 0.91)
    assert blind["reference"]["n"] == blind["judgments"]
    assert inside(blind["judges"]["gpt"], 0.62) and inside(assisted["judges"]["gpt"], 0.79)
    assert blind["suggestion"] is None
    suggestion = assisted["suggestion"]
    assert suggestion["shown"] == assisted["judgments"] and suggestion["not_available"] == 0
    assert suggestion["equal_when_right"]["value"] == 1.0  # a right suggestion is always accepted
    assert inside(suggestion["equal_when_wrong"], 0.3)
    assert suggestion["equal_when_right"]["n"] + suggestion["equal_when_wrong"]["n"] == suggestion["shown"]
    assert inside(suggestion["equal"], 0.7 + 0.3 * 0.3)
    assert inside(blind["seconds"], 20.0) and inside(assisted["seconds"], 10.0)
    assert blind["seconds"]["n"] == blind["judgments"]

    by_measure = {row["measure"]: row for row in arms["differences"]}
    reference = by_measure["reference"]
    assert reference["arm"] == "assisted:gpt" and reference["n"] == [ANNOTATORS // 2, ANNOTATORS // 2]
    # Six annotators a side: the test has little power, so only its interval is held to the truth.
    assert inside(reference, 0.91 - 0.8) and 0 < reference["p_value"] <= 1
    assert inside(by_measure["judge:gpt"], 0.79 - 0.62)
    assert "annotators" in reference["method"]

    # The page and the API carry the same figures.
    researcher = UserFactory(username="res")
    MembershipFactory(campaign=simulated, user=researcher, role=Role.RESEARCHER)
    client = Client()
    client.force_login(researcher)
    report_stored(simulated)
    page = client.get("/campaigns/sim/report/").content.decode()
    assert 'id="arms"' in page and "assisted by gpt" in page
    assert f"{blind['reference']['value']:.3f}" in page
    api = client.get("/api/campaigns/sim/agreement/").json()
    assert api["arms"]["per_arm"][1]["suggestion"]["equal_when_wrong"] == suggestion["equal_when_wrong"]


@pytest.mark.django_db
def test_blind_judgments_meet_the_majority_of_the_other_blind_judgments_when_nothing_is_adjudicated():
    campaign = CampaignFactory(task_type="qa_correctness", overlap=3, options={"arms": ["blind", "assisted:gpt"],
                                                                              "arm_assignment": "researcher"})
    topic = TopicFactory(campaign=campaign)
    item = ItemFactory(campaign=campaign, topic=topic)
    UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=4)
    judge = Judge.objects.create(campaign=campaign, name="gpt", family="external", config_hash="gpt")
    ModelJudgment.objects.create(judge=judge, item=item, label="yes", score=1.0)
    verdicts = {"b1": ("blind", True), "b2": ("blind", True), "b3": ("blind", False), "a1": ("assisted:gpt", False)}
    for name, (arm, correct) in verdicts.items():
        person = UserFactory(username=name)
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR, arm=arm)
        judgment_submit(assignment=unit_lease_next(campaign=campaign, annotator=person), annotator=person,
                        value={"correct": correct})
    arms = agreement_report_build(campaign=campaign)["arms"]
    blind, assisted = arms["per_arm"]
    # b1 meets {b2 yes, b3 no}: a tie, no reference; b2 likewise; b3 meets {yes, yes}: disagrees.
    assert (blind["reference"]["n"], blind["reference"]["value"]) == (1, 0.0)
    # a1 meets the blind majority, yes: disagrees; it was shown yes and changed it.
    assert (assisted["reference"]["n"], assisted["reference"]["value"]) == (1, 0.0)
    assert assisted["suggestion"]["equal"]["value"] == 0.0 and assisted["suggestion"]["equal_when_right"]["n"] == 1
    assert "majority of the blind arm" in arms["reference_rule"]


@pytest.mark.django_db
def test_answer_ranking_compares_orders_by_kendall_tau_b():
    campaign, people = ranking_campaign(topics=2, annotators=2, options={"arms": ["blind", "assisted:bm25"],
                                                                        "arm_assignment": "researcher"})
    Membership = people[0].memberships.model
    Membership.objects.filter(user=people[0]).update(arm="blind")
    Membership.objects.filter(user=people[1]).update(arm="assisted:bm25")
    campaign.overlap = 2
    campaign.save(update_fields=["overlap"])
    campaign.units.update(judgments_needed=2)
    judge = Judge.objects.create(campaign=campaign, name="bm25", family="external", config_hash="bm25")
    adjudicator = UserFactory()
    for unit in campaign.units.all():
        items = list(Item.objects.filter(topic=unit.topic).order_by("pk"))
        for score, item in enumerate(reversed(items)):
            ModelJudgment.objects.create(judge=judge, item=item, score=float(score))  # the judge: first item best
        best_first = [[item.pk] for item in items]
        HumanJudgment.objects.create(unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION,
                                     source=JudgmentSource.WEB, value={"rankings": {"overall": best_first}},
                                     label="ranked", version=1, is_current=True)
    for person in people:
        for _ in range(2):
            assignment = unit_lease_next(campaign=campaign, annotator=person)
            if assignment.arm == "blind":  # the blind annotator ranks worst first
                order = [[item.pk] for item in Item.objects.filter(topic=assignment.unit.topic).order_by("-pk")]
                value = {"rankings": {"overall": order}, "order_confirmed": {"overall": "moved"}}
            else:  # the assisted one keeps the judge's order
                value = {**assignment.suggestion, "order_confirmed": {"overall": "kept"}}
            judgment_submit(assignment=assignment, annotator=person, value=value)
    arms = agreement_report_build(campaign=campaign)["arms"]
    blind, assisted = arms["per_arm"]
    assert arms["measure"].startswith("mean Kendall's tau-b")
    assert (blind["reference"]["value"], blind["reference"]["n"]) == (-1.0, 2)
    assert (assisted["reference"]["value"], assisted["judges"]["bm25"]["value"]) == (1.0, 1.0)
    assert assisted["suggestion"]["equal"]["value"] == 1.0 and assisted["suggestion"]["equal_when_right"]["n"] == 2
    assert "blind ranking that agrees best" in arms["reference_rule"]


def test_the_comparisons_and_summaries_as_pure_functions():
    labels = stats_arms.LabelComparison
    assert labels.reference(["yes", "yes", "no"]) == "yes" and labels.reference(["yes", "no"]) is None
    assert labels.agreement("yes", "yes") == 1.0 and labels.agreement("yes", None) is None
    rankings = stats_arms.RankingComparison
    a, b = {"d": [[1], [2], [3]]}, {"d": [[3], [2], [1]]}
    assert rankings.agreement(a, a) == 1.0 and rankings.agreement(a, b) == -1.0
    assert rankings.reference([b, a, a]) == a
    share = stats_arms.share_summary([1.0, 0.0, 1.0, 1.0, None])
    assert share["n"] == 4 and share["value"] == 0.75 and share["method"] == "95% Wilson interval"
    test = stats_arms.difference_test([1.0, 0.9, 0.95, 1.0], [0.1, 0.2, 0.0, 0.15], over="annotators")
    assert test["difference"] == pytest.approx(0.85) and test["p_value"] < 0.05 and test["ci95"][0] > 0.5
    assert stats_arms.difference_test([1.0], [], over="annotators")["difference"] is None


def _experiment_of_size(units: int, slug: str):
    """A QA experiment with UNITS units, each judged once in each arm, and a judge's verdict on each."""
    from annotate.models import Membership

    campaign = CampaignFactory(slug=slug, task_type="qa_correctness", overlap=3,
                               options={"arms": ["blind", "assisted:gpt"]})
    judge = Judge.objects.create(campaign=campaign, name="gpt", family="external", config_hash="gpt")
    people = {arm: UserFactory(username=f"{slug}-{arm[:5]}") for arm in ("blind", "assisted:gpt")}
    for arm, person in people.items():
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
        Membership.objects.filter(campaign=campaign, user=person).update(arm=arm)
    for n in range(units):
        topic = TopicFactory(campaign=campaign, external_id=str(n))
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{slug}-{n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3, position=n)
        ModelJudgment.objects.create(judge=judge, item=item, label="yes", score=0.9)
        for arm, person in people.items():
            HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                         source=JudgmentSource.WEB, value={"correct": n % 2 == 0},
                                         label="yes" if n % 2 == 0 else "no", version=1, is_current=True, arm=arm,
                                         suggestion={"correct": True} if arm != "blind" else None, seconds=5.0 + n)
    return campaign


@pytest.mark.django_db
def test_the_arms_section_and_the_assisted_page_cost_the_same_queries_at_any_size():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from reports.arms import arms_report_build

    counts = []
    for units, slug in ((4, "small"), (40, "large")):
        campaign = _experiment_of_size(units, slug)
        with CaptureQueriesContext(connection) as report_queries:
            report = arms_report_build(campaign=campaign)
        assert report["per_arm"][0]["judgments"] == units
        newcomer = UserFactory(username=f"{slug}-new")
        MembershipFactory(campaign=campaign, user=newcomer, role=Role.ANNOTATOR, arm="assisted:gpt")
        client = Client()
        client.force_login(newcomer)
        with CaptureQueriesContext(connection) as page_queries:
            page = client.get(f"/campaigns/{slug}/annotate/").content.decode()
        assert "A model suggests: <b id=\"assist-words\">correct</b>" in page
        counts.append((len(report_queries), len(page_queries)))
    assert counts[0] == counts[1]


def test_the_smallest_p_value_a_permutation_test_of_two_groups_can_give():
    assert stats_arms.smallest_p_value(2, 2) == pytest.approx(1 / 3)  # 2 of the 6 ways to split four annotators
    assert stats_arms.smallest_p_value(3, 3) == pytest.approx(0.1)
    assert stats_arms.smallest_p_value(6, 6) == pytest.approx(2 / comb(12, 6))
    assert stats_arms.smallest_p_value(1, 1) == 1.0 and stats_arms.smallest_p_value(0, 4) is None
