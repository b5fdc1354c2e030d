"""The labelling budget: stats.budget on synthetic data whose answers are known, the report's budget block and
plot on a small campaign, and the queue order (option queue_order, annotate.services.queue_order)."""

import io
import math

import numpy as np
import pytest
from django.core.management import call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, Item, Role, SystemOutput, Topic, Unit
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import campaign_options_set
from annotate.services.queue_order import unit_positions_renumber
from judges.models import Judge, ModelJudgment
from stats import budget, interrater, resampling, system_order, uncertainty
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.report_support import report_stored


def verdicts(n: int, rate: float, seed: int) -> tuple[list[str], list[str]]:
    """N human yes/no labels (half yes) and a judge's that agree with them with probability RATE."""
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 2, n)
    judge = np.where(rng.random(n) < rate, human, 1 - human)
    word = {0: "no", 1: "yes"}
    return [word[int(x)] for x in human], [word[int(x)] for x in judge]


def kappa_input(n: int, rate: float = 0.8, seed: int = 1) -> budget.BudgetInput:
    human, judge = verdicts(n, rate, seed)
    units, statistic = budget.kappa_statistic(human, judge, list(range(n)))
    current = interrater.item_agreement_intervals(human, judge, list(range(n)))["cohen_kappa"]
    return budget.BudgetInput(judge="j", statistic_key="cohen_kappa", title="kappa", unit_noun="items",
                              n_units=units, n_labels=n, statistic=statistic, current=current)


# --- The pure functions, on data whose answers are known ---


def test_the_width_at_four_times_the_labels_is_about_half():
    # Kappa's standard error goes as 1 / sqrt(n): at 4n labels from the same agreement rate, half the width.
    small, large = kappa_input(300, seed=1), kappa_input(1200, seed=2)
    at_n = budget.width_curve(small.n_units, small.statistic)[-1]["width"]
    at_4n = budget.width_curve(large.n_units, large.statistic)[-1]["width"]
    assert at_4n / at_n == pytest.approx(0.5, abs=0.08)
    # And the estimate made from n alone says about 4n labels for half its width.
    row = budget.budget_estimate(small, target=small.current[1] / 2 - small.current[0] / 2)
    assert row["fit"]["usable"] and row["fit"]["exponent"] == pytest.approx(0.5, abs=0.15)
    assert 3.0 * 300 <= row["labels_needed"] <= 5.0 * 300
    assert row["more_labels"] == row["labels_needed"] - 300


def test_the_widths_shrink_with_the_size_and_end_at_the_reports_interval():
    item = kappa_input(400)
    curve = budget.width_curve(item.n_units, item.statistic)
    assert [point["units"] for point in curve] == [100, 200, 300, 400]
    widths = [point["width"] for point in curve]
    assert widths == sorted(widths, reverse=True)
    # At all n units the m-out-of-n bootstrap is the report's interval, drawn from the budget's own stream.
    assert widths[-1] == pytest.approx(item.current[1] - item.current[0], rel=0.05)


def test_a_mean_over_topics_narrows_as_its_standard_error():
    # Per-topic values with standard deviation 0.3: the 95% interval of their mean is about 2 * 1.96 * 0.3 / sqrt(n).
    values = list(np.random.default_rng(3).normal(0.5, 0.3, 120))
    units, statistic = budget.mean_statistic(values + [None])
    assert units == 120
    curve = budget.width_curve(units, statistic)
    for point in curve:
        assert point["width"] == pytest.approx(2 * 1.96 * 0.3 / math.sqrt(point["units"]), rel=0.2)


def test_the_system_order_statistic_is_the_reports():
    rng = np.random.default_rng(4)
    counts = np.ones((6, 40))
    human = (rng.random((6, 40)) < np.linspace(0.3, 0.8, 6)[:, None]).astype(float)
    judge = np.where(rng.random((6, 40)) < 0.8, human, 1 - human)
    units, statistic = budget.system_tau_statistic(human, judge, counts)
    report = system_order.system_correlation_intervals(human, judge, counts)["kendall_tau_b"]
    interval = resampling.sum_bootstrap(statistic.rows, statistic.of_sums)[0]
    assert units == 40 and interval == pytest.approx(report, abs=1e-12)


def test_a_target_already_met_needs_no_more_labels():
    item = kappa_input(300)
    row = budget.budget_estimate(item, target=1.0)
    assert (row["more_labels"], row["labels_needed"], row["why"]) == (0, 300, None)
    assert row["width"] == pytest.approx(item.current[1] - item.current[0])


def test_a_degenerate_interval_gives_no_estimate_and_says_why_not_zero_more_labels():
    # 3 runs over 4 topics: tau-b 1 in every resample, the interval [1, 1]; the report gives no interval and a note.
    flat = budget.BudgetInput("j", "system_kendall_tau_b", "tau-b", "topics", 4, 12, lambda idx: 1.0, [1.0, 1.0])
    row = budget.budget_estimate(flat, target=0.2)
    assert row["more_labels"] is None and row["width"] is None
    assert row["why"] == "all resamples equal: the interval shows no spread to narrow"
    noted = budget.BudgetInput("j", "system_kendall_tau_b", "tau-b", "topics", 4, 12, lambda idx: 1.0, None,
                               why="too few runs to resample: 3 (an interval needs at least 4)")
    assert budget.budget_estimate(noted, target=0.2)["why"] == noted.why


def test_an_unusable_fit_gives_no_answer_and_says_why():
    assert budget.width_fit([{"units": 10, "width": 0.5}, {"units": 20, "width": None}, {"units": 30, "width": 0.0}]) \
        == {"c": None, "exponent": None, "usable": False, "note": None,
            "why": "1 of the 3 sizes have an interval of some width; a fit needs 3"}
    flat = budget.width_fit([{"units": units, "width": 0.4} for units in (10, 20, 30, 40)])
    assert not flat["usable"] and flat["exponent"] == pytest.approx(0.0, abs=1e-9)
    assert flat["why"].startswith("the interval does not narrow with more units here (fitted exponent 0.00")
    # An estimate from too few units, and one with no interval, say so.
    few = budget.budget_estimate(kappa_input(6), target=0.01)
    assert few["more_labels"] is None and few["why"] == "6 items so far; an estimate needs at least 8"
    none = budget.budget_estimate(budget.BudgetInput("j", "cohen_kappa", "kappa", "items", 50, 50, lambda idx: None,
                                                     None, why="one and the same label throughout"), target=0.1)
    assert none["more_labels"] is None and none["why"] == "one and the same label throughout"


def test_the_fit_is_c_over_root_n():
    points = [{"units": units, "width": 2.0 / math.sqrt(units)} for units in (25, 50, 75, 100)]
    fit = budget.width_fit(points)
    assert fit["c"] == pytest.approx(2.0) and fit["exponent"] == pytest.approx(0.5) and fit["usable"]
    assert budget.units_for_width(2.0, 0.1) == pytest.approx(400)


def test_the_target_width_option():
    assert budget.target_width({}) == budget.DEFAULT_TARGET_WIDTH == 0.1
    assert budget.target_width({"budget_width": 0.25}) == 0.25


# --- The report's block, its page and its plot, on a small campaign ---


@pytest.fixture
def qa_campaign(db, researcher):
    """40 questions, 3 systems answering each; one annotator's verdicts, and a judge agreeing with them 85% of the
    time."""
    campaign = CampaignFactory(slug="budget", task_type="qa_correctness", options={"budget_width": 0.3})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    person = UserFactory(username="assessor")
    judge = Judge.objects.create(campaign=campaign, name="j", family="em", config={}, config_hash="j")
    rng = np.random.default_rng(5)
    for q in range(40):
        topic = Topic.objects.create(campaign=campaign, external_id=f"q{q}", text=f"question {q}")
        for s, accuracy in enumerate((0.3, 0.6, 0.8)):
            item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"q{q}-s{s}", text="answer")
            SystemOutput.objects.create(campaign=campaign, system=f"S{s}", topic=topic, item=item)
            unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1,
                                       judgments_done=1, position=q * 3 + s)
            label = "yes" if rng.random() < accuracy else "no"
            HumanJudgment.objects.create(unit=unit, annotator=person, value={"correct": label == "yes"}, label=label)
            agrees = rng.random() < 0.85
            ModelJudgment.objects.create(judge=judge, item=item, label=label if agrees else
                                         ("no" if label == "yes" else "yes"), score=None, raw="")
    return campaign


def test_the_report_carries_a_budget_row_per_headline_statistic(qa_campaign):
    report = agreement_report_build(campaign=qa_campaign)
    block = report["budget"]
    assert block["target_width"] == 0.3 and block["fit_model"] == "width = c / sqrt(n)"
    rows = {row["statistic"]: row for row in block["rows"]}
    assert set(rows) == {"cohen_kappa", "system_kendall_tau_b"}
    kappa = rows["cohen_kappa"]
    assert (kappa["judge"], kappa["n_units"], kappa["n_labels"], kappa["unit"]) == ("j", 40, 120, "questions")
    item = report["judges"]["j"]["item"]
    assert kappa["ci95"] == item["cohen_kappa_ci95"]
    assert kappa["width"] == pytest.approx(item["cohen_kappa_ci95"][1] - item["cohen_kappa_ci95"][0])
    assert [point["units"] for point in kappa["curve"]] == [10, 20, 30, 40]
    assert [point["labels"] for point in kappa["curve"]] == [30, 60, 90, 120]
    assert kappa["curve"][-1]["width"] == pytest.approx(kappa["width"], rel=0.1)  # drawn from the budget's stream
    if kappa["width"] > 0.3:
        assert kappa["more_labels"] == kappa["labels_needed"] - 120 > 0
    else:
        assert kappa["more_labels"] == 0
    assert kappa["fitted"] and all(p["width"] == pytest.approx(kappa["fit"]["c"] / math.sqrt(p["units"]))
                                   for p in kappa["fitted"])
    tau = rows["system_kendall_tau_b"]
    assert tau["ci95"] == report["judges"]["j"]["system"]["kendall_tau_b_ci95"] and tau["n_labels"] == 120


def test_the_report_page_json_and_plot_show_the_budget(client, qa_campaign, researcher):
    client.force_login(researcher)
    report_stored("budget")
    page = client.get("/campaigns/budget/report/").content.decode()
    assert 'id="budget"' in page and "Labelling budget" in page and 'id="budget-plot"' in page
    assert 'href="/campaigns/budget/report/plots/budget.svg" download' in page
    assert "Labels for width 0.3" in page
    document = client.get("/api/campaigns/budget/agreement/").json()
    assert document["budget"]["rows"][0]["statistic"] == "cohen_kappa"
    svg = client.get("/campaigns/budget/report/plots/budget.svg")
    assert svg.status_code == 200 and "target width 0.3 (option budget_width)" in svg.content.decode()


def test_the_command_prints_the_budget_in_json(qa_campaign):
    import json

    out = io.StringIO()
    call_command("agreement_report", "--campaign", "budget", "--json", stdout=out)
    assert json.loads(out.getvalue())["budget"]["target_width"] == 0.3


# --- The queue order ---

# Two judges on five items: (llm label, its share of samples), (em label, score 0/1). They disagree on q0-1, q0-2 and
# q0-4; llm is least sure (share nearest 0.5) on q0-4 among those, then q0-1, then q0-2. They agree on q0-3 (llm
# unsure) and q0-0.
LLM = [("yes", 0.9), ("no", 0.8), ("yes", 0.9), ("no", 0.6), ("no", 0.7)]
EM = [("yes", 1.0), ("yes", 1.0), ("no", 0.0), ("no", 0.0), ("yes", 1.0)]


@pytest.fixture
def queue_campaign(db):
    campaign = CampaignFactory(slug="queue", task_type="qa_correctness")
    topic = Topic.objects.create(campaign=campaign, external_id="q0", text="who painted the mona lisa")
    llm = Judge.objects.create(campaign=campaign, name="llm", family="llm", config={}, config_hash="llm")
    em = Judge.objects.create(campaign=campaign, name="em", family="em", config={}, config_hash="em")
    for n, ((label, share), (em_label, em_score)) in enumerate(zip(LLM, EM, strict=True)):
        item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"q0-{n}", text=f"answer {n}")
        Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1, position=n)
        ModelJudgment.objects.create(judge=llm, item=item, label=label, score=share, raw="")
        ModelJudgment.objects.create(judge=em, item=item, label=em_label, score=em_score, raw="")
    person = UserFactory(username="assessor")
    MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
    return campaign, person


def queue(campaign) -> list[str]:
    return list(Unit.objects.filter(campaign=campaign).order_by("position").values_list("item__external_id",
                                                                                         flat=True))


def test_the_informative_order_puts_the_judges_disagreements_first_and_the_lease_follows(queue_campaign):
    campaign, person = queue_campaign
    assert unit_positions_renumber(campaign=campaign, order="informative") == {"order": "informative", "open": 5,
                                                                                "moved": 2}
    assert queue(campaign) == ["q0-4", "q0-1", "q0-2", "q0-3", "q0-0"]
    assert sorted(Unit.objects.filter(campaign=campaign).values_list("position", flat=True)) == [0, 1, 2, 3, 4]
    assignment = unit_lease_next(campaign=campaign, annotator=person)
    assert assignment.unit.item.external_id == "q0-4"
    judgment_submit(assignment=assignment, annotator=person, value={"correct": True})
    # Back to the import order: the unit done keeps its place, the open ones take theirs in import order.
    assert unit_positions_renumber(campaign=campaign, order="position")["open"] == 4
    done = Unit.objects.get(campaign=campaign, item__external_id="q0-4")
    assert done.position == 0
    assert queue(campaign) == ["q0-4", "q0-0", "q0-1", "q0-2", "q0-3"]
    assert unit_lease_next(campaign=campaign, annotator=person).unit.item.external_id == "q0-0"


def test_the_command_applies_the_campaigns_option(queue_campaign):
    campaign, _ = queue_campaign
    campaign.options = {"queue_order": "informative"}
    campaign.save()
    out = io.StringIO()
    call_command("order_queue", "--campaign", "queue", stdout=out)
    assert out.getvalue().strip() == ("2 of 5 open units moved: the queue is in informative order (first the units "
                                      "the judges disagree on most, then those they are least sure of).")
    assert queue(campaign)[0] == "q0-4"
    out = io.StringIO()
    call_command("order_queue", "--campaign", "queue", "--order", "position", stdout=out)
    assert queue(campaign) == ["q0-0", "q0-1", "q0-2", "q0-3", "q0-4"]


def test_the_ranking_budget_reads_the_reports_per_topic_taus():
    from reports.budget import ranking_budget

    taus = list(np.random.default_rng(6).uniform(-0.2, 1.0, 30))
    per_topic = [{"topic": f"t{i}", "dimension": "overall", "kendall_tau_b": tau} for i, tau in enumerate(taus)]
    per_topic.append({"topic": "t-unranked", "dimension": "overall", "kendall_tau_b": None})
    summary = uncertainty.topic_mean_summary(taus)
    report = {"judges": {"monot5": {"per_topic": per_topic, "topic_mean": {"kendall_tau_b": summary}}}}
    row = ranking_budget(report=report, target=0.1)["rows"][0]
    assert (row["statistic"], row["n_units"], row["n_labels"], row["unit"]) == ("topic_mean_kendall_tau_b", 30, 30,
                                                                                  "topics")
    assert row["ci95"] == summary["bootstrap_ci95"]
    # A mean of 30 values: about (30 * (width / 0.1)^2) topics for a width of 0.1.
    assert row["labels_needed"] == pytest.approx(30 * (row["width"] / 0.1) ** 2, rel=0.35)


def test_setting_the_option_puts_the_queue_in_its_order_at_once(queue_campaign, client):
    campaign, _ = queue_campaign
    researcher = UserFactory(username="owner")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    answer = client.put("/api/campaigns/queue/options/", {"options": {"queue_order": "informative"}},
                        content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert queue(campaign)[:2] == ["q0-4", "q0-1"]
    campaign_options_set(campaign=Campaign.objects.get(pk=campaign.pk), values={}, unset=["queue_order"])
    assert queue(campaign) == ["q0-0", "q0-1", "q0-2", "q0-3", "q0-4"]  # unset: the import order again
