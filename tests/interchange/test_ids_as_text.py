"""Ids keep their exact text (issue 31, item 1): MS MARCO's numeric passage ids and ids that look like JSON
("007", "1e5", "NaN", "true", "null") or are 200 characters long go through the passage path (topics, runs,
collection, assessors' and a judge's qrels) and come out of the report and its qrels downloads as they went in, on
SQLite (whose JSON key reads decode the text they extract) and on PostgreSQL alike."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.models import Campaign, HumanJudgment, Item, SystemOutput
from judges.models import ModelJudgment
from reports.selectors import graded_items_get
from tests.import_jobs_support import imports_inline  # noqa: F401 (a fixture)

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


def imp(*args, slug="marco", task_type="passage_relevance") -> str:
    out = StringIO()
    call_command("import_data", "--campaign", slug, "--task-type", task_type, *map(str, args), stdout=out)
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


# --- No silent drops: every line an import reads and does not use is counted by reason; none used is refused ---

def _state(slug="marco"):
    return (sorted(Item.objects.filter(campaign__slug=slug).values_list("external_id", "text")),
            HumanJudgment.objects.count(), ModelJudgment.objects.count())


def _refused(*args, slug="marco", task_type="passage_relevance") -> str:
    from django.core.management import CommandError

    before = _state(slug)
    with pytest.raises(CommandError) as info:
        imp(*args, slug=slug, task_type=task_type)
    assert _state(slug) == before
    return str(info.value)


def test_lines_not_used_are_counted_by_reason_and_an_import_using_none_is_refused(tmp_path):
    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS + "19335\tanthropological definition of "
                                                                          "environment\n"))
    assert Campaign.objects.get(slug="marco").topics.count() == 2
    # a collection imported before any run: no passage to give a text to
    collection = write(tmp_path, "collection.tsv", "".join(f"{doc}\tThe passage {doc}.\n" for doc in DOCIDS))
    message = _refused("--format", "collection", collection)
    assert message.endswith(
        "collection.tsv:1: docid: none of the 8 lines read is used, nothing was imported: 8 lines naming no passage "
        "of the campaign (none pooled or graded has that docid) (first: collection.tsv:1, docid '1017759')")

    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    out = imp("--format", "collection", write(tmp_path, "more.tsv", collection.read_text()
                                              + "100000\tNot 1e5.\n7\tNot 007.\n1017759\tThe passage 1017759.\n"))
    assert "lines read and not used: 3\n" in out
    assert "  2 lines naming no passage of the campaign (none pooled or graded has that docid) (first: more.tsv:9: " \
           "docid '100000')\n" in out
    assert (
        "  1 line repeating a passage an earlier line gave (same text) (first: more.tsv:11: docid '1017759')\n" in out
    )

    # a judge's qrels that name none of the campaign's passages (another campaign's, say) are refused
    message = _refused("--format", "judge-qrels", "--judge", "umbrela",
                       write(tmp_path, "other.qrels", "19335 0 100000 3\n19335 0 7 2\n"))
    assert message.endswith("other.qrels:1: docid: none of the 2 lines read is used, nothing was imported: 2 lines "
                            "naming no passage of the campaign (a judge grades the pooled or graded ones) (first: "
                            "other.qrels:1, docid '100000')")
    assert not Campaign.objects.get(slug="marco").judges.exists()
    out = imp("--format", "judge-qrels", "--judge", "umbrela",
              write(tmp_path, "umbrela.qrels", "19335 0 007 3\n19335 0 7 2\n19335 0 007 3\n"))
    assert "grades of umbrela imported: 1; lines naming no passage of the campaign, not imported: 1" in out
    assert "  1 line naming no passage of the campaign (a judge grades the pooled or graded ones) (first: " \
           "umbrela.qrels:2: docid '7')" in out
    assert (
        "  1 line repeating an earlier line's grade of the same document (first: umbrela.qrels:3: docid '007')" in out
    )
    # the same file again is a no-op that uses its lines (they agree with the campaign), not a refusal
    assert "grades of umbrela imported: 0;" in imp("--format", "judge-qrels", "--judge", "umbrela",
                                                   write(tmp_path, "umbrela.qrels", "19335 0 007 3\n"))


def test_the_job_page_and_the_api_give_the_lines_not_used(tmp_path, researcher, imports_inline):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from rest_framework.test import APIClient

    from annotate.models import Role
    from tests.factories import MembershipFactory
    from tests.import_jobs_support import api_import

    imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    MembershipFactory(campaign=Campaign.objects.get(slug="marco"), user=researcher, role=Role.RESEARCHER)
    collection = (b"1017759\tThe passage 1017759.\n100000\tNot 1e5.\n7\tNot 007.\n")
    browser = Client()
    browser.force_login(researcher)
    page = imports_inline(browser.post, "/campaigns/marco/import/", {
        "format": "collection", "files": SimpleUploadedFile("c.tsv", collection)}, follow=True).content.decode()
    table = page.split('id="import-lines-unused"')[1].split("</table>")[0]
    assert "naming no passage of the campaign (none pooled or graded has that docid)" in table
    assert '<td class="num">2</td>' in table and "c.tsv:2: docid &#x27;100000&#x27;" in table

    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, "/api/campaigns/marco/import/", {
        "format": "judge-qrels", "judge": "umbrela", "files": [SimpleUploadedFile("u.qrels", b"19335 0 1e5 2\n"
                                                                                           b"19335 0 100000 1\n")]})
    assert job["status"] == "done" and job["summary"]["model_judgments_created"] == {"umbrela": 1}
    assert job["summary"]["lines_unused"] == [{
        "reason": "naming no passage of the campaign (a judge grades the pooled or graded ones)", "lines": 1,
        "example": "u.qrels:2: docid '100000'"}]
    job = api_import(imports_inline, api, "/api/campaigns/marco/import/", {
        "format": "judge-qrels", "judge": "other", "files": [SimpleUploadedFile("o.qrels", b"19335 0 100000 1\n")]})
    assert job["status"] == "failed" and job["error"].startswith(
        "o.qrels:1: docid: none of the 1 lines read is used, nothing was imported: 1 line naming no passage")


def test_other_formats_count_their_unused_lines_too(tmp_path):
    out = imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS + TOPICS.splitlines()[0] + "\n"))
    assert "  1 line repeating a topic an earlier line gave (same text) (first: topics.tsv:3: qid '19335')" in out
    imp("--format", "trec-run", write(tmp_path, "bm25.run", run_text()))
    # judge-scores names an item by its external id or its docid: two rows for one passage, the first one kept
    out = imp("--format", "judge-scores", "--judge", "ce", write(
        tmp_path, "ce.tsv", "topic\titem\tscore\n19335\t19335/007\t0.5\n19335\t007\t0.5\n19335\t1e5\t0.25\n"))
    assert "  1 line naming an item an earlier line gave a verdict on (the first line's is kept) (first: ce.tsv:3: " \
           "item '007')" in out
    assert ModelJudgment.objects.filter(judge__name="ce").count() == 2

    # gold answers for questions an ais campaign does not hold are refused, not passed over
    call_command("import_data", "--campaign", "aqa", "--task-type", "ais", "--format", "attributed-qa",
                 "fixtures/ais_demo/ratings.csv", stdout=StringIO())
    gold = write(tmp_path, "gold.jsonl", '{"question": "who painted the mona lisa", "answers": ["Leonardo"]}\n')
    message = _refused("--format", "gold-answers", gold, slug="aqa", task_type="ais")
    assert message.endswith("gold.jsonl:1: question: none of the 1 lines read is used, nothing was imported: 1 line "
                            "naming no question of the campaign (first: gold.jsonl:1, question 'who painted the mona "
                            "lisa')")


def test_a_candidate_stored_without_its_source_id_exports_its_own_id_when_the_topic_id_holds_a_slash():
    """Candidates written before the source id was kept are named by the tail of `<qid>/<id>`, cut after the topic's
    id: with qid "dl/19" the candidate "dl/19/a/1" is "a/1", not "19/a/1"."""
    from tasktypes.answer_ranking.exports import rankings_jsonl
    from tests.factories import CampaignFactory, ItemFactory, TopicFactory

    campaign = CampaignFactory(slug="slashes", task_type="answer_ranking")
    topic = TopicFactory(campaign=campaign, external_id="dl/19", text="q")
    ItemFactory(campaign=campaign, topic=topic, external_id="dl/19/a/1", kind="document", data={"docno": "a/1"})
    line = rankings_jsonl(campaign=campaign)
    assert '"id": "a/1"' in line and '"qid": "dl/19"' in line
