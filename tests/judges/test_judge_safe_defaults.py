"""The install `./scripts/start` makes, with no environment at all, is the safe one (issue 29, item 2).

`config.settings.local` is what scripts/start and manage.py use. Its judge settings are read once per module in a
subprocess with an empty environment, exactly as a fresh install reads them, and that subprocess also asks the
families to accept hostile configurations; the in-process tests then apply the values it printed.
"""

import json
import os
import subprocess
import sys

import pytest
from rest_framework.test import APIClient

from judges.boundary import model_location
from judges.errors import JudgeConfigError
from judges.families.hf import model_cached
from judges.models import Judge, JudgeRun, RunStatus
from judges.services import judge_run_start
from tests.judges_support import ROOT, eager  # noqa: F401 - fixture
from tests.llm_server import chat_server

METADATA = "http://169.254.169.254/latest/meta-data"
DATABASE = "http://127.0.0.1:5432"
REFUSED_FOLDERS = ("/etc/passwd", "/etc", "/nonexistent/anywhere")

# Run by `manage.py shell -c` under config.settings.local: the settings, and what the families say to each
# configuration ("ok", or the refusal).
PROBE = """
import json
from django.conf import settings
from judges.errors import JudgeConfigError
from judges.families import family_get

def said(family, config):
    try:
        family_get(family).validate_config(config)
        return "ok"
    except JudgeConfigError as exc:
        return str(exc)

openai = {"backend": "openai", "model": "m"}
print(json.dumps({
    "settings_module": settings.SETTINGS_MODULE,
    "JUDGE_ALLOWED_HOSTS": settings.JUDGE_ALLOWED_HOSTS,
    "JUDGE_MODEL_DIRS": settings.JUDGE_MODEL_DIRS,
    "urls": {url: said("llm", {**openai, "base_url": url}) for url in (%(urls)r)},
    "folders": {path: said("monot5", {"model": path}) for path in (%(folders)r)},
    "defaults": {family: said(family, {}) for family in ("llm", "dense", "bm25")},
    "endpoint": said("llm", {**openai, "endpoint": "local-llm"}),
}))
""" % {"urls": (METADATA, DATABASE + "/v1", DATABASE), "folders": REFUSED_FOLDERS}


@pytest.fixture(scope="module")
def local_defaults(tmp_path_factory) -> dict:
    """What config.settings.local holds and says with no environment at all (a fresh `./scripts/start`)."""
    home = tmp_path_factory.mktemp("home")
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", PROBE], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def as_installed(settings, local_defaults):
    """This process's judge settings set to what a fresh install holds."""
    settings.JUDGE_ALLOWED_HOSTS = local_defaults["JUDGE_ALLOWED_HOSTS"]
    settings.JUDGE_MODEL_DIRS = local_defaults["JUDGE_MODEL_DIRS"]
    return settings


def _same_words(messages: dict[str, str]) -> set[str]:
    return {message.replace(repr(path), "MODEL") for path, message in messages.items()}


def test_a_fresh_install_refuses_the_metadata_service_and_the_database_naming_the_setting(local_defaults):
    assert local_defaults["settings_module"] == "config.settings.local"
    for url, said in local_defaults["urls"].items():
        assert said.startswith("llm: free-form base_url is off on this installation (the JUDGE_ALLOWED_HOSTS "
                               "setting is empty)"), (url, said)
        assert "model endpoint that staff registered" in said
    # Local model folders: one message whatever the path is on the worker (a file, a folder, nothing).
    assert all("JUDGE_MODEL_DIRS" in said for said in local_defaults["folders"].values())
    assert len(_same_words(local_defaults["folders"])) == 1
    # What ships works: the packaged SmolLM2 (llm), the packaged MiniLM (dense), BM25, and registered endpoints.
    assert local_defaults["defaults"] == {"llm": "ok", "dense": "ok", "bm25": "ok"}
    assert local_defaults["endpoint"] == "ok"


@pytest.mark.django_db
@pytest.mark.parametrize("url", [METADATA, DATABASE])
def test_on_a_fresh_install_a_researcher_cannot_point_a_judge_at_an_internal_address(
    qa_campaign, researcher, as_installed, url,
):
    api = APIClient()
    api.force_authenticate(researcher)
    config = {"backend": "openai", "model": "m", "base_url": url}
    answer = api.post("/api/campaigns/qa/judge-runs/", {"judge": "ssrf", "family": "llm", "config": config},
                      format="json")
    assert answer.status_code == 400
    assert "JUDGE_ALLOWED_HOSTS setting is empty" in answer.json()["detail"]
    assert not Judge.objects.exists()


@pytest.mark.django_db
def test_a_run_queued_before_the_install_closed_sends_nothing_from_the_worker(
    qa_campaign, researcher, eager, settings, local_defaults, django_capture_on_commit_callbacks,  # noqa: F811
):
    with chat_server() as internal:  # stands for any service the workers can reach
        settings.JUDGE_ALLOWED_HOSTS = ["127.0.0.1"]
        with django_capture_on_commit_callbacks(execute=False) as queued:
            run = judge_run_start(campaign=qa_campaign, name="queued", family="llm", created_by=researcher,
                                  config={"backend": "openai", "model": "m", "base_url": internal.base_url, "n": 1,
                                          "decoding": "greedy", "max_retries": 0})
        settings.JUDGE_ALLOWED_HOSTS = local_defaults["JUDGE_ALLOWED_HOSTS"]  # the upgrade, before a worker runs it
        for callback in queued:
            callback()
        assert internal.requests == []
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "JUDGE_ALLOWED_HOSTS setting is empty" in run.error


@pytest.fixture
def model_tree(tmp_path):
    """An allowed folder holding a real model folder, links out of it (to a folder, to a file) and a link loop."""
    allowed = tmp_path / "models"
    (allowed / "monot5").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "weights.bin").write_bytes(b"secret")
    (allowed / "escape").symlink_to(outside)
    (allowed / "escape-file").symlink_to(outside / "weights.bin")
    (allowed / "loop-a").symlink_to(allowed / "loop-b")
    (allowed / "loop-b").symlink_to(allowed / "loop-a")
    return allowed


@pytest.mark.django_db
def test_a_refused_model_path_reads_the_same_at_the_start_and_where_it_loads(qa_campaign, as_installed, model_tree):
    as_installed.JUDGE_MODEL_DIRS = [*as_installed.JUDGE_MODEL_DIRS, str(model_tree)]
    paths = [*REFUSED_FOLDERS, str(model_tree / "escape"), str(model_tree / "escape" / "weights.bin"),
             str(model_tree / "escape-file"), str(model_tree / "loop-a"), str(model_tree.parent / "outside"),
             str(model_tree / ".." / "outside")]
    loads = []
    at_start, at_load = {}, {}
    for path in paths:
        with pytest.raises(JudgeConfigError) as refused:
            judge_run_start(campaign=qa_campaign, name="peek", family="llm", config={"model": path})
        at_start[path] = str(refused.value)
        with pytest.raises(JudgeConfigError) as refused:
            model_cached("llm", path, "cpu", lambda location, device: loads.append(location))
        at_load[path] = str(refused.value)
    assert len(_same_words(at_start)) == 1 and _same_words(at_start) == _same_words(at_load)
    assert "JUDGE_MODEL_DIRS" in at_start["/etc"]
    assert loads == [] and not JudgeRun.objects.exists()
    # What the operator listed loads, from its real path.
    assert model_location("monot5", str(model_tree / "monot5" / "..")) == str(model_tree.resolve())
