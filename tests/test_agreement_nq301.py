"""The report on the real NQ-open 301 data reproduces the published and recomputed figures."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign
from judges.services import judge_run_start

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [ROOT / "fixtures" / "nq301", Path("/work/shared/data/qa-eval-nq301")]
FOLDER = next((path for path in CANDIDATES if (path / "NQ301_human.tsv").exists()), None)

# django_db also tells pytest-django to set the test database up when this module runs alone.
pytestmark = [pytest.mark.skipif(FOLDER is None, reason="NQ301 data not found in fixtures/nq301/"), pytest.mark.django_db]


@pytest.fixture(scope="module")
def report(django_db_setup, django_db_blocker):
    """The report after importing the folder and running EM, F1 (threshold 0.5) and F1 at 0.7 through Celery (eager)."""
    from config.celery import app

    eager_before = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    with django_db_blocker.unblock():
        call_command(
            "import_data", "--campaign", "nq-agreement", "--task-type", "qa_correctness", "--format", "nq301",
            str(FOLDER), stdout=io.StringIO(),
        )
        try:
            campaign = Campaign.objects.get(slug="nq-agreement")
            for name, family, config in (("em", "em", {}), ("f1", "f1", {}), ("f1-0.7", "f1", {"threshold": 0.7})):
                run = judge_run_start(campaign=campaign, name=name, family=family, config=config, batch_size=500)
                run.refresh_from_db()
                assert run.status == "succeeded", (name, run.status, run.error)
            yield agreement_report_build(campaign=campaign)
        finally:
            Campaign.objects.filter(slug="nq-agreement").delete()
            app.conf.task_always_eager, app.conf.task_eager_propagates = eager_before


def test_annotator1_vs_annotator2(report):
    pairs = {(p["a"].rsplit("-", 1)[-1], p["b"].rsplit("-", 1)[-1]): p for p in report["humans"]["pairwise_cohen_kappa"]}
    pair = pairs[("annotator1", "annotator2")]
    assert round(pair["kappa"], 3) == 0.735
    # 1,483 TSV rows carry both labels; one of them repeats the pair (question 228, "1991") and is merged.
    assert pair["n"] == 1482
    assert report["humans"]["annotators"] == 3


def test_judges_vs_final_human_verdict(report):
    gpt4, davinci = report["judges"]["gpt-4"]["item"], report["judges"]["text-davinci-003"]["item"]
    assert round(gpt4["cohen_kappa"], 3) == 0.696
    assert round(davinci["cohen_kappa"], 3) == 0.674
    assert davinci["n"] == 1489
    # 10 GPT-4 verdicts start with neither Yes nor No: failed judgments, out of the item-level figures.
    assert gpt4["n"] + gpt4["failed"] == 1489 and gpt4["failed"] == 10


def test_system_ranking_agreement(report):
    assert len(report["systems"]) == 12 and {row["n"] for row in report["systems"]} == {301}
    dpr = next(row for row in report["systems"] if row["system"] == "DPR")
    assert round(dpr["human"], 3) == 0.585
    system = report["judges"]["gpt-4"]["system"]
    assert system["n_systems"] == 12
    assert round(system["kendall_tau_b"], 3) == 0.809


def test_em_and_f1_judges_on_every_item(report):
    for name in ("em", "f1", "f1-0.7"):
        item = report["judges"][name]["item"]
        assert item["n"] == 1489 and item["failed"] == 0, name  # every item with a human verdict, none failed


def test_em_and_f1_system_ranking_agreement(report):
    # Recomputed from the same files: EM 0.215 as published; F1 0.412 at our default threshold 0.5 and
    # 0.321 (the published figure) at 0.7, so the published F1 figure used a stricter threshold.
    assert round(report["judges"]["em"]["system"]["kendall_tau_b"], 3) == 0.215
    assert round(report["judges"]["f1"]["system"]["kendall_tau_b"], 3) == 0.412
    assert round(report["judges"]["f1-0.7"]["system"]["kendall_tau_b"], 3) == 0.321
