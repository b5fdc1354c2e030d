"""Humans and a ranker together on an answer-ranking campaign (tasktypes.answer_ranking.ppi): each system's mean NRP
with the topic as the unit, from the humans' rankings of half the topics and the ranker's scores on all of them;
every figure recomputed here from the rankings (NRP by counting documents above) and ppi_py."""

import random

import numpy as np
import pytest

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, SystemOutput
from judges.models import Judge, ModelJudgment
from stats import ppi
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory

TOPICS = [str(n) for n in range(1, 21)]
SYSTEMS = {"strong": 2.0, "middling": 0.0, "weak": -2.0}  # each answer's quality: this plus noise
DOCUMENTS = 6


def _nrp(answer: float, documents: list[float]) -> float:
    return 1 - sum(score > answer for score in documents) / len(documents)


@pytest.fixture
def campaign(db):
    """Per topic, one answer of each system and six documents, their true quality drawn; the humans rank by it on
    the odd topics, the ranker scores every candidate by it plus noise."""
    rng = random.Random(5)
    campaign = CampaignFactory(slug="nrp-ppi", task_type="answer_ranking")
    ranker = Judge.objects.create(campaign=campaign, name="ranker", family="external", config={"x": 1})
    expert = UserFactory(username="expert")
    truth = {}
    for qid in TOPICS:
        topic = TopicFactory(campaign=campaign, external_id=qid)
        unit = UnitFactory(campaign=campaign, topic=topic, item=None)
        candidates = []
        for system, level in SYSTEMS.items():
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/{system}", kind="answer")
            SystemOutput.objects.create(campaign=campaign, system=system, topic=topic, item=item,
                                        data={"prompt": "p1"})
            candidates.append((item, system, level + rng.gauss(0, 1.5)))
        for n in range(DOCUMENTS):
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/d{n}", kind="document")
            candidates.append((item, None, rng.gauss(0, 1.5)))
        scores = {}
        for item, _, quality in candidates:
            scores[item.pk] = quality + rng.gauss(0, 1.0)
            ModelJudgment.objects.create(judge=ranker, item=item, score=scores[item.pk])
        truth[qid] = [(system, quality, scores[item.pk]) for item, system, quality in candidates]
        if int(qid) % 2:
            order = sorted(candidates, key=lambda c: -c[2])
            HumanJudgment.objects.create(unit=unit, annotator=expert, label="ranked",
                                         value={"rankings": {"overall": [[item.pk] for item, _, _ in order]}})
            unit.judgments_done = 1
            unit.save()
    return campaign, truth


def test_mean_nrp_of_humans_and_ranker_together_equals_ppi_py(campaign):
    campaign, truth = campaign
    block = agreement_report_build(campaign=campaign)["ppi"]
    assert block["unit_one"] == "topic" and [m["key"] for m in block["measures"]] == ["nrp"]
    ranker = block["measures"][0]["judges"]["ranker"]
    assert (ranker["units"], ranker["labelled_units"], ranker["check"]) == (20, 10, None)
    labelled = np.array([int(qid) % 2 == 1 for qid in TOPICS])
    for row in ranker["systems"]:
        human, judge = [], []
        for qid in TOPICS:
            answer = next(c for c in truth[qid] if c[0] == row["system"])
            documents = [c for c in truth[qid] if c[0] is None]
            human.append(_nrp(answer[1], [quality for _, quality, _ in documents]))
            judge.append(_nrp(answer[2], [score for _, _, score in documents]))
        y, yhat = np.array(human)[labelled], np.array(judge)
        assert row["human"]["value"] == pytest.approx(y.mean()) and row["judge"] == pytest.approx(yhat.mean())
        expected = ppi._ppi().ppi_mean_pointestimate(y, yhat[labelled], yhat[~labelled], lam=row["combined"]["lam"])
        assert row["combined"]["value"] == pytest.approx(float(np.ravel(expected)[0]))
        if row["human"]["ci95"] and row["combined"]["ci95"]:
            assert row["combined"]["ci95"][1] - row["combined"]["ci95"][0] <= \
                row["human"]["ci95"][1] - row["human"]["ci95"][0] + 1e-12
    assert ranker["order"][0] == "strong" and ranker["order"][-1] == "weak"
