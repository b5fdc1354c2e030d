"""Gold answers for an ais campaign (format gold-answers): matched to its questions, then EM and F1 judge its answers
and the report compares them with the raters, item by item and system by system."""

import json

import pytest
from django.core.management import CommandError, call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign, Topic
from judges.families import families_for
from judges.models import ModelJudgment
from judges.services import judge_run_start
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db

RATINGS = "fixtures/ais_demo/ratings.csv"


def imp(fmt, path):
    call_command("import_data", "--campaign", "aqa", "--task-type", "ais", "--format", fmt, str(path))
    return Campaign.objects.get(slug="aqa")


def gold_file(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_gold_answers_reach_the_questions_and_em_and_f1_judge_them(
        tmp_path, eager, django_capture_on_commit_callbacks):
    campaign = imp("attributed-qa", RATINGS)
    questions = list(Topic.objects.filter(campaign=campaign).order_by("pk").values_list("text", flat=True))
    assert {"em", "f1"} <= set(families_for("ais"))
    # The first question in other case and spacing, the second under the other key, and one the campaign lacks.
    rows = [{"question": "  " + questions[0].upper() + "?", "answers": ["1825", "September 1825"]},
            {"question": questions[1], "gold_answers": ["Mount Everest"]},
            # NQ-open's own JSONL names them "answer".
            {"question": questions[2], "answer": ["Jane Austen"]},
            {"question": "who painted the mona lisa", "answers": ["Leonardo da Vinci"]}]
    imp("gold-answers", gold_file(tmp_path, "gold.jsonl", rows))
    golds = dict(Topic.objects.filter(campaign=campaign).values_list("text", "data__gold_answers"))
    assert golds[questions[0]] == ["1825", "September 1825"] and golds[questions[1]] == ["Mount Everest"]
    assert golds[questions[2]] == ["Jane Austen"] and sum(1 for answers in golds.values() if answers) == 3
    imp("gold-answers", gold_file(tmp_path, "gold.jsonl", rows))  # the same again: a no-op

    with django_capture_on_commit_callbacks(execute=True):
        em = judge_run_start(campaign=campaign, name="em", family="em", config={})
        judge_run_start(campaign=campaign, name="f1", family="f1", config={})
    verdicts = ModelJudgment.objects.filter(judge=em.judge).select_related("item__topic")
    judged = {(v.item.topic.text, v.item.text): v for v in verdicts}
    assert judged[(questions[0], "1825")].label == "yes"
    assert judged[(questions[0], "1830")].label == "no"
    without = [v for v in verdicts if not v.item.topic.data.get("gold_answers")]
    assert without and all(v.failed and v.raw == "no gold answers for this topic" for v in without)

    report = agreement_report_build(campaign=campaign)
    for name in ("em", "f1"):
        item = report["judges"][name]["item"]
        asked = sum(1 for v in verdicts if v.item.topic.data.get("gold_answers"))
        assert item["failed"] == len(without) and 0 < item["n"] <= asked


def test_bad_gold_answers_are_refused_with_file_line_and_field(tmp_path):
    campaign = imp("attributed-qa", RATINGS)
    question = Topic.objects.filter(campaign=campaign).values_list("text", flat=True).first()
    cases = [([{"question": question, "answers": []}], "empty.jsonl:1: answers: expected a non-empty list"),
             ([{"question": question, "answers": ["a", 3]}], "mixed.jsonl:1: answers: every answer must be"),
             ([{"answers": ["a"]}], "noq.jsonl:1: question: expected the question as text"),
             ([{"question": question, "answers": ["a"]}, {"question": question, "answers": ["b"]}],
              "twice.jsonl:2: answers: this question has other gold answers (line 1 of twice.jsonl)")]
    for rows, message in cases:
        name = message.split(":")[0]
        with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
            imp("gold-answers", gold_file(tmp_path, name, rows))
    assert not any(Topic.objects.filter(campaign=campaign).values_list("data__gold_answers", flat=True))
