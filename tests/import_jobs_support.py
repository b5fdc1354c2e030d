"""Helpers for tests of import jobs (interchange.jobs): run a request's import job inline, read the job's API answer.

`imports_inline(client.post, ...)` makes the request with Celery eager and the transaction's on-commit callbacks run
when it returns, so the job the request queued has run (or failed) by then, in this process, against the test
database; with follow=True, the job page it redirects to is fetched after that.
"""

import pytest


@pytest.fixture
def imports_inline(monkeypatch, django_capture_on_commit_callbacks):
    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)
    monkeypatch.setattr(app.conf, "task_eager_propagates", True)

    def run(request, *args, follow: bool = False, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            response = request(*args, **kwargs)
        if follow and response.status_code == 302:  # the job has run: its page shows how it ended
            return request.__self__.get(response["Location"])
        return response

    return run


def job_of(response) -> dict:
    """The import job a 202 answer of POST .../import/ names, as GET on its URL gives it."""
    assert response.status_code == 202, response.content
    return response.json()


def api_import(imports_inline, client, url: str, data: dict) -> dict:
    """POST DATA (multipart) to the import URL of the API, the job run inline; the job as its URL then gives it."""
    response = imports_inline(client.post, url, data, format="multipart")
    body = job_of(response)
    assert response["Location"] == body["url"]
    job = client.get(body["url"])
    assert job.status_code == 200, job.content
    return job.json()
