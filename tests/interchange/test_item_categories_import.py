"""Item categories on import: the `category` key or column of the item formats, and the item-categories format."""

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Item

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def run(path, fmt, slug="qa", task_type="qa_correctness", *extra):
    out = io.StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", task_type, "--format", fmt, *extra, str(path),
                 stdout=out)
    return out.getvalue()


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def categories(slug="qa"):
    return dict(Item.objects.filter(campaign__slug=slug).values_list("external_id", "category"))


def test_qa_eval_jsonl_lines_give_their_items_a_category(db, tmp_path):
    lines = [{"question": "who wrote hamlet", "answer": ["Shakespeare"], "prediction": "William Shakespeare",
              "category": " granularity "},
             {"question": "capital of peru", "answer": ["Lima"], "prediction": "Lima"}]
    path = write(tmp_path, "NQ_DPR.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n")
    output = run(path, "qa-eval-jsonl")
    by_text = dict(Item.objects.filter(campaign__slug="qa").values_list("text", "category"))
    assert by_text == {"William Shakespeare": "granularity", "Lima": ""}
    assert "items given a category (or another one): 1" in output


def test_qa_eval_jsonl_refuses_a_category_that_is_not_text_and_two_categories_for_one_item(db, tmp_path):
    bad = write(tmp_path, "NQ_A.jsonl", json.dumps({"question": "q", "answer": ["a"], "prediction": "a",
                                                    "category": 3}) + "\n")
    with pytest.raises(CommandError, match=r"NQ_A.jsonl:1: category: a category is text, not int"):
        run(bad, "qa-eval-jsonl")
    first = write(tmp_path, "NQ_B.jsonl", json.dumps({"question": "q", "answer": ["a"], "prediction": "a",
                                                      "category": "semantic"}) + "\n")
    second = write(tmp_path, "NQ_C.jsonl", json.dumps({"question": "q", "answer": ["a"], "prediction": "a",
                                                       "category": "symbolic"}) + "\n")
    with pytest.raises(CommandError, match=r"NQ_C.jsonl:1: category: 'symbolic', but NQ_B.jsonl:1 gives the same "
                                           r"item the category 'semantic'"):
        call_command("import_data", "--campaign", "qa", "--task-type", "qa_correctness", "--format",
                     "qa-eval-jsonl", str(first), str(second), stdout=io.StringIO())
    assert not Item.objects.filter(campaign__slug="qa").exists()  # all or nothing


def test_attributed_qa_csv_category_column(db, tmp_path):
    path = write(tmp_path, "ratings.csv",
                 "system_name,question,answer,attribution,passage,human_rating,auto_ais,nli_score,category\n"
                 "s1,who wrote hamlet,Shakespeare,,Hamlet is a play by Shakespeare.,Y,Y,0.9,inexact match\n"
                 "s2,who wrote hamlet,Marlowe,,Hamlet is a play by Shakespeare.,N,N,0.1,\n")
    output = run(path, "attributed-qa", "aqa", "ais")
    by_text = dict(Item.objects.filter(campaign__slug="aqa").values_list("text", "category"))
    assert by_text == {"Shakespeare": "inexact match", "Marlowe": ""}
    assert "items given a category (or another one): 1" in output


def test_ranking_jsonl_candidate_category(db, tmp_path):
    line = {"qid": "7", "query": "is coffee bad for you",
            "candidates": [{"id": "d1", "kind": "document", "text": "Coffee is fine.", "category": "web"},
                           {"id": "a1", "kind": "answer", "text": "No.", "system": "gpt", "category": "generated"}]}
    run(write(tmp_path, "r.jsonl", json.dumps(line) + "\n"), "jsonl", "rk", "answer_ranking")
    assert categories("rk") == {"7/d1": "web", "7/a1": "generated"}


def test_item_categories_tsv_csv_and_jsonl(qa_campaign, tmp_path):
    tsv = write(tmp_path, "cats.tsv", "topic\titem\tcategory\n1\t1-0\tsemantic\n2\t2-1\tsymbolic\n9\t9-0\tx\n"
                                      "3\t3-7\tx\n3\t3-8\ty\n")
    output = run(tsv, "item-categories")
    assert categories()["1-0"] == "semantic" and categories()["2-1"] == "symbolic"
    assert "items given a new category: 2" in output
    assert "lines read and not used: 3" in output
    assert "2 lines naming no item of its topic (first: cats.tsv:5: item '3-7')" in output
    assert "1 line naming a topic the campaign does not hold (first: cats.tsv:4: topic '9')" in output

    csv_path = write(tmp_path, "cats.csv", '1,1-0,semantic\n3,3-0,"granularity, units"\n')
    output = run(csv_path, "item-categories")
    assert categories()["3-0"] == "granularity, units"
    assert "items given a new category: 1; already in that category: 1" in output

    jsonl = write(tmp_path, "cats.jsonl", json.dumps({"topic": 1, "item": "1-0", "category": ""}) + "\n")
    run(jsonl, "item-categories")
    assert categories()["1-0"] == ""  # an empty category takes the item's away


@pytest.mark.parametrize("body, expected", [
    ("1\t1-0\n", r"cats.tsv:2: line: 2 fields; a line is topic, item and category \(tab-separated\)"),
    ("1\t1-0\tok\n1\t1-0\tother\n", r"cats.tsv:3: category: 'other', but cats.tsv:2 gives the same item the "
                                    r"category 'ok'"),
    ("1\t1-0\t" + "x" * 101 + "\n", r"cats.tsv:2: category: a category is at most 100 characters"),
    ("\t1-0\tok\n", r"cats.tsv:2: topic: missing value"),
    ("9\t1-0\tok\n", r"cats.tsv:1: topic: none of the 1 lines read is used, nothing was imported: 1 line naming a "
                     r"topic the campaign does not hold"),
])
def test_item_categories_refusals_change_nothing(qa_campaign, tmp_path, body, expected):
    Item.objects.filter(external_id="2-0").update(category="kept")
    with pytest.raises(CommandError, match=expected):
        run(write(tmp_path, "cats.tsv", "2\t2-0\tchanged\n" + body if "none of" not in expected else body),
            "item-categories")
    assert categories()["2-0"] == "kept"


def test_item_categories_names_graded_items_by_doc_id(db, tmp_path):
    run(write(tmp_path, "topics.tsv", "101\tis coffee healthy\n"), "trec-topics", "pr", "passage_relevance")
    run(write(tmp_path, "q.qrels", "101 0 d1 2\n101 0 d2 0\n"), "trec-qrels", "pr", "passage_relevance")
    run(write(tmp_path, "c.tsv", "101\td1\tlexical\n101\t101/d2\tsemantic\n"), "item-categories", "pr",
        "passage_relevance")
    assert categories("pr") == {"101/d1": "lexical", "101/d2": "semantic"}


def test_nq301_human_tsv_category_column(db, tmp_path):
    folder = tmp_path / "nq301"
    shutil.copytree(FIXTURES / "nq301", folder)
    human = folder / "NQ301_human.tsv"
    lines = human.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    rows = [header + ["category"]] + [line.split("\t") + (["semantic"] if n == 1 else [""])
                                      for n, line in enumerate(lines[1:], start=1)]
    human.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    output = run(folder, "nq301", "nq")
    first = rows[1]
    item = Item.objects.get(campaign__slug="nq", topic__external_id=first[0], text=first[2])
    assert item.category == "semantic"
    assert Item.objects.filter(campaign__slug="nq").exclude(category="").count() == 1
    assert "items given a category (or another one): 1" in output


def test_label_studio_item_category(db, tmp_path):
    task = {"id": 1, "data": {"qid": "q1", "query": "is coffee bad for you", "items": [
        {"id": "d1", "docno": "doc-1", "body": "Coffee is fine.", "category": "web page"},
        {"id": "a1", "docno": "gpt-3.5_p1_s1", "body": "No, it is not.", "category": "generated"}]},
        "annotations": [{"completed_by": 1, "result": [{"value": {"ranker": {"rank": ["a1", "d1"]}}}]}]}
    run(write(tmp_path, "export.json", json.dumps([task])), "label-studio", "ls", "answer_ranking")
    assert categories("ls") == {"q1/d1": "web page", "q1/a1": "generated"}
    bad = dict(task, data=dict(task["data"], items=[dict(task["data"]["items"][0], category=["x"])]))
    with pytest.raises(CommandError, match=r"export2.json:1: data.items\[0\].category: a category is text, not list"):
        run(write(tmp_path, "export2.json", json.dumps([bad])), "label-studio", "ls2", "answer_ranking")


def test_item_categories_jsonl_needs_every_key(qa_campaign, tmp_path):
    path = write(tmp_path, "cats.jsonl", json.dumps({"topic": "1", "item": "1-0"}) + "\n")
    with pytest.raises(CommandError, match=r"cats.jsonl:1: category: missing key"):
        run(path, "item-categories")
