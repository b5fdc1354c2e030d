"""Hostile input: every file of tests/data/hostile (listed in its cases.json) is refused with an ImportDataError
naming the file, the line and the field, and leaves the database and MEDIA_ROOT exactly as they were.

Files go through the service calls users reach: import_data_run (`manage.py import_data`) or, for zips of the
nq301 folder, uploads_import (the REST API and the import page). A case's setup imports good files first, so a
hostile file can reference a campaign with data; the snapshot is taken after the setup.
"""

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.common import ImportDataError
from interchange.importers.service import formats, import_data_run
from interchange.importers.uploads import uploads_import

CORPUS = Path(__file__).resolve().parents[1] / "data" / "hostile"
CASES = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))["cases"]
SLUG = "hostile"
STORED_LIMIT = 3 * 1024**2  # the corpus is kept in git: large cases are generated at test time instead


def db_counts() -> dict[str, int]:
    """Rows of every model of every installed app: an import that leaves anything behind changes one."""
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def media_files(root: Path) -> dict[str, str]:
    """Every file under ROOT with its checksum: an import that writes or rewrites a file changes this."""
    if not root.exists():
        return {}
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


def generated_write(recipe: dict, root: Path) -> Path:
    """Write a case too large to keep in git: a long line (head + fill repeated + tail) or a zip of many entries."""
    path = root / recipe["file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if "zip_entries" in recipe:
        with zipfile.ZipFile(path, "w") as bundle:
            for number in range(recipe["zip_entries"]):
                bundle.writestr(f"{number}.png", b"")
        return path
    chunk = (recipe["fill"] * (1024 * 1024)).encode()
    with path.open("wb") as sink:
        sink.write(recipe["head"].encode())
        for _ in range(recipe["bytes"] // len(chunk)):
            sink.write(chunk)
        sink.write(recipe["tail"].encode())
    return path


def case_paths(case: dict, tmp_path: Path) -> list[Path]:
    generated = case.get("generate")
    if generated:
        return [generated_write(generated, tmp_path)]
    return [CORPUS / name for name in case["files"]]


def setup_import(case: dict) -> None:
    for step in case.get("setup", []):
        import_data_run(slug=SLUG, task_type=case["task_type"], fmt=step["format"],
                        paths=[CORPUS / name for name in step["files"]])


def hostile_import(case: dict, paths: list[Path]) -> None:
    options = case.get("options", {})
    if case.get("via") == "upload":
        campaign = campaign_get_or_create(slug=SLUG, task_type=case["task_type"])
        uploads = [SimpleUploadedFile(path.name, path.read_bytes()) for path in paths]
        uploads_import(campaign=campaign, fmt=case["format"], files=uploads, **options)
    else:
        import_data_run(slug=SLUG, task_type=case["task_type"], fmt=case["format"], paths=paths, **options)


@pytest.fixture
def media(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_hostile_file_is_refused_with_file_line_and_field_and_changes_nothing(case, media, tmp_path):
    setup_import(case)
    paths = case_paths(case, tmp_path)
    if case.get("via") == "upload":
        campaign_get_or_create(slug=SLUG, task_type=case["task_type"])
    rows, files = db_counts(), media_files(media)

    with pytest.raises(ImportDataError) as info:
        hostile_import(case, paths)

    error, expect = info.value, case["expect"]
    assert error.file.endswith(expect["file"])
    assert (error.line, error.field) == (expect["line"], expect["field"])
    assert f"{expect['file']}:{expect['line']}: {expect['field']}: " in str(error)
    assert expect["message"] in error.message
    assert db_counts() == rows
    assert media_files(media) == files


def test_the_manifest_covers_every_format_and_task_type():
    names = [case["name"] for case in CASES]
    assert len(CASES) >= 40
    assert len(set(names)) == len(names)
    known = formats()
    for fmt in known:
        assert len([case for case in CASES if case["format"] == fmt]) >= 2, fmt
    for case in CASES:
        assert case["task_type"] in known[case["format"]], case["name"]
    for task_type in known["jsonl"]:
        assert [case for case in CASES if (case["format"], case["task_type"]) == ("jsonl", task_type)], task_type


def test_every_stored_file_is_there_and_the_corpus_stays_small():
    for case in CASES:
        named = [] if case.get("generate") else case["files"]
        for step in case.get("setup", []):
            named += step["files"]
        for name in named:
            assert (CORPUS / name).is_symlink() or (CORPUS / name).exists(), f"{case['name']}: {name}"
    stored = sum(path.lstat().st_size for path in CORPUS.rglob("*") if path.is_file() or path.is_symlink())
    assert stored < STORED_LIMIT


DEEP = "[" * 100_000 + "]" * 100_000  # past Python's JSON parser's depth, well inside the request size limits


def test_json_nested_past_the_parsers_depth_is_a_refusal_not_a_server_error(client, researcher):
    """The API's JSON bodies and the judge form's configuration refuse it as malformed input (a 500 before)."""
    from judges.forms import JudgeRunStartForm

    client.force_login(researcher)
    response = client.post("/api/tokens/", DEEP, content_type="application/json")
    assert response.status_code == 400
    assert "nest too deeply" in response.json()["detail"]
    form = JudgeRunStartForm({"name": "deep", "family": "em", "config_json": DEEP}, task_type="qa_correctness")
    assert not form.is_valid()
    assert "nest too deeply" in str(form.errors["config_json"])
