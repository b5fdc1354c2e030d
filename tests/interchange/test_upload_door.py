"""Uploads meet the door before their body is read: who may import into the campaign is checked first (the import
page and the API), and a body over IMPORT_MAX_BYTES is refused before a byte of it is read, whatever the URL.

Each request's body is a stream that counts what the server reads of it: a refusal must read none of it.
"""

import pytest
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, FakePayload, encode_multipart

from annotate.models import Role
from tests.factories import CampaignFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

BODY_BYTES = 3 * 1024 * 1024


class CountingPayload(FakePayload):
    """The request body as the test client hands it to the server, counting the bytes the server reads."""

    def __init__(self, content):
        super().__init__(content)
        self.bytes_read = 0

    def read(self, *args, **kwargs):
        data = super().read(*args, **kwargs)
        self.bytes_read += len(data)
        return data

    def readline(self, *args, **kwargs):
        data = super().readline(*args, **kwargs)
        self.bytes_read += len(data)
        return data


def _upload_post(client: Client, url: str, **headers):
    """POST a 3 MB import (multipart) to URL; (the response, the bytes of the body the server read)."""
    body = encode_multipart(BOUNDARY, {"format": "qa-eval-jsonl", "files": _big_file()})
    payload = CountingPayload(body)
    response = client.generic("POST", url, body, content_type=MULTIPART_CONTENT, **{"wsgi.input": payload},
                              **headers)
    return response, payload.bytes_read


def _big_file():
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("NQ_big.jsonl", b'{"question": "q", "answer": ["a"], "prediction": "a"}\n'
                              * (BODY_BYTES // 55))


@pytest.fixture
def other_campaign(db):
    """A campaign the users of qa_campaign hold no role in, and its annotator."""
    campaign = CampaignFactory(slug="other", task_type="qa_correctness")
    outsider = UserFactory(username="outsider")
    MembershipFactory(campaign=campaign, user=outsider, role=Role.ANNOTATOR)
    return campaign, outsider


@pytest.mark.parametrize("url", ["/api/campaigns/qa/import/", "/campaigns/qa/import/"])
@pytest.mark.parametrize("who, status", [("ann", 403), ("outsider", 404)])
def test_a_session_that_may_not_import_is_refused_before_its_upload_is_read(qa_campaign, other_campaign, url, who,
                                                                            status, settings, tmp_path):
    """An annotator of the campaign (403) and an annotator of another campaign (404), signed in with a browser
    session that enforces CSRF (whose check reads a form body): nothing of the 3 MB is read, nothing is stored."""
    settings.IMPORT_ROOT = tmp_path / "imports"
    settings.FILE_UPLOAD_TEMP_DIR = tmp_path / "temp"
    settings.FILE_UPLOAD_TEMP_DIR.mkdir()
    client = Client(enforce_csrf_checks=True)
    client.force_login(qa_campaign.memberships.get(user__username="ann").user if who == "ann" else other_campaign[1])
    client.get("/")  # a signed-in browser holds a CSRF cookie, and its page scripts send the token
    response, read = _upload_post(client, url, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert response.status_code == status
    assert read == 0, f"the server read {read:,} bytes of the upload before refusing it"
    assert not settings.IMPORT_ROOT.exists() or not any(settings.IMPORT_ROOT.rglob("*"))
    assert not any(settings.FILE_UPLOAD_TEMP_DIR.iterdir())


def test_a_researchers_session_upload_still_needs_its_csrf_token(qa_campaign, researcher, settings, tmp_path):
    settings.IMPORT_ROOT = tmp_path / "imports"
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    response, _ = _upload_post(client, "/api/campaigns/qa/import/")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    client.get("/campaigns/qa/import/")  # the page sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response, read = _upload_post(client, "/api/campaigns/qa/import/", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 202, response.content
    assert read > BODY_BYTES * 0.9


def test_a_session_that_is_not_staff_is_refused_an_archive_upload_before_it_is_read(qa_campaign, researcher,
                                                                                     settings, tmp_path):
    settings.IMPORT_ROOT = tmp_path / "imports"
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    client.get("/")
    response, read = _upload_post(client, "/api/campaign-archives/", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert response.status_code == 403 and read == 0


def test_a_body_over_the_request_limit_is_refused_at_the_door_before_it_is_read(qa_campaign, researcher, settings,
                                                                               tmp_path):
    """A researcher who may import still meets the size limit: 413 from the Content-Length, nothing read; the
    same URL takes a body under the limit."""
    settings.IMPORT_ROOT = tmp_path / "imports"
    settings.REQUEST_MAX_BYTES = 2 * 1024 * 1024
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    client.get("/")
    token = client.cookies["csrftoken"].value
    for url in ("/api/campaigns/qa/import/", "/campaigns/qa/import/", "/no/such/page/"):
        response, read = _upload_post(client, url, HTTP_X_CSRFTOKEN=token)
        assert (response.status_code, read) == (413, 0), url
        assert response.content.decode().startswith("The request body is 3,088,7")
        assert "setting REQUEST_MAX_BYTES" in response.content.decode()
    assert not settings.IMPORT_ROOT.exists() or not any(settings.IMPORT_ROOT.rglob("*"))
    settings.REQUEST_MAX_BYTES = 4 * 1024 * 1024
    response, _ = _upload_post(client, "/api/campaigns/qa/import/", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 202


def test_a_chunked_body_without_its_length_is_refused(qa_campaign, researcher):
    client = Client()
    client.force_login(researcher)
    response, read = _upload_post(client, "/api/campaigns/qa/import/", CONTENT_LENGTH="",
                                  HTTP_TRANSFER_ENCODING="chunked")
    assert (response.status_code, read) == (411, 0)
    assert "must come with its Content-Length" in response.content.decode()
