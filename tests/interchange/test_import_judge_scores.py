"""`--format judge-scores`: an external judge's scores for items the campaign already has."""

import io

import pytest
from django.core.management import CommandError, call_command

from judges.models import Judge, ModelJudgment


def run(path, judge="bm25-ext", slug="qa", task_type="qa_correctness"):
    out = io.StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", task_type, "--format", "judge-scores",
                 "--judge", judge, str(path), stdout=out)
    return out.getvalue()


def tsv(tmp_path, text, name="scores.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_scores_and_labels_land_on_the_named_items(qa_campaign, tmp_path):
    path = tsv(tmp_path, "topic\titem\tscore\tlabel\n1\t1-0\t0.9\tyes\n2\t2-1\t0.1\tno\n3\t3-0\t-2.5\t\n")
    output = run(path)
    judge = Judge.objects.get(campaign=qa_campaign, name="bm25-ext")
    assert judge.family == "external"
    rows = {j.item.external_id: (j.score, j.label) for j in ModelJudgment.objects.filter(judge=judge)}
    assert rows == {"1-0": (0.9, "yes"), "2-1": (0.1, "no"), "3-0": (-2.5, "")}
    assert "items judged by bm25-ext: 3" in output


def test_label_column_is_optional(qa_campaign, tmp_path):
    run(tsv(tmp_path, "topic\titem\tscore\n1\t1-1\t3\n"))
    assert ModelJudgment.objects.get(judge__name="bm25-ext").score == 3.0


def test_reimport_is_a_no_op_and_a_changed_score_is_refused(qa_campaign, tmp_path):
    path = tsv(tmp_path, "topic\titem\tscore\tlabel\n1\t1-0\t0.9\tyes\n")
    run(path)
    assert "items judged by bm25-ext: 1" in run(path)
    assert ModelJudgment.objects.count() == 1
    changed = tsv(tmp_path, "topic\titem\tscore\tlabel\n1\t1-0\t0.2\tno\n", name="changed.tsv")
    with pytest.raises(CommandError, match=r"changed.tsv:2: label: judge 'bm25-ext' already has another verdict"):
        run(changed)
    assert ModelJudgment.objects.get().score == 0.9


@pytest.mark.parametrize(
    "body, expected",
    [
        ("1\t1-0\tsure\tyes\n", ":2: score: expected a number, got 'sure'"),
        ("1\t1-0\tnan\tyes\n", ":2: score: expected a finite number, got 'nan'"),
        ("1\t1-0\t0.5\tyes\n99\t1-0\t0.5\tyes\n", ":3: topic: no topic '99' in this campaign"),
        ("1\t1-0\t0.5\tyes\n1\t2-0\t0.5\tyes\n", ":3: item: no item '2-0' under topic '1'"),
        ("1\t1-0\n", ":2: score: missing value (row too short)"),
    ],
)
def test_bad_rows_name_line_and_field_and_change_nothing(qa_campaign, tmp_path, body, expected):
    path = tsv(tmp_path, "topic\titem\tscore\tlabel\n" + body)
    with pytest.raises(CommandError) as info:
        run(path)
    assert str(info.value) == f"{path}{expected}"
    assert not Judge.objects.exists() and not ModelJudgment.objects.exists()


def test_missing_column(qa_campaign, tmp_path):
    path = tsv(tmp_path, "topic\tdoc\tscore\n1\t1-0\t1\n")
    with pytest.raises(CommandError, match=r"scores.tsv:1: item: missing column \(header has: topic, doc, score\)"):
        run(path)


def test_a_name_taken_by_a_non_external_judge_is_refused(qa_campaign, tmp_path):
    Judge.objects.create(campaign=qa_campaign, name="em", family="em", config={}, config_hash="x" * 64)
    with pytest.raises(CommandError, match="judge 'em' is a em judge of this campaign, not an imported one"):
        run(tsv(tmp_path, "topic\titem\tscore\n1\t1-0\t1\n"), judge="em")
    assert not ModelJudgment.objects.exists()


def test_works_for_other_task_types(db, tmp_path):
    from annotate.models import Item
    from tests.factories import CampaignFactory, ItemFactory, TopicFactory

    campaign = CampaignFactory(slug="imgs", task_type="image_relevance")
    ItemFactory(campaign=campaign, topic=TopicFactory(campaign=campaign, external_id="t1"), external_id="img-7")
    output = run(tsv(tmp_path, "topic\titem\tscore\nt1\timg-7\t0.31\n"), judge="clip-ext", slug="imgs",
                 task_type="image_relevance")
    assert ModelJudgment.objects.get(item=Item.objects.get(external_id="img-7")).score == 0.31
    assert "images left for assessors: 1" in output  # its unit was made by the import
