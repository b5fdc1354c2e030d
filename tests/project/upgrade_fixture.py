"""Makes the fixture of tests/project/test_upgrade.py: an installation of an earlier version, written by that version's
own code, as rows and media files.

    .venv/bin/python tests/project/upgrade_fixture.py 5753f21

takes the commit's tree (git archive, into a temporary folder), runs its `manage.py migrate` on a new SQLite database
and, in that tree's code, what a lab's installation holds after some use (`use`): the demo's campaigns (nq301 cut to
its first NQ_QUESTIONS questions), the rankers' runs judged and one left queued, judgments, adjudications, an open
lease, API tokens, a pending invitation, an import job, another researcher's campaign and every campaign's report
stored by that code. It writes tests/project/fixtures/upgrade-<commit>.json.gz: every row of every table (by model,
binary fields in base64), the migrations applied (the test migrates back to them) and the media files.

At each release, make the fixture of the release before with its commit (the services `use` calls are that
version's: adapt them where they changed) and keep the test of the one before it.
"""

import base64
import datetime
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
NQ_QUESTIONS = 25


def main(commit: str) -> None:
    full = subprocess.run(["git", "-C", str(REPO), "rev-parse", commit], check=True, capture_output=True,
                          text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="concord-old-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", full], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        out = FIXTURES / f"upgrade-{full[:7]}.json.gz"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local",
               "DATABASE_URL": f"sqlite:///{tmp}/old.sqlite3", "MEDIA_ROOT": f"{tmp}/media",
               "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp}/broker.sqlite3", "CACHE_URL": "locmemcache://"}
        env.pop("PYTHONPATH", None)
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--inside", full, str(out)], cwd=tree,
                       env=env, check=True)
        print(f"wrote {out} ({out.stat().st_size} bytes)")


def inside(commit: str, out: Path) -> None:
    """In the old tree (the working directory), with its settings: migrate, use, dump."""
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    use()
    dump(commit, out)


def _nq_cut(folder: Path) -> Path:
    """The demo's nq301 folder cut to its first NQ_QUESTIONS questions (ids 1..NQ_QUESTIONS)."""
    from tasktypes.management.commands.load_demo import FIXTURES as DEMO_FIXTURES

    source = DEMO_FIXTURES / "nq301"
    (folder / "model_outputs").mkdir(parents=True)
    questions = set()
    for name in ("NQ301_human.tsv", "NQ301_gpt-4.tsv", "NQ301_text-davinci-003.tsv"):
        lines = (source / name).read_text().splitlines(keepends=True)
        kept = [lines[0]] + [line for line in lines[1:] if int(line.split("\t", 1)[0]) <= NQ_QUESTIONS]
        questions |= {line.split("\t")[1] for line in kept[1:]}
        (folder / name).write_text("".join(kept))
    for path in (source / "model_outputs").glob("*.jsonl"):
        kept = [line for line in path.read_text().splitlines(keepends=True)
                if json.loads(line)["question"] in questions]
        (folder / "model_outputs" / path.name).write_text("".join(kept))
    for path in source.glob("*.jsonl"):
        kept = [line for line in path.read_text().splitlines(keepends=True)
                if json.loads(line)["question"] in questions]
        (folder / path.name).write_text("".join(kept))
    return folder


def use() -> None:
    """What an installation of this version holds after a lab has used it for a while (this version's services)."""
    import io

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from accounts.services import token_create
    from agreement.stored import stored_report_rebuild
    from annotate.models import Campaign, HumanJudgment, Role, Unit
    from annotate.services.adjudication import adjudication_submit
    from annotate.services.annotation import judgment_submit, unit_lease_next
    from annotate.services.campaigns import member_add, membership_add
    from config.celery import app
    from judges.services import judge_run_start
    from tasktypes.jobs import import_job_create
    from tasktypes.management.commands import load_demo

    # The demo, the rankers judging as the worker would (eagerly, here), nq301 cut short.
    app.conf.task_always_eager = True
    nq = load_demo.DEMOS.pop("nq301")
    call_command("load_demo", stdout=io.StringIO())
    folder = _nq_cut(Path(tempfile.mkdtemp()) / "nq301")
    call_command("import_data", "--campaign", "nq301", "--task-type", nq["task_type"], "--format", nq["format"],
                 "--overlap", str(nq["overlap"]), "--owner", load_demo.DEMO_RESEARCHER, str(folder),
                 stdout=io.StringIO())
    users = {user.username: user for user in get_user_model().objects.all()}
    nq301 = Campaign.objects.get(slug="nq301")
    nq301.name, nq301.description = nq["name"], nq["description"]
    nq301.save(update_fields=["name", "description"])
    for username in load_demo.DEMO_ANNOTATORS:
        membership_add(campaign=nq301, user=users[username], role=Role.ANNOTATOR)
    membership_add(campaign=nq301, user=users[load_demo.DEMO_ADJUDICATOR], role=Role.ADJUDICATOR)

    # Another researcher's campaign, with its own annotator: the outsiders of every demo campaign.
    User = get_user_model()
    other_researcher = User.objects.create_user("res2", password=load_demo.DEMO_PASSWORD)
    other_annotator = User.objects.create_user("ann2", password=load_demo.DEMO_PASSWORD)
    call_command("import_data", "--campaign", "theirs", "--task-type", "qa_correctness", "--format", "qa-eval-jsonl",
                 "--overlap", "1", "--owner", "res2", str(folder / "model_outputs" / "NQ_DPR.jsonl"),
                 stdout=io.StringIO())
    membership_add(campaign=Campaign.objects.get(slug="theirs"), user=other_annotator, role=Role.ANNOTATOR)
    app.conf.task_always_eager = False

    # Judgments through the annotation page's services: up to 8 nq301 answers by two assessors each, 4 passages, 4
    # AIS answers; one lease left open.
    values = {"nq301": lambda n: {"correct": n % 3 != 0}, "passage-demo": lambda n: {"grade": n % 4},
              "ais-demo": lambda n: {"interpretable": True, "supported": n % 2 == 0}}
    for slug, annotators, count in (("nq301", ("assessor1", "assessor2"), 8), ("passage-demo", ("assessor1",), 4),
                                    ("ais-demo", ("assessor2",), 4)):
        campaign = Campaign.objects.get(slug=slug)
        for username in annotators:
            for n in range(count):
                assignment = unit_lease_next(campaign=campaign, annotator=users[username])
                if assignment is None:  # nothing left for this one
                    break
                judgment_submit(assignment=assignment, annotator=users[username], value=values[slug](n))
    unit_lease_next(campaign=nq301, annotator=users["assessor3"])  # open, never submitted
    # Five adjudications of nq301 answers the two assessors judged.
    judged = (HumanJudgment.objects.filter(unit__campaign=nq301, annotator__username="assessor1")
              .values_list("unit_id", flat=True).order_by("unit_id"))
    for unit in Unit.objects.filter(pk__in=list(judged)[:5]).order_by("pk"):
        adjudication_submit(unit=unit, adjudicator=users[load_demo.DEMO_ADJUDICATOR], value={"correct": True},
                            note="checked against the gold answers")
    # Three API tokens; a person added with a link to choose a password, not yet used.
    for user, name in ((users["researcher"], "laptop"), (users["researcher"], "cluster"), (users["assessor1"], "cli")):
        token_create(user=user, name=name)
    member_add(campaign=nq301, username="newcomer", role=Role.ANNOTATOR, added_by=users["researcher"], create=True)
    # A ranker run queued, for a worker that never came.
    judge_run_start(campaign=Campaign.objects.get(slug="passage-demo"), name="minilm", family="dense", config={},
                    created_by=users["researcher"])
    # An upload of the import page, imported by a worker (eagerly, here): another system's answers for "theirs".
    app.conf.task_always_eager = True
    answers = (folder / "model_outputs" / "NQ_FiD.jsonl").read_bytes()
    import_job_create(campaign=Campaign.objects.get(slug="theirs"), user=other_researcher, fmt="qa-eval-jsonl",
                      files=[SimpleUploadedFile("NQ_FiD.jsonl", answers)], system="FiD")
    app.conf.task_always_eager = False
    # Every report opened once: stored by this version's code.
    for campaign in Campaign.objects.order_by("pk"):
        stored_report_rebuild(campaign_id=campaign.pk)
    assert Path(settings.MEDIA_ROOT).is_dir()


def _jsonable(value):
    if isinstance(value, (bytes, memoryview)):
        return {"__bytes__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return value


def dump(commit: str, out: Path) -> None:
    from django.apps import apps
    from django.conf import settings
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    applied = MigrationLoader(connection).applied_migrations
    leaves = {}
    for app_label, name in sorted(applied):
        leaves[app_label] = max(leaves.get(app_label, name), name)
    rows = {}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.proxy or not model._meta.managed or model._meta.db_table == "django_session":
            continue
        names = [field.attname for field in model._meta.concrete_fields]
        table = model._meta.db_table
        found = [{name: _jsonable(value) for name, value in zip(names, row)}
                 for row in model.objects.order_by("pk").values_list(*names)]
        if found:
            rows[f"{model._meta.app_label}.{model._meta.object_name}"] = {"table": table, "rows": found}
    media = Path(settings.MEDIA_ROOT)
    files = {str(path.relative_to(media)): base64.b64encode(path.read_bytes()).decode()
             for path in sorted(media.rglob("*")) if path.is_file() and "imports" not in path.parts}
    document = {"commit": commit, "migrations": leaves, "models": rows, "media": files}
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", compresslevel=9) as stream:
        json.dump(document, stream, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1] == "--inside":
        inside(sys.argv[2], Path(sys.argv[3]))
    else:
        main(sys.argv[1])
