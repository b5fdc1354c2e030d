"""Imports read their input as a stream: a bad record near the top of a large file is refused without reading the
rest, a zip's entry is never unpacked into memory, the JSON of a Label Studio export is parsed incrementally and
still names the right line, and an upload's answer shows nothing of the server's file system."""

import io
import json
import tempfile
import tracemalloc
import zipfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from rest_framework.test import APIClient

from annotate.models import Campaign, Item
from interchange.importers.common import ImportDataError
from interchange.importers.service import import_data_run, import_run
from interchange.importers.uploads import uploads_import
from judges.models import ModelJudgment
from tests.factories import CampaignFactory
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)

LARGE = 50 * 1024 * 1024
# What reading a few lines may cost; reading (or holding) a 50 MB file costs far more than either.
READ_LIMIT = 2 * 1024 * 1024
PEAK_LIMIT = 8 * 1024 * 1024


def _rchar() -> int | None:
    """Bytes this process has read so far (Linux's /proc/self/io), or None elsewhere."""
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


@contextmanager
def cost():
    """What the block cost: bytes the process read and the peak of Python's allocations (tracemalloc)."""
    figures = {}
    before = _rchar()
    tracemalloc.start()
    try:
        yield figures
    finally:
        figures["peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        after = _rchar()
        figures["read"] = None if before is None or after is None else after - before


def large_write(path: Path, head: str, filler: str, tail: str = "") -> Path:
    """HEAD, then FILLER repeated past LARGE bytes, then TAIL."""
    block = filler * max(1, (1024 * 1024) // len(filler))
    with path.open("w", encoding="utf-8") as sink:
        sink.write(head)
        for _ in range(LARGE // len(block) + 1):
            sink.write(block)
        sink.write(tail)
    return path


def assert_cheap(figures: dict, path: Path) -> None:
    assert path.stat().st_size > LARGE
    assert figures["peak"] < PEAK_LIMIT, f"{figures['peak']:,} bytes allocated at the peak"
    if figures["read"] is not None:
        assert figures["read"] < READ_LIMIT, f"{figures['read']:,} bytes read of {path.stat().st_size:,}"


@pytest.mark.django_db
def test_a_short_line_2_of_a_large_judge_scores_file_is_refused_without_reading_the_rest(qa_campaign, tmp_path):
    path = large_write(tmp_path / "scores.tsv", "topic\titem\tscore\tlabel\n1\t1-0\n", "1\t1-1\t0.25\tno\n")
    with cost() as figures, pytest.raises(ImportDataError) as info:
        import_run(campaign=qa_campaign, fmt="judge-scores", paths=[path], judge="ext")
    assert str(info.value) == f"{path}:2: score: missing value (row too short)"
    assert_cheap(figures, path)
    assert not ModelJudgment.objects.exists()


@pytest.mark.django_db
def test_a_bad_score_on_line_2_of_a_large_run_is_refused_without_reading_the_rest(image_campaign, tmp_path):
    path = large_write(tmp_path / "big.run", "eiffel-construction Q0 Q243-landscape 1 0.9 run-a\n"
                                             "eiffel-construction Q0 Q243-tall 2 high run-a\n",
                       "kilimanjaro-routes Q0 Q7296-square 3 0.5 run-a\n")
    with cost() as figures, pytest.raises(ImportDataError) as info:
        import_run(campaign=image_campaign, fmt="trec-run", paths=[path])
    assert str(info.value) == f"{path}:2: score: expected a number, got 'high'"
    assert_cheap(figures, path)


@pytest.mark.django_db
def test_a_bad_task_2_of_a_large_label_studio_export_is_refused_without_parsing_the_rest(tmp_path):
    campaign = CampaignFactory(slug="rank", task_type="answer_ranking")
    task = json.dumps({"id": 1, "data": {"qid": "q1", "query": "is it safe", "items": [
        {"id": "d1", "docno": "doc-1", "body": "Yes, mostly."}]}, "annotations": []})
    path = large_write(tmp_path / "export.json", f"[\n{task},\n{{\"id\": 2}},\n", f"{task},\n", f"{task}\n]\n")
    with cost() as figures, pytest.raises(ImportDataError) as info:
        import_run(campaign=campaign, fmt="label-studio", paths=[path])
    assert str(info.value) == f"{path}:2: data: missing or not an object"
    assert_cheap(figures, path)
    assert not Item.objects.filter(campaign=campaign).exists()


def _zip_of(name: str, text_head: str, filler: str) -> bytes:
    """A zip holding NAME: TEXT_HEAD, then FILLER repeated past LARGE bytes (it packs to a few hundred KB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        with bundle.open(name, "w") as sink:
            sink.write(text_head.encode())
            block = (filler * (1024 * 1024 // len(filler))).encode()
            for _ in range(LARGE // len(block) + 1):
                sink.write(block)
    return buffer.getvalue()


@pytest.mark.django_db
def test_a_zipped_nq301_folder_that_unpacks_large_is_read_from_disk_a_line_at_a_time(qa_campaign):
    packed = _zip_of("nq301/NQ301_human.tsv", "id\tQuestion\tModel answer\tAcceptable?\n1\twho\tShakespeare\n",
                     "2\twhat\tCanberra\tYes\n")
    assert len(packed) < LARGE // 50
    upload = SimpleUploadedFile("nq301.zip", packed)
    with cost() as figures, pytest.raises(ImportDataError) as info:
        uploads_import(campaign=qa_campaign, fmt="nq301", files=[upload])
    assert str(info.value) == "nq301/NQ301_human.tsv:2: Acceptable?: missing value (row too short)"
    assert figures["peak"] < PEAK_LIMIT, f"{figures['peak']:,} bytes allocated at the peak"
    if figures["read"] is not None:  # the zip itself, and two lines of what it unpacked to
        assert figures["read"] < len(packed) + READ_LIMIT


@pytest.mark.django_db
def test_a_run_that_returns_to_a_topic_still_has_its_repeated_docid_refused(tmp_path):
    import_data_run(slug="rank", task_type="answer_ranking", fmt="jsonl", paths=[_ranking_jsonl(tmp_path)])
    path = tmp_path / "mixed.run"
    path.write_text("q1 Q0 d1 1 0.9 r\nq2 Q0 d3 1 0.8 r\nq1 Q0 d2 2 0.7 r\nq2 Q0 d3 2 0.6 r\n")
    with pytest.raises(ImportDataError) as info:
        import_data_run(slug="rank", task_type="answer_ranking", fmt="trec-run", paths=[path])
    assert str(info.value) == f"{path}:4: docid: 'd3' appears twice under topic 'q2' (first on line 2)"
    path.write_text("q1 Q0 d1 1 0.9 r\nq2 Q0 d3 1 0.8 r\nq1 Q0 d2 2 0.7 r\n")
    summary = import_data_run(slug="rank", task_type="answer_ranking", fmt="trec-run", paths=[path])
    assert summary.items_by_judge == {"r": 3}


def _ranking_jsonl(folder: Path) -> Path:
    path = folder / "candidates.jsonl"
    topics = {"q1": ["d1", "d2"], "q2": ["d3"]}
    path.write_text("".join(json.dumps({"qid": qid, "query": f"query {qid}", "candidates": [
        {"id": cid, "kind": "document", "text": f"text of {cid}", "docno": cid} for cid in cids]}) + "\n"
                            for qid, cids in topics.items()))
    return path


def _export(tasks: int) -> list[dict]:
    return [{"id": n, "data": {"qid": f"q{n}", "query": f"question {n}", "items": [
        {"id": "d1", "docno": f"doc-{n}", "body": "A document.", "score": "0.5"},
        {"id": "a1", "docno": "gpt-4_p1_s1", "body": "An answer.", "score": "0.7"}]},
        "annotations": [{"completed_by": 1, "result": [{"value": {"ranker": {"rank": ["a1", "d1"]}}}]}]}
        for n in range(1, tasks + 1)]


def _line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


@pytest.mark.django_db
def test_label_studio_errors_name_the_task_or_the_file_line_far_into_the_file(tmp_path):
    tasks = _export(3000)
    path = tmp_path / "export.json"
    # One task a line, like a streamed export: a syntax error in task 2,500, past the parser's first chunks.
    text = "[\n" + ",\n".join(json.dumps(task) for task in tasks) + "\n]\n"
    broken = text.replace('"question 2500"', '"question 2500" "oops"', 1)
    path.write_text(broken, encoding="utf-8")
    assert len(broken) > 200_000
    with pytest.raises(ImportDataError) as info:
        import_data_run(slug="ls", task_type="answer_ranking", fmt="label-studio", paths=[path])
    assert info.value.line == _line_of(broken, '"oops"') == 2501
    assert str(info.value).startswith(f"{path}:2501: json: malformed JSON")

    # Pretty-printed, as Label Studio writes it: the line of the bad token, inside task 1,700.
    text = json.dumps(tasks, indent=2)
    broken = text.replace('"question 1700"', '"question 1700",,', 1)
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ImportDataError) as info:
        import_data_run(slug="ls", task_type="answer_ranking", fmt="label-studio", paths=[path])
    assert info.value.line == _line_of(broken, ",,") and info.value.line > 30_000

    # A byte that is not UTF-8 names its file line; a bad record its task.
    path.write_bytes(text.replace('"question 2000"', '"quest\xe9on 2000"').encode("latin-1"))
    with pytest.raises(ImportDataError) as info:
        import_data_run(slug="ls", task_type="answer_ranking", fmt="label-studio", paths=[path])
    assert str(info.value) == f"{path}:{_line_of(text, 'question 2000')}: encoding: not UTF-8 (byte 0xe9)"
    tasks[2899]["annotations"][0]["result"][0]["value"]["ranker"]["rank"] = ["a1", "ghost"]
    path.write_text(json.dumps(tasks, indent=2), encoding="utf-8")
    with pytest.raises(ImportDataError) as info:
        import_data_run(slug="ls", task_type="answer_ranking", fmt="label-studio", paths=[path])
    assert str(info.value) == (f"{path}:2900: annotations[0].result[0].value.ranker.rank: overall: no candidate "
                               "'ghost' in topic 'q2900'")
    assert not Campaign.objects.filter(slug="ls").exists()

    tasks[2899]["annotations"][0]["result"][0]["value"]["ranker"]["rank"] = ["a1", "d1"]
    path.write_text(json.dumps(tasks), encoding="utf-8")
    summary = import_data_run(slug="ls", task_type="answer_ranking", fmt="label-studio", paths=[path],
                              score_judge="ls-score")
    assert (summary.topics, summary.items, summary.count("rankings")) == (3000, 6000, 3000)
    assert summary.items_by_judge == {"ls-score": 6000}


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.django_db
def test_api_answers_name_uploaded_files_never_the_servers_folders(qa_campaign, image_campaign, researcher,
                                                                   imports_inline, settings):
    client = APIClient()
    client.force_authenticate(researcher)
    temp = tempfile.gettempdir()
    folders = (temp, str(settings.IMPORT_ROOT), str(settings.MEDIA_ROOT))

    upload = SimpleUploadedFile("scores.tsv", b"topic\titem\tscore\tlabel\n1\t1-0\t0.8\tyes\n")
    job = api_import(imports_inline, client, "/api/campaigns/qa/import/",
                     {"format": "judge-scores", "judge": "ext", "files": [upload]})
    assert job["summary"]["files"] == ["scores.tsv"]
    assert not any(folder in json.dumps(job) for folder in folders)

    # An error whose message names a second file: the other upload, by its name.
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("same.png", _png())
    uploads = [SimpleUploadedFile("same.png", _png()), SimpleUploadedFile("more.zip", bundle.getvalue())]
    job = api_import(imports_inline, client, "/api/campaigns/img/import/", {"format": "images", "files": uploads})
    assert job["error"] == "more.zip:same.png:0: name: image id 'same' also names same.png"

    packed = _zip_of("nq301/NQ301_human.tsv", "id\tQuestion\tModel answer\tAcceptable?\n1\twho\tShakespeare\tMaybe\n",
                     "2\twhat\tCanberra\tYes\n")
    job = api_import(imports_inline, client, "/api/campaigns/qa/import/",
                     {"format": "nq301", "files": [SimpleUploadedFile("nq301.zip", packed)]})
    assert job["error"] == "nq301/NQ301_human.tsv:2: Acceptable?: expected Yes or No, got 'Maybe'"
    assert not any(folder in json.dumps(job) for folder in folders)
