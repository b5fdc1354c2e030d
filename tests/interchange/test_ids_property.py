"""Property: any id a format allows comes out of Concord as it went in (issue 31, item 1).

Hypothesis draws ids (digits with leading zeros, exponent forms, "NaN", "true", "null", unicode, up to 200
characters) for the topics, documents, runs, systems and annotators of tiny campaigns; they go in through each format
and are read back from the database, the report (its JSON, CSV and qrels downloads), the rankings exports and a moved
copy of the campaign (archive export, then import). Each format gets the ids it can carry: a TREC column holds no
whitespace, a TREC line that starts with `#` is a comment, a TSV file that starts with `{` is read as JSONL.

Examples are few and derandomized (the same ones every run, CI's too), each in a savepoint rolled back after it.
"""

import csv
import functools
import io
import itertools
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotate.models import Campaign, HumanJudgment, Item, Membership, Role, Topic
from interchange.archive import campaign_export, campaign_import
from interchange.importers.runs_pool import stored_runs
from judges.models import ModelJudgment
from reports.tables import spreadsheet_text
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db

# Ids that a JSON decoder, a spreadsheet, int() or a sort would take for something else.
TRICKY = ["1017759", "7067032", "007", "0", "-0", "1e5", "1E5", "1.0", "NaN", "nan", "Infinity", "-Infinity",
          "true", "false", "null", "None", "[1]", "{}", "'=1", "=1+1", "+1", "-x", "''", "0x1F", "١٢٣", "²",
          "a/b", "p" + "0" * 199]


def _fits_a_trec_column(char: str) -> bool:
    """CHAR can sit inside a whitespace-separated column of a line: it is no space and ends no line."""
    return not char.isspace() and len(f"a{char}b".splitlines()) == 1


ID_CHAR = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")).filter(_fits_a_trec_column)
TREC_ID = st.one_of(st.sampled_from(TRICKY), st.text(ID_CHAR, min_size=1, max_size=200)).filter(
    lambda text: not text.startswith(("#", "{")))
EXAMPLES = settings(max_examples=8, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_slugs = itertools.count()


def distinct_ids(size: int):
    return st.lists(TREC_ID, min_size=size, max_size=size, unique=True)


def one_example(test):
    """TEST's body in a savepoint of its own, rolled back after it: a failing example leaves the next one a sound
    transaction (Hypothesis runs a failing example again, smaller, to shrink it)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        with transaction.atomic():
            test(*args, **kwargs)
            transaction.set_rollback(True)
    return run


@pytest.fixture
def folder(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path


@pytest.fixture
def signed_in(client, researcher):
    client.force_login(researcher)
    return client


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def imp(slug: str, task_type: str, fmt: str, path: Path, *options: str) -> None:
    call_command("import_data", "--campaign", slug, "--task-type", task_type, "--format", fmt, *options, str(path),
                 stdout=io.StringIO())


def _csv_rows(text: str) -> list[list[str]]:
    """The cells of a download as a reader that knows the spreadsheet escape (reports.tables.spreadsheet_cell)
    reads them: one leading quote dropped before =, +, -, @, a tab, a carriage return or another quote."""
    return [[spreadsheet_text(cell) for cell in row] for row in csv.reader(io.StringIO(text))]


def _report(signed_in, researcher, slug: str) -> dict:
    """What a researcher downloads of the report: the JSON, the systems and topics CSV, every source's qrels."""
    campaign = Campaign.objects.get(slug=slug)
    Membership.objects.get_or_create(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    report_stored(campaign)
    listed = signed_in.get(f"/api/campaigns/{slug}/agreement/qrels/")
    qrels = {row["source"]: {tuple(line.split()[i] for i in (0, 2, 3)) for line in signed_in.get(
        f"/campaigns/{slug}/report/qrels/{row['source']}.qrels").content.decode().splitlines()}
        for row in (listed.json()["sources"] if listed.status_code == 200 else [])}
    return {"json": signed_in.get(f"/campaigns/{slug}/report/report.json").json(), "qrels": qrels,
            "systems": _csv_rows(signed_in.get(f"/campaigns/{slug}/report/systems.csv").content.decode())[1:],
            "topics": _csv_rows(signed_in.get(f"/campaigns/{slug}/report/topics.csv").content.decode())[1:]}


def _moved(slug: str, folder: Path) -> None:
    """The campaign moved as to another installation: exported to an archive, deleted, imported back (its slug kept,
    so that the accounts its imports named by it, `<slug>-annotator-<name>`, read back as those names)."""
    archive = folder / f"{slug}.zip"
    campaign = Campaign.objects.get(slug=slug)
    campaign_export(campaign, archive)
    campaign.delete()
    campaign_import(archive)


def _graded_state(slug: str, doc_key: str) -> dict:
    """A graded campaign's items, grades and stored runs, by the ids the files used."""
    campaign = Campaign.objects.get(slug=slug)
    return {
        "topics": sorted(Topic.objects.filter(campaign=campaign).values_list("external_id", flat=True)),
        "items": sorted((item.topic.external_id, item.data[doc_key], item.text)
                        for item in Item.objects.filter(campaign=campaign).select_related("topic")),
        "human": sorted((j.unit.item.topic.external_id, j.unit.item.data[doc_key], j.label) for j in
                        HumanJudgment.objects.filter(unit__campaign=campaign).select_related("unit__item__topic")),
        "judge": sorted((j.judge.name, j.item.topic.external_id, j.item.data[doc_key], j.label) for j in
                        ModelJudgment.objects.filter(judge__campaign=campaign).select_related("judge", "item__topic")),
        "runs": stored_runs(campaign),
    }


GRADED = {"passage_relevance": "docid", "image_relevance": "image_id"}


@pytest.mark.parametrize("task_type", list(GRADED))
@EXAMPLES
@given(qids=distinct_ids(2), docids=distinct_ids(3), runs=distinct_ids(2))
@one_example
def test_graded_ids_round_trip(folder, signed_in, researcher, task_type, qids, docids, runs):
    """Topics, runs, (passage texts), an assessor's and a judge's qrels: the items, grades, report, downloads and a
    moved copy name every topic, document and run as the files did."""
    slug, doc_key = f"graded-{next(_slugs)}", GRADED[task_type]
    grade = {(qid, doc): (i + j) % 3 for i, qid in enumerate(qids) for j, doc in enumerate(docids)}
    judged = {key: (value + 1) % 3 for key, value in grade.items()}
    # k = 1: the one assessor's qrels below are each item's human grade, which the consensus qrels carry.
    if task_type == "passage_relevance":
        imp(slug, task_type, "trec-topics", write(folder, "topics.tsv", "".join(
            f"{qid}\tquery {n}\n" for n, qid in enumerate(qids))), "--overlap", "1")
    else:
        imp(slug, task_type, "jsonl", write(folder, "topics.jsonl", "".join(
            json.dumps({"id": qid, "section_title": f"section {n}"}) + "\n" for n, qid in enumerate(qids))),
            "--overlap", "1")
    for n, tag in enumerate(runs):
        order = docids if n == 0 else docids[::-1]
        imp(slug, task_type, "trec-run", write(folder, f"run{n}.txt", "".join(
            f"{qid} Q0 {doc} {rank} {10 - rank} {tag}\n" for qid in qids for rank, doc in enumerate(order, start=1))))
    texts = {doc: "" for doc in docids}
    if task_type == "passage_relevance":
        texts = {doc: f"The passage numbered {n}." for n, doc in enumerate(docids)}
        imp(slug, task_type, "collection", write(folder, "collection.tsv", "".join(
            f"{doc}\t{text}\n" for doc, text in texts.items())))
    imp(slug, task_type, "trec-qrels", write(folder, "nist.qrels", "".join(
        f"{qid} 0 {doc} {value}\n" for (qid, doc), value in grade.items())))
    imp(slug, task_type, "judge-qrels", write(folder, "llm.qrels", "".join(
        f"{qid} 0 {doc} {value}\n" for (qid, doc), value in judged.items())), "--judge", "llm")
    scores = {key: float(n) for n, key in enumerate(grade)}
    imp(slug, task_type, "judge-scores", write(folder, "scores.tsv", "topic\titem\tscore\n" + "".join(
        f"{qid}\t{doc}\t{score}\n" for (qid, doc), score in scores.items())), "--judge", "scorer")

    state = _graded_state(slug, doc_key)
    assert state["topics"] == sorted(qids)
    assert state["items"] == sorted((qid, doc, texts[doc]) for qid in qids for doc in docids)
    assert state["human"] == sorted((qid, doc, str(value)) for (qid, doc), value in grade.items())
    assert state["judge"] == sorted([("llm", qid, doc, str(value)) for (qid, doc), value in judged.items()]
                                    + [("scorer", qid, doc, "") for qid, doc in scores])
    assert {name: {qid: sorted(docs) for qid, docs in run.items()} for name, run in state["runs"].items()} == {
        tag: {qid: sorted(docids) for qid in qids} for tag in runs}

    report = _report(signed_in, researcher, slug)
    human = {(qid, doc, str(value)) for (qid, doc), value in grade.items()}
    assert {source: qrels for source, qrels in report["qrels"].items() if source != "judge-scorer"} == {
        "consensus": human, "assessor-qrels-nist": human,
        "judge-llm": {(qid, doc, str(value)) for (qid, doc), value in judged.items()}}
    assert {(qid, doc) for qid, doc, _ in report["qrels"]["judge-scorer"]} == set(scores)  # grades from its scores
    assert sorted(row["system"] for row in report["json"]["systems"]) == sorted(runs)
    assert sorted(row[0] for row in report["systems"]) == sorted(runs)
    assert sorted(row["topic"] for row in report["json"]["judges"]["llm"]["per_topic"]) == sorted(qids)
    assert sorted({row[1] for row in report["topics"]}) == sorted(qids)

    _moved(slug, folder)
    assert _graded_state(slug, doc_key) == state


def _rankings(text: str) -> list[dict]:
    """The rankings jsonl export, each topic's candidates and rankings in a stable order."""
    topics = [json.loads(line) for line in text.splitlines()]
    for topic in topics:
        topic["candidates"].sort(key=lambda candidate: candidate["id"])
        topic["rankings"].sort(key=lambda ranking: ranking["annotator"])
    return sorted(topics, key=lambda topic: topic["qid"])


@EXAMPLES
@given(qids=distinct_ids(2), names=distinct_ids(6), systems=distinct_ids(2), annotator=TREC_ID.filter(
    lambda name: len(name) <= 100))
@one_example
def test_ranking_ids_round_trip(folder, signed_in, researcher, qids, names, systems, annotator):
    """answer_ranking: candidate ids, docnos, system and annotator names through jsonl, trec-qrels, trec-run and
    judge-scores, out through the rankings exports (jsonl, Label Studio, a judge's run), the report and a moved
    copy."""
    slug = f"ranking-{next(_slugs)}"
    answers, documents, docnos = names[:2], names[2:4], names[4:]
    lines = []
    for n, qid in enumerate(qids):
        candidates = ([{"id": a, "kind": "answer", "text": f"answer {a}", "system": system}
                       for a, system in zip(answers, systems)]
                      + [{"id": d, "kind": "document", "text": f"document {d}", "docno": docno}
                         for d, docno in zip(documents, docnos)])
        order = [candidate["id"] for candidate in candidates][::1 if n == 0 else -1]
        lines.append(json.dumps({"qid": qid, "query": f"query {n}", "candidates": candidates,
                                 "rankings": [{"annotator": annotator, "ranking": order}]}))
    imp(slug, "answer_ranking", "jsonl", write(folder, "rankings.jsonl", "\n".join(lines) + "\n"))
    imp(slug, "answer_ranking", "trec-qrels", write(folder, "expert.qrels", "".join(
        f"{qid} 0 {docno} {k}\n" for qid in qids for k, docno in enumerate(docnos))))
    scores = {(qid, candidate): float(k + 1) for qid in qids for k, candidate in enumerate(answers + documents)}
    # a run names documents by docno, the answers by their ids
    by_docno = dict(zip(documents, docnos))
    imp(slug, "answer_ranking", "trec-run", write(folder, "bm25.run", "".join(
        f"{qid} Q0 {by_docno.get(candidate, candidate)} 1 {score} bm25\n" for (qid, candidate), score in
        scores.items())), "--judge", "bm25")
    imp(slug, "answer_ranking", "judge-scores", write(folder, "scores.tsv", "topic\titem\tscore\n" + "".join(
        f"{qid}\t{candidate}\t{-score}\n" for (qid, candidate), score in scores.items())), "--judge", "scorer")

    campaign = Campaign.objects.get(slug=slug)
    Membership.objects.get_or_create(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    exported = _rankings(signed_in.get(f"/api/campaigns/{slug}/rankings/?shape=jsonl").content.decode())
    assert [topic["qid"] for topic in exported] == sorted(qids)
    for topic in exported:
        n = qids.index(topic["qid"])
        assert [(c["id"], c.get("docno"), c.get("system")) for c in topic["candidates"]] == sorted(
            [(a, None, system) for a, system in zip(answers, systems)]
            + [(d, docno, None) for d, docno in zip(documents, docnos)])
        expected = (answers + documents)[::1 if n == 0 else -1]
        assert topic["rankings"] == [{"annotator": annotator, "dimension": "overall",
                                      "ranking": [[candidate] for candidate in expected]}]
    studio = signed_in.get(f"/api/campaigns/{slug}/rankings/?shape=label-studio").json()
    assert sorted(task["data"]["qid"] for task in studio) == sorted(qids)
    for task in studio:
        assert sorted(item["id"] for item in task["data"]["items"]) == sorted(answers + documents)
        user = task["annotations"][0]["completed_by"]
        assert (str(user) if isinstance(user, int) else user["id"]) == annotator
    for judge in ("bm25", "scorer"):
        run = signed_in.get(f"/api/campaigns/{slug}/rankings/?shape=trec-run&judge={judge}").content.decode()
        assert sorted((fields[0], fields[2]) for fields in map(str.split, run.splitlines())) == sorted(scores)
    report = _report(signed_in, researcher, slug)
    assert sorted({row["topic"] for row in report["json"]["judges"]["bm25"]["per_topic"]}) == sorted(qids)
    assert sorted({row[1] for row in report["topics"]}) == sorted(qids)

    _moved(slug, folder)
    assert _rankings(signed_in.get(f"/api/campaigns/{slug}/rankings/?shape=jsonl").content.decode()) == exported
