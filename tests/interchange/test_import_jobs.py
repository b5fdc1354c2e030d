"""Import jobs (interchange.jobs): the page and the API store the upload and answer at once, a worker imports it all
or nothing with its progress recorded, a campaign's jobs run one after the other, and new items meet the judges."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import MULTIPART_CONTENT, RequestFactory, encode_multipart
from rest_framework.test import APIClient

from annotate.models import Campaign, Item
from interchange import jobs
from interchange.importers import progress
from interchange.jobs import import_job_create, import_job_execute, job_folder
from interchange.models import ImportJob
from judges.models import JudgeRun, ModelJudgment
from judges.services import judge_run_start
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

QUESTIONS = [("who wrote hamlet", ["William Shakespeare"], "Shakespeare"),
             ("what is the largest planet", ["Jupiter"], "Saturn"),
             ("how many continents are there", ["seven", "7"], "7")]


def qa_lines(rows=QUESTIONS) -> bytes:
    return b"".join(json.dumps({"question": q, "answer": gold, "prediction": p}).encode() + b"\n"
                    for q, gold, p in rows)


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_job_imports_in_the_background_and_keeps_its_figures(qa_campaign, researcher, imports_inline, settings):
    body = qa_lines()
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "qa-eval-jsonl", "system": "sys-a", "files": [SimpleUploadedFile("NQ_a.jsonl", body)]})
    assert job["status"] == "done" and job["error"] == ""
    assert (job["rows_read"], job["bytes_read"], job["bytes_total"], job["percent"]) == (3, len(body), len(body), 100)
    assert job["summary"]["items_created"] == 3 and job["summary"]["systems"] == ["sys-a"]
    assert job["parameters"] == {"system": "sys-a"} and job["created_by"] == "res"
    assert Item.objects.filter(campaign=qa_campaign).count() == 9
    assert not job_folder(job["id"]).exists()  # the files are gone once the job ends
    listed = api(researcher).get("/api/campaigns/qa/imports/").json()
    assert [entry["id"] for entry in listed] == [job["id"]] and listed[0]["status"] == "done"


def test_the_api_answers_202_at_once_with_the_jobs_url(qa_campaign, researcher, settings):
    response = api(researcher).post("/api/campaigns/qa/import/", {
        "format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]}, format="multipart")
    assert response.status_code == 202
    body = response.json()
    assert response["Location"] == body["url"] == f"http://testserver/api/campaigns/qa/imports/{body['id']}/"
    assert body["page"] == f"http://testserver/campaigns/qa/imports/{body['id']}/"
    # Nothing has run yet (no worker here): the job waits with its file stored, and nothing is imported.
    job = api(researcher).get(body["url"]).json()
    assert (job["status"], job["summary"], job["rows_read"], job["percent"]) == ("queued", None, 0, 0)
    assert (job_folder(body["id"]) / "files" / "NQ_a.jsonl").read_bytes() == qa_lines()
    assert Item.objects.filter(campaign=qa_campaign).count() == 6
    # A request no file could serve is refused at once.
    response = api(researcher).post("/api/campaigns/qa/import/", {
        "format": "judge-scores", "files": [SimpleUploadedFile("s.tsv", b"topic\titem\tscore\n")]}, format="multipart")
    assert response.status_code == 400 and response.json() == {"detail": "format judge-scores needs a judge name "
                                                                          "(--judge NAME)"}
    assert ImportJob.objects.count() == 1


def test_progress_is_written_while_the_import_runs(qa_campaign, researcher, monkeypatch):
    rows = [(f"question number {n}", [f"answer {n}"], f"answer {n}") for n in range(50)]
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_many.jsonl", qa_lines(rows))])
    seen = []
    write = jobs._progress_write
    monkeypatch.setattr(progress, "INTERVAL", 0)  # a report for every row
    monkeypatch.setattr(jobs, "_progress_write", lambda folder, figures: (seen.append(figures), write(folder, figures)))
    import_job_execute(job_id=job.id)
    assert [figures["rows_read"] for figures in seen] == list(range(1, 51))
    assert all(0 < figures["bytes_read"] <= job.bytes_total for figures in seen)
    job.refresh_from_db()
    assert (job.status, job.rows_read, job.bytes_read) == ("done", 50, job.bytes_total)


def test_a_running_jobs_page_reads_its_progress_file(client, qa_campaign, researcher):
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_a.jsonl", b"x" * 4000)])
    ImportJob.objects.filter(pk=job.id).update(status="running")
    jobs._progress_write(job_folder(job.id), {"rows_read": 1234, "bytes_read": 1000})
    client.force_login(researcher)
    page = client.get(f"/campaigns/qa/imports/{job.id}/", HTTP_HX_REQUEST="true")
    text = page.content.decode()
    assert page.status_code == 200 and 'hx-trigger="every 1s"' in text  # still polling
    assert '<b class="num" id="rows-read">1234</b>' in text and "(25%)" in text
    ImportJob.objects.filter(pk=job.id).update(status="failed", error="NQ_a.jsonl:1: json: malformed JSON")
    page = client.get(f"/campaigns/qa/imports/{job.id}/", HTTP_HX_REQUEST="true")
    assert page.status_code == 286 and "every 1s" not in page.content.decode()  # the poll stops
    assert "NQ_a.jsonl:1: json: malformed JSON" in page.content.decode()


def test_a_failing_file_leaves_nothing_and_the_job_names_file_line_and_field(qa_campaign, researcher, imports_inline):
    good, bad = qa_lines(), qa_lines()[:-1] + b'\n{"question": "q", "answer": "gold", "prediction": "p"}\n'
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/", {
        "format": "qa-eval-jsonl",
        "files": [SimpleUploadedFile("NQ_good.jsonl", good), SimpleUploadedFile("NQ_bad.jsonl", bad)]})
    assert job["status"] == "failed" and job["summary"] is None
    assert job["error"] == "NQ_bad.jsonl:4: answer: expected a list of strings, got str"
    assert Item.objects.filter(campaign=qa_campaign).count() == 6  # NQ_good.jsonl's items were rolled back too
    assert not job_folder(job["id"]).exists()


def test_a_value_over_the_limit_is_refused_with_file_line_and_field(qa_campaign, researcher, imports_inline, settings):
    settings.IMPORT_MAX_VALUE_CHARS = 40
    rows = [*QUESTIONS[:2], ("who painted the ceiling", ["Michelangelo"], "m" * 41)]
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_long.jsonl", qa_lines(rows))]})
    assert job["error"] == ("NQ_long.jsonl:3: prediction: value of 41 characters; an import takes at most 40 "
                            "characters a value (IMPORT_MAX_VALUE_CHARS)")
    assert Item.objects.filter(campaign=qa_campaign).count() == 6
    scores = b"topic\titem\tscore\tlabel\n1\t1-0\t0.5\t" + b"y" * 41 + b"\n"
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "judge-scores", "judge": "ext", "files": [SimpleUploadedFile("s.tsv", scores)]})
    assert job["error"].startswith("s.tsv:2: label: value of 41 characters")


def test_a_campaigns_jobs_run_one_after_the_other(qa_campaign, researcher, monkeypatch,
                                                  django_capture_on_commit_callbacks):
    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)
    monkeypatch.setattr(app.conf, "task_eager_propagates", True)
    order = []
    execute = jobs.import_job_execute
    monkeypatch.setattr(jobs, "import_job_execute", lambda *, job_id: (order.append(job_id), execute(job_id=job_id)))
    first = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                              files=[SimpleUploadedFile("NQ_a.jsonl", qa_lines(QUESTIONS[:2]))])  # queued, not run
    with django_capture_on_commit_callbacks(execute=True):
        second = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                                   files=[SimpleUploadedFile("NQ_b.jsonl", qa_lines(QUESTIONS[1:]))])
    second.refresh_from_db()
    assert second.status == "queued" and order == []  # the first job of the campaign waits: the second waits for it
    ImportJob.objects.filter(pk=first.id).update(status="running")
    execute(job_id=second.id)  # a delivery while the first runs leaves it queued
    second.refresh_from_db()
    assert second.status == "queued"
    ImportJob.objects.filter(pk=first.id).update(status="queued")
    with django_capture_on_commit_callbacks(execute=True):
        app.tasks["interchange.tasks.import_job_run"].delay(first.id)
    first.refresh_from_db()
    second.refresh_from_db()
    assert order == [first.id, second.id]
    assert (first.status, second.status) == ("done", "done") and first.finished_at <= second.started_at
    assert (first.summary["items_created"], second.summary["items_created"]) == (2, 1)  # the shared question once
    import_job_execute(job_id=first.id)  # a second delivery of an ended job does nothing
    assert ImportJob.objects.get(pk=first.id).finished_at == first.finished_at


def test_uploads_stream_to_disk_under_the_import_root(qa_campaign, researcher, settings):
    body = encode_multipart("BoUnDaRy", {"format": "qa-eval-jsonl", "files": SimpleUploadedFile("NQ.jsonl", b"x" * 50)})
    request = RequestFactory().post("/", body, content_type=MULTIPART_CONTENT.replace("BoUnDaRyStRiNg", "BoUnDaRy"))
    request.upload_handlers = jobs.import_upload_handlers(request)
    upload = request.FILES["files"]
    assert upload.temporary_file_path().startswith(str(settings.IMPORT_ROOT / "incoming"))
    assert upload.read() == b"x" * 50


def _judged_campaign(qa_campaign, researcher, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, created_by=researcher)
    assert ModelJudgment.objects.filter(judge__name="em").count() == 6


def test_the_judge_page_counts_new_items_and_judges_them_in_one_click(client, qa_campaign, researcher,
                                                                       imports_inline,
                                                                       django_capture_on_commit_callbacks):
    _judged_campaign(qa_campaign, researcher, django_capture_on_commit_callbacks)
    client.force_login(researcher)
    assert "Judge " not in client.get("/campaigns/qa/judges/").content.decode().split('id="judges"')[1].split(
        "</table>")[0]
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]})
    assert job["summary"]["items_created"] == 3 and job["summary"]["judge_runs"] == []  # the option is off
    judge = qa_campaign.judges.get()
    page = client.get("/campaigns/qa/judges/").content.decode()
    assert "Judge 3 new items" in page
    response = imports_inline(client.post, f"/campaigns/qa/judges/{judge.id}/judge-new-items/", follow=True)
    run = JudgeRun.objects.latest("id")
    assert (run.new_items, run.total, run.status) == (True, 3, "succeeded")
    assert sorted(run.sample_item_ids) == sorted(Item.objects.filter(campaign=qa_campaign, topic__text__in=[
        q for q, _, _ in QUESTIONS]).values_list("id", flat=True))
    page = response.content.decode()
    assert f"Run {run.id} of judge em: 3 new items" in page and "(the 3 items new to the judge)" in page
    assert '<td class="new-items" id="new-items-' in page and "Judge 3 new items" not in page
    assert ModelJudgment.objects.filter(judge=judge).count() == 9
    again = client.post(f"/campaigns/qa/judges/{judge.id}/judge-new-items/", follow=True).content.decode()
    assert "judge &#x27;em&#x27; has judged every item of the campaign" in again


def test_the_api_counts_a_judges_new_items_and_judges_them(qa_campaign, researcher, annotator, imports_inline,
                                                           django_capture_on_commit_callbacks):
    _judged_campaign(qa_campaign, researcher, django_capture_on_commit_callbacks)
    client = api(researcher)
    judges = client.get("/api/campaigns/qa/judges/").json()["results"]
    assert [(j["name"], j["judgments"], j["items_not_judged"]) for j in judges] == [("em", 6, 0)]
    api_import(imports_inline, client, "/api/campaigns/qa/import/",
               {"format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]})
    api_import(imports_inline, client, "/api/campaigns/qa/import/", {"format": "judge-scores", "judge": "outside",
               "files": [SimpleUploadedFile("s.tsv", b"topic\titem\tscore\n1\t1-0\t0.5\n")]})
    judges = {j["name"]: j for j in client.get("/api/campaigns/qa/judges/").json()["results"]}
    assert judges["em"]["items_not_judged"] == 3
    assert judges["outside"]["external"] and judges["outside"]["items_not_judged"] is None  # imported: cannot run
    judge = qa_campaign.judges.get(name="em")
    url = f"/api/campaigns/qa/judges/{judge.id}/judge-new-items/"
    assert api(annotator).post(url).status_code == 403
    answer = imports_inline(client.post, url)
    assert answer.status_code == 201, answer.content
    run = JudgeRun.objects.get(pk=answer.json()["id"])
    assert (run.new_items, run.total, run.status, answer.json()["judge"]) == (True, 3, "succeeded", "em")
    assert client.get("/api/campaigns/qa/judges/").json()["results"][0]["items_not_judged"] == 0
    again = client.post(url)
    assert again.status_code == 400 and "has judged every item" in again.json()["detail"]
    outside = qa_campaign.judges.get(name="outside")
    refused = client.post(f"/api/campaigns/qa/judges/{outside.id}/judge-new-items/")
    assert refused.status_code == 400 and "was imported" in refused.json()["detail"]
    assert client.post("/api/campaigns/qa/judges/999999/judge-new-items/").status_code == 404


def test_the_option_judge_new_items_starts_the_runs_after_an_import(qa_campaign, researcher, imports_inline,
                                                                     django_capture_on_commit_callbacks, client):
    _judged_campaign(qa_campaign, researcher, django_capture_on_commit_callbacks)
    Campaign.objects.filter(pk=qa_campaign.pk).update(options={"judge_new_items": True})
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]})
    run = JudgeRun.objects.latest("id")
    assert job["summary"]["judge_runs"] == [{"judge": "em", "run": run.id, "items": 3}]
    assert run.new_items and run.created_by == researcher and run.status == "succeeded"
    assert ModelJudgment.objects.filter(judge__name="em").count() == 9
    client.force_login(researcher)
    page = client.get(f"/campaigns/qa/imports/{job['id']}/").content.decode()
    assert f"judge em: run {run.id} started on 3 new items (option judge_new_items)" in page
    # An import that adds no item starts nothing.
    job = api_import(imports_inline, api(researcher), "/api/campaigns/qa/import/",
                     {"format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]})
    assert job["summary"]["items_created"] == 0 and job["summary"]["judge_runs"] == []


def test_import_data_at_the_command_line_starts_the_judges_too(qa_campaign, researcher, tmp_path, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    from io import StringIO

    from django.core.management import call_command

    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)
    _judged_campaign(qa_campaign, researcher, django_capture_on_commit_callbacks)
    Campaign.objects.filter(pk=qa_campaign.pk).update(options={"judge_new_items": True})
    path = tmp_path / "NQ_cli.jsonl"
    path.write_bytes(qa_lines())
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_data", "--campaign", "qa", "--task-type", "qa_correctness", "--format", "qa-eval-jsonl",
                     str(path), stdout=out)
    run = JudgeRun.objects.latest("id")
    assert f"judge em: run {run.id} started on 3 new items (option judge_new_items)" in out.getvalue()
    assert ImportJob.objects.count() == 0  # the command imports in its own process, as before
    assert ModelJudgment.objects.filter(judge__name="em").count() == 9


@pytest.mark.django_db(transaction=True)  # the job is queued when the request's transaction commits, as served
def test_a_broker_that_cannot_be_reached_fails_the_job_at_once(qa_campaign, researcher, monkeypatch):
    from kombu.exceptions import OperationalError

    from interchange.tasks import import_job_run

    def unreachable(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    monkeypatch.setattr(import_job_run, "apply_async", unreachable)
    response = api(researcher).post("/api/campaigns/qa/import/", {
        "format": "qa-eval-jsonl", "files": [SimpleUploadedFile("NQ_a.jsonl", qa_lines())]}, format="multipart")
    assert response.status_code == 503
    assert "the Celery broker is unreachable ([Errno 111] Connection refused)" in response.json()["detail"]
    job = ImportJob.objects.get()
    assert job.status == "failed" and "broker is unreachable" in job.error and not job_folder(job.id).exists()
    assert Item.objects.filter(campaign=qa_campaign).count() == 6


def test_a_job_whose_import_was_committed_before_its_worker_died_is_only_finished(qa_campaign, researcher):
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_a.jsonl", qa_lines())])
    import_job_execute(job_id=job.id)
    # As if the worker had died after the import's transaction and before the job was marked done: delivered again.
    ImportJob.objects.filter(pk=job.id).update(status="running", finished_at=None)
    import_job_execute(job_id=job.id)
    job.refresh_from_db()
    assert job.status == "done" and job.summary["items_created"] == 3
    assert Item.objects.filter(campaign=qa_campaign).count() == 9  # not imported twice (the files are gone anyway)


def test_an_import_that_takes_more_memory_than_allowed_fails_its_job_and_the_limit_is_lifted_after(
        qa_campaign, researcher, monkeypatch, settings):
    """An input no check foresaw (here a reader that grows by 256 MB) meets IMPORT_MEMORY_LIMIT: the job fails with
    a message naming the setting, nothing is imported, and the process's own limit is as it was."""
    import resource

    settings.IMPORT_MEMORY_LIMIT = 64 * 1024**2
    read = jobs.folder_import

    def greedy(**kwargs):
        held = bytearray(256 * 1024**2)
        held[-1] = 1
        return read(**kwargs)

    monkeypatch.setattr(jobs, "folder_import", greedy)
    before = resource.getrlimit(resource.RLIMIT_AS)
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_a.jsonl", qa_lines())])
    import_job_execute(job_id=job.id)
    job.refresh_from_db()
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert job.status == "failed"
    assert job.error == ("stopped: the import used more memory than allowed (67,108,864 bytes, setting "
                         "IMPORT_MEMORY_LIMIT); nothing was imported. Check the file, split it, or raise the limit")
    assert Item.objects.filter(campaign=qa_campaign).count() == 6
    assert bytearray(256 * 1024**2)  # the limit is gone once the job has ended


def test_a_job_started_as_often_as_allowed_is_not_imported_again(qa_campaign, researcher):
    """The message of a job whose workers were lost at each start (tests/project/test_worker_kill.py kills them for
    real):
    its next start fails the job, imports nothing, and queues the campaign's next job."""
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_a.jsonl", qa_lines())])
    ImportJob.objects.filter(pk=job.id).update(status="running", deliveries=2)  # two starts, two lost workers
    import_job_execute(job_id=job.id)
    job.refresh_from_db()
    assert (job.status, job.deliveries) == ("failed", 2)
    assert job.error.startswith("stopped: the import used more memory than allowed, or its worker was lost "
                                "otherwise: the worker running it was killed 2 times (settings IMPORT_MEMORY_LIMIT, "
                                "IMPORT_MAX_STARTS)")
    assert Item.objects.filter(campaign=qa_campaign).count() == 6 and not job_folder(job.id).exists()


def test_a_running_job_no_worker_holds_is_shown_as_stalled(client, qa_campaign, researcher, settings):
    """A job marked running whose worker has written no heartbeat for six beats (here: started a minute ago, none
    since) is stalled on its page, the campaign's import page and in the API; a fresh heartbeat makes it running."""
    from datetime import timedelta

    from django.utils import timezone

    settings.IMPORT_HEARTBEAT_SECONDS = 10
    job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                            files=[SimpleUploadedFile("NQ_a.jsonl", qa_lines())])
    ImportJob.objects.filter(pk=job.id).update(status="running", started_at=timezone.now() - timedelta(seconds=61))
    client.force_login(researcher)
    url = f"/campaigns/qa/imports/{job.id}/"
    text = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-status="stalled"' in text and "Stalled: no worker holds this import" in text
    assert 'hx-trigger="every 1s"' in text  # still polled: a worker may take it back
    assert api(researcher).get(f"/api/campaigns/qa/imports/{job.id}/").json()["status"] == "stalled"
    assert "<td>Stalled</td>" in client.get("/campaigns/qa/import/").content.decode()
    (job_folder(job.id) / "heartbeat").touch()  # what the worker's heartbeat thread writes
    assert 'data-status="running"' in client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert api(researcher).get(f"/api/campaigns/qa/imports/{job.id}/").json()["status"] == "running"
