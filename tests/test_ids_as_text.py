"""Ids keep their exact text (issue 31, item 1): MS MARCO's numeric passage ids and ids that look like JSON
("007", "1e5", "NaN", "true", "null") or are 200 characters long go through the passage path (topics, runs,
collection, assessors' and a judge's qrels) and come out of the report and its qrels downloads as they went in, on
SQLite (whose JSON key reads decode the text they extract) and on PostgreSQL alike."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from agreement.selectors import graded_items_get
from annotate.models import Campaign, HumanJudgment, Item, SystemOutput
from judges.models import ModelJudgment

pytestmark = pytest.mark.django_db

LONG = "p" + "0" * 198 + "1"  # 200 characters, digits after the first
DOCIDS = ["1017759", "7067032", "007", "1e5", "NaN", "true", "null", LONG]
TOPICS = "19335\tanthropological definition of environment\n1037798\twho is robert gray\n"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def write(tmp_path, name, text) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def imp(*args, slug="marco") -> str:
    out = StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", "passage_relevance", *map(str, args), stdout=out)
    return out.getvalue()


def run_text(tag="bm25") -> str:
    return "".join(f"19335 Q0 {doc} {rank} {20 - rank} {tag}\n" for rank, doc in enumerate(DOCIDS, start=1))


def qrels_text() -> str:
    return "".join(f"19335 0 {doc} {n % 4}\n" for n, doc in enumerate(DOCIDS))


def passages(slug="marco") -> dict[str, str]:
    """{docid: text} of the campaign's passages, the docid read from the stored JSON document as a whole."""
    return {item.data["docid"]: item.text for item in Item.objects.filter(campaign__slug=slug)}


def test_trec_qrels_grade_numeric_passages_with_or_without_a_run_first(tmp_path):
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))
    imp("--format", "trec-qrels", write(tmp_path, "nist.qrels", qrels_text()))
    grades = dict(HumanJudgment.objects.filter(unit__campaign__slug="marco")
                  .values_list("unit__item__external_id", "label"))
    assert grades == {f"19335/{doc}": str(n % 4) for n, doc in enumerate(DOCIDS)}
    # a run naming the graded passages links them; it does not make them again
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    assert sorted(passages()) == sorted(DOCIDS)
    assert SystemOutput.objects.filter(campaign__slug="marco").count() == len(DOCIDS)

    # the other order: the run pools the passages, the qrels grade them
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS), slug="other")
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()), slug="other")
    imp("--format", "trec-qrels", write(tmp_path, "nist.qrels", qrels_text()), slug="other")
    assert Item.objects.filter(campaign__slug="other").count() == len(DOCIDS)
    assert HumanJudgment.objects.filter(unit__campaign__slug="other").count() == len(DOCIDS)


def test_the_collection_gives_numeric_passages_their_text(tmp_path):
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    collection = "".join(f"{doc}\tThe passage {doc}.\n" for doc in DOCIDS) + "100000\tNot 1e5.\n7\tNot 007.\n"
    out = imp("--format", "collection", write(tmp_path, "collection.tsv", collection))
    assert f"passages given their text: {len(DOCIDS)};" in out and "still without text: 0" in out
    assert passages() == {doc: f"The passage {doc}." for doc in DOCIDS}


def test_a_judges_qrels_grade_numeric_passages(tmp_path):
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    out = imp("--format", "judge-qrels", "--judge", "umbrela", write(tmp_path, "umbrela.qrels", qrels_text()))
    assert f"grades of umbrela imported: {len(DOCIDS)};" in out
    labels = dict(ModelJudgment.objects.filter(judge__name="umbrela").values_list("item__external_id", "label"))
    assert labels == {f"19335/{doc}": str(n % 4) for n, doc in enumerate(DOCIDS)}
    # the report's selector names each passage by its docid as the files do
    campaign = Campaign.objects.get(slug="marco")
    assert sorted(doc for _, doc in graded_items_get(campaign=campaign).values()) == sorted(DOCIDS)
