"""Attributed QA ratings (CSV and JSONL) into an ais campaign: items, adjudicated labels, the external AutoAIS
judge, the annotation queue; and every kind of broken row refused with file, line and field, nothing written."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, SystemOutput, Topic, Unit
from interchange.importers.service import import_data_run
from judges.models import Judge, ModelJudgment
from tasktypes.ais.attributed_qa import source_fields
from tests.ais_synthetic import COLUMNS, ais_csv_write, ais_rows
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)


def db_state():
    return tuple(model.objects.count() for model in (Campaign, Topic, Item, SystemOutput, Unit, HumanJudgment,
                                                     Judge, ModelJudgment))


def rows(**kwargs):
    return ais_rows(systems=3, questions=10, seed=7, **kwargs)


def fails(path, *, fmt="attributed-qa"):
    before = db_state()
    with pytest.raises(CommandError) as info:
        call_command("import_data", "--campaign", "aqa", "--task-type", "ais", "--format", fmt, str(path))
    assert db_state() == before
    return str(info.value)


@pytest.mark.django_db
def test_csv_import_builds_items_labels_judge_and_queue(tmp_path):
    data = rows()
    path = ais_csv_write(tmp_path / "ratings.csv", data)
    summary = import_data_run(slug="aqa", task_type="ais", fmt="attributed-qa", paths=[path])
    campaign = Campaign.objects.get(slug="aqa")
    assert campaign.overlap == 3  # the ais default panel

    rated = [row for row in data if row["human_rating"]]
    assert 0 < len(rated) < len(data)
    assert (summary.topics_created, summary.items_created, summary.system_outputs_created) == (10, 30, 30)
    assert summary.systems == ["system-00", "system-01", "system-02"]
    assert summary.count("rows_read") == 30 and summary.count("rated_rows") == len(rated)
    assert summary.model_judgments_created == {"auto-ais": 30}

    # One item per row, its passage split from the « title » « section » head, the URL kept.
    first = data[0]
    item = Item.objects.get(campaign=campaign, text=first["answer"])
    assert item.topic.text == first["question"]
    assert item.data["system"] == "system-00"
    assert item.data["title"].startswith("Place 0 (") and item.data["section"] == 'History, "early" years'
    assert item.data["url"] == "https://en.wikipedia.org/wiki/Place_0"
    assert item.data["passage"].endswith("second line 0-0.") and "«" not in item.data["passage"]

    # human_rating -> the adjudicated label; those items leave the queue, the others wait for 3 raters.
    labels = dict(HumanJudgment.objects.filter(kind=JudgmentKind.ADJUDICATION)
                  .values_list("unit__item__text", "label"))
    assert labels == {row["answer"]: "yes" if row["human_rating"] == "Y" else "no" for row in rated}
    assert Unit.objects.filter(campaign=campaign, judgments_needed=0).count() == len(rated)
    assert Unit.objects.filter(campaign=campaign, judgments_needed=3).count() == len(data) - len(rated)
    assert summary.items_left_for_humans == len(data) - len(rated)

    # nli_score -> the external judge's score, auto_ais its label.
    judged = {text: (score, label) for text, score, label in
              ModelJudgment.objects.filter(judge__name="auto-ais").values_list("item__text", "score", "label")}
    assert judged == {row["answer"]: (float(row["nli_score"]), "yes" if row["auto_ais"] == "Y" else "no")
                      for row in data}
    assert Judge.objects.get(name="auto-ais").family == "external"

    # The same file again changes nothing.
    before = db_state()
    again = import_data_run(slug="aqa", task_type="ais", fmt="attributed-qa", paths=[path])
    assert db_state() == before
    assert (again.items_created, again.human_judgments_created) == (0, 0)


@pytest.mark.django_db
def test_jsonl_with_the_same_fields_imports_the_same(tmp_path):
    data = rows()
    csv_path = ais_csv_write(tmp_path / "ratings.csv", data)
    jsonl_path = tmp_path / "ratings.jsonl"
    jsonl_path.write_text("".join(json.dumps({**row, "nli_score": float(row["nli_score"]),
                                              "human_rating": row["human_rating"] or None}) + "\n"
                                  for row in data), encoding="utf-8")
    import_data_run(slug="from-csv", task_type="ais", fmt="attributed-qa", paths=[csv_path])
    import_data_run(slug="from-jsonl", task_type="ais", fmt="jsonl", paths=[jsonl_path], judge="nli")

    def content(slug, judge):
        items = Item.objects.filter(campaign__slug=slug)
        return (
            sorted(items.values_list("text", "data__passage", "data__title")),
            sorted(HumanJudgment.objects.filter(unit__campaign__slug=slug).values_list("unit__item__text", "label")),
            sorted(ModelJudgment.objects.filter(judge__campaign__slug=slug, judge__name=judge)
                   .values_list("item__text", "score", "label")),
        )

    assert content("from-csv", "auto-ais") == content("from-jsonl", "nli")


@pytest.mark.django_db
def test_identical_repeated_row_is_merged_and_counted(tmp_path):
    data = rows()
    path = ais_csv_write(tmp_path / "ratings.csv", [*data, data[4]])
    summary = import_data_run(slug="aqa", task_type="ais", fmt="attributed-qa", paths=[path])
    assert summary.count("duplicate_rows") == 1 and summary.items_created == 30
    assert "duplicate rows (same question and answer) merged: 1" in summary.lines()


def test_source_fields_reads_urls_titles_and_plain_passages():
    assert source_fields(attribution="https://en.wikipedia.org/wiki/St._Petersburg,_Florida",
                         passage="The city had 244,769 people.") == {
        "passage": "The city had 244,769 people.", "title": "St. Petersburg, Florida", "section": "",
        "url": "https://en.wikipedia.org/wiki/St._Petersburg,_Florida"}
    assert source_fields(attribution="Saint Petersburg", passage="text")["title"] == "Saint Petersburg"
    assert source_fields(attribution="javascript:alert(1)", passage="text")["url"] == ""


def _csv(tmp_path, data, name="ratings.csv"):
    return ais_csv_write(tmp_path / name, data)


BROKEN = [
    # (change to row 3 of the data, the field named, words of the message)
    ({"human_rating": "maybe"}, "human_rating", "expected Y or N (or blank), got 'maybe'"),
    ({"auto_ais": "2"}, "auto_ais", "expected Y or N (or blank), got '2'"),
    ({"nli_score": "high"}, "nli_score", "expected a number, got 'high'"),
    ({"nli_score": "1.5"}, "nli_score", "expected a probability in [0, 1], got '1.5'"),
    ({"nli_score": "nan"}, "nli_score", "expected a probability in [0, 1], got 'nan'"),
    ({"question": "   "}, "question", "missing value"),
    ({"system_name": ""}, "system_name", "missing value"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "field", "message"), BROKEN)
def test_broken_row_names_file_line_and_field(tmp_path, change, field, message):
    data = rows()
    data[3] = {**data[3], **change}
    path = _csv(tmp_path, data)
    # Each earlier row's passage spans two lines: row 3 (0-based) starts on line 2 + 3 * 2.
    assert fails(path) == f"{path}:8: {field}: {message}"


@pytest.mark.django_db
def test_row_with_too_many_fields(tmp_path):
    path = _csv(tmp_path, rows())
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    text[2] = text[2].rstrip("\r\n") + ",extra\r\n"  # the end of the first row (lines 2-3)
    path.write_text("".join(text), encoding="utf-8")
    assert fails(path) == f"{path}:2: row: 9 fields; the header has 8"


@pytest.mark.django_db
def test_missing_column(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("system_name,question,answer,attribution,human_rating\nsys,q,a,t,Y\n", encoding="utf-8")
    assert fails(path) == (f"{path}:1: passage: missing column (header has: system_name, question, answer, "
                           "attribution, human_rating)")


@pytest.mark.django_db
def test_not_utf8_and_nul_bytes(tmp_path):
    data = rows()
    path = _csv(tmp_path, data)
    raw = path.read_bytes().replace(data[5]["answer"].encode(), b"caf\xe9", 1)
    path.write_bytes(raw)
    assert fails(path) == f"{path}:12: encoding: not UTF-8 (byte 0xe9)"
    nul = _csv(tmp_path, rows(), name="nul.csv")
    nul.write_bytes(nul.read_bytes().replace(b"second line 1-1", b"second\x00line", 1))
    # Row 4 (0-based) starts on line 10; PostgreSQL cannot store a NUL, so it is refused on every database.
    assert fails(nul) == f"{nul}:10: passage: contains a NUL character"


@pytest.mark.django_db
def test_empty_file_and_header_only(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    assert fails(empty) == f"{empty}:1: file: file is empty"
    header = tmp_path / "header.csv"
    header.write_text(",".join(COLUMNS) + "\n", encoding="utf-8")
    call_command("import_data", "--campaign", "aqa", "--task-type", "ais", "--format", "attributed-qa", str(header))
    assert Item.objects.count() == 0


@pytest.mark.django_db
def test_same_system_and_question_twice_with_another_answer(tmp_path):
    data = rows()
    path = _csv(tmp_path, [*data, {**data[1], "answer": "something else"}])
    assert fails(path) == (f"{path}:62: answer: system 'system-01' already answered this question differently "
                           "at line 4")
    clash = _csv(tmp_path, [*data, {**data[1], "human_rating": "N" if data[1]["human_rating"] == "Y" else "Y"}],
                 name="clash.csv")
    assert fails(clash) == f"{clash}:62: human_rating: the same row at line 4 has other ratings or scores"


@pytest.mark.django_db
def test_reimport_with_a_changed_answer_is_refused(tmp_path):
    data = rows()
    import_data_run(slug="aqa", task_type="ais", fmt="attributed-qa", paths=[_csv(tmp_path, data)])
    data[2] = {**data[2], "passage": "a different passage"}
    path = _csv(tmp_path, data, name="changed.csv")
    assert fails(path) == (f"{path}:6: answer: system 'system-02' has another answer or passage for this question "
                           "from an earlier import")


@pytest.mark.django_db
def test_jsonl_type_errors(tmp_path):
    path = tmp_path / "ratings.jsonl"
    good = {"system_name": "s", "question": "q", "answer": "a", "attribution": "t", "passage": "p"}
    path.write_text("\n".join([json.dumps(good), json.dumps({**good, "answer": 42}),
                               json.dumps({**good, "nli_score": True})]) + "\n", encoding="utf-8")
    assert fails(path, fmt="jsonl") == f"{path}:2: answer: expected a string, got int"
    path.write_text("\n".join([json.dumps(good), json.dumps({**good, "question": "q2", "nli_score": True})]) + "\n",
                    encoding="utf-8")
    assert fails(path, fmt="jsonl") == f"{path}:2: nli_score: expected a number, got a boolean"


@pytest.mark.django_db
def test_format_needs_an_ais_campaign(tmp_path):
    path = _csv(tmp_path, rows())
    with pytest.raises(CommandError, match="format attributed-qa imports into ais campaigns, not qa_correctness"):
        call_command("import_data", "--campaign", "qa", "--task-type", "qa_correctness", "--format",
                     "attributed-qa", str(path))


@pytest.mark.django_db
def test_import_page_and_api_take_the_ratings_file(tmp_path, client, researcher, imports_inline):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from annotate.models import Role
    from tests.factories import CampaignFactory, MembershipFactory

    campaign = CampaignFactory(slug="aqa", task_type="ais", overlap=3)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    page = client.get("/campaigns/aqa/import/").content.decode()
    assert '<option value="attributed-qa"' in page and '<option value="jsonl"' in page
    assert '<option value="label-studio"' not in page
    assert "One attributed answer per line" in page  # the jsonl help of an ais campaign
    data = rows()
    body = ais_csv_write(tmp_path / "ratings.csv", data).read_bytes()
    response = imports_inline(client.post, "/campaigns/aqa/import/", {
        "format": "attributed-qa", "judge": "nli", "files": SimpleUploadedFile("ratings.csv", body)}, follow=True)
    text = response.content.decode()
    assert response.status_code == 200 and "items judged by nli: 30" in text
    assert f"of them rated by humans: {sum(bool(row['human_rating']) for row in data)}" in text

    broken = body.replace(b",Y,", b",maybe,", 1)
    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, "/api/campaigns/aqa/import/", {"format": "attributed-qa", "files": [
        SimpleUploadedFile("broken.csv", broken)]})
    assert job["status"] == "failed"
    assert job["error"].startswith("broken.csv:")
    assert job["error"].endswith(": expected Y or N (or blank), got 'maybe'")
