"""An annotator who judged mostly items the others disagreed on is named on the report page (stats.selection).

NQ-open 301's annotator 3 judged almost only items annotators 1 and 2 had split on; the page showed their kappa of
-0.361 with no word why. The real data's figures are checked in tests/tasktypes/test_agreement_nq301.py.
"""

import pytest

from agreement.report import agreement_report_build
from annotate.models import Role
from stats.selection import annotator_samples
from tests.agreement.test_agreement_report import _annotate
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

ITEMS, SPLIT = 30, 8


@pytest.fixture
def picked(db, researcher):
    """30 answers judged by first and second, who split on 8; third judged only those 8."""
    campaign = CampaignFactory(slug="picked", overlap=3)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    topic = TopicFactory(campaign=campaign, external_id="1", text="q", data={"gold_answers": ["a"]})
    first, second, third = (UserFactory(username=name) for name in ("first", "second", "third"))
    for n in range(ITEMS):
        unit = UnitFactory(campaign=campaign, topic=topic, item=ItemFactory(campaign=campaign, topic=topic,
                                                                            external_id=str(n), text=f"a{n}"))
        _annotate(unit, first, "yes")
        _annotate(unit, second, "no" if n < SPLIT else "yes")
        if n < SPLIT:
            _annotate(unit, third, "no" if n % 2 else "yes")
    return campaign


def test_the_report_page_says_which_annotator_judged_a_selected_sample(client, picked):
    humans = agreement_report_build(campaign=picked)["humans"]
    (row,) = humans["selected_samples"]
    assert (row["annotator"], row["items"], row["split"], row["pool"], row["pool_split"]) == ("third", 8, 8, 30, 8)
    pairs = {(pair["a"], pair["b"]): pair for pair in humans["pairwise_cohen_kappa"]}
    assert pairs[("first", "third")]["selected_sample"] == ["third"]
    assert pairs[("first", "second")]["selected_sample"] == []
    assert pairs[("first", "third")]["n"] == SPLIT  # the statistic itself is over the same items as before

    client.login(username="res", password=PASSWORD)
    report_stored("picked")  # as the worker leaves it: a first open never builds
    html = client.get("/campaigns/picked/report/").content.decode()
    assert html.count(">selected sample</span>") == 2  # first-third and second-third; not first-second
    assert ("third judged a selected sample, not a random one:</b> of the 8 items they judged that two other "
            "annotators also judged, 8 (1.000) were items the others disagreed on, against 8 of 30 (0.267)") in html
    assert "and a one-sided hypergeometric test gives p below 0.001" in html


def test_an_annotator_who_judged_the_whole_pool_or_a_random_share_is_not_flagged():
    # Everyone judged every unit: nobody is a sample of anything.
    units = [{"a": "yes", "b": "no" if n < 10 else "yes", "c": "yes"} for n in range(40)]
    assert [row["selected"] for row in annotator_samples(units)] == [False, False, False]
    # c judged every other unit, split or not: the share of split units matches the pool's.
    units = [{"a": "yes", "b": "no" if n < 10 else "yes", **({"c": "yes"} if n % 2 else {})} for n in range(40)]
    row = {row["annotator"]: row for row in annotator_samples(units)}["c"]
    assert (row["items"], row["split"], row["pool_split"], row["selected"]) == (20, 5, 10, False)
