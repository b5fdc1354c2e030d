"""Bad input stops `import_data` with `file:line: field: what is wrong`, a non-zero exit, and no change."""

import json
import shutil
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from annotate.models import Campaign, HumanJudgment, Item, SystemOutput, Topic
from judges.models import Judge, ModelJudgment

GOOD = {"question": "who wrote hamlet", "answer": ["William Shakespeare"], "prediction": "Shakespeare"}


def db_state():
    return tuple(model.objects.count() for model in (Campaign, Topic, Item, SystemOutput, HumanJudgment, Judge,
                                                     ModelJudgment))


def jsonl(tmp_path, *lines, name="NQ_sys.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"\n".join(line if isinstance(line, bytes) else line.encode() for line in lines) + b"\n")
    return path


def fails(*args, fmt="qa-eval-jsonl", task_type="qa_correctness", slug="bad"):
    before = db_state()
    with pytest.raises(CommandError) as info:
        call_command("import_data", "--campaign", slug, "--task-type", task_type, "--format", fmt, *map(str, args))
    assert db_state() == before
    return str(info.value)


@pytest.mark.django_db
def test_malformed_json_line_names_file_and_line(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD), '{"question": "x", "answer": [', json.dumps(GOOD))
    message = fails(path)
    assert message.startswith(f"{path}:2: json: malformed JSON")


@pytest.mark.django_db
def test_missing_key(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD), json.dumps({"question": "q", "answer": ["a"]}))
    assert fails(path) == f"{path}:2: prediction: missing key"


@pytest.mark.django_db
def test_answer_not_a_list(tmp_path):
    path = jsonl(tmp_path, json.dumps({**GOOD, "answer": "William Shakespeare"}))
    assert fails(path) == f"{path}:1: answer: expected a list of strings, got str"


@pytest.mark.django_db
def test_prediction_of_wrong_type(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD), json.dumps(GOOD), json.dumps({**GOOD, "prediction": 42}))
    assert fails(path).startswith(f"{path}:3: prediction: expected a string or a non-empty list of strings")


@pytest.mark.django_db
def test_non_utf8_file_names_the_line(tmp_path):
    path = jsonl(
        tmp_path, json.dumps(GOOD), '{"question": "caf\xe9", "answer": ["x"], "prediction": "y"}'.encode("latin-1")
    )
    assert fails(path) == f"{path}:2: encoding: not UTF-8 (byte 0xe9)"


@pytest.mark.django_db
def test_empty_file(tmp_path):
    path = tmp_path / "NQ_empty.jsonl"
    path.write_bytes(b"")
    assert fails(path) == f"{path}:1: file: file is empty"


@pytest.mark.django_db
def test_two_gigabyte_file_is_refused_by_size_before_reading(tmp_path):
    path = tmp_path / "NQ_huge.jsonl"
    with open(path, "wb") as f:
        f.truncate(2 * 1024**3)  # sparse: no disk used, and reading it would take 2 GB of memory
    message = fails(path)
    assert message == (f"{path}:0: file: file is 2,147,483,648 bytes; "
                       f"the import limit is {settings.IMPORT_MAX_BYTES:,} bytes")


@pytest.mark.django_db
def test_a_bad_file_after_good_ones_leaves_nothing_behind(tmp_path):
    good = jsonl(tmp_path, json.dumps(GOOD), name="NQ_a.jsonl")
    bad = jsonl(tmp_path, json.dumps({**GOOD, "question": 7}), name="NQ_b.jsonl")
    assert fails(good, bad) == f"{bad}:1: question: expected a string, got int"
    assert not Campaign.objects.filter(slug="bad").exists()


@pytest.mark.django_db
def test_unknown_format(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD))
    assert fails(path, fmt="csv").startswith("unknown format 'csv'; choose one of jsonl, attributed-qa, gold-answers")


@pytest.mark.django_db
def test_unknown_task_type(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD))
    assert fails(path, task_type="summaries").startswith("unknown task type 'summaries'")


@pytest.mark.django_db
def test_format_for_another_task_type(tmp_path):
    path = jsonl(tmp_path, json.dumps(GOOD))
    assert fails(path, task_type="ais") == "format qa-eval-jsonl imports into qa_correctness campaigns, not ais"


@pytest.mark.django_db
def test_judge_scores_without_judge_name(tmp_path):
    path = tmp_path / "scores.tsv"
    path.write_text("topic\titem\tscore\n1\t1-1\t0.5\n")
    assert fails(path, fmt="judge-scores") == "format judge-scores needs a judge name (--judge NAME)"


@pytest.mark.django_db
def test_nq301_missing_column(tmp_path):
    folder = tmp_path / "nq"
    folder.mkdir()
    (folder / "NQ301_human.tsv").write_text("id\tQuestion\tAcceptable?\n1\twho\tYes\n")
    assert fails(folder, fmt="nq301").startswith(f"{folder / 'NQ301_human.tsv'}:1: Model answer: missing column")


@pytest.mark.django_db
def test_nq301_bad_verdict_in_a_copy_of_the_real_data(tmp_path):
    folder = tmp_path / "nq301"
    shutil.copytree(settings.BASE_DIR / "fixtures" / "nq301", folder)
    human = folder / "NQ301_human.tsv"
    lines = human.read_text(encoding="utf-8").splitlines()
    cells = lines[999].split("\t")
    cells[5] = "Maybe"
    lines[999] = "\t".join(cells)
    human.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert fails(folder, fmt="nq301") == f"{human}:1000: annotator2: expected Yes or No, got 'Maybe'"


@pytest.mark.django_db
def test_a_changed_prediction_on_reimport_is_refused(tmp_path):
    first = jsonl(tmp_path, json.dumps(GOOD), name="NQ_sys.jsonl")
    call_command("import_data", "--campaign", "re", "--task-type", "qa_correctness", "--format", "qa-eval-jsonl",
                 str(first))
    second = jsonl(tmp_path, json.dumps({**GOOD, "prediction": "Marlowe"}), name="NQ_sys.jsonl")
    message = fails(second, slug="re")
    assert (
        message
        == f"{second}:1: prediction: system 'sys' already has another answer for this question from an earlier import"
    )


def test_the_command_exits_non_zero_with_the_message_on_stderr(tmp_path):
    path = tmp_path / "NQ_x.jsonl"
    path.write_text('{"question": "q"\n')
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}", "PATH": "/usr/bin:/bin"}
    manage = str(settings.BASE_DIR / "manage.py")
    subprocess.run([sys.executable, manage, "migrate", "-v0"], env=env, check=True, cwd=settings.BASE_DIR)
    result = subprocess.run(
        [sys.executable, manage, "import_data", "--campaign", "c", "--task-type", "qa_correctness",
         "--format", "qa-eval-jsonl", str(path)],
        env=env, capture_output=True, text=True, cwd=settings.BASE_DIR,
    )
    assert result.returncode != 0
    assert f"{path}:1: json: malformed JSON" in result.stderr
