"""passage_relevance imports and pages: queries (trec-topics), runs pooled into passages, passage texts from a
collection (only the pooled ones), assessors' and a judge's qrels on the 0-3 scale; bad input refused with nothing
written; the grading page and its refusals."""

import html
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotate.models import Campaign, HumanJudgment, Item, Role, SystemOutput, Topic, Unit
from annotate.task_types.registry import task_type_get
from judges.families import families_for
from judges.models import Judge, ModelJudgment
from tests.factories import MembershipFactory
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db

TOPICS = "q1\twhat is the boiling point of water\nq2\twho wrote the odyssey\n"
RUNS = "".join(
    f"{qid} Q0 {doc} {rank} {10 - rank} {tag}\n"
    for tag, orders in (("run-a", {"q1": ["d1", "d2", "d3"], "q2": ["e1", "e2", "e3"]}),
                        ("run-b", {"q1": ["d2", "d4", "d1"], "q2": ["e3", "e1", "e4"]}))
    for qid, order in orders.items() for rank, doc in enumerate(order, start=1))
COLLECTION = "".join(f"{doc}\tText of passage {doc}.\n" for doc in ("d1", "d2", "d3", "d4", "e1", "e2", "e3", "e4"))


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def imp(*args, slug="pas"):
    call_command("import_data", "--campaign", slug, "--task-type", "passage_relevance", *map(str, args))
    return Campaign.objects.get(slug=slug)


def state():
    return tuple(model.objects.count() for model in (Topic, Item, SystemOutput, Unit, HumanJudgment, ModelJudgment)), \
        sorted(Item.objects.values_list("external_id", "text"))


def fails(*args):
    before = state()
    with pytest.raises(CommandError) as info:
        imp(*args)
    assert state() == before
    return str(info.value)


@pytest.fixture
def pooled(tmp_path):
    """Two queries, two runs pooled to depth 2: q1 {d1, d2, d4}, q2 {e1, e2, e3}. Overlap 1: the qrels these tests
    import are one assessor's, each grade a passage's whole human judgment (at k = 2 it would wait for a second)."""
    imp("--format", "trec-topics", "--overlap", "1", write(tmp_path, "topics.tsv", TOPICS))
    return imp("--format", "trec-run", "--depth", "2", write(tmp_path, "runs.txt", RUNS))


def test_topics_from_a_trec_topics_file_and_from_jsonl(tmp_path):
    campaign = imp("--format", "trec-topics", write(tmp_path, "topics.tsv", "# comment\n" + TOPICS))
    assert dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "text")) == {
        "q1": "what is the boiling point of water", "q2": "who wrote the odyssey"}
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))  # the same again: a no-op
    jsonl = write(tmp_path, "more.jsonl", json.dumps({"qid": "q3", "text": "why is the sky blue"}) + "\n"
                  + json.dumps({"query_id": 4, "query": "how tall is everest"}) + "\n")
    imp("--format", "trec-topics", jsonl)
    assert Topic.objects.filter(campaign=campaign).count() == 4
    assert Topic.objects.get(campaign=campaign, external_id="4").text == "how tall is everest"
    assert "topics.tsv:2: text: topic 'q1' is already there with another text" in fails(
        "--format", "trec-topics", write(tmp_path, "topics.tsv", "q9\tnine\nq1\tanother query\n"))
    assert "bad.tsv:1: line: expected `id<TAB>query`" in fails(
        "--format", "trec-topics", write(tmp_path, "bad.tsv", "q1 no tab here\n"))
    assert "empty.jsonl:1: text: expected the query as a string" in fails(
        "--format", "trec-topics", write(tmp_path, "empty.jsonl", json.dumps({"qid": "q5"}) + "\n"))


def test_runs_pool_passages_and_the_collection_reads_in_only_the_pooled_ones(tmp_path, pooled):
    passages = Item.objects.filter(campaign=pooled)
    assert sorted(passages.values_list("external_id", flat=True)) == ["q1/d1", "q1/d2", "q1/d4", "q2/e1", "q2/e2",
                                                                      "q2/e3"]
    assert set(passages.values_list("kind", flat=True)) == {"passage"}
    assert passages.get(external_id="q1/d4").data == {"docid": "d4"}
    assert not any(passages.values_list("text", flat=True))  # no text before the collection
    # every run line naming a pooled passage is a system output, however deep (run-a's d1 is 1st, run-b's 3rd)
    assert SystemOutput.objects.get(system="run-b", item__external_id="q1/d1").rank == 3

    collection = write(tmp_path, "collection.tsv", COLLECTION + "zz\tnot pooled\n")
    out = _stdout("--format", "collection", collection)
    assert "collection lines read: 9; passages given their text: 6; already there with the same " \
                             "text: 0; pooled passages still without text: 0" in out
    assert Item.objects.get(external_id="q1/d4").text == "Text of passage d4."
    assert not Item.objects.filter(data__docid="zz").exists() and not Item.objects.filter(data__docid="d3").exists()
    again = _stdout("--format", "collection", collection)
    assert "passages given their text: 0; already there with the same text: 6" in again
    assert "clash.jsonl:2: text: passage 'd1' already has another text (from an earlier import)" in fails(
        "--format", "collection", write(tmp_path, "clash.jsonl", json.dumps({"docid": "zz", "text": "x"}) + "\n"
                                        + json.dumps({"pid": "d1", "contents": "Other text."}) + "\n"))


def test_a_passage_twice_in_the_collection_with_two_texts_is_refused(tmp_path, pooled):
    message = fails("--format", "collection", write(tmp_path, "c.tsv", "d1\tone\nd2\ttwo\nd1\tthree\n"))
    assert "c.tsv:3: text: passage 'd1' already has another text (on line 1 of c.tsv)" in message


def _stdout(*args):
    out = StringIO()
    call_command("import_data", "--campaign", "pas", "--task-type", "passage_relevance", *map(str, args), stdout=out)
    return out.getvalue()


def test_assessor_and_judge_qrels_on_the_zero_to_three_scale(tmp_path, pooled):
    imp("--format", "collection", write(tmp_path, "collection.tsv", COLLECTION))
    qrels = write(tmp_path, "nist.qrels", "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 1\nq2 0 e1 0\n")
    imp("--format", "trec-qrels", qrels)
    grades = dict(HumanJudgment.objects.filter(unit__campaign=pooled).values_list("unit__item__external_id", "label"))
    assert grades == {"q1/d1": "3", "q1/d2": "2", "q1/d3": "1", "q2/e1": "0"}  # d3, graded, joins the judged set
    assert set(HumanJudgment.objects.values_list("annotator__username", flat=True)) == {"qrels-nist"}
    assert "bad.qrels:1: grade: expected 0, 1, 2 or 3 (the campaign's scale), got 4" in fails(
        "--format", "trec-qrels", write(tmp_path, "bad.qrels", "q1 0 d1 4\n"))

    judge_file = write(tmp_path, "llm.qrels", "q1 0 d1 3\nq1 0 d2 1\nq1 0 d4 0\nq2 0 e1 2\nq2 0 zz 3\n")
    assert "format judge-qrels needs a judge name" in fails("--format", "judge-qrels", judge_file)
    out = _stdout("--format", "judge-qrels", "--judge", "llm-x", judge_file)
    assert "grades of llm-x imported: 4; lines naming no passage of the campaign, not imported: 1" in out
    judge = Judge.objects.get(campaign=pooled, name="llm-x")
    assert judge.family == "external"
    verdicts = dict(ModelJudgment.objects.filter(judge=judge).values_list("item__external_id", "label"))
    assert verdicts == {"q1/d1": "3", "q1/d2": "1", "q1/d4": "0", "q2/e1": "2"}
    assert set(ModelJudgment.objects.filter(judge=judge).values_list("score", flat=True)) == {None}
    _stdout("--format", "judge-qrels", "--judge", "llm-x", judge_file)  # the same again: a no-op
    assert ModelJudgment.objects.filter(judge=judge).count() == 4
    assert "again.qrels:1: label: judge 'llm-x' already has another verdict" in fails(
        "--format", "judge-qrels", "--judge", "llm-x", write(tmp_path, "again.qrels", "q1 0 d1 2\n"))
    assert "twice.qrels:2: grade: 'd2' under topic 'q1' has grade 1 on line 1" in fails(
        "--format", "judge-qrels", "--judge", "llm-y", write(tmp_path, "twice.qrels", "q1 0 d2 1\nq1 0 d2 3\n"))


def test_the_task_type_lists_its_formats_scale_and_judges():
    spec = task_type_get("passage_relevance")
    assert [entry["grade"] for entry in spec.scale()] == [0, 1, 2, 3] and spec.relevant_from() == 2
    assert {"trec-topics", "collection", "trec-run", "trec-qrels", "judge-qrels"} <= set(spec.import_formats)
    assert {"bm25", "dense", "monot5", "cross-encoder", "llm"} <= set(families_for("passage_relevance"))


def test_import_page_uploads_topics_runs_and_a_collection(client, researcher, tmp_path, imports_inline):
    campaign = imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    url = reverse("campaign-import", args=[campaign.slug])
    page = client.get(url).content.decode()
    for fmt in ("trec-topics", "collection", "trec-run", "trec-qrels", "judge-qrels"):
        assert f'value="{fmt}"' in page
    assert "only the passages the campaign holds" in page and 'name="depth"' in page and 'name="tag"' in page
    response = imports_inline(client.post, url, {"format": "trec-run", "depth": "2",
                                                 "files": SimpleUploadedFile("runs.txt", RUNS.encode())}, follow=True)
    assert response.status_code == 200 and 'data-status="done"' in response.content.decode()
    response = imports_inline(client.post, url, {
        "format": "collection", "files": SimpleUploadedFile("c.tsv", COLLECTION.encode())}, follow=True)
    assert "passages given their text: 6" in response.content.decode()
    response = client.post(url, {"format": "judge-qrels", "files": SimpleUploadedFile("j.qrels", b"q1 0 d1 2\n")})
    assert response.status_code == 400 and "needs a judge name" in response.content.decode()


def test_the_grading_page_shows_the_query_and_passage_and_refuses_a_passage_without_text(
        client, annotator, tmp_path, pooled):
    MembershipFactory(campaign=pooled, user=annotator, role=Role.ANNOTATOR)
    client.force_login(annotator)
    url = reverse("annotate", args=[pooled.slug])
    page = html.unescape(client.get(url).content.decode())
    assert "The passage's text is missing" in page and 'name="grade"' not in page
    assignment = int(page.split('name="assignment" value="')[1].split('"')[0])
    response = client.post(reverse("annotate-submit", args=[pooled.slug]), {"assignment": assignment, "grade": "2"},
                           HTTP_HX_REQUEST="true")
    assert "This passage's text is missing (its collection is not imported yet), so it cannot be graded." in \
        html.unescape(response.content.decode())
    assert not HumanJudgment.objects.exists()

    imp("--format", "collection", write(tmp_path, "collection.tsv", COLLECTION))
    page = client.get(url).content.decode()
    assert "what is the boiling point of water" in page or "who wrote the odyssey" in page
    assert "Text of passage" in page and "Perfectly relevant" in page and 'id="grade-3"' in page
    response = client.post(reverse("annotate-submit", args=[pooled.slug]), {"assignment": assignment, "grade": "3"})
    assert response.status_code == 302
    judgment = HumanJudgment.objects.get()
    assert (judgment.value, judgment.label) == ({"grade": 3}, "3")


def test_the_api_imports_a_collection_and_a_judges_qrels(researcher, pooled, imports_inline):
    from rest_framework.test import APIClient

    MembershipFactory(campaign=pooled, user=researcher, role=Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(researcher)
    body = api_import(imports_inline, client, "/api/campaigns/pas/import/", {
        "format": "collection", "files": [SimpleUploadedFile("c.jsonl", "".join(
            json.dumps({"docid": doc, "text": f"Passage {doc}."}) + "\n" for doc in ("d1", "d2", "zz")).encode())]}
    )["summary"]
    assert body["rows_read"] == 3 and body["notes"] == [
        "collection lines read: 3; passages given their text: 2; already there with the same text: 0; pooled "
        "passages still without text: 4"]
    job = api_import(imports_inline, client, "/api/campaigns/pas/import/", {
        "format": "judge-qrels", "judge": "llm-z", "files": [SimpleUploadedFile("z.qrels", b"q1 0 d1 2\nq9 0 d1 1\n")]})
    assert (job["status"], job["error"]) == ("failed", "z.qrels:2: qid: no topic 'q9' in this campaign")
    job = api_import(imports_inline, client, "/api/campaigns/pas/import/", {
        "format": "judge-qrels", "judge": "llm-z",
        "files": [SimpleUploadedFile("z.qrels", b"q1 0 d1 2\nq1 0 nope 1\n")]})
    assert job["status"] == "done" and job["summary"]["judge_lines_outside"] == 1
    assert job["summary"]["items_by_judge"] == {"llm-z": 1}


def test_a_ranker_fails_passages_without_text_and_judges_them_once_their_text_is_in(
        tmp_path, pooled, eager, django_capture_on_commit_callbacks):
    from judges.services import judge_run_retry_failed, judge_run_start

    imp("--format", "collection", write(tmp_path, "part.tsv", "d1\tText of passage d1.\nd2\tText of passage d2.\n"))
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=pooled, name="bm25", family="bm25", config={})
    verdicts = {j.item.external_id: j for j in ModelJudgment.objects.filter(judge=run.judge).select_related("item")}
    assert {key for key, verdict in verdicts.items() if not verdict.failed} == {"q1/d1", "q1/d2"}
    assert verdicts["q1/d4"].failed and verdicts["q1/d4"].raw == \
        "the passage has no text (its collection is not imported yet)"
    imp("--format", "collection", write(tmp_path, "collection.tsv", COLLECTION))
    with django_capture_on_commit_callbacks(execute=True):
        _, retried = judge_run_retry_failed(run=run)
    assert retried == 4
    scores = dict(ModelJudgment.objects.filter(judge=run.judge).values_list("item__external_id", "failed"))
    assert len(scores) == 6 and not any(scores.values())


def test_the_qrels_of_every_source_download_by_token(researcher, tmp_path, pooled):
    from rest_framework.test import APIClient

    from accounts.services import token_create

    imp("--format", "trec-qrels", write(tmp_path, "nist.qrels", "q1 0 d1 3\nq1 0 d2 2\nq2 0 e1 0\n"))
    imp("--format", "judge-qrels", "--judge", "llm-x", write(tmp_path, "llm.qrels", "q1 0 d1 2\nq2 0 e1 1\n"))
    MembershipFactory(campaign=pooled, user=researcher, role=Role.RESEARCHER)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=researcher, name='script')[1]}")
    report_stored(pooled)
    listed = client.get("/api/campaigns/pas/agreement/qrels/")
    assert listed.status_code == 200, listed.content
    sources = {row["source"]: row for row in listed.json()["sources"]}
    assert set(sources) == {"consensus", "assessor-qrels-nist", "judge-llm-x"}
    assert (sources["consensus"]["topics"], sources["consensus"]["grades"]) == (2, 3)
    body = client.get(sources["judge-llm-x"]["url"])
    assert body.status_code == 200 and body["Content-Type"].startswith("text/plain")
    assert body.content.decode() == "q1 0 d1 2\nq2 0 e1 1\n"
    assert client.get("/api/campaigns/pas/agreement/qrels/judge-nobody.qrels").status_code == 404


def test_judge_qrels_off_the_scale_are_refused_or_clipped_when_asked(tmp_path, pooled, client, researcher,
                                                                     imports_inline):
    off = write(tmp_path, "off.qrels", "q1 0 d1 4\nq1 0 d2 -1\nq1 0 d4 2\n")
    assert "off.qrels:1: grade: expected 0, 1, 2 or 3 (the campaign's scale), got 4" in fails(
        "--format", "judge-qrels", "--judge", "llm-c", off)
    assert "--clip clips the grades of a judge-qrels file" in fails("--format", "trec-qrels", "--clip", off)
    out = _stdout("--format", "judge-qrels", "--judge", "llm-c", "--clip", off)
    assert "grades off the campaign's scale clipped to its nearest end (clip): 2" in out
    grades = dict(ModelJudgment.objects.filter(judge__name="llm-c").values_list("item__external_id", "label"))
    assert grades == {"q1/d1": "3", "q1/d2": "0", "q1/d4": "2"}

    # The import page: a checkbox; the job's summary says how many were clipped.
    MembershipFactory(campaign=pooled, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    url = reverse("campaign-import", args=[pooled.slug])
    assert 'name="clip"' in client.get(url).content.decode()
    response = imports_inline(client.post, url, {"format": "judge-qrels", "judge": "llm-d", "clip": "on",
                                                 "files": SimpleUploadedFile("d.qrels", b"q2 0 e1 7\n")}, follow=True)
    assert "grades off the campaign&#x27;s scale clipped to its nearest end (clip): 1" in response.content.decode()
    # The API: a field, and grades_clipped in the summary; without it, refused as before.
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, "/api/campaigns/pas/import/", {
        "format": "judge-qrels", "judge": "llm-e", "files": [SimpleUploadedFile("e.qrels", b"q2 0 e1 9\n")]})
    assert (job["status"], job["error"]) == ("failed", "e.qrels:1: grade: expected 0, 1, 2 or 3 (the campaign's "
                                                       "scale), got 9")
    job = api_import(imports_inline, api, "/api/campaigns/pas/import/", {
        "format": "judge-qrels", "judge": "llm-e", "clip": "true",
        "files": [SimpleUploadedFile("e.qrels", b"q2 0 e1 9\n")]})
    assert job["status"] == "done" and job["summary"]["grades_clipped"] == 1
