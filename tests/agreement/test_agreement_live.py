"""A campaign still running: answers added after the judges ran, a tiny system, items rated by 1 of their 3 raters.
Every number stays one a reviewer accepts: nothing silently lost, nothing counted before it is decided."""

import pytest
from scipy import stats as scipy_stats

from agreement.report import agreement_report_build
from annotate.models import SystemOutput
from tests.agreement.test_agreement_report import _annotate, _judge
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db
SYSTEMS = {"strong": 0.9, "middle": 0.6, "weak": 0.3}  # share of correct answers
N_TOPICS = 14


@pytest.fixture
def live_campaign():
    campaign = CampaignFactory(slug="live", overlap=3)
    raters = [UserFactory(username=f"rater{i}") for i in range(3)]
    judge_labels, late = {}, []
    for t in range(N_TOPICS):
        topic = TopicFactory(
            campaign=campaign, external_id=f"q{t}", text=f"question {t}", data={"gold_answers": ["gold"]}
        )
        for system, quality in SYSTEMS.items():
            correct = (t * 7 + len(system)) % 10 < quality * 10
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{system}-{t}", text=f"{system} answer {t}")
            unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3)
            SystemOutput.objects.create(campaign=campaign, system=system, topic=topic, item=item)
            label = "yes" if correct else "no"
            if t == N_TOPICS - 1:
                late.append(item)  # answered after the judge ran: humans judge them, the judge never saw them
            else:
                judge_labels[item] = label if t % 5 else ("no" if correct else "yes")
            for rater in raters:
                _annotate(unit, rater, label)
    # A tiny system of two answers, both judged.
    topic = TopicFactory(campaign=campaign, external_id="tiny-q", data={"gold_answers": ["gold"]})
    for n in range(2):
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"tiny-{n}", text=f"tiny answer {n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3)
        SystemOutput.objects.create(campaign=campaign, system="tiny", topic=topic, item=item)
        _annotate(unit, raters[0], "yes")
        if n == 1:
            _annotate(unit, raters[1], "yes")
        judge_labels[item] = "no"
    _judge(campaign, "gpt", judge_labels)
    return campaign


def test_one_of_three_is_open_two_of_three_agreeing_is_decided(live_campaign):
    report = agreement_report_build(campaign=live_campaign)
    assert report["humans"]["items_open"] == 1  # tiny-0: one "yes" of the three wanted
    assert report["humans"]["items_labelled"] == 3 * N_TOPICS + 1  # tiny-1: two "yes" of three decide it
    assert report["humans"]["ties"] == 0


def test_answers_the_judge_never_saw_are_left_out_with_the_coverage_shown(live_campaign):
    report = agreement_report_build(campaign=live_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    for system in SYSTEMS:
        assert rows[system]["coverage"]["gpt"] == [N_TOPICS - 1, N_TOPICS]
        assert rows[system]["human_coverage"] == [N_TOPICS, N_TOPICS]
    system = report["judges"]["gpt"]["system"]
    # The tiny system is left out, with why; the three real ones still give a correlation, but too few to resample.
    assert system["excluded"] == [{"system": "tiny", "reason": "1 of its 2 outputs labelled by both; a system needs "
                                                               "at least 10 (option min_system_outputs)"}]
    assert system["n_systems"] == 3 and system["small"] is True
    # Each system scored on the 13 answers both judged: recomputed here from the report's own per-system figures.
    human = [_human_on_covered(live_campaign, s) for s in SYSTEMS]
    judge = [rows[s]["judges"]["gpt"] for s in SYSTEMS]
    assert system["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(human, judge).statistic)
    assert system["kendall_tau_b_ci95"] is None
    assert system["kendall_tau_b_ci_note"] == "too few systems to resample: 3 (an interval needs at least 4)"
    item = report["judges"]["gpt"]["item"]
    assert item["n"] == 3 * (N_TOPICS - 1) + 1 and item["coverage"] == [item["n"], 3 * N_TOPICS + 1]
    assert -1 <= item["cohen_kappa_ci95"][0] <= item["cohen_kappa"] <= item["cohen_kappa_ci95"][1] <= 1


def _human_on_covered(campaign, system: str) -> float:
    """The humans' accuracy of SYSTEM over its answers the judge saw (all but the last topic): every rater agrees."""
    items = SystemOutput.objects.filter(campaign=campaign, system=system).exclude(topic__external_id=f"q{N_TOPICS - 1}")
    labels = [item.item.units.get().judgments.filter(is_current=True).first().label for item in items]
    return sum(label == "yes" for label in labels) / len(labels)


def test_the_page_names_what_was_left_out_and_greys_small_samples(client, live_campaign, researcher):
    from annotate.models import Membership, Role

    Membership.objects.create(campaign=live_campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    report_stored(live_campaign)
    html = client.get("/campaigns/live/report/").content.decode()
    assert "tiny: 1 of its 2 outputs labelled by both" in html
    assert "items still open (fewer than k annotations, majority not decided): 1" in html
    assert 'class="num small-sample"' in html and "95% percentile bootstrap over questions" in html
    assert f'title="outputs compared with the humans">{N_TOPICS - 1} of {N_TOPICS}</div>' in html
