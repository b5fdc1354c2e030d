"""Page columns (TaskTypeSpec.page_columns): what a type's page reads of other rows comes with the unit, in the query
that reads it, and says what the type's own read would."""

import pytest

from annotate.access import assignment_for_annotator
from annotate.models import Role
from annotate.selectors.annotation import _TOPIC_ITEMS, assignment_held, topic_candidates
from annotate.services.annotation import unit_lease_next
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

TEXTS = ['a "quoted" answer', "ünïcödé, 中文 and an emoji 🙂", "two\nlines\tand a \\ backslash", ""]


def _read(unit) -> list[tuple[int, str]]:
    return [(item.pk, item.text) for item in topic_candidates(unit=unit)]


@pytest.mark.django_db
def test_a_rankings_candidates_come_with_the_lease_the_held_lease_and_the_submits_assignment():
    campaign = CampaignFactory(task_type="answer_ranking", options={"dimensions": ["overall"]})
    annotator = UserFactory()
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    topics = [TopicFactory(campaign=campaign) for _ in range(2)]
    for text in TEXTS:
        ItemFactory(campaign=campaign, topic=topics[0], text=text)
    for position, topic in enumerate(topics):
        UnitFactory(campaign=campaign, topic=topic, item=None, position=position)
    ItemFactory(campaign=CampaignFactory(), topic=topics[0], text="another campaign's item")  # not a candidate
    leased = unit_lease_next(campaign=campaign, annotator=annotator)
    held = assignment_held(campaign=campaign, annotator=annotator)
    submitted = [assignment_for_annotator(annotator, campaign.slug, leased.pk) for _ in range(2)]  # a guess, then known
    expected = [(item.pk, item.text) for item in _TOPIC_ITEMS(topic=topics[0].pk, campaign=campaign.pk)]
    assert len(expected) == len(TEXTS)
    for assignment in (leased, held, submitted[1]):
        assert hasattr(assignment.unit, "_topic_candidates")  # read with the unit: no query of its own
        assert _read(assignment.unit) == expected
    assert _read(submitted[0].unit) == expected  # read when asked


@pytest.mark.django_db
def test_a_topic_without_candidates_reads_as_none():
    campaign = CampaignFactory(task_type="answer_ranking", options={"dimensions": ["overall"]})
    annotator = UserFactory()
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    UnitFactory(campaign=campaign, topic=TopicFactory(campaign=campaign), item=None, position=0)
    leased = unit_lease_next(campaign=campaign, annotator=annotator)
    assert hasattr(leased.unit, "_topic_candidates") and _read(leased.unit) == []
