"""The report on the real NQ-open 301 data reproduces the published and recomputed figures."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [ROOT / "fixtures" / "nq301", Path("/work/shared/data/qa-eval-nq301")]
FOLDER = next((path for path in CANDIDATES if (path / "NQ301_human.tsv").exists()), None)

pytestmark = pytest.mark.skipif(FOLDER is None, reason="NQ301 data not found in fixtures/nq301/")


@pytest.fixture(scope="module")
def report(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        call_command(
            "import_data", "--campaign", "nq-agreement", "--task-type", "qa_correctness", "--format", "nq301",
            str(FOLDER), stdout=io.StringIO(),
        )
        try:
            yield agreement_report_build(campaign=Campaign.objects.get(slug="nq-agreement"))
        finally:
            Campaign.objects.filter(slug="nq-agreement").delete()


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
