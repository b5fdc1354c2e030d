"""Humans and a judge together on a graded campaign (tasktypes.graded.ppi): each run's NDCG@10 and P@10 with the
topic as the unit. With humans on every topic the block checks the method on a draw, each run beside its all-human
mean (ir_measures' mean over topics); with humans on half the topics, every figure is recomputed from the qrels by
ir_measures and ppi_py, independently of the report."""

import random

import ir_measures
import numpy as np
import pytest

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Item, LabelPlan, Role, Unit
from annotate.services.annotation import unit_lease_next
from annotate.services.campaigns import campaign_get_or_create, campaign_options_set
from interchange.importers.runs_pool import runs_pool_import
from judges.models import Judge, ModelJudgment
from reports.ppi import ppi_csv
from stats import label_plans, ppi
from tests.factories import MembershipFactory, TopicFactory, UserFactory

TOPICS = [f"t{n:02d}" for n in range(24)]
DOCS = [f"d{n}" for n in range(20)]
NOISE = {"good": 0.8, "fair": 1.5, "poor": 3.0, "random": 9.0}  # each run ranks by grade + this much noise


def _data(seed: int = 7):
    """(human grades, the judge's, the runs): the judge moves a grade by one in a third of the items."""
    rng = random.Random(seed)
    human = {topic: {doc: rng.choice([0, 0, 1, 1, 2, 3]) for doc in DOCS} for topic in TOPICS}
    judge = {topic: {doc: min(3, max(0, grade + rng.choice([-1, 1]))) if rng.random() < 0.33 else grade
                     for doc, grade in grades.items()} for topic, grades in human.items()}
    runs = {name: {topic: sorted(DOCS, key=lambda doc: -(human[topic][doc] + rng.gauss(0, noise)))
                   for topic in TOPICS} for name, noise in NOISE.items()}
    return human, judge, runs


def _campaign(tmp_path, *, human_topics):
    """A passage_relevance campaign of TOPICS: the humans grade the items of HUMAN_TOPICS, the judge every item."""
    human, judge, runs = _data()
    campaign = campaign_get_or_create(slug=f"ppi-graded-{len(human_topics)}", task_type="passage_relevance",
                                      overlap=1)
    nist = UserFactory()
    grader = Judge.objects.create(campaign=campaign, name="grader", family="external", config_hash="g")
    for qid in TOPICS:
        topic = TopicFactory(campaign=campaign, external_id=qid, text=f"query {qid}", data={})
        for doc in DOCS:
            item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"{qid}/{doc}", kind="passage",
                                       data={"docid": doc}, text=f"passage {doc} for {qid}")
            unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1)
            if qid in human_topics:
                HumanJudgment.objects.create(unit=unit, annotator=nist, value={"grade": human[qid][doc]},
                                             label=str(human[qid][doc]))
            ModelJudgment.objects.create(judge=grader, item=item, label=str(judge[qid][doc]))
    path = tmp_path / f"runs-{len(human_topics)}.txt"
    path.write_text("".join(f"{qid} Q0 {doc} {rank} {20 - rank} {name}\n" for name, ranked in runs.items()
                            for qid, docs in ranked.items() for rank, doc in enumerate(docs, start=1)))
    runs_pool_import(campaign=campaign, paths=[path], depth=10, tag=None)
    campaign.refresh_from_db()
    return campaign, human, judge, runs


def _per_topic(qrels: dict, ranked: dict, measure: str, topics) -> np.ndarray:
    """MEASURE of the run RANKED (topic -> docs, best first) per topic of TOPICS under QRELS, by ir_measures; the
    mean grade of the first ten documents written out."""
    if measure == "mean grade@10":
        return np.array([np.mean([qrels[topic].get(doc, 0) for doc in ranked[topic][:10]]) for topic in topics])
    run = {topic: {doc: float(20 - rank) for rank, doc in enumerate(docs)} for topic, docs in ranked.items()}
    parsed = ir_measures.parse_measure(measure)
    values = {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}
    return np.array([values[topic] for topic in topics])


# passage_relevance: relevant from grade 2
MEASURES = {"ndcg_cut_10": "nDCG@10", "p_10": "P(rel=2)@10", "mean_grade_10": "mean grade@10"}


def test_every_topic_graded_checks_the_method_on_a_draw(db, tmp_path):
    campaign, human, _, runs = _campaign(tmp_path, human_topics=set(TOPICS))
    block = agreement_report_build(campaign=campaign)["ppi"]
    assert (block["unit"], block["unit_one"]) == ("topics", "topic")
    assert [(m["key"], m["label"]) for m in block["measures"]] == [
        ("ndcg_cut_10", "NDCG@10"), ("p_10", "P@10"), ("mean_grade_10", "mean grade@10")]
    assert block["measures"][2]["bounds"] == [0.0, 3.0]
    for measure in block["measures"]:
        grader = measure["judges"]["grader"]
        assert (grader["units"], grader["labelled_units"]) == (24, 24)
        # No other judge: the active plan has nothing to go on and the check draws uniformly, a tenth of the topics
        # but 10 at the least (the fewest the judge is read with).
        assert grader["plan"] == "uniform" and grader["check"]["drawn"] == 10
        for row in grader["systems"]:
            everyone = _per_topic(human, runs[row["system"]], MEASURES[measure["key"]], TOPICS)
            assert row["all_human"] == pytest.approx(everyone.mean())
            assert row["units"] == 24 and row["combined"]["n"] == grader["check"]["drawn"]


def test_half_the_topics_graded_equal_ppi_py_on_ir_measures_values(db, tmp_path):
    graded = set(TOPICS[::2])
    campaign, human, judge, runs = _campaign(tmp_path, human_topics=graded)
    report = agreement_report_build(campaign=campaign)
    block = report["ppi"]
    labelled = np.array([topic in graded for topic in TOPICS])
    for measure in block["measures"]:
        grader = measure["judges"]["grader"]
        assert (grader["units"], grader["labelled_units"], grader["check"]) == (24, 12, None)
        for row in grader["systems"]:
            name = MEASURES[measure["key"]]
            y = _per_topic({t: human[t] for t in graded}, runs[row["system"]], name, sorted(graded))
            yhat = _per_topic(judge, runs[row["system"]], name, TOPICS)
            assert row["judge"] == pytest.approx(yhat.mean())
            assert row["human"]["value"] == pytest.approx(y.mean()) and row["human"]["n"] == 12
            lam = row["combined"]["lam"]
            expected = float(np.ravel(ppi._ppi().ppi_mean_pointestimate(y, yhat[labelled], yhat[~labelled],
                                                                          lam=lam))[0])
            assert row["combined"]["value"] == pytest.approx(expected)
            combined, alone = row["combined"]["ci95"], row["human"]["ci95"]
            assert combined[1] - combined[0] <= alone[1] - alone[0] + 1e-12
    ndcg = block["measures"][0]["judges"]["grader"]
    assert ndcg["order"][0] == "good" and ndcg["order"][-1] == "random"
    # The labels an interval of the option budget_width (0.1) needs: the twelve there are at the least, the judge's
    # help never costing labels, None where every topic would not do (tests/stats/test_ppi.py checks the figures
    # against a simulation).
    assert ndcg["needed"] == {"width": 0.1, "plans": ["uniform"]}
    for row in ndcg["systems"]:
        needed = row["needed"]
        combined = needed["by_plan"][0]["labels"]
        assert combined is None or 12 <= combined <= 24
        assert needed["humans"] is None or combined is not None and combined <= needed["humans"]
    neighbours = [pair for pair in ndcg["pairs"] if pair["adjacent"]]
    assert [(pair["first"], pair["second"]) for pair in neighbours] == list(zip(ndcg["order"], ndcg["order"][1:]))
    assert ndcg["separated_count"] >= 1, ndcg["pairs"]
    rows = ppi_csv(report).splitlines()
    assert rows[0].startswith("measure,judge,system") and len(rows) == 1 + 3 * len(NOISE)
    assert {line.split(",")[0] for line in rows[1:]} == {"ndcg_cut_10", "p_10", "mean_grade_10"}


def test_a_queue_that_follows_the_plan_gives_a_weighted_sample(db, tmp_path):
    """Queue order "sample" with the active plan: the topics are drawn into the queue's order with weights that grow
    with the judges' disagreement, the lease offers the first topic's passages, and once the humans have graded the
    first 12 topics of that order (and one further down), the report weights those 12 by the plan's probabilities at
    12, its figures those of ppi.combined_mean on ir_measures' values with from_weights recomputed here."""
    campaign, human, judge, runs = _campaign(tmp_path, human_topics=set())
    other = Judge.objects.create(campaign=campaign, name="other", family="external", config_hash="o")
    for item in Item.objects.filter(campaign=campaign).select_related("topic"):
        grade = judge[item.topic.external_id][item.data["docid"]]
        # The second judge differs on the items of the first third of the topics.
        moved = (grade + 1) % 4 if TOPICS.index(item.topic.external_id) < 8 else grade
        ModelJudgment.objects.create(judge=other, item=item, label=str(moved))
    units = list(Unit.objects.filter(campaign=campaign).order_by("id"))
    for position, unit in enumerate(units):  # the import order, as an import numbers them
        unit.position = position
    Unit.objects.bulk_update(units, ["position"])
    campaign = campaign_options_set(campaign=campaign, values={"queue_order": "sample", "ppi_plan": "active"})
    plan = LabelPlan.objects.get(campaign=campaign)
    order = [external for _, external, _, _ in plan.topics]
    weight = {external: w for _, external, w, _ in plan.topics}
    assert plan.plan == "active" and sorted(order) == TOPICS
    assert min(weight[t] for t in TOPICS[:8]) > max(weight[t] for t in TOPICS[8:])  # more where they disagree
    annotator = UserFactory()
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    assert unit_lease_next(campaign=campaign, annotator=annotator).unit.topic.external_id == order[0]

    graded = set(order[:12]) | {order[15]}
    nist = UserFactory()
    for unit in Unit.objects.filter(campaign=campaign, topic__external_id__in=graded).select_related("item", "topic"):
        grade = human[unit.topic.external_id][unit.item.data["docid"]]
        HumanJudgment.objects.create(unit=unit, annotator=nist, value={"grade": grade}, label=str(grade))
    block = agreement_report_build(campaign=campaign)["ppi"]
    grader = block["measures"][0]["judges"]["grader"]
    assert (grader["plan"], grader["followed"], grader["labelled_units"]) == (
        "active", {"labelled": 12, "outside": 1}, 13)
    labelled = np.array([topic in order[:12] for topic in TOPICS])
    inclusion = label_plans.from_weights([weight[topic] for topic in TOPICS], 12)
    for row in grader["systems"]:
        y = _per_topic(human, runs[row["system"]], "nDCG@10", TOPICS)
        yhat = _per_topic(judge, runs[row["system"]], "nDCG@10", TOPICS)
        expected = ppi.combined_mean(np.where(labelled, y, np.nan), yhat, labelled, inclusion, (0.0, 1.0))
        assert row["combined"]["value"] == pytest.approx(expected.combined.value)
        assert row["combined"]["ci95"] == pytest.approx(list(expected.combined.ci95))
        assert row["human"]["value"] == pytest.approx(expected.human.value)
