"""Importing the real NQ-open 301 data (fixtures/nq301, a subset of castorini/qa-eval) with `import_data`."""

import io
from collections import Counter

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db.models import Count, F

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, JudgmentSource, SystemOutput, Topic, Unit
from judges.models import ModelJudgment

FIXTURE = settings.BASE_DIR / "fixtures" / "nq301"
SYSTEMS = {
    "ANCE-plus_FiD", "Contriever_FiD", "DPR", "EMDR2", "EviGen", "FiD", "FiD-KD", "GAR-plus_FiD", "R2D2",
    "Rocketv2_FiD", "text-davinci-003_zeroshot", "text-davinci-003_fewshot-n64",
}


def run_import(*extra, slug="nq301", path=FIXTURE):
    out = io.StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", "qa_correctness", "--format", "nq301",
                 *extra, str(path), stdout=out)
    return out.getvalue()


@pytest.fixture
def imported(db):
    output = run_import("--overlap", "1")
    return Campaign.objects.get(slug="nq301"), output


def test_counts_of_the_real_data(imported):
    campaign, output = imported
    assert Topic.objects.filter(campaign=campaign).count() == 301
    assert set(SystemOutput.objects.filter(campaign=campaign).values_list("system", flat=True)) == SYSTEMS
    assert SystemOutput.objects.filter(campaign=campaign).count() == 12 * 301
    judged = Item.objects.filter(campaign=campaign, units__judgments__is_current=True).distinct()
    assert judged.count() == 1489
    per_judge = dict(ModelJudgment.objects.filter(judge__campaign=campaign).values_list("judge__name")
                     .annotate(n=Count("id")))
    assert per_judge == {"gpt-4": 1489, "text-davinci-003": 1489}
    # Predictions matching no judged answer wait for humans; nearly all match no gold answer either.
    unjudged = Item.objects.filter(campaign=campaign).exclude(pk__in=judged).count()
    assert unjudged == 41
    assert Unit.objects.filter(campaign=campaign, judgments_done__lt=F("judgments_needed")).count() == 41
    assert "items with a human verdict: 1489" in output
    assert "items judged by gpt-4: 1489 (10 without a readable verdict)" in output
    assert "items judged by text-davinci-003: 1489" in output
    assert "items left for humans: 41" in output


def test_three_imported_annotators_and_the_adjudicated_verdict(imported):
    campaign, _ = imported
    judgments = HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True, source=JudgmentSource.IMPORT)
    per_annotator = Counter(
        judgments.filter(kind=JudgmentKind.ANNOTATION).values_list("annotator__username", flat=True)
    )
    # The file has 1,490 rows; question 228 lists "1991" twice, so annotator1 judged 1,489 distinct answers.
    assert per_annotator == {"nq301-annotator1": 1489, "nq301-annotator2": 1482, "nq301-annotator3": 223}
    adjudicated = judgments.filter(kind=JudgmentKind.ADJUDICATION)
    assert adjudicated.count() == 1489
    assert set(adjudicated.values_list("annotator__username", flat=True)) == {"nq301-adjudicator"}
    assert Counter(adjudicated.values_list("label", flat=True)) == {"yes": 815, "no": 674}
    # annotator1 and annotator2 both judged 1,483 rows of the file = 1,482 distinct items (the duplicate
    # row of question 228 is judged by both).
    a1 = set(judgments.filter(annotator__username="nq301-annotator1").values_list("unit_id", flat=True))
    a2 = set(judgments.filter(annotator__username="nq301-annotator2").values_list("unit_id", flat=True))
    assert len(a1 & a2) == 1482
    # A unit's done count is its imported annotations (annotator3 stands in where annotator2 is blank).
    assert Counter(Unit.objects.filter(campaign=campaign).values_list("judgments_done", flat=True)) == {
        3: 216, 2: 1273, 0: 41}


def test_davinci_verdicts_attach_by_id_although_its_question_text_differs(imported):
    campaign, _ = imported
    item = Item.objects.get(campaign=campaign, topic__external_id="1", text="washington metropolitan area")
    verdicts = dict(ModelJudgment.objects.filter(item=item).values_list("judge__name", "label"))
    assert verdicts == {"gpt-4": "yes", "text-davinci-003": "yes"}
    raw = ModelJudgment.objects.get(item=item, judge__name="text-davinci-003").raw
    assert raw.startswith("Yes, the Washington Redskins are based out of")


def test_a_verdict_that_starts_with_neither_yes_nor_no_is_failed_with_raw_kept(imported):
    campaign, _ = imported
    failed = ModelJudgment.objects.filter(judge__campaign=campaign, judge__name="gpt-4", failed=True)
    assert failed.count() == 10
    assert all(j.label == "" and j.raw for j in failed)


def test_predictions_share_items_by_answer_key_and_fewshot_lists_keep_all_answers(imported):
    campaign, _ = imported
    output = SystemOutput.objects.get(campaign=campaign, system="text-davinci-003_fewshot-n64",
                                      topic__text__startswith="who wrote he ain't heavy")
    assert output.data["prediction"] == ["Bobby Scott", "Bob Russell"]
    assert output.item.text == "Bobby Scott" or output.item.data["answer_key"] == "bobby scott"
    # DPR wrote "bobby scott": the same item as the few-shot run's first answer.
    dpr = SystemOutput.objects.get(campaign=campaign, system="DPR", topic=output.topic)
    assert dpr.item_id == output.item_id
    # Gold answers come from the JSONL files.
    assert output.topic.data["gold_answers"] == ["Bobby Scott", "Bob Russell"]


def test_the_fixture_gives_the_same_counts_as_the_shared_folder(imported):
    shared = settings.BASE_DIR.parent / "shared" / "data" / "qa-eval-nq301"
    if not shared.is_dir():
        pytest.skip("the shared data folder exists only in this workplace")
    fixture_campaign, fixture_output = imported
    shared_output = run_import("--overlap", "1", slug="nq301-shared", path=shared)

    def strip(text: str) -> list[str]:
        return [line for line in text.splitlines() if " in " not in line.split(":")[0] and "imported" not in line
                and not line.startswith(("lines read and not used", "  "))]

    assert strip(fixture_output)[1:] == strip(shared_output)[1:]
    # The fixture holds the predictions of the 301 questions only; the shared files all NQ-open's, the others counted.
    assert "lines read and not used: 33090\n  33090 lines naming a question the campaign does not hold (first: " \
        in shared_output
    shared_campaign = Campaign.objects.get(slug="nq301-shared")
    assert (Item.objects.filter(campaign=shared_campaign).count()
            == Item.objects.filter(campaign=fixture_campaign).count() == 1530)


def test_importing_twice_changes_nothing(imported):
    campaign, _ = imported
    before = (Item.objects.count(), SystemOutput.objects.count(), HumanJudgment.objects.count(),
              ModelJudgment.objects.count(), Unit.objects.count())
    output = run_import()
    after = (Item.objects.count(), SystemOutput.objects.count(), HumanJudgment.objects.count(),
             ModelJudgment.objects.count(), Unit.objects.count())
    assert after == before
    assert "created: 0 topics, 0 items, 0 system outputs (12 systems), 0 human judgments, 0 units" in output


def test_overlap_and_owner(db, django_user_model):
    owner = django_user_model.objects.create(username="owner")
    output = run_import("--overlap", "3", "--owner", "owner", slug="nq301-k3")
    campaign = Campaign.objects.get(slug="nq301-k3")
    assert campaign.overlap == 3
    assert Campaign.objects.researched_by(owner).filter(pk=campaign.pk).exists()
    # With k = 3 the items only two annotators judged wait for a third human.
    assert "items left for humans: 1314" in output  # 1,273 with two annotations + 41 with none
