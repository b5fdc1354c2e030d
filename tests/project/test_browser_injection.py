"""Script injection in imported text is inert: in Chromium no payload runs, and every page shows it as plain text.

One campaign per registered task type is imported through the real importers (interchange.importers.service) from
files whose every text field carries the payloads below (the type's sample says how: its injection part,
TaskTypeSample.injection in its package's sample.py, given these payloads and helpers): questions and topics, answers
and candidates, passages, source titles and URLs, system names and run tags, judge names, gold answers, annotator
names, the campaign's name. Human judgments and imported judge scores make the report show its judges, systems,
disagreements and SVG plots. Then each page that shows those texts is opened (as the annotator or the researcher) and
checked: no dialog, no `window.__pwned`, no console message about it, and the payloads read back literally where they
are shown, as the type's injection part lists them; a type without one fails.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from agreement.report import agreement_report_build
from annotate.models import Assignment, AssignmentStatus, Item, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import campaign_get_or_create, membership_add
from annotate.task_types.registry import task_type_get, task_type_names
from annotate.task_types.sample import InjectionKit, InjectionSample
from interchange.importers.service import import_run
from judges.models import Judge, JudgeRun, ModelJudgment, RunStatus
from tests.browser_keys import press
from tests.factories import UserFactory
from tests.image_synthetic import images_write
from tests.report_support import report_stored
from tests.sides import sqlite_run_only

PWNED = "window.__pwned=1"
# Each tries to break out of one context: element content, a quoted attribute, a raw-text element, a template,
# a link, a JavaScript string, and matplotlib's mathtext (which the report's SVG plots are drawn with).
PAYLOADS = {
    "script": f"<script>{PWNED};alert(1)</script>",  # a dialog as well as the flag
    "attribute": f'"><img src=x onerror="{PWNED}">',
    "raw_text": f"</textarea><svg onload={PWNED}>",
    "template": "{{ 7*7 }}",
    "js_url": f"javascript:{PWNED}",
    "js_string": f"'\";{PWNED};//",
    "mathtext": r"$\pwned{7*7}$",
}
# Fields read as whitespace-separated tokens (TREC runs and qrels, candidate ids) get these.
TOKEN_PAYLOADS = (f"<script>{PWNED}</script>", f'"><svg/onload={PWNED}>', f"'\";{PWNED};//", "{{7*7}}", "$\\pwned$")
# Topic ids end up inside item ids as "<topic>/<item>": no slash in them.
TOPIC_PAYLOAD = f"<svg>'\";{PWNED};{{{{7*7}}}}"
JS_URL = PAYLOADS["js_url"]
EVIL_URL = f'https://example.org/wiki/"><img src=x onerror="{PWNED}">?q=<script>{PWNED}</script>'


def loaded(label: str, *names: str) -> str:
    """LABEL followed by the payloads NAMES (default all), space-separated: a text field that tries them at once."""
    return " ".join((label, *(PAYLOADS[name] for name in names or PAYLOADS)))


def token(label: str) -> str:
    """LABEL with the token payloads glued on: a TREC run tag or document id (no whitespace)."""
    return label + "".join(TOKEN_PAYLOADS)


# Names are shorter than texts (a judge's name holds 100 characters, a campaign's 200): each takes some payloads.
CAMPAIGN_NAME = loaded("Campaign", "script", "attribute", "raw_text", "template")
JUDGE_NAMES = (loaded("judge-a", "script", "attribute"), loaded("judge-b", "raw_text", "template", "js_string"),
               loaded("judge-c", "js_url", "mathtext"))
UPLOADED_JUDGE = loaded("uploaded", "script", "attribute")
NOT_A_LINK = [name for name in PAYLOADS if name != "js_url"]  # for names that never become links
SYSTEMS = (loaded("sys-a", *NOT_A_LINK), loaded("sys-b", *NOT_A_LINK))
RUNS = (token("run-a"), token("run-b"), token("run-c"))
RUN_TAG = loaded("tag", "script", "js_string", "mathtext")
RATERS = ("rater2", "rater3")  # web annotators besides "ann", who judge everything first


# --- Campaigns, imported from files ---

def _campaign(task_type: str, *, overlap: int):
    researcher, annotator = UserFactory(username="res"), UserFactory(username="ann")
    campaign = campaign_get_or_create(slug="inj", task_type=task_type, name=CAMPAIGN_NAME, overlap=overlap,
                                      owner=researcher)
    campaign.description = loaded("description")
    campaign.save(update_fields=["description"])
    for user in (annotator, *(UserFactory(username=name) for name in RATERS)):
        membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)
    return campaign


def _write(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _judge_scores(campaign, tmp_path, name: str, flip: int = 0, labels: tuple[str, str] = ("yes", "no")):
    """Import a judge-scores TSV scoring every item of CAMPAIGN as judge NAME (LABELS: of a high score, of a low one;
    every FLIP-th flipped)."""
    rows = ["topic\titem\tscore\tlabel"]
    items = Item.objects.filter(campaign=campaign).select_related("topic").order_by("pk")
    for n, item in enumerate(items):
        score = (n * 37 % 100) / 100
        label = labels[0] if (score >= 0.5) != (flip and n % flip == 0) else labels[1]
        source_id = item.data.get("source_id") or item.data.get("image_id") or item.external_id
        rows.append(f"{item.topic.external_id}\t{source_id}\t{score}\t{label}")
    import_run(campaign=campaign, fmt="judge-scores", paths=[_write(tmp_path / f"{name[:7]}.tsv", rows)], judge=name)


def _web_judgments(campaign, value_for):
    """Every rater in RATERS judges every unit open to them; VALUE_FOR(rater index, unit n) gives the value."""
    for r, username in enumerate(RATERS):
        rater = UserFactory(username=username)
        n = 0
        while (assignment := unit_lease_next(campaign=campaign, annotator=rater)) is not None:
            judgment_submit(assignment=assignment, annotator=rater, value=value_for(r, n))
            n += 1


def injection_of(task_type: str) -> InjectionSample:
    """TASK_TYPE's part of this journey (its sample's injection); the test fails for a type without one."""
    sample = task_type_get(task_type).sample()
    if sample is None or sample.injection is None:
        pytest.fail(f"task type {task_type} has no injection part in its sample (TaskTypeSample.injection, in "
                    f"tasktypes/{task_type}/sample.py): the browser injection test cannot import its campaign")
    return sample.injection


@pytest.fixture
def kit(tmp_path) -> InjectionKit:
    """This test's payloads and helpers, as a type's injection part takes them."""

    def write(name: str, lines: list[str]) -> Path:
        return _write(tmp_path / name, lines)

    def write_csv(name: str, rows: list[dict]) -> Path:
        path = tmp_path / name
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return path

    def judge_scores(campaign, name: str, flip: int = 0, labels: tuple[str, str] = ("yes", "no")) -> None:
        _judge_scores(campaign, tmp_path, name, flip=flip, labels=labels)

    return InjectionKit(folder=tmp_path, loaded=loaded, token=token, topic_payload=TOPIC_PAYLOAD, evil_url=EVIL_URL,
                        js_url=JS_URL, systems=SYSTEMS, judges=JUDGE_NAMES, runs=RUNS, run_tag=RUN_TAG,
                        campaign=_campaign, write=write, write_csv=write_csv, web_judgments=_web_judgments,
                        judge_scores=judge_scores, images=images_write)


FAILURE_REASON = loaded("unreadable verdict")


@pytest.fixture
def injection(task_type) -> InjectionSample:
    return injection_of(task_type)


@pytest.fixture
def injected(injection, kit, tmp_path, settings):
    """The campaign of the test's task type (its `task_type` parameter), imported with payloads everywhere."""
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = injection.build(kit)
    failed = Judge.objects.create(campaign=campaign, name=loaded("failed-run", "raw_text", "template"), family="em",
                                  config={"note": loaded("config", "script", "attribute")}, config_hash="x" * 64)
    run = JudgeRun.objects.create(judge=failed, status=RunStatus.FAILED, total=3, error=loaded("worker said"))
    # a verdict the model gave in words that could not be read: its reason is listed on the judge panel
    ModelJudgment.objects.create(judge=failed, run=run, item=Item.objects.filter(campaign=campaign).first(),
                                 failed=True, raw=json.dumps({"reason": FAILURE_REASON}))
    return campaign


# --- What every page must (not) do ---

class Guard:
    """Records what a page does that a payload could cause: dialogs, and console messages or errors naming pwned."""

    def __init__(self, page):
        self.page, self.dialogs, self.messages = page, [], []
        page.on("dialog", self._dialog)
        page.on("console", lambda message: self.messages.append(message.text))
        page.on("pageerror", lambda error: self.messages.append(str(error)))

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def check(self):
        """Nothing ran: no dialog, no window.__pwned, no console word of it; no element a payload would make."""
        page = self.page
        page.wait_for_load_state("networkidle")  # an injected <img src=x> has had its 404, so onerror has fired
        assert self.dialogs == []
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert [m for m in self.messages if "pwned" in m] == []
        assert page.evaluate(INJECTED_DOM) == [], "markup from imported text reached the DOM"


# Event-handler attributes, javascript: links, inline scripts and the payloads' own tags: none belongs on a page.
INJECTED_DOM = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
    }
  }
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href');
    if (href.trim().toLowerCase().startsWith('javascript:')) found.push('a ' + href);
  }
  for (const s of document.querySelectorAll('script:not([src]):not([type="application/json"])')) {
    found.push('inline script ' + s.textContent);
  }
  for (const el of document.querySelectorAll('img[src=x], body svg:not(.plot svg):not(.plot svg *)')) {
    found.push(el.outerHTML.slice(0, 80));
  }
  return found;
}"""


def shown_text(page) -> str:
    """The page's visible text with every <details> opened (the report folds its per-topic tables)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return page.inner_text("body")


def assert_shown(text: str, expected) -> None:
    missing = [value for value in expected if value not in text]
    assert missing == [], f"not shown literally: {missing}"


@pytest.fixture
def visit(login_page, live_server):
    """visit(username, path) -> (page, guard): PATH opened on the live server by USERNAME, guarded from the start."""

    def open_page(username, path):
        page = login_page(username)
        guard = Guard(page)
        page.goto(f"{live_server.url}{path}")
        guard.check()
        return page, guard

    return open_page


def url(name: str, campaign) -> str:
    return reverse(name, args=[campaign.slug])


def judge_names(campaign) -> list[str]:
    return list(Judge.objects.filter(campaign=campaign).values_list("name", flat=True))


def browser(test):
    """A test run in Chromium once per task type, on a database the live server sees."""
    test = pytest.mark.parametrize("task_type", task_type_names())(test)
    return pytest.mark.browser(pytest.mark.django_db(transaction=True)(test))


# --- The pages ---

def home_page_checked(injected, visit):
    for username in ("res", "ann"):
        page, _ = visit(username, reverse("home"))
        assert_shown(shown_text(page), [CAMPAIGN_NAME])


def campaign_page_checked(injected, visit, injection, kit):
    page, _ = visit("res", url("campaign-detail", injected))
    assert_shown(shown_text(page), [CAMPAIGN_NAME, injected.description, *injection.campaign_texts(kit, injected)])


# A file name is shown back in error messages. (No '"': Chromium sends it as %22 in a multipart file name.)
BAD_UPLOAD = f"<img src=x onerror={PWNED}>.tsv"


def _upload(page, *, name: str, rows: list[str], judge: str) -> None:
    page.select_option("select[name=format]", "judge-scores")
    page.set_input_files("input[name=files]", files=[
        {"name": name, "mimeType": "text/tab-separated-values", "buffer": "\n".join(rows).encode()}])
    page.fill("input[name=judge]", judge)
    page.click("form.card button[type=submit]")
    page.wait_for_load_state("networkidle")


def import_page_checked(injected, visit):
    """Celery runs eagerly (the journey sets it): an upload's job has run when its page opens."""
    page, guard = visit("res", url("campaign-import", injected))
    assert_shown(shown_text(page), [CAMPAIGN_NAME])
    import_page = page.url
    # a refused file: the message quotes the file name and the unknown topic
    unknown = loaded("topic", "script", "attribute")
    _upload(page, name=BAD_UPLOAD, rows=["topic\titem\tscore", f"{unknown}\tx\t0.5"], judge=UPLOADED_JUDGE)
    guard.check()
    assert_shown(page.inner_text("#import-error"), [f"{BAD_UPLOAD}:2: topic: no topic '{unknown}' in this campaign"])
    page.goto(import_page)  # the campaign's recent imports list the file by its name
    guard.check()
    assert_shown(page.inner_text("#recent-imports"), [BAD_UPLOAD])
    # an accepted file: the summary names every judge of the campaign, the uploaded one too
    item = Item.objects.filter(campaign=injected).select_related("topic").first()
    item_id = item.data.get("source_id") or item.data.get("image_id") or item.external_id
    _upload(page, name="scores.tsv", rows=["topic\titem\tscore", f"{item.topic.external_id}\t{item_id}\t0.5"],
            judge=UPLOADED_JUDGE)
    guard.check()
    assert_shown(page.inner_text("#import-summary"), [UPLOADED_JUDGE, *JUDGE_NAMES])


def held(campaign) -> Assignment:
    """The unit leased to "ann" now."""
    return Assignment.objects.select_related("unit__topic", "unit__item").get(
        unit__campaign=campaign, annotator__username="ann", status=AssignmentStatus.ACTIVE)


def annotate_page_checked(injected, visit, injection, kit):
    page, guard = visit("ann", url("annotate", injected))
    seen = set()
    assignment = before = None
    for step in range(2):  # the first unit, then the next one, which comes through htmx (an innerHTML swap)
        if step:
            before = assignment.pk if assignment else None
            press(page, injection.next_key)
            page.wait_for_function("() => document.querySelector('#annotate-progress .progress-text')"
                                   ".textContent.trim().startsWith('1 of')")
            guard.check()
        assignment = held(injected)
        assert step == 0 or assignment.pk != before
        assert_shown(shown_text(page), [CAMPAIGN_NAME, *injection.unit_texts(assignment)])
        seen.add(injection.unit_checked(kit, page, assignment))
    assert seen == injection.units_seen(kit)


def report_texts(campaign, injection, kit) -> list[str]:
    """The imported names and texts the report page must show for CAMPAIGN."""
    report = agreement_report_build(campaign=campaign)
    return [CAMPAIGN_NAME, *JUDGE_NAMES, *injection.report_texts(kit, campaign, report)]


def report_page_checked(injected, visit, injection, kit):
    page, _ = visit("res", url("agreement-report", injected))
    assert_shown(shown_text(page), report_texts(injected, injection, kit))
    # SVG built in Python (matplotlib) and inlined with |safe: its labels are text nodes, not markup
    plots = page.locator(".plot svg")
    assert plots.count() == injection.plots
    assert_shown("\n".join(plots.all_text_contents()), injection.plot_texts(kit, injected))


def judge_panel_checked(injected, visit):
    page, _ = visit("res", url("judge-panel", injected))
    run = JudgeRun.objects.get(judge__campaign=injected)
    assert_shown(shown_text(page), [CAMPAIGN_NAME, *judge_names(injected), run.error, FAILURE_REASON])


def browsable_api_checked(injected, visit):
    """DRF's HTML view of the report API shows the JSON document, names JSON-escaped but not HTML-interpreted."""
    page, _ = visit("res", f"/api/campaigns/{injected.slug}/agreement/")
    assert_shown(shown_text(page), [json.dumps(name, ensure_ascii=False)[1:-1] for name in JUDGE_NAMES])


def downloads(campaign, injection, kit) -> list[tuple[str, str, list[str]]]:
    """(url, kind, names it must hold) of every download the report page offers for CAMPAIGN."""
    topics = list(campaign.topics.filter(units__judgments__isnull=False).distinct().values_list("external_id",
                                                                                              flat=True))
    return [(url("agreement-report-json", campaign), "json", [*JUDGE_NAMES, *injection.systems(kit)]),
            (url("agreement-judges-csv", campaign), "csv", list(JUDGE_NAMES)),
            (url("agreement-labels-csv", campaign), "csv", list(JUDGE_NAMES)),
            *injection.downloads(kit, campaign, topics)]


def cells(kind: str, body: str) -> str:
    """The values of a download, one per line: JSON keys and strings, CSV cells, qrels fields."""
    if kind == "json":
        def walk(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    yield key
                    yield from walk(value)
            elif isinstance(node, list):
                for value in node:
                    yield from walk(value)
            elif isinstance(node, str):
                yield node
        return "\n".join(walk(json.loads(body)))
    if kind == "csv":
        return "\n".join(cell for row in csv.reader(io.StringIO(body)) for cell in row)
    return "\n".join(field for line in body.splitlines() for field in line.split())


def downloads_checked(injected, visit, live_server, injection, kit):
    """The JSON and CSV downloads keep every name exactly, and no browser would render them as HTML; then the
    type's own check of the report page (graded: a qrels link per judge and assessor, each downloading)."""
    page, _ = visit("res", url("agreement-report", injected))
    for path, kind, expected in downloads(injected, injection, kit):
        response = page.request.get(live_server.url + path)
        assert response.status == 200, path
        headers = response.headers
        assert "html" not in headers["content-type"]
        assert headers["content-disposition"].startswith("attachment;")
        assert headers["x-content-type-options"] == "nosniff"
        assert_shown(cells(kind, response.text()), expected)
    injection.report_checked(kit, page, injected, lambda path: page.request.get(live_server.url + path).status)


# --- The journey: every page, once per task type ---

@browser
def test_no_payload_runs_and_every_page_shows_it_as_text(injected, visit, live_server, task_type, injection, kit,
                                                         monkeypatch):
    """One campaign per task type, built once, and every page that shows its texts opened in turn: the report and
    what reads it first (built once, as the worker leaves it: before, the API answers 202 with a status URL), then
    the pages that change the campaign last (a verdict given on the annotation page, a judge uploaded on the import
    page)."""
    from config.celery import app

    report_stored(injected)
    report_page_checked(injected, visit, injection, kit)
    browsable_api_checked(injected, visit)
    downloads_checked(injected, visit, live_server, injection, kit)
    judge_panel_checked(injected, visit)
    home_page_checked(injected, visit)
    campaign_page_checked(injected, visit, injection, kit)
    annotate_page_checked(injected, visit, injection, kit)
    # The live server runs in this process: with Celery eager, an upload's job has run when its page opens.
    monkeypatch.setattr(app.conf, "task_always_eager", True)
    import_page_checked(injected, visit)


# --- Production settings: the headers and cookies a deployed response carries ---

# Run by `manage.py shell` under config.settings.production: a sign-in over HTTPS (as the proxy forwards it) and a
# plain-HTTP request, answered by the real middleware; prints what a browser would receive.
PRODUCTION_PROBE = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

call_command("migrate", verbosity=0)
get_user_model().objects.create_user("probe", password="probe-password-1")
client = Client(HTTP_HOST="concord.example.org")
signed_in = client.post("/accounts/login/", {"username": "probe", "password": "probe-password-1"},
                        HTTP_X_FORWARDED_PROTO="https")
plain = Client(HTTP_HOST="concord.example.org").get("/accounts/login/")
print(json.dumps({
    "status": signed_in.status_code,
    "headers": dict(signed_in.headers),
    "cookies": {name: {"secure": bool(c["secure"]), "httponly": bool(c["httponly"])}
                for name, c in signed_in.cookies.items()},
    "plain": [plain.status_code, plain.headers.get("Location")],
    "settings": {name: getattr(settings, name) for name in (
        "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_CONTENT_TYPE_NOSNIFF", "X_FRAME_OPTIONS",
        "SECURE_REFERRER_POLICY", "SECURE_HSTS_SECONDS")},
}))
"""


@sqlite_run_only("the probe runs in a process of its own on its own SQLite database and file cache")
def test_production_responses_carry_security_headers_and_secure_cookies(tmp_path):
    """test_settings.py checks the production settings with check --deploy; this checks what a response carries."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "SECURE_COOKIES",
                        "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.production",
                "SECRET_KEY": "x" * 20 + "production-secret-with-enough-entropy-1234567890",
                "ALLOWED_HOSTS": "concord.example.org", "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
                "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CACHE_URL": f"filecache://{tmp_path / 'cache'}"})
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", PRODUCTION_PROBE], cwd=settings.BASE_DIR,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["settings"] == {"SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True,
                                "SECURE_CONTENT_TYPE_NOSNIFF": True, "X_FRAME_OPTIONS": "DENY",
                                "SECURE_REFERRER_POLICY": "same-origin", "SECURE_HSTS_SECONDS": 31536000}
    assert seen["status"] == 302  # signed in, sent on to the campaigns
    headers = seen["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    assert seen["cookies"]["sessionid"] == {"secure": True, "httponly": True}
    assert seen["cookies"]["csrftoken"]["secure"] is True
    assert seen["plain"] == [301, "https://concord.example.org/accounts/login/"]  # plain HTTP goes to HTTPS
