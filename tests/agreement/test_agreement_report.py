"""The agreement report document built from a small campaign whose figures are checked by hand."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Role, SystemOutput
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory


def _judge(campaign, name, labels, *, failed=()):
    judge = Judge.objects.create(campaign=campaign, name=name, family="external", config_hash=f"hash-{name}")
    for item, label in labels.items():
        ModelJudgment.objects.create(judge=judge, item=item, label=label, raw=f"{label}.")
    for item in failed:
        ModelJudgment.objects.create(judge=judge, item=item, label="", raw="I cannot tell.", failed=True)
    return judge


def _annotate(unit, user, label, *, kind="annotation", version=1, is_current=True):
    return HumanJudgment.objects.create(
        unit=unit, annotator=user, kind=kind, source="import", value={"correct": label == "yes"}, label=label,
        version=version, is_current=is_current,
    )


@pytest.fixture
def small_campaign(db, researcher):
    """Two questions, five answers, two annotators and an adjudicator, two judges, three systems.

    Human labels: Lyon no, four yes (adjudicated over a 1-1 split), 5 no, "paris, france" a 1-1 tie,
    "Paris" never judged by humans (an exact gold match).
    """
    # Systems of two outputs: the correlation's minimum is lowered so the arithmetic can be checked by hand.
    campaign = CampaignFactory(slug="small", overlap=2, options={"min_system_outputs": 1})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    paris_q = TopicFactory(
        campaign=campaign, external_id="1", text="capital of france", data={"gold_answers": ["Paris"]}
    )
    legs_q = TopicFactory(
        campaign=campaign, external_id="2", text="legs of a dog", data={"gold_answers": ["4", "four"]}
    )
    items = {}
    for key, topic, text in [
        ("paris", paris_q, "Paris"), ("lyon", paris_q, "Lyon"), ("paris_fr", paris_q, "paris, france"),
        ("four", legs_q, "Four"), ("five", legs_q, "5"),
    ]:
        items[key] = ItemFactory(campaign=campaign, topic=topic, external_id=key, text=text)
    units = {key: UnitFactory(campaign=campaign, topic=item.topic, item=item) for key, item in items.items()}
    ann1, ann2, adj = UserFactory(username="ann1"), UserFactory(username="ann2"), UserFactory(username="adj")
    for key, first, second in [
        ("lyon", "no", "no"),
        ("four", "yes", "no"),
        ("five", "no", "no"),
        ("paris_fr", "yes", "no"),
    ]:
        _annotate(units[key], ann1, first)
        _annotate(units[key], ann2, second)
    _annotate(units["four"], adj, "yes", kind="adjudication")
    # An edited judgment: only the current version counts.
    _annotate(units["lyon"], ann1, "yes", version=0, is_current=False)
    _judge(
        campaign,
        "judge-a",
        {
            items["paris"]: "yes",
            items["lyon"]: "no",
            items["four"]: "no",
            items["five"]: "yes",
            items["paris_fr"]: "yes",
        },
    )
    _judge(campaign, "judge-b", {items["lyon"]: "yes", items["four"]: "yes"}, failed=[items["five"]])
    for system, first, second in [("S1", "paris", "four"), ("S2", "lyon", "five"), ("S3", "paris_fr", "four")]:
        for key in (first, second):
            SystemOutput.objects.create(campaign=campaign, system=system, topic=items[key].topic, item=items[key])
    # Another campaign's judge and judgments never leak in.
    other = CampaignFactory(slug="other")
    _judge(other, "judge-a", {ItemFactory(campaign=other, topic=TopicFactory(campaign=other)): "yes"})
    return campaign


def test_report_has_the_documented_shape(small_campaign):
    report = agreement_report_build(campaign=small_campaign)
    assert report["campaign"] == "small" and report["task_type"] == "qa_correctness"
    assert set(report) == {"campaign", "task_type", "layout", "options", "humans", "judges", "systems", "ablation",
                           "counting", "system_tests", "adjudication", "budget", "categories", "replacement",
                           "ppi", "software", "random_stream", "interval_errors"}
    assert report["categories"] is None  # no item has a category
    assert report["counting"]["rule"] == "concord"  # the default
    assert report["layout"] == "verdicts"
    assert report["options"] == {"min_system_outputs": 1, "min_system_coverage": 0.5, "small_sample": 30, "rbo_p": 0.9,
                                 "top_k": 5}
    assert report["ablation"] is None  # no LLM judges
    assert {"annotators", "fleiss_kappa", "krippendorff_alpha", "pairwise_cohen_kappa"} <= set(report["humans"])
    assert list(report["judges"]) == ["judge-a", "judge-b"]
    for block in report["judges"].values():
        assert {"n", "cohen_kappa", "accuracy"} <= set(block["item"])
        assert {"n_systems", "kendall_tau_b", "spearman", "pearson", "kendall_tau_b_ci95", "spearman_ci95",
                "pearson_ci95", "excluded", "small", "why", "ci_method", "over", "mae",
                # Agreement at the top of the system orders, and the swaps (stats.rank_agreement).
                "tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k", "n_at_k", "tau_ap_ci95", "rbo_ci95",
                "overlap_at_k_ci95", "kendall_tau_b_at_k_ci95", "n_pairs", "n_swaps", "swaps",
                # Why an interval is missing where it degenerated (too few systems or topics, resamples equal).
                "kendall_tau_b_ci_note", "spearman_ci_note", "pearson_ci_note", "tau_ap_ci_note", "rbo_ci_note",
                "overlap_at_k_ci_note", "kendall_tau_b_at_k_ci_note", "mae_ci95", "mae_ci_note",
                # What each interval resampled, which the page prints beside it (stats.uncertainty.put_interval).
                *(f"{key}_ci_over" for key in ("kendall_tau_b", "spearman", "pearson", "tau_ap", "rbo",
                                               "overlap_at_k", "kendall_tau_b_at_k", "mae"))} == set(block["system"])
        assert set(block["system_all"]) == set(block["system"])
        assert {"cohen_kappa_ci95", "accuracy_ci95", "ci_method", "small"} <= set(block["item"])
        assert block["per_topic"] == [] and block["topic_mean"] == {}  # not computed for qa_correctness


def test_humans_block(small_campaign):
    humans = agreement_report_build(campaign=small_campaign)["humans"]
    assert humans["annotators"] == 2  # the adjudicator gives verdicts, not ratings
    # ann1 [no, yes, no, yes] vs ann2 all no: observed 1/2, chance 1/2
    (pair,) = humans["pairwise_cohen_kappa"]
    assert (pair["a"], pair["b"], pair["kappa"], pair["n"], pair["small"]) == (
        "ann1",
        "ann2",
        pytest.approx(0.0),
        4,
        True,
    )
    # ann2 says no throughout: kappa is 0 in every resample, an interval [0, 0] that only looks certain.
    assert pair["kappa_ci95"] is None and pair["kappa_ci_note"] == "all resamples equal (0.000): no spread to show"
    # p(yes) = 1/4: P_e = 1/16 + 9/16 = 5/8; P-bar = 1/2; (1/2 - 5/8) / (3/8)
    assert humans["fleiss_kappa"] == pytest.approx(-1 / 3)
    assert humans["krippendorff_alpha"] is not None
    # Each with its n (the items it reads, the raters) and an interval over those items.
    assert (humans["fleiss_items"], humans["krippendorff_alpha_items"], humans["raters"]) == (4, 4, 2)
    for key in ("fleiss_kappa", "krippendorff_alpha"):
        low, high = humans[f"{key}_ci95"]
        assert -1 <= low <= humans[key] <= high <= 1 and humans[f"{key}_ci_note"] is None
    assert humans["items_labelled"] == 3 and humans["adjudicated"] == 1 and humans["ties"] == 1


def test_judge_item_level_against_the_human_label(small_campaign):
    judges = agreement_report_build(campaign=small_campaign)["judges"]
    # judge-a on lyon, four, five: [no, no, yes] vs humans [no, yes, no]; the tie and "Paris" have no human label
    assert judges["judge-a"]["item"]["n"] == 3
    assert judges["judge-a"]["item"]["accuracy"] == pytest.approx(1 / 3)
    assert judges["judge-a"]["item"]["cohen_kappa"] == pytest.approx(-0.5)  # (1/3 - 5/9) / (4/9)
    # judge-b's failed judgment of "5" is left out and counted
    assert judges["judge-b"]["item"]["n"] == 2 and judges["judge-b"]["item"]["failed"] == 1
    # Counted next to n, by why; and two questions are too few to resample: no interval, and why.
    assert judges["judge-b"]["item"]["dropped"] == {"ties": 0, "failed": 1}
    assert judges["judge-b"]["item"]["cohen_kappa_ci95"] is None
    assert judges["judge-b"]["item"]["cohen_kappa_ci_note"] == ("too few questions to resample: 2 "
                                                                "(an interval needs at least 4)")
    assert judges["judge-b"]["item"]["accuracy"] == pytest.approx(0.5)


def test_system_accuracy_and_ranking_correlation(small_campaign):
    report = agreement_report_build(campaign=small_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    assert [row["system"] for row in report["systems"]] == ["S1", "S2", "S3"]
    # S1: "Paris" unjudged by humans but an exact gold match; "Four" adjudicated yes
    assert rows["S1"]["n"] == 2 and rows["S1"]["human"] == pytest.approx(1.0)
    assert rows["S2"]["human"] == pytest.approx(0.0)
    # S3: the tied "paris, france" has no human label and matches no gold answer: not correct
    assert rows["S3"]["human"] == pytest.approx(0.5)
    assert [rows[s]["judges"]["judge-a"] for s in ("S1", "S2", "S3")] == pytest.approx([0.5, 0.5, 0.5])
    # judge-b: "Paris" never asked -> gold match, correct; "5" failed -> not correct; the tied "paris, france"
    # the humans were asked about and judge-b never was: left out of S3 on both sides (coverage 1 of 2).
    assert [rows[s]["judges"]["judge-b"] for s in ("S1", "S2", "S3")] == pytest.approx([1.0, 0.5, 1.0])
    assert [rows[s]["coverage"]["judge-b"] for s in ("S1", "S2", "S3")] == [[2, 2], [2, 2], [1, 2]]
    system_a = report["judges"]["judge-a"]["system"]
    assert system_a["n_systems"] == 3 and system_a["kendall_tau_b"] is None  # constant judge accuracies
    assert system_a["why"] == "every system has the same score under the judge"
    # Compared on the same outputs: humans [1, 0, 1] vs judge-b [1, .5, 1]: 2 concordant pairs, 1 tied in both.
    assert report["judges"]["judge-b"]["system"]["kendall_tau_b"] == pytest.approx(1.0)


def test_a_judge_asked_about_part_of_the_items_is_compared_on_what_it_saw(small_campaign):
    items = {item.text: item for item in small_campaign.items.all()}
    _judge(small_campaign, "judge-sample", {items["Lyon"]: "no"})
    report = agreement_report_build(campaign=small_campaign)
    block = report["judges"]["judge-sample"]
    assert block["item"]["coverage"] == [1, 3]
    rows = {row["system"]: row for row in report["systems"]}
    # "Paris" and "Four" match a gold answer (compared by the rule, both sides); "5" and the tied "paris, france"
    # were put to the humans, never to judge-sample: left out, not counted against it.
    assert [rows[s]["coverage"]["judge-sample"] for s in ("S1", "S2", "S3")] == [[2, 2], [1, 2], [1, 2]]
    assert rows["S2"]["judges"]["judge-sample"] == pytest.approx(0.0)  # Lyon: no
    assert block["system"]["n_systems"] == 3 and block["system"]["excluded"] == []
    assert report["judges"]["judge-a"]["system"]["n_systems"] == 3  # complete judges keep theirs


def test_small_systems_and_thin_coverage_are_left_out_with_the_reason(small_campaign):
    small_campaign.options = {}
    small_campaign.save(update_fields=["options"])
    block = agreement_report_build(campaign=small_campaign)["judges"]["judge-b"]["system"]
    assert block["n_systems"] == 0 and block["kendall_tau_b"] is None and block["kendall_tau_b_ci95"] is None
    assert block["excluded"][0] == {"system": "S1", "reason": "2 of its 2 outputs labelled by both; a system needs "
                                                              "at least 10 (option min_system_outputs)"}
    assert block["why"] == "0 system(s) with enough outputs labelled by both sides, at least 2 needed; 3 left out " \
                           "(see excluded)"


def test_empty_campaign_gives_nulls_not_errors(db):
    report = agreement_report_build(campaign=CampaignFactory(slug="empty"))
    assert report["humans"]["fleiss_kappa"] is None and report["humans"]["pairwise_cohen_kappa"] == []
    assert report["judges"] == {} and report["systems"] == []


def _campaign_of_size(slug, n_topics):
    campaign = CampaignFactory(slug=slug, overlap=2)
    users = [UserFactory(username=f"{slug}-ann{i}") for i in range(3)]
    judge = Judge.objects.create(campaign=campaign, name="j", family="external", config_hash=f"{slug}-j")
    for t in range(n_topics):
        topic = TopicFactory(campaign=campaign, data={"gold_answers": ["x"]})
        for a in range(3):
            item = ItemFactory(campaign=campaign, topic=topic, text=f"answer {a}")
            unit = UnitFactory(campaign=campaign, topic=topic, item=item)
            for u, user in enumerate(users):
                _annotate(unit, user, "yes" if (t + a + u) % 3 else "no")
            ModelJudgment.objects.create(judge=judge, item=item, label="yes" if (t + a) % 2 else "no")
            SystemOutput.objects.create(campaign=campaign, system=f"S{a}", topic=topic, item=item)
    return campaign


def test_query_count_does_not_grow_with_the_campaign(db):
    small, large = _campaign_of_size("few", 2), _campaign_of_size("many", 30)
    with CaptureQueriesContext(connection) as few:
        agreement_report_build(campaign=small)
    with CaptureQueriesContext(connection) as many:
        report = agreement_report_build(campaign=large)
    assert report["judges"]["j"]["item"]["n"] == 90
    # 9: the robustness probes' block asks once whether the campaign has any (tasktypes.probes.probe_report).
    assert len(many.captured_queries) == len(few.captured_queries) <= 9


@pytest.mark.parametrize(
    ("label", "gold_match", "failed", "correct"),
    [
        ("yes", False, False, True),  # the rater's label wins over the gold answers
        ("no", True, False, False),
        (None, True, False, True),  # never asked: an exact gold match is correct
        (None, False, False, False),  # no verdict at all: not correct
        (None, True, True, False),  # asked, no readable verdict: not accepted, even on a gold match
    ],
)
def test_output_correct_rule(label, gold_match, failed, correct):
    from tasktypes.qa_correctness.counting import output_correct

    assert output_correct(label=label, gold_match=gold_match, failed=failed) is correct


def test_a_judges_system_score_over_every_output_it_decided(small_campaign):
    """Beside the score on the outputs compared with the humans: the judge's over all it decided, and a system no human
    rated keeps its judge score, left out of the correlation with the reason."""
    topic = small_campaign.topics.get(external_id="2")
    unrated = [
        ItemFactory(campaign=small_campaign, topic=topic, external_id=f"u{i}", text=f"{i + 6}") for i in range(2)
    ]
    for item in unrated:
        SystemOutput.objects.create(campaign=small_campaign, system="S4", topic=topic, item=item)
    judge_a = Judge.objects.get(campaign=small_campaign, name="judge-a")
    ModelJudgment.objects.create(judge=judge_a, item=unrated[0], label="yes", raw="yes.")
    ModelJudgment.objects.create(judge=judge_a, item=unrated[1], label="no", raw="no.")
    report = agreement_report_build(campaign=small_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    assert rows["S4"]["judges_all"]["judge-a"] == {"accuracy": 0.5, "n": 2, "mean_score": None, "n_scored": 0}
    # judge-b was asked about "Four" and "Lyon"; "Paris" a gold match decides; the tied "paris, france" it never saw.
    assert rows["S3"]["judges_all"]["judge-b"]["n"] == 1 and rows["S3"]["judges_all"]["judge-b"]["accuracy"] == 1.0
    assert rows["S4"]["judges_all"]["judge-b"]["n"] == 0 and rows["S4"]["judges_all"]["judge-b"]["accuracy"] is None
    every = report["judges"]["judge-a"]["system_all"]
    assert every["over"] == "every output each side decided"
    assert {"system": "S4", "reason": "none of its 2 outputs has a human verdict"} in every["excluded"]
    assert every["n_systems"] == 3
    same = report["judges"]["judge-a"]["system"]
    assert same["over"] == "the outputs both sides decided" and "S4" in {row["system"] for row in same["excluded"]}


def test_a_scoring_judge_gets_a_mean_score_order(small_campaign):
    judge = Judge.objects.create(campaign=small_campaign, name="scorer", family="external", config_hash="hash-scorer")
    scores = {"Paris": 0.9, "Lyon": 0.2, "paris, france": 0.7, "Four": 0.8, "5": 0.1}
    for item in small_campaign.items.all():
        ModelJudgment.objects.create(judge=judge, item=item, score=scores[item.text],
                                     label="yes" if scores[item.text] >= 0.5 else "no", raw="")
    report = agreement_report_build(campaign=small_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    assert [rows[s]["judges_all"]["scorer"]["mean_score"] for s in ("S1", "S2", "S3")] == \
        pytest.approx([0.85, 0.15, 0.75])
    block = report["judges"]["scorer"]["system_mean_score"]
    # Humans over the outputs they decided: S1 1.0, S2 0.0, S3 0.5 ("paris, france" tied, no gold match: not correct).
    assert block["n_systems"] == 3 and block["kendall_tau_b"] == pytest.approx(1.0)
    assert report["judges"]["judge-a"]["system_mean_score"] is None  # a judge without scores has none


def test_qa_eval_rule_on_a_small_campaign(small_campaign):
    """The study's rule: gold plus accepted minus rejected strings, per question; an empty set counts as wrong."""
    small_campaign.options = {**small_campaign.options, "counting_rule": "qa-eval"}
    small_campaign.save(update_fields=["options"])
    topic = small_campaign.topics.get(external_id="1")
    # A system answering "PARIS" and "paris, france": the first normalises to the gold answer; the second was tied by
    # its raters (no human label), so it stays out of the gold set and counts as wrong.
    for text, item in (("PARIS", small_campaign.items.get(text="Paris")),
                       ("paris, france", small_campaign.items.get(text="paris, france"))):
        SystemOutput.objects.create(campaign=small_campaign, system=f"S5-{text}", topic=topic, item=item,
                                    data={"prediction": text})
    report = agreement_report_build(campaign=small_campaign)
    assert report["counting"]["rule"] == "qa-eval"
    rows = {row["system"]: row for row in report["systems"]}
    assert rows["S5-PARIS"]["human"] == 1.0 and rows["S5-paris, france"]["human"] == 0.0
    # Outputs without a stored prediction are read through their item's text: S1 "Paris" (gold) and "Four" (accepted).
    assert rows["S1"]["human"] == 1.0 and rows["S2"]["human"] == 0.0


@pytest.mark.parametrize("gold, accepted, rejected, prediction, correct", [
    (["Paris"], [], [], "the paris", True),          # SQuAD normalisation
    (["Paris"], [], ["Paris"], "Paris", False),       # a rejected string leaves the set: empty, so wrong
    (["paris"], [], ["Paris"], "Paris", False),       # ... or its lower-cased form
    (["Paris"], [], ["PARIS"], "Paris", True),        # another spelling rejected: the gold string stays
    ([], ["Paris, France"], [], "paris france", True),  # an accepted answer joins the set
    ([], [], [], "anything", False),                  # no gold answers at all
])
def test_qa_eval_rater_gold_sets(gold, accepted, rejected, prediction, correct):
    from tasktypes.qa_correctness.counting import Output, QaEvalRater

    texts = {i: (1, text) for i, text in enumerate([*accepted, *rejected])}
    labels = {i: "yes" if i < len(accepted) else "no" for i in texts}
    rater = QaEvalRater(gold={1: gold}, texts=texts, labels=labels)
    assert rater.correct(Output(1, 99, prediction)) is correct


def test_study_percent_rounds_twice_half_up():
    from tasktypes.qa_correctness.counting import study_percent

    assert study_percent(0.58748) == 58.8  # 58.75, then 58.8 (58.7 if rounded once)
    assert study_percent(0.5864) == 58.6 and study_percent(None) is None


def test_paired_tests_between_systems_and_between_judges(small_campaign):
    tests = agreement_report_build(campaign=small_campaign)["system_tests"]
    humans = tests["humans"]
    assert humans["order"] == ["S1", "S3", "S2"]  # by human accuracy, best first
    pair = next(p for p in humans["pairs"] if (p["a"], p["b"]) == ("S1", "S2"))
    # Both questions: S1 right on both, S2 wrong on both: 2 discordant, exact two-sided p = 0.5.
    assert (pair["n"], pair["difference"], pair["discordant"], pair["test"]) == (2, 1.0, [2, 0], "mcnemar-exact")
    assert pair["p"] == pytest.approx(0.5) and pair["p_holm"] == pytest.approx(1.0) and not pair["significant"]
    assert set(tests["judges"]) == {"judge-a", "judge-b"}
    # judge-a vs judge-b on the items with a human label both labelled (Lyon, Four): each right once.
    (judges,) = tests["judge_agreement"]["pairs"]
    assert (judges["a"], judges["b"], judges["n"], judges["difference"], judges["p"]) == \
        ("judge-a", "judge-b", 2, 0.0, 1.0)
