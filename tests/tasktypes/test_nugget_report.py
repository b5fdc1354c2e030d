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


# --- whose nuggets, whose marks: judges marking against a judge's lists ---

def _independent_run_means(campaign):
    """Each run's vital_strict mean over topics under the humans (the frozen lists, REFERENCE_RULE over two
    assessors: the first's mark unless both agree) and under each judge (its marks, against the list its raw names:
    the frozen one by version, or the writer's verdict on the topic's nuggets item), read from the rows."""
    from annotate.models import HumanJudgment, Item, Topic
    from judges.models import ModelJudgment

    frozen = {topic.pk: topic.data["nuggets"]["nuggets"] for topic in Topic.objects.filter(campaign=campaign)}
    written = {(name, topic): json.loads(raw)["nuggets"] for name, topic, raw in ModelJudgment.objects.filter(
        judge__campaign=campaign, item__kind="nuggets").values_list("judge__name", "item__topic_id", "raw")}
    answers = {pk: (topic, data["run"]) for pk, topic, data in Item.objects.filter(
        campaign=campaign, kind="answer").values_list("pk", "topic_id", "data")}

    def vital_strict(nuggets, marks):
        vital = [nugget["id"] for nugget in nuggets if nugget["importance"] == VITAL]
        return sum(marks[n] == S for n in vital) / len(vital)

    per_run: dict[str, dict[str, list[float]]] = {}
    humans: dict[int, list[dict]] = {}
    for item, value in HumanJudgment.objects.filter(unit__item__kind="answer").order_by("id").values_list(
            "unit__item_id", "value"):
        humans.setdefault(item, []).append(value["marks"])
    for item, (first, _second) in humans.items():
        topic, run = answers[item]
        reference = {n: first[n] for n in first}  # agreed, or on a tie the earlier one's: the first's either way
        per_run.setdefault("humans", {}).setdefault(run, []).append(vital_strict(frozen[topic], reference))
    for name, item, raw in ModelJudgment.objects.filter(judge__campaign=campaign, item__kind="answer").values_list(
            "judge__name", "item_id", "raw"):
        body = json.loads(raw)
        topic, run = answers[item]
        nuggets = written[(body["list"][len("judge:"):], topic)] if "list" in body else frozen[topic]
        per_run.setdefault(name, {}).setdefault(run, []).append(vital_strict(nuggets, body["marks"]))
    runs = sorted(per_run["humans"])
    return runs, {source: np.array([np.mean(found[run]) for run in runs]) for source, found in per_run.items()}


@pytest.fixture
def automatic(db):
    """A frozen-list judge, a judge marking against writer's lists and one marking against its own (self)."""
    return campaign_simulate(slug="automatic", topics=12, runs=8, nuggets=10, judge_errors={"judge": 0.15},
                             list_judges={"auto": ("writer", 0.15), "self": ("self", 0.2)}, seed=7, creations=False)


def test_the_combinations_are_scipys_correlations_of_the_run_means(automatic):
    from scipy.stats import kendalltau, pearsonr, spearmanr

    report = nugget_report_build(campaign=automatic.campaign)
    runs, means = _independent_run_means(automatic.campaign)
    judges = report["judges"]
    assert [judges[name]["nuggets"] for name in ("auto", "judge", "self", "writer")] == [
        "judge:writer", "frozen", "judge:self", "frozen"]
    # A judge marking against a judge's lists is scored under them: the runs table holds those scores.
    table = {row["run"]: row["sources"] for row in report["runs"]["rows"]}
    for source in ("humans", "judge", "auto", "self"):
        assert [table[run][source]["vital_strict"]["mean"] for run in runs] == pytest.approx(means[source])
    combinations = report["combinations"]
    assert combinations["frozen_sources"] == {"import:sim": 12}
    rows = {row["judge"]: row for row in combinations["rows"]}
    assert list(rows) == ["auto", "judge", "self"]  # writer only wrote lists
    assert [(rows[name]["condition"], rows[name]["nuggets_words"]) for name in rows] == [
        ("judge nuggets, judge marks", "writer's lists"), ("frozen nuggets, judge marks", "the frozen lists"),
        ("judge nuggets, judge marks", "self's lists (its own)")]
    for name, row in rows.items():
        order = row["runs"]["vital_strict"]
        human, judge = means["humans"], means[name]
        assert (order["n_systems"], order["n_topics"], order["n_answers"]) == (8, 12, 96)
        assert order["kendall_tau_b"] == pytest.approx(kendalltau(human, judge).statistic)
        assert order["spearman"] == pytest.approx(spearmanr(human, judge).statistic)
        assert order["pearson"] == pytest.approx(pearsonr(human, judge).statistic)
        for key in ("kendall_tau_b", "spearman", "pearson"):
            low, high = order[f"{key}_ci95"]
            assert low <= order[key] <= high and order[f"{key}_ci_over"] == "topics"
        swaps = sum((human[i] - human[j]) * (judge[i] - judge[j]) < 0 for i in range(8) for j in range(i + 1, 8))
        assert (order["n_pairs"], order["n_swaps"]) == (28, swaps) and len(order["swaps"]) == swaps
        assert order["per_topic"]["n"] == 12 and order["per_topic"]["sd"] is not None
        assert set(row["runs"]) == {"all_strict", "vital_strict", "all", "vital", "weighted"}
        # The same figures as the judge's own order block.
        assert order["kendall_tau_b"] == judges[name]["runs"]["vital_strict"]["kendall_tau_b"]
    # The judges marking other lists are not compared with the humans nugget by nugget: no marks in common.
    assert judges["auto"]["item"]["n"] == 0 and judges["judge"]["item"]["n"] == 12 * 8 * 10
    assert judges["auto"]["verdicts"] == 96 and judges["auto"]["unread_verdicts"] == 0
    # Sensitivity: one family's judges marking against different lists, the frozen lists' judge first.
    pairs = {(row["first"], row["second"]): row for row in combinations["sensitivity"]}
    assert set(pairs) == {("judge", "auto"), ("judge", "self"), ("auto", "self")}
    order = pairs[("judge", "auto")]["runs"]["vital_strict"]
    assert (pairs[("judge", "auto")]["first_nuggets"], pairs[("judge", "auto")]["second_nuggets"]) == (
        "frozen", "judge:writer")
    assert order["kendall_tau_b"] == pytest.approx(kendalltau(means["judge"], means["auto"]).statistic)
    assert order["n_systems"] == 8 and order["kendall_tau_b_ci95"] is not None
    assert order["method"] == combinations["sensitivity_method"]


def test_a_verdict_whose_list_is_gone_is_not_read(automatic):
    from judges.models import ModelJudgment

    ModelJudgment.objects.filter(judge__name="writer", item__topic__external_id="t000").delete()
    report = nugget_report_build(campaign=automatic.campaign)
    auto = report["judges"]["auto"]
    assert (auto["verdicts"], auto["unread_verdicts"]) == (88, 8)
    assert report["judges"]["auto"]["runs"]["vital_strict"]["n_topics"] == 11
    assert {row["sources"]["auto"]["vital_strict"]["n_topics"] for row in report["runs"]["rows"]} == {11}


def test_the_build_with_judges_lists_reads_a_fixed_number_of_queries(db):
    counts = []
    for slug, topics, runs in (("small-lists", 3, 3), ("large-lists", 10, 7)):
        simulated = campaign_simulate(slug=slug, topics=topics, runs=runs, nuggets=5, seed=2,
                                      list_judges={"auto": ("auto", 0.1)})
        with CaptureQueriesContext(connection) as captured:
            nugget_report_build(campaign=simulated.campaign)
        counts.append(len(captured))
    assert counts[0] == counts[1] <= 6


def test_the_combinations_are_shown(automatic):
    from tasktypes.nugget_evaluation.presentation import NuggetPresentation

    report = json.loads(json.dumps(nugget_report_build(campaign=automatic.campaign)))
    presentation = NuggetPresentation()
    context = presentation.page_context(report, judge_names=list(report["judges"]), plots={})
    # Only the frozen lists' judges are compared with the humans mark by mark.
    assert [row["who"] for row in context["agreement_rows"]] == [
        "Assessors, pairs on the same answer", "judge vs the humans", "writer vs the humans"]
    html = render_to_string(presentation.body_template, {"report": report, **context})
    assert 'id="nugget-combinations"' in html and 'id="nugget-sensitivity-table"' in html
    assert "self&#x27;s lists (its own)" in html and "writer&#x27;s lists" in html
    text = presentation.text(report)
    assert "Sensitivity to whose nuggets are used" in text and "auto (writer's lists, its marks)" in text
    judges = presentation.judges_csv(report).splitlines()
    assert judges[0].endswith(",nuggets") and sum(line.endswith(",judge:writer") for line in judges) == 5


def test_marks_against_a_judges_list_are_not_exported_as_marks_of_the_frozen_lists(automatic):
    from tasktypes.nugget_evaluation import exports

    assert exports.assignments_nuggetizer_jsonl(automatic.campaign, judge="auto") == ""
    assert len(exports.assignments_nuggetizer_jsonl(automatic.campaign, judge="judge").splitlines()) == 96
