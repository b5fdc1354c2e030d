"""ais-demo's report compares raters: three simulated raters judge each rated answer (tasktypes.demo_ais).

It showed "0 annotators", a dash in every human cell and AutoAIS kappa 1.000 [1.000, 1.000]: the file's one rating
per answer is an adjudicated label, with no raters to compare, and the made-up judge agreed with every one.
"""

import io

import pytest
from django.core.management import call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, JudgmentKind, Role, Unit
from tasktypes import demo_ais
from tasktypes.management.commands.load_demo import DEMOS
from tests.factories import PASSWORD, MembershipFactory
from tests.report_support import report_stored


@pytest.fixture
def ais_demo(db, researcher):
    demo = DEMOS["ais-demo"]
    call_command("import_data", "--campaign", "ais-demo", "--task-type", "ais", "--format", demo["format"],
                 "--overlap", str(demo["overlap"]), str(demo["path"]), stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="ais-demo")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    assert demo["raters"]  # load_demo runs the simulation on this campaign
    return campaign


def test_every_rated_answer_has_three_raters_and_the_report_compares_them(client, ais_demo):
    assert demo_ais.ais_demo_simulate(campaign=ais_demo) == 3 * 13
    annotations = HumanJudgment.objects.filter(unit__campaign=ais_demo, kind=JudgmentKind.ANNOTATION)
    rated = set(HumanJudgment.objects.filter(unit__campaign=ais_demo, kind=JudgmentKind.ADJUDICATION)
                .values_list("unit_id", flat=True))
    assert {unit: annotations.filter(unit_id=unit).count() for unit in rated} == {unit: 3 for unit in rated}
    # The eleven answers without a rating still wait for the demo's annotators, k = 3 each.
    waiting = Unit.objects.filter(campaign=ais_demo).exclude(pk__in=rated)
    assert [(unit.judgments_needed, unit.judgments_done) for unit in waiting] == [(3, 0)] * 11

    report = agreement_report_build(campaign=ais_demo)
    humans = report["humans"]
    assert humans["annotators"] == 3 and humans["fleiss_items"] == 13
    low, high = humans["fleiss_kappa_ci95"]
    assert 0 < humans["fleiss_kappa"] < 1 and low < high
    assert [pair["n"] for pair in humans["pairwise_cohen_kappa"]] == [13, 13, 13]
    # The made-up judge misses two of the thirteen rated answers: its kappa is a measurement, not 1.000.
    item = report["judges"]["auto-ais"]["item"]
    assert (item["n"], round(item["accuracy"], 3)) == (13, round(11 / 13, 3))
    assert item["cohen_kappa_ci95"][0] < item["cohen_kappa"] < 1

    client.login(username="res", password=PASSWORD)
    report_stored("ais-demo")  # as the worker leaves it: a first open never builds
    html = client.get("/campaigns/ais-demo/report/").content.decode()
    assert '<div class="stat"><b class="num">3</b>annotators</div>' in html
    assert "sim-rater-1" in html and "sim-rater-3" in html  # the pairwise table
