"""Putting annotators (or units) in the arms of an assistance experiment: random, balanced, by the researcher; per
annotator and per unit; fixed once given; two first leases at once on the real database."""

from collections import Counter
from functools import partial

import pytest

from annotate.models import Assignment, HumanJudgment, Membership, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.arms import ArmError, ArmNotGiven, member_arm_set
from judges.models import Judge, ModelJudgment
from tests.annotate.test_annotation_services import make_campaign
from tests.factories import MembershipFactory, UserFactory
from tests.threads import run_at_once

ARMS = ["blind", "assisted:gpt"]


def experiment(*, units=4, annotators=4, overlap=1, **options):
    campaign, people = make_campaign(units=units, overlap=overlap, annotators=annotators)
    campaign.options = {"arms": ARMS, **options}
    campaign.save(update_fields=["options"])
    judge = Judge.objects.create(campaign=campaign, name="gpt", family="external", config_hash="gpt")
    for unit in campaign.units.all():
        ModelJudgment.objects.create(judge=judge, item=unit.item, label="yes", score=0.9)
    return campaign, people


def arm_of(campaign, person) -> str:
    return Membership.objects.get(campaign=campaign, user=person, role=Role.ANNOTATOR).arm


@pytest.mark.django_db
def test_balanced_per_annotator_fills_the_arm_with_fewest_and_keeps_each_annotators_arm():
    campaign, people = experiment(annotators=4, units=6)
    for person in people:
        assignment = unit_lease_next(campaign=campaign, annotator=person)
        assert assignment.arm == arm_of(campaign, person)
    assert Counter(arm_of(campaign, person) for person in people) == {"blind": 2, "assisted:gpt": 2}
    # Every later lease is made in the annotator's own arm, and an assisted one carries the judge's verdict.
    person = people[0]
    arm = arm_of(campaign, person)
    first = Assignment.objects.get(annotator=person)
    judgment_submit(assignment=first, annotator=person, value={"correct": True})
    second = unit_lease_next(campaign=campaign, annotator=person)
    assert second.pk != first.pk and second.arm == arm
    assert second.suggestion == ({"correct": True} if arm == "assisted:gpt" else None)


@pytest.mark.django_db
def test_random_per_annotator_draws_every_arm_and_an_arm_outside_an_experiment_is_none():
    campaign, people = experiment(annotators=24, units=30, arm_assignment="random")
    for person in people:
        unit_lease_next(campaign=campaign, annotator=person)
    drawn = Counter(arm_of(campaign, person) for person in people)
    assert set(drawn) == set(ARMS)  # 24 uniform draws miss an arm with probability 2 * 0.5**24
    plain, (someone,) = make_campaign(units=1)
    assert unit_lease_next(campaign=plain, annotator=someone).arm == ""
    assert arm_of(plain, someone) == ""


@pytest.mark.django_db
def test_researcher_assignment_waits_for_the_researcher_then_fixes_the_arm_once_judged():
    campaign, (person, other) = experiment(annotators=2, arm_assignment="researcher")
    with pytest.raises(ArmNotGiven, match="The researcher has not yet put you in an arm"):
        unit_lease_next(campaign=campaign, annotator=person)
    assert not Assignment.objects.filter(annotator=person).exists()
    member_arm_set(campaign=campaign, user=person, arm="assisted:gpt")
    assignment = unit_lease_next(campaign=campaign, annotator=person)
    assert (assignment.arm, assignment.suggestion) == ("assisted:gpt", {"correct": True})
    # Before any judgment the arm may still change; the unit held goes back and comes again in the new arm.
    member_arm_set(campaign=campaign, user=person, arm="blind")
    again = unit_lease_next(campaign=campaign, annotator=person)
    assert (again.unit_id, again.arm, again.suggestion) == (assignment.unit_id, "blind", None)
    judgment_submit(assignment=again, annotator=person, value={"correct": False})
    with pytest.raises(ArmError, match="has judged units of this campaign already, in the arm blind"):
        member_arm_set(campaign=campaign, user=person, arm="assisted:gpt")
    assert arm_of(campaign, person) == "blind"
    with pytest.raises(ArmError, match="'assisted:claude' is not an arm of this campaign"):
        member_arm_set(campaign=campaign, user=other, arm="assisted:claude")
    researcher = UserFactory()
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    with pytest.raises(ArmError, match="is not an annotator of this campaign"):
        member_arm_set(campaign=campaign, user=researcher, arm="blind")


@pytest.mark.django_db
def test_per_unit_balances_each_annotators_own_leases_and_keeps_a_units_arm_when_leased_again():
    campaign, (person,) = experiment(annotators=1, units=6, arm_per="unit")
    arms = []
    for _ in range(6):
        assignment = unit_lease_next(campaign=campaign, annotator=person)
        arms.append(assignment.arm)
        judgment_submit(assignment=assignment, annotator=person, value={"correct": True})
    assert Counter(arms) == {"blind": 3, "assisted:gpt": 3}
    assert arm_of(campaign, person) == ""  # per unit: the annotator has no arm of their own
    recorded = Counter(HumanJudgment.objects.filter(annotator=person).values_list("arm", flat=True))
    assert recorded == {"blind": 3, "assisted:gpt": 3}

    other_campaign, (someone,) = experiment(annotators=1, units=2, arm_per="unit", arm_assignment="random")
    held = unit_lease_next(campaign=other_campaign, annotator=someone)
    Assignment.objects.filter(pk=held.pk).update(status="expired")
    assert unit_lease_next(campaign=other_campaign, annotator=someone).arm == held.arm


@pytest.mark.django_db
def test_a_judge_without_a_verdict_or_not_made_yet_gives_no_suggestion():
    campaign, (first, second) = experiment(annotators=2, units=2)
    ModelJudgment.objects.filter(item=campaign.units.order_by("position").first().item).delete()
    member_arm_set(campaign=campaign, user=first, arm="assisted:gpt")
    assignment = unit_lease_next(campaign=campaign, annotator=first)
    assert (assignment.arm, assignment.suggestion) == ("assisted:gpt", None)
    campaign.options = {"arms": ["blind", "assisted:nobody"]}
    campaign.save(update_fields=["options"])
    member_arm_set(campaign=campaign, user=second, arm="assisted:nobody")
    assert unit_lease_next(campaign=campaign, annotator=second).suggestion is None


@pytest.mark.django_db(transaction=True)
def test_racing_first_leases_stay_balanced():
    annotators = 8
    campaign, people = experiment(annotators=annotators, units=annotators)
    errors = run_at_once([partial(unit_lease_next, campaign=campaign, annotator=person) for person in people],
                         timeout=60)
    assert errors == []
    given = Counter(Membership.objects.filter(campaign=campaign, role=Role.ANNOTATOR).values_list("arm", flat=True))
    assert given == {"blind": annotators // 2, "assisted:gpt": annotators // 2}
    leased = Counter(Assignment.objects.filter(unit__campaign=campaign).values_list("arm", flat=True))
    assert leased == given


@pytest.mark.django_db
def test_the_researcher_sets_arms_on_the_people_page_and_through_the_api():
    from django.test import Client
    from rest_framework.test import APIClient

    campaign, (person, other) = experiment(annotators=2, arm_assignment="researcher")
    researcher = UserFactory(username="lead")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    page_client = Client()
    page_client.force_login(researcher)
    people = f"/campaigns/{campaign.slug}/people/"
    page = page_client.get(people).content.decode()
    membership = Membership.objects.get(campaign=campaign, user=person, role=Role.ANNOTATOR)
    assert f'id="arm-{membership.pk}"' in page and "You put each annotator in an arm below" in page
    answer = page_client.post(people, {"action": "arm", "membership": membership.pk, "arm": "assisted:gpt"},
                              follow=True)
    assert f"{person.username} is now in the arm assisted by gpt." in answer.content.decode()
    assert arm_of(campaign, person) == "assisted:gpt"

    api = APIClient()
    api.force_authenticate(researcher)
    url = f"/api/campaigns/{campaign.slug}/members/{other.username}/"
    assert api.patch(url, {"arm": "blind"}, format="json").json() == {"arm": "blind"}
    listed = {row["username"]: row["arm"] for row in api.get(f"/api/campaigns/{campaign.slug}/members/").json()}
    assert listed == {person.username: "assisted:gpt", other.username: "blind", "lead": ""}
    refused = api.patch(url, {"arm": "shown"}, format="json")
    assert refused.status_code == 400 and "'shown' is not an arm of this campaign" in refused.json()["detail"]
    annotator_api = APIClient()
    annotator_api.force_authenticate(other)
    assert annotator_api.patch(url, {"arm": "assisted:gpt"}, format="json").status_code == 403
    stranger = APIClient()
    stranger.force_authenticate(UserFactory())
    assert stranger.patch(url, {"arm": "assisted:gpt"}, format="json").status_code == 404

    # Once judged in, the arm stays, and the page says why.
    judgment_submit(assignment=unit_lease_next(campaign=campaign, annotator=person), annotator=person,
                    value={"correct": True})
    answer = page_client.post(people, {"action": "arm", "membership": membership.pk, "arm": "blind"}, follow=True)
    assert "has judged units of this campaign already, in the arm assisted by gpt" in answer.content.decode()
    assert "(fixed: judged in)" in answer.content.decode()
    assert arm_of(campaign, person) == "assisted:gpt"
