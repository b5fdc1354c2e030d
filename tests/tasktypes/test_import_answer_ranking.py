"""Importing answer_ranking data (Label Studio Ranker export, jsonl, TREC qrels) and exporting the rankings back.

The Label Studio export is synthetic, written here in the shape of the CLEF eHealth expert study's export
(made-up consumer-health texts; scores as strings; the order in annotations[k].result[0].value.ranker.rank).
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, JudgmentSource, SystemOutput, Topic, Unit
from judges.models import Judge, ModelJudgment
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)

QUERIES = {
    "101": "can vitamin c prevent a common cold",
    "102": "is it safe to take ibuprofen with a sore stomach",
}
DOCS = {
    "101": [("d1", "clef-doc-0001", "Regular vitamin C does not prevent colds in most people; it may shorten them."),
            ("d2", "clef-doc-0002", "Colds are caused by viruses and usually pass within ten days.")],
    "102": [("d3", "clef-doc-0101", "Ibuprofen can irritate the stomach lining; take it with food."),
            ("d4", "clef-doc-0102", "People with stomach ulcers should ask a doctor before using NSAIDs.")],
}
ANSWERS = {
    "101": [("a1", "gpt-3.5_p1_s1", "Vitamin C will not stop a cold for most people, but may shorten it."),
            ("a2", "llama2-7b_p2_s1", "Yes, large doses of vitamin C always prevent colds.")],
    "102": [("a3", "gpt-3.5_p1_s1", "Ibuprofen may upset the stomach; take it with a meal or ask a pharmacist.")],
}
ORDER = {  # annotator -> qid -> best first
    7: {"101": ["d1", "a1", "d2", "a2"], "102": ["d4", "a3", "d3"]},
    9: {"101": ["a1", "d1", "d2", "a2"], "102": ["a3", "d4", "d3"]},
}
SCORES = {"d1": "0.912", "d2": "0.403", "a1": "0.731", "a2": "0.118", "d3": "0.655", "d4": "0.802", "a3": "0.777"}


def ls_export(*, orders=ORDER, cancelled=False, qid_key="qid"):
    tasks = []
    for task_id, qid in enumerate(QUERIES, start=1):
        items = [{"id": cid, "docno": docno, "query": QUERIES[qid], "body": text, "text": text[:40],
                  "score": SCORES[cid]} for cid, docno, text in DOCS[qid] + ANSWERS[qid]]
        annotations = [
            {"id": 100 + annotator, "completed_by": annotator if annotator == 7 else {"id": annotator, "email": "x@y"},
             "was_cancelled": False,
             "result": [{"type": "ranker", "from_name": "rank", "to_name": "items",
                         "value": {"ranker": {"rank": by_qid[qid]}}}]}
            for annotator, by_qid in orders.items()
        ]
        if cancelled:
            annotations.append({"completed_by": 11, "was_cancelled": True, "result": []})
        data = {"query": QUERIES[qid], "items": items}
        if qid_key:
            data[qid_key] = qid
        tasks.append({"id": int(qid) if not qid_key else task_id, "data": data, "annotations": annotations})
    return tasks


def write_json(tmp_path, data, name="export.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def run(path, *extra, slug="clef", fmt="label-studio"):
    out = io.StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", "answer_ranking", "--format", fmt, *extra,
                 *[str(p) for p in (path if isinstance(path, list) else [path])], stdout=out)
    return out.getvalue()


def db_state():
    return tuple(model.objects.count() for model in (Campaign, Topic, Item, SystemOutput, Unit, HumanJudgment, Judge,
                                                     ModelJudgment))


def fails(path, *extra, slug="clef", fmt="label-studio"):
    before = db_state()
    with pytest.raises(CommandError) as info:
        run(path, *extra, slug=slug, fmt=fmt)
    assert db_state() == before
    return str(info.value)


def orders_of(campaign):
    """{(annotator username suffix, qid): [[source id, ...], ...]} of the current rankings."""
    source = {item.pk: item.data["source_id"] for item in Item.objects.filter(campaign=campaign)}
    prefix = f"{campaign.slug}-annotator-"
    return {
        (j.annotator.username.removeprefix(prefix), j.unit.topic.external_id):
            [[source[pk] for pk in group] for group in j.value["rankings"]["overall"]]
        for j in HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).select_related(
            "annotator", "unit__topic")
    }


@pytest.mark.django_db
def test_label_studio_export_with_scores_and_two_annotators(tmp_path):
    output = run(write_json(tmp_path, ls_export(cancelled=True)), "--score-judge", "monoT5-study")
    campaign = Campaign.objects.get(slug="clef")
    assert Topic.objects.filter(campaign=campaign).count() == 2
    assert Topic.objects.get(campaign=campaign, external_id="101").text == QUERIES["101"]
    assert Item.objects.filter(campaign=campaign, kind="document").count() == 4
    assert Item.objects.filter(campaign=campaign, kind="answer").count() == 3
    answer = Item.objects.get(campaign=campaign, external_id="101/a2")
    assert answer.kind == "answer" and answer.data == {"source_id": "a2", "system": "llama2-7b"}
    assert answer.text == ANSWERS["101"][1][2]  # the body, not the short text
    doc = Item.objects.get(campaign=campaign, external_id="102/d4")
    assert doc.data == {"source_id": "d4", "docno": "clef-doc-0102"}
    assert set(SystemOutput.objects.filter(campaign=campaign).values_list("system", flat=True)) == {
        "gpt-3.5",
        "llama2-7b",
    }
    assert Unit.objects.filter(campaign=campaign, item__isnull=True).count() == 2

    judgments = HumanJudgment.objects.filter(unit__campaign=campaign)
    assert judgments.count() == 4
    assert set(judgments.values_list("kind", "source", "label")) == {
        (JudgmentKind.ANNOTATION, JudgmentSource.IMPORT, "ranked")
    }
    assert {j.annotator.username for j in judgments} == {"clef-annotator-7", "clef-annotator-9"}
    assert orders_of(campaign) == {(str(a), qid): [[cid] for cid in order]
                                   for a, by_qid in ORDER.items() for qid, order in by_qid.items()}
    assert set(Unit.objects.filter(campaign=campaign).values_list("judgments_done", flat=True)) == {2}

    judge = Judge.objects.get(campaign=campaign, name="monoT5-study")
    assert judge.family == "external"
    scores = dict(ModelJudgment.objects.filter(judge=judge).values_list("item__data__source_id", "score"))
    assert scores == {cid: float(score) for cid, score in SCORES.items()}
    assert "7 candidates (3 answers, 4 documents)" in output
    assert "4 human rankings" in output
    assert "cancelled annotations skipped: 2" in output
    assert "candidates scored by monoT5-study: 7" in output


@pytest.mark.django_db
def test_reimport_is_a_no_op_and_a_changed_ranking_is_refused(tmp_path):
    path = write_json(tmp_path, ls_export())
    run(path, "--score-judge", "study")
    before = db_state()
    output = run(path, "--score-judge", "study")
    assert db_state() == before
    assert "rankings already imported (unchanged): 4" in output
    changed = {7: {"101": ["d2", "a1", "d1", "a2"], "102": ORDER[7]["102"]}}
    message = fails(write_json(tmp_path, ls_export(orders=changed), name="changed.json"))
    assert message == (f"{tmp_path / 'changed.json'}:1: annotations[0].result[0].value.ranker.rank: "
                       "clef-annotator-7 already has another ranking of topic '101'")


@pytest.mark.django_db
def test_qid_falls_back_to_query_id_then_task_id(tmp_path):
    run(write_json(tmp_path, ls_export(qid_key="query_id")), slug="by-query-id")
    run(write_json(tmp_path, ls_export(qid_key=None), name="noqid.json"), slug="by-task-id")
    for slug in ("by-query-id", "by-task-id"):
        assert set(Topic.objects.filter(campaign__slug=slug).values_list("external_id", flat=True)) == {"101", "102"}


@pytest.mark.django_db
def test_ranking_missing_a_candidate(tmp_path):
    orders = {7: {"101": ["d1", "a1", "d2"], "102": ORDER[7]["102"]}}
    path = write_json(tmp_path, ls_export(orders=orders))
    assert fails(path) == (f"{path}:1: annotations[0].result[0].value.ranker.rank: "
                           "overall: ranking misses 1 of the topic's 4 candidates: 'a2'")
    assert not Campaign.objects.filter(slug="clef").exists()


@pytest.mark.django_db
def test_ranking_names_an_unknown_id(tmp_path):
    orders = {7: {"101": ORDER[7]["101"], "102": ["d4", "a3", "d3", "zz"]}}
    path = write_json(tmp_path, ls_export(orders=orders))
    assert fails(path) == (f"{path}:2: annotations[0].result[0].value.ranker.rank: "
                           "overall: no candidate 'zz' in topic '102'")


@pytest.mark.django_db
def test_ranking_repeats_an_id(tmp_path):
    orders = {7: {"101": ["d1", "a1", "d1", "d2", "a2"], "102": ORDER[7]["102"]}}
    path = write_json(tmp_path, ls_export(orders=orders))
    assert "overall: candidate 'd1' appears more than once" in fails(path)


@pytest.mark.django_db
def test_ranker_buckets_other_than_rank_are_refused(tmp_path):
    tasks = ls_export()
    tasks[0]["annotations"][0]["result"][0]["value"]["ranker"] = {"relevant": ["d1"], "other": ["a1"]}
    path = write_json(tmp_path, tasks)
    assert fails(path) == (f"{path}:1: annotations[0].result[0].value.ranker: no 'rank' bucket "
                           "(buckets: relevant, other); only the rank bucket is read")


@pytest.mark.django_db
def test_malformed_json_and_non_list_top_level(tmp_path):
    bad = write_json(tmp_path, '[{"id": 1,\n "data": {"query": "x",}}]', name="bad.json")
    assert fails(bad).startswith(f"{bad}:2: json: malformed JSON")
    top = write_json(tmp_path, {"tasks": []}, name="object.json")
    assert fails(top) == f"{top}:0: json: expected a JSON list of tasks, got dict"


@pytest.mark.django_db
def test_score_must_be_a_number(tmp_path):
    tasks = ls_export()
    tasks[1]["data"]["items"][2]["score"] = "high"
    path = write_json(tmp_path, tasks)
    assert (
        fails(path, "--score-judge", "study") == f"{path}:2: data.items[2].score: expected a finite number, got 'high'"
    )


@pytest.mark.django_db
def test_score_judge_only_for_label_studio(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"qid": "1", "query": "q", "candidates": [{"id": "a", "kind": "answer", "text": "t"}]}))
    assert "--score-judge" in fails(path, "--score-judge", "x", fmt="jsonl")


def jsonl_topics():
    return [
        {"qid": "201", "query": "what helps with seasonal hay fever",
         "candidates": [
             {"id": "g1", "kind": "answer", "text": "Antihistamines and nasal sprays relieve most symptoms.",
              "system": "mistral-7b", "prompt": "p1", "sample": 1},
             {"id": "g2", "kind": "answer", "text": "Hay fever can be cured by drinking more water.",
              "system": "mistral-7b", "prompt": "p1", "sample": 2},
             {"id": "doc-9", "kind": "document", "text": "Pollen allergy: treatments include antihistamines.",
              "docno": "clef-doc-0900"},
         ],
         "rankings": [{"annotator": "expert", "ranking": [["g1", "doc-9"], ["g2"]]},
                      {"annotator": "student", "ranking": ["doc-9", "g1", "g2"], "dimension": "overall"}]},
        {"qid": "202", "query": "how long does a sprained ankle take to heal",
         "candidates": [{"id": "doc-1", "kind": "document", "text": "Mild sprains heal in two to four weeks.",
                         "docno": "clef-doc-1000"},
                        {"id": "g3", "kind": "answer", "text": "A few weeks for a mild sprain.", "system": "gpt-4"}]},
    ]


def write_jsonl(tmp_path, topics, name="topics.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(topic) + "\n" for topic in topics), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_jsonl_with_ties(tmp_path):
    output = run(write_jsonl(tmp_path, jsonl_topics()), fmt="jsonl", slug="hay")
    campaign = Campaign.objects.get(slug="hay")
    assert orders_of(campaign) == {("expert", "201"): [["g1", "doc-9"], ["g2"]],
                                   ("student", "201"): [["doc-9"], ["g1"], ["g2"]]}
    assert campaign.options["ties"] is True
    g2 = Item.objects.get(campaign=campaign, external_id="201/g2")
    assert g2.data == {"source_id": "g2", "system": "mistral-7b", "prompt": "p1", "sample": 2}
    assert SystemOutput.objects.get(campaign=campaign, item=g2).data == {"prompt": "p1", "sample": 2}
    assert "5 candidates (3 answers, 2 documents)" in output
    # Topic 202 has no ranking yet: its unit waits for humans.
    assert "topics left for humans: 1" in output


@pytest.mark.django_db
def test_jsonl_ties_refused_when_the_campaign_forbids_them(tmp_path):
    Campaign.objects.create(slug="strict", task_type="answer_ranking", name="strict", options={"ties": False})
    path = write_jsonl(tmp_path, jsonl_topics())
    assert fails(path, fmt="jsonl", slug="strict") == (
        f"{path}:1: rankings[0].ranking: overall: tied candidates, and this campaign does not allow ties")


@pytest.mark.django_db
def test_jsonl_bad_kind(tmp_path):
    topics = jsonl_topics()
    topics[1]["candidates"][0]["kind"] = "webpage"
    path = write_jsonl(tmp_path, topics)
    assert fails(path, fmt="jsonl") == f"{path}:2: candidates[0].kind: expected 'answer' or 'document', got 'webpage'"


@pytest.mark.django_db
def test_trec_qrels(tmp_path):
    run(write_jsonl(tmp_path, jsonl_topics()), fmt="jsonl", slug="hay")
    qrels = tmp_path / "expert.qrels"
    qrels.write_text("201 0 clef-doc-0900 2\n202 0 clef-doc-1000 1\n")
    output = run(qrels, fmt="trec-qrels", slug="hay")
    assert "document grades added: 2" in output
    assert Item.objects.get(campaign__slug="hay", external_id="201/doc-9").data["qrels"] == {"expert": 2}
    assert "document grades added: 0" in run(qrels, fmt="trec-qrels", slug="hay")

    unknown = tmp_path / "crowd.qrels"
    unknown.write_text("201 0 clef-doc-0900 1\n201 0 clef-doc-4242 0\n")
    assert (
        fails(unknown, fmt="trec-qrels", slug="hay")
        == f"{unknown}:2: docno: no document 'clef-doc-4242' under topic '201'"
    )
    unknown.write_text("999 0 clef-doc-0900 1\n")
    assert fails(unknown, fmt="trec-qrels", slug="hay") == f"{unknown}:1: qid: no topic '999' in this campaign"
    conflict = tmp_path / "expert2" / "expert.qrels"
    conflict.parent.mkdir()
    conflict.write_text("201 0 clef-doc-0900 0\n")
    assert "already has grade 2 from 'expert', not 0" in fails(conflict, fmt="trec-qrels", slug="hay")


def export(slug, fmt):
    out = io.StringIO()
    call_command("export_rankings", "--campaign", slug, "--format", fmt, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_label_studio_round_trip(tmp_path):
    run(write_json(tmp_path, ls_export()), slug="source")
    exported = export("source", "label-studio")
    run(write_json(tmp_path, exported, name="again.json"), slug="copy")
    source, copy = Campaign.objects.get(slug="source"), Campaign.objects.get(slug="copy")
    assert orders_of(copy) == orders_of(source) and len(orders_of(copy)) == 4
    fields = ("external_id", "kind", "text", "data")
    assert (list(Item.objects.filter(campaign=copy).order_by("external_id").values_list(*fields))
            == list(Item.objects.filter(campaign=source).order_by("external_id").values_list(*fields)))
    assert export("copy", "label-studio") == exported


@pytest.mark.django_db
def test_jsonl_round_trip_keeps_ties(tmp_path):
    run(write_jsonl(tmp_path, jsonl_topics()), fmt="jsonl", slug="hay")
    exported = export("hay", "jsonl")
    again = tmp_path / "again.jsonl"
    again.write_text(exported, encoding="utf-8")
    run(again, fmt="jsonl", slug="hay-copy")
    assert orders_of(Campaign.objects.get(slug="hay-copy")) == orders_of(Campaign.objects.get(slug="hay"))
    with pytest.raises(CommandError, match="ties"):
        export("hay", "label-studio")


@pytest.mark.django_db
def test_api_import_passes_score_judge(researcher, imports_inline):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from annotate.models import Role
    from tests.factories import CampaignFactory, MembershipFactory

    campaign = CampaignFactory(slug="api-rank", task_type="answer_ranking")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(researcher)
    upload = SimpleUploadedFile("study.json", json.dumps(ls_export()).encode())
    body = api_import(imports_inline, client, "/api/campaigns/api-rank/import/",
                      {"format": "label-studio", "score_judge": "study", "files": [upload]})["summary"]
    assert (body["rankings_created"], body["answers"], body["documents"]) == (4, 3, 4)
    assert body["items_by_judge"] == {"study": 7}
    bad = SimpleUploadedFile("study.json", b'{"not": "a list"}')
    job = api_import(imports_inline, client, "/api/campaigns/api-rank/import/",
                     {"format": "label-studio", "files": [bad]})
    assert job["error"] == "study.json:0: json: expected a JSON list of tasks, got dict"


@pytest.mark.django_db
def test_api_rankings_export_for_researchers_only(tmp_path, researcher, annotator):
    from rest_framework.test import APIClient

    from annotate.models import Role
    from tests.factories import MembershipFactory

    run(write_jsonl(tmp_path, jsonl_topics()), fmt="jsonl", slug="hay")
    campaign = Campaign.objects.get(slug="hay")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    client = APIClient()
    client.force_authenticate(researcher)
    response = client.get("/api/campaigns/hay/rankings/")
    assert response.status_code == 200
    assert response.content.decode() == export("hay", "jsonl")
    response = client.get("/api/campaigns/hay/rankings/", {"shape": "label-studio"})
    assert response.status_code == 400 and "ties" in response.json()["detail"]
    client.force_authenticate(annotator)
    assert client.get("/api/campaigns/hay/rankings/").status_code == 403  # told the rankings are the researchers'


def export_run(slug, judge):
    out = io.StringIO()
    call_command("export_rankings", "--campaign", slug, "--format", "trec-run", "--judge", judge, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_trec_run_round_trip_of_a_ranker(tmp_path):
    run(write_json(tmp_path, ls_export()), "--score-judge", "study", slug="clef")
    exported = export_run("clef", "study")
    lines = exported.splitlines()
    # Best first within each topic, ranks from 1, the judge's name as the tag, scores as imported.
    assert lines[:4] == ["101 Q0 d1 1 0.912 study", "101 Q0 a1 2 0.731 study", "101 Q0 d2 3 0.403 study",
                         "101 Q0 a2 4 0.118 study"]
    assert lines[4:] == ["102 Q0 d4 1 0.802 study", "102 Q0 a3 2 0.777 study", "102 Q0 d3 3 0.655 study"]
    path = tmp_path / "study.run"
    path.write_text(exported)
    output = run(path, fmt="trec-run", slug="clef")  # the judge named by the run's tag, with the same scores
    assert "candidates scored by study: 7" in output and ModelJudgment.objects.count() == 7  # a no-op
    assert Judge.objects.filter(campaign__slug="clef").count() == 1
    output = run(path, "--judge", "bm25-elsewhere", fmt="trec-run", slug="clef")
    assert "candidates scored by bm25-elsewhere: 7" in output
    imported = dict(
        ModelJudgment.objects.filter(judge__name="bm25-elsewhere").values_list("item__data__source_id", "score")
    )
    assert imported == {cid: float(score) for cid, score in SCORES.items()}


@pytest.mark.django_db
def test_trec_run_matches_docnos_and_rejects_bad_lines(tmp_path):
    run(write_json(tmp_path, ls_export()), slug="clef")
    by_docno = tmp_path / "docnos.run"
    by_docno.write_text("# a comment\n101 Q0 clef-doc-0001 1 3.5 bm25\n101 Q0 a2 2 1.25 bm25\n")
    assert "candidates scored by bm25: 2" in run(by_docno, fmt="trec-run", slug="clef")
    cases = {
        "101 Q0 d1 1 0.5\n": "line: expected 6 fields `qid Q0 docid rank score tag`, got 5",
        "101 Q0 d1 first 0.5 r\n": "rank: expected an integer, got 'first'",
        "101 Q0 d1 1 high r\n": "score: expected a number, got 'high'",
        "101 Q0 d1 1 nan r\n": "score: expected a finite number, got 'nan'",
        "999 Q0 d1 1 0.5 r\n": "qid: no topic '999' in this campaign",
        "101 Q0 d3 1 0.5 r\n": "docid: no candidate 'd3' under topic '101'",
        "101 Q0 d1 1 0.5 r\n101 Q0 d1 2 0.4 r\n": "docid: 'd1' appears twice under topic '101' (first on line 1)",
        "101 Q0 d1 1 0.5 r\n101 Q0 d2 2 0.4 s\n":
            ":2: tag: the file holds more than one run (r, s); import one at a time or "
            "name the judge",
    }
    for number, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"bad{number}.run"
        path.write_text(text)
        assert message in fails(path, fmt="trec-run", slug="clef"), text
    assert "no judge 'nobody'" in str(pytest.raises(CommandError, export_run, "clef", "nobody").value)


@pytest.mark.django_db
def test_api_exports_a_ranker_run(tmp_path, researcher):
    from rest_framework.test import APIClient

    from annotate.models import Role
    from tests.factories import MembershipFactory

    run(write_json(tmp_path, ls_export()), "--score-judge", "study", slug="clef")
    MembershipFactory(campaign=Campaign.objects.get(slug="clef"), user=researcher, role=Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(researcher)
    response = client.get("/api/campaigns/clef/rankings/", {"shape": "trec-run", "judge": "study"})
    assert response.status_code == 200 and response.content.decode() == export_run("clef", "study")
    response = client.get("/api/campaigns/clef/rankings/", {"shape": "trec-run"})
    assert response.status_code == 400 and response.json()["detail"] == "shape trec-run needs ?judge=NAME"
