"""A public multi-annotator pairwise collection end to end (issue 47): PandaLM's human-annotated test set as published
(fixtures/pandalm: 999 pairs, three annotators each, gpt-3.5-turbo's verdicts), imported unedited, its report's
figures each equal to an independent computation on the published files (scikit-learn, statsmodels, krippendorff,
choix), and the annotators' kappas equal to those the release states (0.85, 0.88, 0.86)."""

import json
from pathlib import Path

import choix
import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from agreement.report import agreement_report_build
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.service import import_run

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pandalm"
WORDS = {0: "tie", 1: "a", 2: "b"}


@pytest.fixture(scope="module")
def published():
    records = json.loads((FIXTURE / "testset-v1.json").read_text())
    judge = {row["idx"]: str(row["gpt_result"]) for row in
             json.loads((FIXTURE / "gpt-3.5-turbo-testset-v1.json").read_text())}
    return records, judge


def test_pandalms_test_set_imports_as_published_and_its_figures_are_the_libraries(published):
    records, judge_results = published
    campaign = campaign_get_or_create(slug="pandalm", task_type="pairwise_preference")
    humans = import_run(campaign=campaign, fmt="pandalm-testset", paths=[FIXTURE / "testset-v1.json"])
    assert (humans.topics_created, humans.items_created, humans.human_judgments_created) == (170, 999, 2997)
    judge = import_run(campaign=campaign, fmt="pandalm-testset", paths=[FIXTURE / "gpt-3.5-turbo-testset-v1.json"],
                       judge="gpt-3.5-turbo")
    assert judge.model_judgments_created == {"gpt-3.5-turbo": 999} and judge.failed_by_judge["gpt-3.5-turbo"] == 25
    report = agreement_report_build(campaign=campaign)

    labels = np.array([[record[f"annotator{n}"] for n in (1, 2, 3)] for record in records])
    # The annotators with each other: scikit-learn's kappas, which are the release's 0.85, 0.88 and 0.86.
    pairs = {(row["a"], row["b"]): row for row in report["humans"]["pairwise_cohen_kappa"]}
    for (i, j), published_kappa in (((0, 1), 0.85), ((0, 2), 0.88), ((1, 2), 0.86)):
        row = pairs[(f"pandalm-annotator-annotator{i + 1}", f"pandalm-annotator-annotator{j + 1}")]
        assert row["n"] == 999
        assert row["kappa"] == pytest.approx(cohen_kappa_score(labels[:, i], labels[:, j]), abs=1e-9)
        assert round(row["kappa"], 2) == published_kappa
    assert report["humans"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(aggregate_raters(labels)[0]), abs=1e-9)
    assert report["humans"]["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=labels.T, level_of_measurement="nominal"), abs=1e-9)

    # The judge against the humans' majority (a three-way split has none; a verdict it failed to give is left out).
    majority = {record["idx"]: WORDS[np.bincount(row, minlength=3).argmax()]
                for record, row in zip(records, labels, strict=True) if np.bincount(row, minlength=3).max() >= 2}
    words = {"1": "a", "2": "b", "tie": "tie"}
    shared = [idx for idx in sorted(majority) if judge_results[idx].lower() in words]
    block = report["judges"]["gpt-3.5-turbo"]["item"]
    assert block["n"] == len(shared)
    assert block["cohen_kappa"] == pytest.approx(cohen_kappa_score(
        [words[judge_results[idx].lower()] for idx in shared], [majority[idx] for idx in shared]), abs=1e-9)
    low, high = block["cohen_kappa_ci95"]
    assert low < block["cohen_kappa"] < high

    # The five models meet across the 170 instructions: one Bradley-Terry fit over every vote, choix's on the win
    # matrix built here from the file (a tie half a win to each).
    systems = sorted({system for record in records for system in record["cmp_key"].split("_")})
    wins = np.zeros((len(systems), len(systems)))
    for record, row in zip(records, labels, strict=True):
        a, b = (systems.index(system) for system in record["cmp_key"].split("_"))
        for verdict in row:
            wins[a, b] += {1: 1, 2: 0, 0: 0.5}[verdict]
            wins[b, a] += {1: 0, 2: 1, 0: 0.5}[verdict]
    direct = choix.ilsr_pairwise_dense(wins, alpha=0.01)
    scores = report["scores"]["humans"]
    assert scores["scope"] == "all prompts" and scores["n_comparisons"] == 2997
    assert [scores["scores"][system] for system in systems] == pytest.approx(list(direct - direct.mean()), abs=1e-6)
    assert all(scores["scores_ci95"][system] for system in systems)
    order = report["judges"]["gpt-3.5-turbo"]["order"]
    assert order["n_systems"] == 5 and order["kendall_tau_b"] is not None
