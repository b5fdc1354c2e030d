"""The image_relevance report on a campaign small enough to check by hand: the quantile mapping, kappa with the
confusion matrix, NDCG@10 and MAP of every run under human and judge qrels, the run-order correlations, Relative Δ."""

import math

import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Item, Role, Unit
from interchange.importers.runs_pool import runs_pool_import
from judges.families.base import NOTE_TRUNCATED
from judges.models import Judge, ModelJudgment
from stats.grades import fitted_thresholds, quantile_grades
from tests.factories import CampaignFactory, MembershipFactory, TopicFactory, UserFactory
from tests.report_support import report_stored

HUMAN = {"A": {"a1": 2, "a2": 1, "a3": 0, "a4": 0}, "B": {"b1": 0, "b2": 2, "b3": 1}}
SCORES = {"a1": 0.9, "a2": 0.2, "a3": 0.5, "a4": 0.1, "b1": 0.3, "b2": 0.8, "b3": 0.7}
# median 0.5, 75th percentile 0.75: below 0.5 -> 0, 0.5 to 0.75 -> 1, above -> 2
JUDGE = {"a1": 2, "a2": 0, "a3": 1, "a4": 0, "b1": 0, "b2": 2, "b3": 1}
RUNS = {  # best first
    "r1": {"A": ["a1", "a2", "a3", "a4"], "B": ["b2", "b3", "b1"]},
    "r2": {"A": ["a3", "a4", "a2", "a1"], "B": ["b1", "b3", "b2"]},
    "r3": {"A": ["a2", "a1", "a4", "a3"], "B": ["b3", "b2", "b1"]},
    "r4": {"A": ["a4", "a3", "a1", "a2"], "B": ["b1", "b2", "b3"]},
}
TAGGED = {"r1", "r3"}


def ndcg10(ranking, grades):
    dcg = sum(grades.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:10], start=1))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg


def average_precision(ranking, grades):
    relevant = {doc for doc, g in grades.items() if g >= 1}
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranking, start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


def by_hand(qrels):
    return {run: {"ndcg_cut_10": sum(ndcg10(r[t], qrels[t]) for t in r) / len(r),
                  "map": sum(average_precision(r[t], qrels[t]) for t in r) / len(r)} for run, r in RUNS.items()}


@pytest.fixture
def image_report_campaign(db, researcher, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    campaign = CampaignFactory(slug="imgs", task_type="image_relevance", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    nist = UserFactory(username="nist")
    judge = Judge.objects.create(campaign=campaign, name="clip", family="clipscore", config_hash="c")
    for qid, grades in HUMAN.items():
        topic = TopicFactory(campaign=campaign, external_id=qid, text=f"section {qid}", data={})
        for image, grade in grades.items():
            item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"{qid}/{image}", kind="image",
                                       data={"image_id": image})
            unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1)
            HumanJudgment.objects.create(unit=unit, annotator=nist, value={"grade": grade}, label=str(grade))
            note = f"text 90 {NOTE_TRUNCATED} 77" if image == "a1" else "text 20 tokens, whole"
            ModelJudgment.objects.create(judge=judge, item=item, score=SCORES[image], label="", raw=f"cos; {note}")
    runs = tmp_path / "runs.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {10 - rank} {run}\n" for run, topics in RUNS.items()
                            for qid, docs in topics.items() for rank, doc in enumerate(docs, start=1)))
    runs_pool_import(campaign=campaign, paths=[runs], depth=10, tag=None)
    options = campaign.options
    for run in TAGGED:
        options["runs"][run]["tags"] = ["clip-based"]
    campaign.save(update_fields=["options"])
    return campaign


def test_quantile_rule_and_item_agreement(image_report_campaign):
    assert quantile_grades(SCORES) == JUDGE
    report = agreement_report_build(campaign=image_report_campaign)
    block = report["judges"]["clip"]
    assert block["mapping"] == {
        "rule": "quantile",
        "percentiles": [50.0, 75.0],
        "thresholds": [0.5, pytest.approx(0.75)],
    }
    images = sorted(SCORES)
    human = [HUMAN[i[0].upper()][i] for i in images]
    model = [JUDGE[i] for i in images]
    assert block["item"]["n"] == 7 and block["item"]["accuracy"] == pytest.approx(5 / 7)
    assert block["item"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, model))
    assert block["item"]["cohen_kappa_linear"] == pytest.approx(cohen_kappa_score(human, model, weights="linear"))
    # rows: human grade, columns: judge grade
    assert block["item"]["confusion"] == [[2, 1, 0], [1, 1, 0], [0, 0, 2]]
    per_topic = {row["topic"]: row for row in block["per_topic"]}
    assert per_topic["B"]["accuracy"] == 1.0 and per_topic["B"]["cohen_kappa"] == pytest.approx(1.0)
    assert per_topic["A"]["confusion"] == [[1, 1, 0], [1, 0, 0], [0, 0, 1]]
    assert report["humans"]["grades"] == {"0": 3, "1": 2, "2": 2}
    assert block["texts"] == {"long_passages": None, "max_length": None, "whole": 6, "truncated": 1, "windowed": 0}


def test_runs_measured_under_human_and_judge_qrels_and_correlated(image_report_campaign):
    report = agreement_report_build(campaign=image_report_campaign)
    human = by_hand(HUMAN)
    judge = by_hand({qid: {doc: JUDGE[doc] for doc in docs} for qid, docs in HUMAN.items()})
    rows = {row["system"]: row for row in report["systems"]}
    assert sorted(rows) == sorted(RUNS)
    for run in RUNS:
        for measure in ("ndcg_cut_10", "map"):
            assert rows[run]["human"][measure] == pytest.approx(human[run][measure])
            assert rows[run]["judges"]["clip"][measure] == pytest.approx(judge[run][measure])
            assert rows[run]["assessors"]["nist"][measure] == pytest.approx(human[run][measure])
    system = report["judges"]["clip"]["system"]
    for measure in ("ndcg_cut_10", "map"):
        x = [human[run][measure] for run in sorted(RUNS)]
        y = [judge[run][measure] for run in sorted(RUNS)]
        assert system[measure]["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(x, y).statistic)
        assert system[measure]["spearman"] == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
        assert system[measure]["pearson"] == pytest.approx(scipy_stats.pearsonr(x, y).statistic)

    def delta(values):
        group = sum(values[r] for r in TAGGED) / len(TAGGED)
        others = sum(values[r] for r in RUNS if r not in TAGGED) / (len(RUNS) - len(TAGGED))
        return 200 * (group - others) / (group + others)

    relative = system["relative_delta"]
    assert relative["tag"] == "clip-based"
    assert relative["map"] == pytest.approx(delta({r: judge[r]["map"] for r in RUNS}))
    assert report["humans"]["relative_delta"]["ndcg_cut_10"] == pytest.approx(
        delta({r: human[r]["ndcg_cut_10"] for r in RUNS}))
    assert report["judges"]["clip"]["cdf"]["quantiles"][0] == 0.1 and report["judges"]["clip"]["cdf"]["n"] == 7


def test_fitted_thresholds_are_cross_validated():
    scores = {n: n / 30 for n in range(30)}
    human = {n: 0 if n < 12 else (1 if n < 21 else 2) for n in range(30)}
    fitted = fitted_thresholds(scores, human, folds=3)
    low, high = fitted["thresholds"]
    assert 10 / 30 < low <= 12 / 30 + 1e-9 and 19 / 30 < high <= 21 / 30 + 1e-9
    assert fitted["cv_kappa_linear"] > 0.8 and fitted["folds"] == 3 and fitted["items"] == 30
    assert fitted_thresholds({1: 0.1}, {1: 0}) is None


def test_fitted_mapping_from_the_campaign_options(image_report_campaign):
    image_report_campaign.options["grade_mapping"] = {"clip": "fitted"}
    image_report_campaign.save(update_fields=["options"])
    mapping = agreement_report_build(campaign=image_report_campaign)["judges"]["clip"]["mapping"]
    assert mapping["rule"] == "quantile" and "too few items" in mapping["note"]  # 7 items < 2 x 5 folds


def test_report_page_csvs_and_qrels_downloads(image_report_campaign, client, researcher, annotator):
    client.force_login(researcher)
    report_stored(image_report_campaign)
    page = client.get("/campaigns/imgs/report/").content.decode()
    for text in (
        "Judges against the human grades",
        "NDCG@10 clip",
        "clip-based",
        "Runs by NDCG@10",
        "Judges' raw scores (CDF) and the human grades",
        "Judges' grades against the human consensus",
        "human \\ clip",
        "clip: 1 of 7 section texts were cut to the model's token limit",
    ):
        assert text in page, text
    runs_csv = client.get("/campaigns/imgs/report/systems.csv").content.decode().splitlines()
    measures = "ndcg_cut_10,map,p_10,ndcg_cut_20,ndcg_cut_100,recall_100,recall_1000,judged_10,compat".split(",")
    assert runs_csv[0] == ",".join(
        ["system", "tags", *(f"{source}_{m}" for source in ("human", "clip") for m in measures)]
    )
    assert runs_csv[1].startswith("r1,clip-based,")
    judges_csv = client.get("/campaigns/imgs/report/judges.csv").content.decode().splitlines()
    assert judges_csv[1].startswith("clip,clipscore,quantile,7,")
    topics_csv = client.get("/campaigns/imgs/report/topics.csv").content.decode().splitlines()
    per_topic = client.get("/api/campaigns/imgs/agreement/").json()["judges"]["clip"]["per_topic"]
    assert topics_csv[0] == ("judge,topic,n,cohen_kappa,cohen_kappa_linear,accuracy,cohen_kappa_binary,"
                             "cohen_kappa_quadratic,krippendorff_alpha_ordinal,krippendorff_alpha_nominal")
    assert [row.split(",")[:3] for row in topics_csv[1:]] == [
        ["clip", row["topic"], str(row["n"])] for row in per_topic
    ]
    consensus = client.get("/campaigns/imgs/report/qrels/consensus.qrels")
    assert consensus["Content-Disposition"].startswith("attachment")
    assert consensus.content.decode().splitlines()[:2] == ["A 0 a1 2", "A 0 a2 1"]
    judge = client.get("/campaigns/imgs/report/qrels/judge-clip.qrels").content.decode().splitlines()
    assert judge[:3] == ["A 0 a1 2", "A 0 a2 0", "A 0 a3 1"]
    assert client.get("/campaigns/imgs/report/qrels/assessor-nist.qrels").status_code == 200
    assert client.get("/campaigns/imgs/report/qrels/judge-nobody.qrels").status_code == 404
    document = client.get("/api/campaigns/imgs/agreement/").json()
    assert set(document["judges"]["clip"]["system"]) == {"n_systems", *measures, "relative_delta", "ci_method"}
    assert set(document["systems"][0]) >= {"system", "human", "judges"}
    client.force_login(annotator)
    assert client.get("/campaigns/imgs/report/qrels/consensus.qrels").status_code == 404
