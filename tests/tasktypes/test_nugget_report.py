"""The nugget_evaluation report (tasktypes/nugget_evaluation/report.py, scores.py, presentation.py): scores against
hand-computed cases, kappa against scikit-learn, a simulated study whose population figures are known (the report's
intervals contain them), a fixed number of queries whatever the size, and the page's tables and body rendered."""

import json

import numpy as np
import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from sklearn.metrics import cohen_kappa_score

from tasktypes.nugget_evaluation.layout import NOT_SUPPORT, OKAY, PARTIAL, SUPPORT, VITAL
from tasktypes.nugget_evaluation.report import nugget_report_build, reference_codes
from tasktypes.nugget_evaluation.scores import answer_score_dict, run_means, run_topic_sums
from tests.nugget_synthetic import (
    campaign_simulate,
    expected_kappa,
    expected_strict,
    true_shares,
)

S, P, N = SUPPORT, PARTIAL, NOT_SUPPORT


def _nuggets(importances):
    return [{"id": f"n{k}", "text": f"nugget {k}", "importance": importance} for k, importance in
            enumerate(importances)]


# --- scores (pure) ---

def test_scores_of_a_hand_computed_answer():
    nuggets = _nuggets([VITAL, VITAL, OKAY, OKAY])
    scores = answer_score_dict(nuggets, {"n0": S, "n1": P, "n2": S, "n3": N})
    assert scores["all_strict"] == pytest.approx(2 / 4)
    assert scores["vital_strict"] == pytest.approx(1 / 2)
    assert scores["all"] == pytest.approx((1 + 0.5 + 1 + 0) / 4)
    assert scores["vital"] == pytest.approx((1 + 0.5) / 2)
    # weights 1, 1, 0.5, 0.5; credit 1, 0.5, 1, 0
    assert scores["weighted"] == pytest.approx((1 * 1 + 1 * 0.5 + 0.5 * 1 + 0.5 * 0) / 3)


def test_vital_scores_are_undefined_without_a_vital_nugget():
    scores = answer_score_dict(_nuggets([OKAY, OKAY]), {"n0": S, "n1": P})
    assert scores["vital_strict"] is None and scores["vital"] is None
    assert scores["all"] == pytest.approx(0.75)
    assert scores["weighted"] == pytest.approx(0.75)


def test_an_unmarked_nugget_is_left_out_of_the_answers_score():
    scores = answer_score_dict(_nuggets([VITAL, VITAL, OKAY]), {"n0": S, "n2": N})
    assert scores["all_strict"] == pytest.approx(1 / 2)
    assert scores["vital_strict"] == pytest.approx(1.0)


def test_a_runs_mean_is_over_topics_with_an_interval_over_topics():
    # Two runs, four topics: run 0 scores 0.2, 0.4, 0.6, 0.8; run 1 has no score on topic 3.
    values = np.array([0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 0.5, np.nan])
    runs = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    topics = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    sums, counts = run_topic_sums(values, runs, topics, n_runs=2, n_topics=4)
    means, intervals, covered = run_means(sums, counts)
    assert means == pytest.approx([0.5, 2.5 / 3])
    assert covered == [4, 3]
    assert 0.2 <= intervals[0][0] < 0.5 < intervals[0][1] <= 0.8


def test_the_human_mark_is_the_majority_and_the_earliest_on_a_tie():
    first, second, third = (np.array(row, dtype=np.int8) for row in ([0, 1, 2, 0], [1, 1, 0, 2], [1, 2, 2, -1]))
    assert reference_codes([first, second]).tolist() == [0, 1, 2, 0]
    assert reference_codes([first, second, third]).tolist() == [1, 1, 2, 0]


# --- the report over a campaign ---

@pytest.fixture
def simulated(db):
    return campaign_simulate(topics=16, runs=8, nuggets=24, assessor_errors=(0.1, 0.2), judge_errors={"judge": 0.15},
                             seed=3)


def test_kappa_is_scikit_learns_on_the_same_marks(simulated):
    from annotate.models import HumanJudgment
    from judges.models import ModelJudgment

    report = nugget_report_build(campaign=simulated.campaign)
    humans, judge = {}, {}
    for item, _annotator, value in HumanJudgment.objects.filter(unit__item__kind="answer").order_by("id").values_list(
            "unit__item_id", "annotator__username", "value"):
        humans.setdefault(item, []).append(value["marks"])
    for item, raw in ModelJudgment.objects.values_list("item_id", "raw"):
        judge[item] = json.loads(raw)["marks"]
    a, b, j, ref = [], [], [], []
    for item, (first, second) in humans.items():
        for nugget in first:
            a.append(first[nugget])
            b.append(second[nugget])
            j.append(judge[item][nugget])
            ref.append(first[nugget])  # two assessors: the majority, or on a tie the earlier one, is the first
    assessors = report["assessors"]["three"]
    assert assessors["n"] == len(a)
    assert assessors["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b))
    binary = report["assessors"]["binary"]
    assert binary["cohen_kappa"] == pytest.approx(cohen_kappa_score([x == S for x in a], [x == S for x in b]))
    item = report["judges"]["judge"]["item"]
    assert item["n"] == len(j)
    assert item["cohen_kappa"] == pytest.approx(cohen_kappa_score(j, ref))
    assert item["accuracy"] == pytest.approx(np.mean(np.array(j) == np.array(ref)))


def test_simulated_study_intervals_contain_the_population_figures(db):
    """Two assessors (errors 0.1, 0.2) and a judge (0.15) over known true marks: the population kappas have a
    closed form (tests/nugget_synthetic.expected_kappa), and so has each run's expected judge score."""
    simulated = campaign_simulate(slug="study", topics=40, runs=8, nuggets=20, assessor_errors=(0.1, 0.2),
                                  judge_errors={"judge": 0.15}, seed=11, creations=False)
    report = nugget_report_build(campaign=simulated.campaign)
    shares = true_shares(list(simulated.qualities.values()))
    for block, first, second in ((report["assessors"], 0.1, 0.2), (report["judges"]["judge"]["assignment"], 0.15,
                                                                    0.1)):
        for variant in ("three", "binary"):
            expected = expected_kappa(shares, first, second, binary=variant == "binary")
            low, high = block[variant]["cohen_kappa_ci95"]
            assert low <= expected <= high, (variant, expected, low, high)
            assert block[variant]["cohen_kappa_ci_over"] == "topics"
            assert block[variant]["n_topics"] == 40
    # Each run's judge-based all_strict mean covers its population value (one miss of eight allowed: 95% intervals).
    rows = {row["run"]: row["sources"]["judge"]["all_strict"] for row in report["runs"]["rows"]}
    missed = [run for run, quality in simulated.qualities.items()
              if not rows[run]["ci95"][0] <= expected_strict(quality, 0.15) <= rows[run]["ci95"][1]]
    assert len(missed) <= 1, missed
    # Every pair of runs the judge separates (intervals apart) is in the true order.
    for a, qa in simulated.qualities.items():
        for b, qb in simulated.qualities.items():
            if rows[a]["ci95"][0] > rows[b]["ci95"][1]:
                assert qa > qb, (a, b)
    # The judge's order against the humans', with its interval and n.
    order = report["judges"]["judge"]["runs"]["all_strict"]
    assert order["n_systems"] == 8 and order["n_topics"] == 40
    low, high = order["kendall_tau_b_ci95"]
    assert low <= order["kendall_tau_b"] <= high and low > 0.5
    per_topic = order["per_topic"]["summary"]
    assert per_topic["n"] == 40 and per_topic["quartiles"][0] <= per_topic["quartiles"][2]


def test_humans_on_part_of_the_topics_judge_on_all(db):
    simulated = campaign_simulate(slug="part", topics=10, runs=6, nuggets=10, human_topics=4, seed=5)
    report = nugget_report_build(campaign=simulated.campaign)
    assert report["n_answers"] == 60
    assert report["humans"]["answers_marked"] == 24
    rows = report["runs"]["rows"]
    assert {row["sources"]["humans"]["vital_strict"]["n_topics"] for row in rows} == {4}
    assert {row["sources"]["judge"]["vital_strict"]["n_topics"] for row in rows} == {10}
    assert report["judges"]["judge"]["runs"]["vital_strict"]["n_topics"] == 4
    assert report["assessors"]["three"]["n_topics"] == 4


def test_creation_counts_and_recovery(simulated):
    report = nugget_report_build(campaign=simulated.campaign)
    creation = report["creation"]
    assert creation["n_lists"] == 16
    row = creation["rows"][0]
    # 24 proposed: 22 kept or edited (every third edited), 2 removed, 1 added.
    assert (row["kept"], row["edited"], row["added"], row["removed"]) == (14, 8, 1, 2)
    source = creation["sources"]["import:sim"]
    assert source["recovery"] == pytest.approx(22 / 23) and source["n"] == 16 * 23


def test_a_failed_verdict_and_a_failed_nugget_are_no_marks(simulated):
    from judges.models import ModelJudgment

    verdicts = list(ModelJudgment.objects.order_by("id")[:2])
    verdicts[0].failed, verdicts[0].raw = True, "no reply"
    raw = json.loads(verdicts[1].raw)
    first = next(iter(raw["marks"]))
    raw["failed"] = {first: "unreadable"}
    verdicts[1].raw = json.dumps(raw)
    ModelJudgment.objects.bulk_update(verdicts, ["failed", "raw"])
    report = nugget_report_build(campaign=simulated.campaign)
    judge = report["judges"]["judge"]
    assert judge["failed_verdicts"] == 1 and judge["failed_marks"] == 1
    # 128 answers of 24 nuggets, less one answer and one nugget
    assert judge["item"]["n"] == 128 * 24 - 24 - 1


def test_the_build_reads_a_fixed_number_of_queries(db):
    counts = []
    for slug, topics, runs in (("small", 3, 3), ("large", 12, 9)):
        simulated = campaign_simulate(slug=slug, topics=topics, runs=runs, nuggets=6, seed=1,
                                      judge_errors={"a": 0.1, "b": 0.2})
        with CaptureQueriesContext(connection) as captured:
            nugget_report_build(campaign=simulated.campaign)
        counts.append(len(captured))
    assert counts[0] == counts[1] <= 6


def test_the_document_is_json_and_the_page_renders(simulated):
    from agreement.report import agreement_report_build
    from tasktypes.nugget_evaluation.presentation import NuggetPresentation

    report = json.loads(json.dumps(agreement_report_build(campaign=simulated.campaign)))
    assert report["layout"] == "nuggets"
    presentation = NuggetPresentation()
    plots = {name: draw(report=report) for name, draw in presentation.plots(report).items()}
    assert all(plot is not None for plot in plots.values())
    svgs = {name: plot.svg() for name, plot in plots.items()}
    context = presentation.page_context(report, judge_names=list(report["judges"]), plots=svgs)
    html = render_to_string(presentation.body_template, {"report": report, **context})
    assert "Cohen" in html and "run07" in html and "<svg" in html
    systems = presentation.systems_csv(report).splitlines()
    assert systems[0].startswith("run,") and len(systems) == 1 + 8
    topics = presentation.topics_csv(report).splitlines()
    assert len(topics) > 16
    judges = presentation.judges_csv(report).splitlines()
    assert len(judges) == 1 + 5  # one row per score
    answers = presentation.answers_csv(report).splitlines()
    assert len(answers) == 1 + 128
    assert "Kendall" in presentation.text(report)


def test_the_report_page_and_its_downloads(simulated, client):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from annotate.models import Role
    from annotate.services.campaigns import membership_add
    from tests.report_support import report_stored

    researcher = get_user_model().objects.create(username="researcher")
    membership_add(campaign=simulated.campaign, user=researcher, role=Role.RESEARCHER)
    report_stored(simulated.campaign)
    client.force_login(researcher)
    slug = simulated.campaign.slug
    page = client.get(reverse("agreement-report", args=[slug]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="nugget-agreement"' in html and 'id="nugget-run-order"' in html and "run07" in html
    for name in ("systems", "topics", "judges"):
        answer = client.get(reverse(f"agreement-{name}-csv", args=[slug]))
        assert answer.status_code == 200 and answer.content.count(b"\n") > 2
    methods = client.get(reverse("agreement-methods-txt", args=[slug]))
    assert methods.status_code == 200 and b"Kendall" in methods.content
