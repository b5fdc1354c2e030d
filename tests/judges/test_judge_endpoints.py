"""The judges' trust boundary: model endpoints registered by staff, allowed hosts and model folders, limits.

Researchers write judge configurations; workers run them with their own environment, network and file system.
These tests play the hostile researcher against real local chat servers (tests/llm_server.py) and real runs.
"""

import importlib
import io
import json
import os
import re
import sys

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from annotate.models import Role
from judges.boundary import model_check, model_location
from judges.crypto import secret_decrypt
from judges.endpoints import endpoint_register
from judges.errors import JudgeConfigError
from judges.families import family_get
from judges.identity import config_hash
from judges.models import Judge, JudgeRun, KeySource, ModelEndpoint, RunStatus
from judges.services import judge_run_start
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.llm_server import chat_server, raw

WORKER_SECRET = "sk-worker-environment-SECRET-7c1f0e"
STORED_SECRET = "sk-stored-in-the-database-SECRET-93ab"
MIGRATION = importlib.import_module("judges.migrations.0004_judge_keys_to_endpoints")


def _llm(**extra) -> dict:
    return {"backend": "openai", "model": "judge-model", "n": 1, "decoding": "greedy", "concurrency": 1,
            "timeout": 5.0, "max_retries": 0, **extra}


def _says_yes():
    return raw(
        json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Same answer.\nyes"}}]})
    )


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def _environment_secrets() -> set[str]:
    """Every value of this process's environment long enough to be a secret (the worker's, in these tests)."""
    return {value for value in os.environ.values() if len(value) >= 12}


@pytest.fixture
def worker_secrets(monkeypatch):
    monkeypatch.setenv("CONCORD_TEST_WORKER_SECRET", WORKER_SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-key-of-the-operator-0001")
    return _environment_secrets()


# --- no environment variable reaches a host that is not a registered endpoint ---


@pytest.mark.django_db
def test_no_environment_variable_reaches_a_host_that_is_not_a_registered_endpoint(
    qa_campaign, researcher, eager, worker_secrets, django_capture_on_commit_callbacks,  # noqa: F811
):
    api = _api(researcher)
    with chat_server() as registered, chat_server() as listener:
        for server in (registered, listener):
            server.script(*[_says_yes() for _ in range(6)])
        endpoint_register(name="lab-llm", base_url=registered.base_url, model_ids=["judge-model"],
                          key_env="CONCORD_TEST_WORKER_SECRET", campaigns=[qa_campaign])
        # The old way to exfiltrate: name any variable of the workers. Refused before anything is sent.
        for attack in ({"api_key_env": "CONCORD_TEST_WORKER_SECRET"}, {"api_key_env": "SECRET_KEY"},
                       {"api_key": "x"}):
            answer = api.post("/api/campaigns/qa/judge-runs/",
                              {"judge": "spy", "family": "llm", "config": _llm(base_url=listener.base_url, **attack)},
                              format="json")
            assert answer.status_code == 400 and "no longer accepted" in answer.json()["detail"], answer.json()
        # A free-form URL (allowed host here) is sent no key at all.
        with django_capture_on_commit_callbacks(execute=True):
            answer = api.post("/api/campaigns/qa/judge-runs/",
                              {"judge": "free", "family": "llm", "config": _llm(base_url=listener.base_url)},
                              format="json")
        assert answer.status_code == 201, answer.json()
        # The registered endpoint gets its key, from the variable staff named.
        with django_capture_on_commit_callbacks(execute=True):
            answer = api.post("/api/campaigns/qa/judge-runs/",
                              {"judge": "lab", "family": "llm", "config": _llm(endpoint="lab-llm")}, format="json")
        assert answer.status_code == 201, answer.json()
        heard, registered_heard = list(listener.requests), list(registered.requests)

    assert len(heard) == 6 and len(registered_heard) == 6  # 6 items each, one sample each
    for request in heard:
        assert "authorization" not in {name.lower() for name in request.headers}
        sent = json.dumps(request.headers) + json.dumps(request.body)
        assert not [secret for secret in worker_secrets if secret in sent]
    assert {r.headers["Authorization"] for r in registered_heard} == {f"Bearer {WORKER_SECRET}"}
    assert JudgeRun.objects.filter(status=RunStatus.SUCCEEDED).count() == 2


# --- grants: campaigns, groups, switched off ---


@pytest.mark.django_db
def test_a_researcher_of_campaign_a_cannot_use_an_endpoint_granted_only_to_campaign_b(qa_campaign, researcher):
    theirs = CampaignFactory(slug="theirs", task_type="qa_correctness")
    with chat_server() as server:
        endpoint_register(name="theirs-only", base_url=server.base_url, key=STORED_SECRET, campaigns=[theirs])
        answer = _api(researcher).post("/api/campaigns/qa/judge-runs/",
                                       {"judge": "borrow", "family": "llm", "config": _llm(endpoint="theirs-only")},
                                       format="json")
        assert server.requests == []
    assert answer.status_code == 400
    assert "model endpoint 'theirs-only' does not exist, is switched off, or is not granted to campaign 'qa'" in \
        answer.json()["detail"]
    assert not Judge.objects.filter(name="borrow").exists()
    # Nor does it show among the endpoints the researcher may pick.
    assert _api(researcher).get("/api/campaigns/qa/endpoints/").json() == []


@pytest.mark.django_db
def test_a_group_grant_follows_its_members_and_a_switched_off_endpoint_serves_nobody(qa_campaign, researcher):
    group = Group.objects.create(name="nlp-lab")
    endpoint = endpoint_register(name="lab", base_url="http://gpu1.lab:8000/v1", model_ids=["judge-model"],
                                 groups=[group])
    api = _api(researcher)
    assert api.get("/api/campaigns/qa/endpoints/").json() == []
    researcher.groups.add(group)
    assert [e["name"] for e in api.get("/api/campaigns/qa/endpoints/").json()] == ["lab"]
    ModelEndpoint.objects.filter(pk=endpoint.pk).update(enabled=False)
    assert api.get("/api/campaigns/qa/endpoints/").json() == []


@pytest.mark.django_db
def test_an_endpoint_revoked_after_the_start_stops_the_run_on_the_worker(
    qa_campaign, researcher, eager, django_capture_on_commit_callbacks,  # noqa: F811
):
    with chat_server() as server:
        endpoint = endpoint_register(name="lab", base_url=server.base_url, campaigns=[qa_campaign])
        with django_capture_on_commit_callbacks(execute=False) as queued:
            run = judge_run_start(campaign=qa_campaign, name="lab", family="llm", config=_llm(endpoint="lab"),
                                  created_by=researcher)
        endpoint.campaigns.clear()  # staff take it back before a worker picks the batches up
        for callback in queued:
            callback()
        assert server.requests == []
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "not granted to campaign 'qa'" in run.error


@pytest.mark.django_db
def test_the_endpoint_must_serve_the_model_and_allow_the_concurrency(qa_campaign, researcher):
    endpoint_register(name="lab", base_url="http://127.0.0.1:9/v1", model_ids=["judge-model"], max_concurrency=2,
                      campaigns=[qa_campaign])
    with pytest.raises(JudgeConfigError, match="serves judge-model, not 'other-model'"):
        judge_run_start(campaign=qa_campaign, name="a", family="llm", config=_llm(endpoint="lab", model="other-model"))
    with pytest.raises(JudgeConfigError, match="allows at most 2 requests in flight, not concurrency 4"):
        judge_run_start(campaign=qa_campaign, name="b", family="llm", config=_llm(endpoint="lab", concurrency=4))


# --- free-form URLs and local model folders are the operator's choice ---


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/v1", "http://127.0.0.1:6379/v1",
                                 "http://internal.example.org/v1", "http://10.0.0.1:8080/v1"])
def test_free_form_urls_are_refused_unless_the_operator_lists_the_host(qa_campaign, researcher, settings, url):
    settings.JUDGE_ALLOWED_HOSTS = [".lab.example.org"]
    answer = _api(researcher).post("/api/campaigns/qa/judge-runs/",
                                   {"judge": "ssrf", "family": "llm", "config": _llm(base_url=url)}, format="json")
    assert answer.status_code == 400
    assert "is not allowed on this installation" in answer.json()["detail"]
    assert "JUDGE_ALLOWED_HOSTS setting (.lab.example.org)" in answer.json()["detail"]
    assert family_get("llm").validate_config(_llm(base_url="http://gpu1.lab.example.org:8000/v1"))


BAD_SHAPES = [
    ("http://gpu1.lab.example.org/v1?", "must not have a query (?...) or a fragment"),
    ("http://gpu1.lab.example.org/admin/secrets?x=", "must not have a query (?...) or a fragment"),
    ("http://gpu1.lab.example.org/admin/secrets#", "must not have a query (?...) or a fragment"),
    ("http://operator:pw-0451@gpu1.lab.example.org/v1", "must not carry user info"),
    ("http://@gpu1.lab.example.org/v1", "must not carry user info"),
    ("ftp://gpu1.lab.example.org/v1", "http(s) URL"),
    ("gopher://gpu1.lab.example.org:70/_INFO", "http(s) URL"),
    ("http://gpu1.lab.example.org:99999/v1", "is not a valid URL"),
    ("http://gpu1.lab.example.org/v1\r\nX-Injected: 1", "must not contain spaces or control characters"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("url, refusal", BAD_SHAPES)
def test_a_base_url_with_a_query_fragment_user_info_or_another_scheme_is_refused_when_configured(
    qa_campaign, researcher, settings, client, url, refusal,
):
    settings.JUDGE_ALLOWED_HOSTS = [".lab.example.org"]  # the host itself is allowed: the shape is what is refused
    answer = _api(researcher).post("/api/campaigns/qa/judge-runs/",
                                   {"judge": "shape", "family": "llm", "config": _llm(base_url=url)}, format="json")
    assert answer.status_code == 400 and refusal in answer.json()["detail"], answer.json()
    assert "pw-0451" not in answer.json()["detail"]
    # Staff's registrations are held to the same shape: the command, the service and the admin.
    with pytest.raises(CommandError, match=re.escape(refusal)):
        call_command("model_endpoint", "add", "shape", "--url", url, stdout=io.StringIO())
    with pytest.raises(JudgeConfigError, match=re.escape(refusal)):
        endpoint_register(name="shape", base_url=url)
    client.force_login(UserFactory(username="operator", is_staff=True, is_superuser=True))
    page = client.post("/admin/judges/modelendpoint/add/", {
        "name": "shape", "base_url": url, "model_ids": "", "enabled": "on", "key_source": "none",
        "max_concurrency": "4", "price_per_1k_prompt_tokens": "0", "price_per_1k_completion_tokens": "0"})
    assert page.status_code == 200 and refusal in page.content.decode().replace("&#x27;", "'")
    assert not ModelEndpoint.objects.exists() and not Judge.objects.exists()


@pytest.mark.django_db
def test_failures_show_no_reply_body_unless_staff_switched_it_on_for_the_endpoint(
    qa_campaign, researcher, settings, client, eager, django_capture_on_commit_callbacks,  # noqa: F811
):
    """An internal page behind a judge's URL is not readable by the researcher: not in the API's failures/, not in
    the run's error, not on the judge page. Staff debugging their own server switch bodies on for its endpoint."""
    secret = "INTERNAL-ONLY: db_password=hunter2 on 10.0.0.7"
    page = f"<html><title>Admin console</title>{secret}</html>"
    settings.JUDGE_ALLOWED_HOSTS = ["127.0.0.1"]
    api = _api(researcher)
    runs = {}

    def run(name: str, where: dict) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            answer = api.post("/api/campaigns/qa/judge-runs/",
                              {"judge": name, "family": "llm", "config": _llm(**where)}, format="json")
        assert answer.status_code == 201, answer.json()
        runs[name] = answer.json()["id"]

    def failures(name: str) -> str:
        return json.dumps(api.get(f"/api/judge-runs/{runs[name]}/failures/").json())

    with chat_server() as quiet, chat_server() as debugged, chat_server() as free, chat_server() as missing:
        for server in (quiet, debugged, free):
            server.script(*[raw(page, status=500, content_type="text/html") for _ in range(6)])
        missing.script(*[raw(page, status=404, content_type="text/html") for _ in range(6)])
        call_command("model_endpoint", "add", "quiet", "--url", quiet.base_url, "--campaign", "qa",
                     stdout=io.StringIO())
        call_command("model_endpoint", "add", "missing", "--url", missing.base_url, "--campaign", "qa",
                     stdout=io.StringIO())
        run("quiet", {"endpoint": "quiet"})
        run("free", {"base_url": free.base_url})
        run("missing", {"endpoint": "missing"})

        size = f"HTTP 500 (text/html, {len(page)} bytes)"
        for name in ("quiet", "free"):
            assert "hunter2" not in failures(name) and f"gave up after 1 attempt(s): {size}" in failures(name)
        missing_run = api.get(f"/api/judge-runs/{runs['missing']}/").json()
        assert missing_run["status"] == "failed" and "hunter2" not in missing_run["error"]
        assert f"answered HTTP 404 (text/html, {len(page)} bytes)" in missing_run["error"]
        client.force_login(researcher)
        assert "hunter2" not in client.get("/campaigns/qa/judges/").content.decode()

        out = io.StringIO()
        call_command("model_endpoint", "add", "debugged", "--url", debugged.base_url, "--campaign", "qa",
                     "--show-bodies", stdout=out)
        assert "failure bodies shown" in out.getvalue()
        run("debugged", {"endpoint": "debugged"})

    assert f"{size}; the server said: " in failures("debugged") and secret in failures("debugged")
    panel = client.get("/campaigns/qa/judges/").content.decode()
    assert panel.count("hunter2") == failures("debugged").count("hunter2") == 1  # only the debugged endpoint's

    # The admin has the same switch (staff only: researchers never reach the admin's forms).
    endpoint = ModelEndpoint.objects.get(name="quiet")
    client.force_login(UserFactory(username="operator", is_staff=True, is_superuser=True))
    form = {"name": "quiet", "base_url": endpoint.base_url, "model_ids": "", "enabled": "on", "key_source": "none",
            "max_concurrency": "4", "price_per_1k_prompt_tokens": "0", "price_per_1k_completion_tokens": "0",
            "campaigns": [qa_campaign.pk]}
    for switch, shown in (({"show_bodies": "on"}, True), ({}, False)):
        assert client.post(f"/admin/judges/modelendpoint/{endpoint.pk}/change/", {**form, **switch}).status_code == 302
        endpoint.refresh_from_db()
        assert endpoint.show_bodies is shown


@pytest.fixture
def closed_models(settings, tmp_path):
    allowed = tmp_path / "models"
    (allowed / "monot5").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (allowed / "escape").symlink_to(tmp_path / "outside")
    settings.JUDGE_MODEL_DIRS = [str(allowed)]
    return allowed


@pytest.mark.parametrize("model", ["/etc", "/nonexistent/anywhere", "../../etc", "relative/folder/../x", "~/.ssh",
                                   "{models}/../outside", "{models}/escape", "{models}/escape/deeper"])
def test_model_folders_outside_the_allowed_ones_are_refused_saying_nothing_of_the_file_system(closed_models, model):
    model = model.format(models=closed_models)
    with pytest.raises(JudgeConfigError) as refused:
        model_check("monot5", model)
    message = str(refused.value)
    assert "JUDGE_MODEL_DIRS" in message
    # The same words whether or not the folder exists: only what the researcher wrote comes back.
    assert message.replace(repr(model), "MODEL") == str(_refusal("/nonexistent/anywhere")).replace(
        repr("/nonexistent/anywhere"), "MODEL")
    assert str(closed_models.parent) not in message.replace(model, "")


def _refusal(model: str) -> JudgeConfigError:
    try:
        model_check("monot5", model)
    except JudgeConfigError as exc:
        return exc
    raise AssertionError(f"{model} was allowed")


def test_folders_under_an_allowed_one_and_hub_ids_pass(closed_models):
    model_check("monot5", str(closed_models / "monot5"))
    model_check("monot5", "castorini/monot5-base-msmarco-10k")
    model_check("monot5", "t5-small")


def test_a_hub_id_loads_only_from_the_cache_never_from_a_folder_of_that_name(closed_models, tmp_path, monkeypatch):
    decoy = tmp_path / "workdir" / "someone" / "model"
    decoy.mkdir(parents=True)
    (decoy / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path / "workdir")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(JudgeConfigError, match="not in the workers' local Hugging Face cache"):
        model_location("monot5", "someone/model")


@pytest.mark.django_db
def test_a_refused_folder_is_a_clear_error_through_the_api(qa_campaign, researcher, closed_models):
    answer = _api(researcher).post("/api/campaigns/qa/judge-runs/",
                                   {"judge": "peek", "family": "llm", "config": {"model": "/etc"}},
                                   format="json")
    assert answer.status_code == 400 and "JUDGE_MODEL_DIRS" in answer.json()["detail"]
    assert not Judge.objects.exists()


# --- limits ---


@pytest.mark.django_db
def test_limits_come_from_the_settings(qa_campaign, settings):
    settings.JUDGE_LIMITS = {"n": 5, "run_batch_size": 100}
    with pytest.raises(JudgeConfigError, match=r"n must be at most 5 on this installation \(the JUDGE_LIMITS"):
        judge_run_start(campaign=qa_campaign, name="big", family="llm", config={"n": 6})
    with pytest.raises(JudgeConfigError, match="batch size must be a whole number from 1 to 100, not 500"):
        judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=500)
    with pytest.raises(JudgeConfigError, match="batch_size must be at most 256"):
        family_get("monot5").validate_config({"batch_size": 100_000})


# --- keys are stored encrypted and never travel back ---


@pytest.mark.django_db
def test_endpoints_show_without_secrets_in_the_api_and_on_the_judge_panel(qa_campaign, researcher, client,
                                                                          monkeypatch):
    monkeypatch.setenv("CONCORD_TEST_KEY_VARIABLE", WORKER_SECRET)
    endpoint_register(name="stored", base_url="https://llm.example.org/v1", model_ids=["gpt-x"], key=STORED_SECRET,
                      price_per_1k_prompt_tokens=0.5, campaigns=[qa_campaign])
    endpoint_register(name="from-env", base_url="http://gpu1:8000/v1", key_env="CONCORD_TEST_KEY_VARIABLE",
                      all_campaigns=True)
    row = ModelEndpoint.objects.get(name="stored")
    assert row.key_source == KeySource.STORED and STORED_SECRET not in row.key_encrypted
    assert secret_decrypt(row.key_encrypted) == STORED_SECRET

    body = _api(researcher).get("/api/campaigns/qa/endpoints/").json()
    assert [e["name"] for e in body] == ["from-env", "stored"]
    assert body[1] == {"name": "stored", "base_url": "https://llm.example.org/v1", "models": ["gpt-x"], "key": True,
                       "max_concurrency": 4, "price_per_1k_prompt_tokens": 0.5,
                       "price_per_1k_completion_tokens": 0.0, "notes": ""}
    client.force_login(researcher)
    page = client.get("/campaigns/qa/judges/").content.decode()
    assert "from-env" in page and "https://llm.example.org/v1" in page
    for text in (json.dumps(body), page):
        assert STORED_SECRET not in text and WORKER_SECRET not in text and "CONCORD_TEST_KEY_VARIABLE" not in text
        assert row.key_encrypted not in text


@pytest.mark.django_db
def test_keys_rotate_to_a_new_encryption_key(settings):
    from cryptography.fernet import Fernet

    endpoint_register(name="stored", base_url="http://127.0.0.1:9/v1", key=STORED_SECRET)
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.ENDPOINT_ENCRYPTION_KEYS = [old]
    endpoint_register(name="stored", base_url="http://127.0.0.1:9/v1", key=STORED_SECRET)  # encrypted with OLD
    settings.ENDPOINT_ENCRYPTION_KEYS = [new, old]
    out = io.StringIO()
    call_command("model_endpoint", "rekey", stdout=out)
    assert "re-encrypted 1 stored key(s)" in out.getvalue()
    settings.ENDPOINT_ENCRYPTION_KEYS = [new]
    assert secret_decrypt(ModelEndpoint.objects.get(name="stored").key_encrypted) == STORED_SECRET
    settings.ENDPOINT_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(JudgeConfigError, match="cannot be decrypted") as refused:
        secret_decrypt(ModelEndpoint.objects.get(name="stored").key_encrypted)
    assert STORED_SECRET not in str(refused.value)


@pytest.mark.django_db
def test_a_start_moves_keys_stored_under_the_old_development_key_to_the_installs_own(settings):
    """Before issue 48 every default install encrypted its endpoints' keys with the key derived from one constant
    SECRET_KEY. The first start with keys of its own (scripts/serve: model_endpoint rekey --old-keys) re-encrypts
    them with its endpoint key; later starts change nothing; a key nothing opens is named, and the start goes on."""
    from cryptography.fernet import Fernet

    from config.local_install import OLD_DEVELOPMENT_SECRET_KEY

    settings.SECRET_KEY, settings.ENDPOINT_ENCRYPTION_KEYS = OLD_DEVELOPMENT_SECRET_KEY, []  # the install before
    endpoint_register(name="stored", base_url="http://127.0.0.1:9/v1", key=STORED_SECRET)
    before = ModelEndpoint.objects.get(name="stored").key_encrypted
    ModelEndpoint.objects.create(name="lost", base_url="http://127.0.0.1:9/v1", key_source=KeySource.STORED,
                                 key_encrypted=Fernet(Fernet.generate_key()).encrypt(b"gone").decode())
    own = Fernet.generate_key().decode()
    settings.SECRET_KEY, settings.ENDPOINT_ENCRYPTION_KEYS = "a-new-random-secret-key-" * 3, [own]  # its own keys
    with pytest.raises(JudgeConfigError, match="cannot be decrypted"):
        secret_decrypt(before)
    out, err = io.StringIO(), io.StringIO()
    call_command("model_endpoint", "rekey", "--old-keys", stdout=out, stderr=err)
    assert out.getvalue() == "re-encrypted 1 stored key(s) with this install's own key\n"
    assert "no key opens the stored key of endpoint(s) lost" in err.getvalue()
    after = ModelEndpoint.objects.get(name="stored").key_encrypted
    assert secret_decrypt(after) == STORED_SECRET and Fernet(own).decrypt(after.encode()) == STORED_SECRET.encode()
    out = io.StringIO()
    call_command("model_endpoint", "rekey", "--old-keys", stdout=out, stderr=io.StringIO())
    assert out.getvalue() == "" and ModelEndpoint.objects.get(name="stored").key_encrypted == after


@pytest.mark.django_db
def test_staff_register_list_and_remove_endpoints_with_the_command(qa_campaign, monkeypatch):
    Group.objects.create(name="nlp-lab")
    monkeypatch.setattr(sys, "stdin", io.StringIO(STORED_SECRET + "\n"))
    out = io.StringIO()
    call_command("model_endpoint", "add", "lab-vllm", "--url", "http://gpu1:8000/v1/", "--model", "llama-3-8b",
                 "--key-stdin", "--max-concurrency", "8", "--campaign", "qa", "--group", "nlp-lab", stdout=out)
    call_command("model_endpoint", "list", stdout=out)
    text = out.getvalue()
    assert "lab-vllm: http://gpu1:8000/v1, models llama-3-8b, key stored encrypted, at most 8 in flight, on; for " \
           "campaign qa, group nlp-lab" in text
    assert STORED_SECRET not in text
    with pytest.raises(CommandError, match="--campaign: no campaign 'nope'"):
        call_command("model_endpoint", "add", "x", "--url", "http://h/v1", "--campaign", "nope")
    with pytest.raises(CommandError, match="base URL must be an http"):
        call_command("model_endpoint", "add", "x", "--url", "file:///etc/passwd")
    call_command("model_endpoint", "remove", "lab-vllm", stdout=out)
    assert not ModelEndpoint.objects.exists()


@pytest.mark.django_db
def test_staff_store_a_key_in_the_admin_and_it_is_never_shown_again(client, qa_campaign):
    staff = UserFactory(username="operator", is_staff=True, is_superuser=True)
    client.force_login(staff)
    form = {"name": "cloud", "base_url": "https://api.example.org/v1", "model_ids": "gpt-x\ngpt-y", "enabled": "on",
            "notes": "", "key_source": "stored", "key_env": "", "key": STORED_SECRET, "max_concurrency": "4",
            "price_per_1k_prompt_tokens": "0", "price_per_1k_completion_tokens": "0", "campaigns": [qa_campaign.pk]}
    answer = client.post("/admin/judges/modelendpoint/add/", form)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    endpoint = ModelEndpoint.objects.get(name="cloud")
    assert endpoint.model_ids == ["gpt-x", "gpt-y"] and secret_decrypt(endpoint.key_encrypted) == STORED_SECRET
    for url in ("/admin/judges/modelendpoint/", f"/admin/judges/modelendpoint/{endpoint.pk}/change/"):
        page = client.get(url).content.decode()
        assert STORED_SECRET not in page and endpoint.key_encrypted not in page
    # Saving again without typing the key keeps the stored one.
    client.post(f"/admin/judges/modelendpoint/{endpoint.pk}/change/", {**form, "key": "", "notes": "checked"})
    endpoint.refresh_from_db()
    assert endpoint.notes == "checked" and secret_decrypt(endpoint.key_encrypted) == STORED_SECRET
    # A researcher is not staff: the admin sends them to its login.
    researcher = UserFactory(username="someone")
    MembershipFactory(campaign=qa_campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    assert "/admin/login/" in client.get("/admin/judges/modelendpoint/")["Location"]


# --- the migration of configurations that held keys ---


def test_old_configurations_split_into_the_judge_and_its_endpoint():
    old = {"backend": "openai", "model": "m", "base_url": "http://gpu1:8000/v1/", "api_key": "",
           "api_key_env": "SECRET_KEY", "price_per_1k_prompt_tokens": 0.5, "price_per_1k_completion_tokens": 1.0,
           "n": 3}
    config, spec = MIGRATION.config_split(old)
    assert config == {"backend": "openai", "model": "m", "base_url": "", "endpoint": "", "n": 3}
    assert spec == ("http://gpu1:8000/v1", "", "SECRET_KEY", 0.5, 1.0)
    local, none = MIGRATION.config_split({"backend": "transformers", "model": "m", "base_url": "", "api_key": "",
                                          "api_key_env": "OPENAI_API_KEY"})
    assert none is None and local == {"backend": "transformers", "model": "m", "base_url": "", "endpoint": ""}


@pytest.mark.django_db
def test_the_migration_moves_keys_into_switched_off_endpoints_granted_to_the_judges_campaign(qa_campaign):
    llm = family_get("llm")
    old_defaults = {**{k: v for k, v in llm.default_config.items() if k != "endpoint"}, "api_key": "",
                    "api_key_env": "OPENAI_API_KEY", "price_per_1k_prompt_tokens": 0.0,
                    "price_per_1k_completion_tokens": 0.0}
    stored = {**old_defaults, "backend": "openai", "model": "gpt-x", "base_url": "https://api.example.org/v1",
              "api_key": STORED_SECRET, "price_per_1k_prompt_tokens": 0.5}
    from_env = {**old_defaults, "backend": "openai", "model": "llama", "base_url": "http://attacker.example/v1",
                "api_key_env": "SECRET_KEY"}
    for name, config in (("stored", stored), ("env", from_env), ("local", old_defaults)):
        Judge.objects.create(campaign=qa_campaign, name=name, family="llm", config=config, config_hash=name)

    MIGRATION.forwards(django_apps, None)

    first, second = ModelEndpoint.objects.order_by("name")
    assert (first.name, first.enabled, first.key_source, first.model_ids) == ("migrated-1", False, "stored", ["gpt-x"])
    assert secret_decrypt(first.key_encrypted) == STORED_SECRET and first.price_per_1k_prompt_tokens == 0.5
    assert (second.key_source, second.key_env, second.enabled, second.base_url) == \
        ("env", "SECRET_KEY", False, "http://attacker.example/v1")
    assert set(first.campaigns.all()) == {qa_campaign}
    for judge in Judge.objects.all():
        assert not {"api_key", "api_key_env", "price_per_1k_prompt_tokens"} & set(judge.config)
        assert judge.config_hash == config_hash(family="llm", config=judge.config)
        assert llm.validate_config(judge.config) == judge.config
    assert Judge.objects.get(name="stored").config["endpoint"] == "migrated-1"
    assert Judge.objects.get(name="local").config["endpoint"] == ""
    # Until staff switch it on, the judge cannot run.
    with pytest.raises(JudgeConfigError, match="is switched off"):
        judge_run_start(
            campaign=qa_campaign, name="stored", family="llm", config=Judge.objects.get(name="stored").config
        )
