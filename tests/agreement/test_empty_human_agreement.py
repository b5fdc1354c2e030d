"""The report's human-agreement tile when no unit was judged by two annotators (issue 47): it keeps its n (0) and
says why it is empty and what to change: at k = 1 raise the overlap in Settings (linked), at k >= 2 wait for or add a
second annotator. The same words under a graded report's tile (passage_relevance) and a verdict report's
(qa_correctness); nothing of it once two annotators share a unit."""

import re

import pytest

from annotate.models import HumanJudgment, Role
from annotate.services.campaigns import campaign_update
from annotate.services.data_version import campaign_data_changed
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored

# A label of each task type: a grade on the passage scale, a verdict.
TYPES = {"passage_relevance": ("passage", {"grade": 2}, "2"), "qa_correctness": ("item", {"correct": True}, "yes")}


def _tile(client, slug: str) -> str:
    """The headline's Fleiss tile, up to the tile after it (an interval may bring a div of its own)."""
    page = client.get(f"/campaigns/{slug}/report/").content.decode()
    tile = re.search(r'id="headline-fleiss">(.*?)(<div class="stat"|<h2)', page, re.S)
    assert tile, page[:2000]
    return re.sub(r"\s+", " ", tile.group(1))


@pytest.fixture(params=sorted(TYPES))
def one_each(request, db, researcher, client):
    """A campaign of four units at k = 1, two annotators who judged two units each, none the same."""
    task_type = request.param
    campaign = CampaignFactory(slug="once", task_type=task_type, overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    _, value, label = TYPES[task_type]
    topic = TopicFactory(campaign=campaign, external_id="q1", text="how long does concrete cure", data={})
    units = [UnitFactory(item=ItemFactory(topic=topic, campaign=campaign, kind="passage", external_id=f"q1/d{n}",
                                          data={"docid": f"d{n}"}, text=f"passage {n}"))
             for n in range(4)]
    annotators = [UserFactory(username="a0"), UserFactory(username="a1")]
    for n, unit in enumerate(units):
        HumanJudgment.objects.create(unit=unit, annotator=annotators[n % 2], value=value, label=label)
    client.force_login(researcher)
    return campaign, units


def test_at_k_1_the_empty_tile_says_raise_k_in_settings(one_each, client):
    campaign, _ = one_each
    noun = TYPES[campaign.task_type][0]
    report_stored(campaign)
    tile = _tile(client, "once")
    assert re.search(rf"Fleiss' κ, n = 0 {noun}s, 2 (assessors|annotators)", tile), tile
    assert f"Empty: the overlap is k = 1, so each {noun} goes to one annotator" in tile, tile
    assert '<a href="/campaigns/once/settings/">Raise k to 2 or more in Settings</a>' in tile, tile


def test_at_k_2_it_says_the_units_wait_for_a_second_annotator_and_goes_once_one_has_two(one_each, client, researcher):
    campaign, units = one_each
    noun = TYPES[campaign.task_type][0]
    campaign_update(campaign=campaign, editor=researcher, overlap=2)
    report_stored(campaign)
    tile = _tile(client, "once")
    assert f"Empty: no {noun} has two judgments yet (k = 2); each waits for a second annotator" in tile, tile
    assert '<a href="/campaigns/once/people/">People</a>' in tile and "Raise k" not in tile, tile

    # The other annotator judges the first unit too: one unit shared, the hint gone, the tile's n counts it.
    first = HumanJudgment.objects.get(unit=units[0])
    HumanJudgment.objects.create(unit=units[0], annotator=HumanJudgment.objects.get(unit=units[1]).annotator,
                                 value=first.value, label=first.label)
    campaign_data_changed(campaign_id=campaign.pk)  # as judgment_submit does: the stored report is out of date
    report_stored(campaign)
    tile = _tile(client, "once")
    assert "why-no-human-agreement" not in tile and "Empty:" not in tile, tile
    assert re.search(rf"n = 1 {noun}s?, 2 (assessors|annotators)", tile), tile
