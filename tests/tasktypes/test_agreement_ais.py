"""The ais report: rater agreement per question, AIS accuracy per system with its bootstrap SE, AutoAIS against
the human majority (item, system and within-system), the most disagreeing items, and the page that shows them."""

import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Role, SystemOutput
from judges.families.base import NOTE_TRUNCATED
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored

YES_YES = {"interpretable": True, "supported": True}
YES_NO = {"interpretable": True, "supported": False}
NO = {"interpretable": False, "supported": None}

# item: (system, three raters' answers (None: not rated), AutoAIS score)
PLAN = {
    "a1": ("S1", [YES_YES, YES_YES, YES_NO], 0.9),
    "a2": ("S1", [YES_YES, YES_YES, YES_YES], 0.8),
    "a3": ("S1", [NO, NO, YES_NO], 0.1),
    "b1": ("S2", [YES_NO, YES_NO, YES_YES], 0.7),  # the judge says yes, the majority no
    "b2": ("S2", [NO, YES_NO, NO], 0.2),
    "b3": ("S2", [YES_YES, YES_NO, None], 0.6),  # 1-1 on attributable, the third rating missing: open, no label
    "c1": ("S3", [YES_YES, YES_YES, YES_YES], 0.95),
    "c2": ("S3", [YES_YES, YES_YES, NO], 0.05),  # the judge says no, every rater's share 2/3 yes
    "c3": ("S3", [YES_NO, YES_YES, YES_YES], 0.7),
}


def _attributable(value):
    return value["interpretable"] and bool(value["supported"])


@pytest.fixture
def ais_report_campaign(db, researcher):
    # Systems of three outputs: the correlation's minimum is lowered so the arithmetic can be checked by hand.
    campaign = CampaignFactory(slug="ais", task_type="ais", overlap=3, options={"min_system_outputs": 1})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    raters = [UserFactory(username=f"rater{i}") for i in (1, 2, 3)]
    judge = Judge.objects.create(campaign=campaign, name="autoais-t5", family="autoais", config_hash="h")
    for key, (system, answers, score) in PLAN.items():
        topic = TopicFactory(campaign=campaign, external_id=f"q-{key}", text=f"question about {key}", data={})
        item = ItemFactory(campaign=campaign, topic=topic, external_id=key, text=f"answer {key}",
                           data={"passage": f"passage {key}", "system": system})
        unit = UnitFactory(campaign=campaign, topic=topic, item=item)
        for rater, value in zip(raters, answers, strict=True):
            if value is not None:
                HumanJudgment.objects.create(unit=unit, annotator=rater, value=value,
                                             label="yes" if _attributable(value) else "no")
        note = f"passage 700 {NOTE_TRUNCATED} 480" if key in ("a1", "a2") else "passage 90 tokens, whole"
        ModelJudgment.objects.create(judge=judge, item=item, score=score, label="yes" if score >= 0.5 else "no",
                                     raw=f"P(entailment) {score}; {note}")
        SystemOutput.objects.create(campaign=campaign, system=system, topic=topic, item=item)
    return campaign


def _majority(answers):
    votes = [_attributable(v) for v in answers if v is not None]
    yes = sum(votes)
    if yes * 2 == len(votes):
        return None
    return yes * 2 > len(votes)


def test_rater_agreement_per_question(ais_report_campaign):
    questions = agreement_report_build(campaign=ais_report_campaign)["humans"]["questions"]
    # Q1 and attributable: the eight items with three ratings (b3 has two; Fleiss takes the modal panel of 3).
    full = [answers for _, answers, _ in PLAN.values() if None not in answers]
    for name, pick in (("interpretable", lambda v: v["interpretable"]), ("attributable", _attributable)):
        table = np.array([[sum(pick(v) for v in answers), sum(not pick(v) for v in answers)] for answers in full])
        assert questions[name]["fleiss_kappa"] == pytest.approx(fleiss_kappa(table, method="fleiss"))
        assert questions[name]["fleiss_items"] == 8
    # Q2 exists only after a yes to Q1: items where all three said yes to Q1 make the modal panel.
    q2 = [[v["supported"] for v in answers if v is not None and v["interpretable"]] for _, answers, _ in PLAN.values()]
    panel = [row for row in q2 if len(row) == 3]
    table = np.array([[sum(row), 3 - sum(row)] for row in panel])
    assert questions["supported"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(table, method="fleiss"))
    assert questions["supported"]["fleiss_items"] == len(panel)
    assert questions["supported"]["ratings"] == sum(len(row) for row in q2)
    assert questions["interpretable"]["ratings"] == 26
    assert -1 <= questions["attributable"]["krippendorff_alpha"] <= 1
    # Each with its n (items read: Fleiss the modal panel, alpha every item rated twice), its raters, an interval.
    assert questions["attributable"]["krippendorff_alpha_items"] == 9
    assert questions["supported"]["krippendorff_alpha_items"] == 7
    for block in questions.values():
        assert block["raters"] == 3
        for key in ("fleiss_kappa", "krippendorff_alpha"):
            low, high = block[f"{key}_ci95"]
            assert -1 <= low <= block[key] <= high <= 1 and block[f"{key}_ci_note"] is None


def test_systems_accuracy_bootstrap_se_and_judge_accuracy(ais_report_campaign):
    report = agreement_report_build(campaign=ais_report_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    assert set(rows) == {"S1", "S2", "S3"}
    for system, row in rows.items():
        keys = [key for key, plan in PLAN.items() if plan[0] == system]
        labels = {key: _majority(PLAN[key][1]) for key in keys}
        rated = [key for key in keys if labels[key] is not None]
        outcomes = [1.0 if labels[key] else 0.0 for key in rated]
        assert row["n"] == len(rated) and row["outputs"] == len(keys)
        # b3's third rater has not rated yet and could decide it: open, neither labelled nor a tie.
        assert row["open"] == len(keys) - len(rated) and row["ties"] == 0
        assert row["human"] == pytest.approx(sum(outcomes) / len(outcomes))
        expected_se = scipy_stats.bootstrap((np.array(outcomes),), np.mean, n_resamples=2000, method="percentile",
                                            random_state=np.random.default_rng(0)).standard_error
        # Another generator's 2,000 resamples: a bootstrap SE is off by about 1 / sqrt(2 x 2,000) of itself (1.6%);
        # two of them differ by 4 such errors at most.
        tolerance = 4 * math.sqrt(2) / math.sqrt(2 * 2000)
        assert (row["human_se"] == pytest.approx(expected_se, rel=tolerance) if len(set(outcomes)) > 1
                else row["human_se"] == 0.0)
        judge = [1.0 if PLAN[key][2] >= 0.5 else 0.0 for key in rated]
        assert row["judges"]["autoais-t5"] == pytest.approx(sum(judge) / len(judge))
    # S1: a1 yes, a2 yes, a3 no -> 2/3; S2: b1 no, b2 no (b3 tied) -> 0; S3: all yes -> 1.
    assert [rows[s]["human"] for s in ("S1", "S2", "S3")] == pytest.approx([2 / 3, 0.0, 1.0])

    system = report["judges"]["autoais-t5"]["system"]
    human = [rows[s]["human"] for s in ("S1", "S2", "S3")]
    model = [rows[s]["judges"]["autoais-t5"] for s in ("S1", "S2", "S3")]
    assert system["pearson"] == pytest.approx(scipy_stats.pearsonr(human, model).statistic)
    assert system["spearman"] == pytest.approx(scipy_stats.spearmanr(human, model).statistic)
    assert system["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(human, model).statistic)


def test_judge_item_kappa_per_system_and_disagreements(ais_report_campaign):
    block = agreement_report_build(campaign=ais_report_campaign)["judges"]["autoais-t5"]
    labelled = [key for key, plan in PLAN.items() if _majority(plan[1]) is not None]
    human = [_majority(PLAN[key][1]) for key in labelled]
    model = [PLAN[key][2] >= 0.5 for key in labelled]
    assert block["item"]["n"] == 8
    assert block["item"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, model))

    per_system = {row["system"]: row for row in block["per_system"]}
    s3 = [key for key in labelled if PLAN[key][0] == "S3"]
    h3 = [1.0 if _majority(PLAN[key][1]) else 0.0 for key in s3]
    m3 = [1.0 if PLAN[key][2] >= 0.5 else 0.0 for key in s3]
    assert per_system["S3"]["n"] == 3
    assert per_system["S3"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(h3, m3))
    assert per_system["S2"]["pearson"] is None  # humans say no on both rated S2 items: a constant

    # c2: raters 2 of 3 yes, score 0.05 -> 0.617 apart; b1: 1 of 3 yes, score 0.7 -> 0.367, labels differ.
    listed = [(row["external_id"], row["votes"], row["human"], row["label"]) for row in block["disagreements"]]
    assert listed == [("c2", [2, 3], "yes", "no"), ("b1", [1, 3], "no", "yes")]
    # The report says how the judge read long passages.
    assert block["passages"] == {"long_passages": "truncate", "max_length": None, "whole": 7, "truncated": 2,
                                 "windowed": 0}
    first = block["disagreements"][0]
    assert first["distance"] == pytest.approx(2 / 3 - 0.05)
    assert (first["question"], first["answer"], first["system"]) == ("question about c2", "answer c2", "S3")


def test_report_reads_a_bounded_number_of_queries(ais_report_campaign):
    def count():
        with CaptureQueriesContext(connection) as captured:
            agreement_report_build(campaign=ais_report_campaign)
        return len(captured)

    small = count()
    topic = TopicFactory(campaign=ais_report_campaign, external_id="more", text="more", data={})
    rater = UserFactory(username="rater1")
    for n in range(30):
        item = ItemFactory(campaign=ais_report_campaign, topic=topic, external_id=f"more-{n}", text=f"m{n}",
                           data={"system": "S4"})
        unit = UnitFactory(campaign=ais_report_campaign, topic=topic, item=item)
        HumanJudgment.objects.create(unit=unit, annotator=rater, value=YES_YES, label="yes")
        SystemOutput.objects.create(campaign=ais_report_campaign, system="S4", topic=topic, item=item)
    assert count() == small <= 12  # 12: the robustness probes block asks once whether there are any


def test_report_page_shows_the_ais_tables(ais_report_campaign, client, researcher):
    client.force_login(researcher)
    report_stored(ais_report_campaign)
    page = client.get(f"/campaigns/{ais_report_campaign.slug}/report/").content.decode()
    for text in ('id="ais-questions"', "Q2 supported (asked after a yes to Q1)", "AIS accuracy", "± SE",
                 "Where autoais-t5 and the humans disagree most", "answer c2", "(2 of 3 yes)",
                 "AIS accuracy under human labels", "7 read whole, 2 truncated, 0 read in windows",
                 "n = 9 items, 3 raters", "n = 7 items, 3 raters"):
        assert text in page
    csv_text = client.get(f"/campaigns/{ais_report_campaign.slug}/report/systems.csv").content.decode()
    assert csv_text.splitlines()[0] == ("system,n,human,human_se,outputs,ties,open,autoais-t5,autoais-t5_all,"
                                        "autoais-t5_all_n,autoais-t5_mean_score")
    document = client.get(f"/api/campaigns/{ais_report_campaign.slug}/agreement/").json()
    assert {"human", "human_se", "judges"} <= set(document["systems"][0])
    assert {"pearson", "spearman", "kendall_tau_b"} <= set(document["judges"]["autoais-t5"]["system"])
