"""The import page: researchers upload files; others get 404; errors name file, line and field."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.models import Role
from interchange.models import ImportJob
from judges.models import ModelJudgment
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.import_jobs_support import imports_inline  # noqa: F401 (a fixture)


def test_page_is_403_for_annotators_and_404_for_outsiders(client, qa_campaign, annotator, password):
    for username, status in (("ann", 403), ("stranger", 404)):
        UserFactory(username=username)
        client.login(username=username, password=password)
        assert client.get("/campaigns/qa/import/").status_code == status
        assert client.post("/campaigns/qa/import/", {}).status_code == status


def test_researcher_uploads_judge_scores_and_sees_the_summary(client, qa_campaign, password, imports_inline):
    client.login(username="res", password=password)
    assert client.get("/campaigns/qa/import/").status_code == 200
    upload = SimpleUploadedFile("scores.tsv", b"topic\titem\tscore\tlabel\n1\t1-0\t1\tyes\n1\t1-1\t0\tno\n")
    response = imports_inline(client.post, "/campaigns/qa/import/",
                              {"format": "judge-scores", "judge": "ext", "files": upload})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/campaigns/qa/imports/{job.id}/"
    page = client.get(response["Location"]).content.decode()
    assert "items judged by ext: 2" in page and 'data-status="done"' in page
    assert ModelJudgment.objects.count() == 2
    listed = client.get("/campaigns/qa/import/").content.decode()  # the import page lists the campaign's imports
    assert f'href="/campaigns/qa/imports/{job.id}/"' in listed and "scores.tsv" in listed


def test_bad_upload_shows_the_error_line(client, qa_campaign, password, imports_inline):
    client.login(username="res", password=password)
    upload = SimpleUploadedFile("NQ_sys.jsonl", b'{"question": "q", "answer": "a", "prediction": "p"}\n')
    response = imports_inline(client.post, "/campaigns/qa/import/", {"format": "qa-eval-jsonl", "files": upload},
                              follow=True)
    page = response.content.decode()
    assert 'data-status="failed"' in page and "Nothing was imported." in page
    assert "NQ_sys.jsonl:1: answer: expected a list of strings, got str" in page
    # A request no file can serve is refused at once, on the import page.
    upload = SimpleUploadedFile("scores.tsv", b"topic\titem\tscore\n")
    response = client.post("/campaigns/qa/import/", {"format": "judge-scores", "files": upload})
    assert response.status_code == 400 and "Format judge-scores needs a judge name" in response.content.decode()


def test_the_page_asks_for_a_judge_name_where_a_format_needs_one_and_shows_file_lines_as_code(client, researcher,
                                                                                             password):
    """It called the judge name "optional" and then answered "needs a judge name (--judge NAME)", a command-line
    option the page has no field for; its help showed raw backticks; its breadcrumb ended in "›"."""
    campaign = CampaignFactory(slug="pas", task_type="passage_relevance")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.login(username="res", password=password)
    page = client.get("/campaigns/pas/import/").content.decode()
    assert "› Import data</p>" in page
    assert "Judge name <span class=\"muted\">(needed for judge-qrels, judge-scores and trec-leaderboard)</span>" in page
    assert "<code>qid 0 docid grade</code> lines on the campaign&#x27;s scale" in page
    assert "`" not in page.split('id="recent-imports"')[0]

    upload = SimpleUploadedFile("j.qrels", b"q1 0 d1 2\n")
    response = client.post("/campaigns/pas/import/", {"format": "judge-qrels", "files": upload})
    page = response.content.decode()
    assert response.status_code == 400 and '<p class="error" id="judge-error">Format judge-qrels needs a judge name: ' \
        "type the name its verdicts go under (gpt-4, say) in Judge name.</p>" in page
    assert "--judge" not in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_import_page_in_a_browser(login_page, qa_campaign, tmp_path, settings, monkeypatch):
    from config.celery import app

    # The live server runs in this process: with Celery eager, the job runs before the page redirects to it.
    monkeypatch.setattr(app.conf, "task_always_eager", True)
    scores = tmp_path / "scores.tsv"
    scores.write_text("topic\titem\tscore\tlabel\n1\t1-0\t0.9\tyes\n2\t2-1\t0.2\tno\n3\t3-0\tmaybe\t\n")
    page = login_page("res")
    page.goto(page.url.rstrip("/") + "/campaigns/qa/import/")
    page.select_option("select[name=format]", "judge-scores")
    page.fill("input[name=judge]", "bm25-ext")
    page.set_input_files("input[name=files]", str(scores))
    page.click("button[type=submit]")
    assert "scores.tsv:4: score: expected a number, got 'maybe'" in page.locator("#import-error").inner_text()
    page.goto(page.url.split("/campaigns/")[0] + "/campaigns/qa/import/")
    scores.write_text("topic\titem\tscore\tlabel\n1\t1-0\t0.9\tyes\n2\t2-1\t0.2\tno\n")
    page.set_input_files("input[name=files]", str(scores))
    page.select_option("select[name=format]", "judge-scores")
    page.fill("input[name=judge]", "bm25-ext")
    page.click("button[type=submit]")
    assert "items judged by bm25-ext: 2" in page.locator("#import-summary").inner_text()
    page.screenshot(path=str(settings.BASE_DIR / "var" / "screenshot-import.png"), full_page=True)


@pytest.mark.django_db
def test_ranking_campaign_page_offers_its_formats_and_the_score_judge(client, researcher, password, imports_inline):
    import json

    from annotate.models import Role
    from tests.factories import CampaignFactory, MembershipFactory
    from tests.tasktypes.test_import_answer_ranking import ls_export

    campaign = CampaignFactory(slug="rank", task_type="answer_ranking")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    page = client.get("/campaigns/rank/import/").content.decode()
    for name in ("label-studio", "jsonl", "trec-qrels", "trec-run", "judge-scores"):
        assert f'<option value="{name}"' in page
    assert '<option value="nq301"' not in page and 'name="system"' not in page
    upload = SimpleUploadedFile("study.json", json.dumps(ls_export()).encode())
    response = imports_inline(client.post, "/campaigns/rank/import/",
                              {"format": "label-studio", "score_judge": "study", "files": upload}, follow=True)
    assert response.status_code == 200, response.content.decode()[:2000]
    assert "candidates scored by study: 7" in response.content.decode()
    assert ModelJudgment.objects.filter(judge__name="study").count() == 7
