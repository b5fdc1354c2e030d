"""The newcomer's path (issue 30), in Chromium only: from a fresh `load_demo` the demo researcher makes a passage
campaign, imports the demo's topics, runs and collection on the import page, invites two annotators whose one-time
links come from the People page, each grades every passage by keyboard, the researcher runs BM25 from the judges
page and reads the report, where every agreement statistic carries its n and an interval or says why it has none.

load_demo runs first, whole (its reports built), as the README's first command does before any worker starts: the
batches of the demo's own judge runs are kept where they would be published, and no worker judges them. From then on
Celery runs eagerly in this process (the live server's): an import, a judge run or a report build runs inside the
request that queues it, so each page shows its outcome when it loads.
"""

import io
import json
import os
import re
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from playwright.sync_api import expect
from sklearn.metrics import cohen_kappa_score

from annotate.models import Campaign, HumanJudgment
from judges.models import JudgeRun
from tasktypes.management.commands.load_demo import DEMO_PASSWORD, DEMO_RESEARCHER
from tests.browser_keys import READY, press

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO = django_settings.BASE_DIR / "fixtures" / "passage_demo"
SLUG = "newcomer-passages"
ANNOTATORS = ("ines", "tomas")
NEW_PASSWORD = "a long first password"
# The grades each annotator gives, by passage id (pool depth 1 of the demo's three runs: 14 passages over 5 queries).
# They agree on ten and split on four, so the k = 2 campaign has ties to drop and statistics with spread.
GRADES = {
    "ines": {"c1": 3, "c3": 2, "c4": 0, "n1": 3, "n2": 1, "n4": 0, "r1": 3, "r3": 1, "r5": 1, "k1": 3, "k4": 0,
             "h1": 3, "h3": 2, "h4": 0},
    "tomas": {"c1": 3, "c3": 1, "c4": 0, "n1": 2, "n2": 1, "n4": 0, "r1": 3, "r3": 0, "r5": 1, "k1": 3, "k4": 1,
              "h1": 3, "h3": 2, "h4": 0},
}
UNITS = len(GRADES["ines"])
AGREED = sum(GRADES["ines"][d] == GRADES["tomas"][d] for d in GRADES["ines"])


def shot(page, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


@pytest.fixture
def new_page(browser):
    """new_page() -> a page in a browser context of its own (a person of their own), closed after the test."""
    contexts = []

    def make():
        contexts.append(browser.new_context(viewport={"width": 1280, "height": 900}))
        return contexts[-1].new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: CONCORD_SCREENSHOT_DIR to look at them after the run, else the test's tmp dir."""
    folder = Path(os.environ.get("CONCORD_SCREENSHOT_DIR") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_newcomer_from_a_fresh_demo_to_a_report(new_page, live_server, settings, tmp_path, monkeypatch, shots):
    from config.celery import app
    from judges.tasks import judge_batch

    settings.MEDIA_ROOT = tmp_path / "media"
    timings = {}
    started = time.monotonic()

    # The README's first command, before any worker runs: its rankers' batches wait, published to no broker.
    waiting = []
    with monkeypatch.context() as before_worker:
        before_worker.setattr(judge_batch, "apply_async",
                              lambda args, **options: waiting.append(json.loads(json.dumps(args))))
        call_command("load_demo", stdout=io.StringIO())
    assert waiting and {run for run, _ in waiting} == set(JudgeRun.objects.values_list("id", flat=True))
    timings["load_demo"] = time.monotonic() - started
    monkeypatch.setattr(app.conf, "task_always_eager", True)
    monkeypatch.setattr(app.conf, "task_eager_propagates", True)
    url = live_server.url

    # 1. Sign in as the demo researcher and make a passage campaign, overlap 2.
    page = new_page()
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", DEMO_RESEARCHER)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.click("#campaign-new")
    page.wait_for_load_state()  # htmx (deferred) binds the task type's change before it is chosen
    page.select_option("select[name=task_type]", "passage_relevance")
    page.wait_for_selector("#field-overlap")
    page.fill("input[name=name]", "Newcomer passages")
    page.fill("input[name=overlap]", "2")
    shot(page, shots, "01-new-campaign")
    page.click("#campaign-form button[type=submit]")
    expect(page).to_have_url(f"{url}/campaigns/{SLUG}/")
    expect(page.locator("h1")).to_have_text("Newcomer passages")
    campaign = Campaign.objects.get(slug=SLUG)
    assert (campaign.task_type, campaign.overlap) == ("passage_relevance", 2)

    # 2. Import the demo's topics, its runs (pooled at depth 1) and its collection, each waited for on its job page.
    for fmt, name, depth, summary in (
        ("trec-topics", "topics.tsv", None, "created: 5 topics, 0 passages to grade"),
        ("trec-run", "runs.txt", "1", f"{UNITS} passages to grade, 42 run lines linked, 0 grades, {UNITS} units"),
        ("collection", "collection.tsv", None, f"passages given their text: {UNITS}"),
    ):
        page.click("text=Import data")
        page.select_option("select[name=format]", fmt)
        page.set_input_files("input[name=files]", str(DEMO / name))
        if depth:
            page.fill("input[name=depth]", depth)
        page.click("form button[type=submit]")
        page.wait_for_selector('#import-job[data-status="done"]')
        text = page.locator("#import-summary").inner_text()
        assert summary in text, text
        shot(page, shots, f"02-import-{fmt}")
        page.click(f"a:has-text('{campaign.name}')")
    expect(page.locator("#pools tbody tr")).to_have_count(5)
    timings["imports"] = time.monotonic() - started

    # 3. Invite two new annotators on the People page; each link is read from the page.
    links = {}
    page.click("a.button:has-text('People')")
    for username in ANNOTATORS:
        page.fill("input[name=username]", username)
        page.check("input[name=role][value=annotator]")
        page.check("input[name=create]")
        page.click("#member-add button[type=submit]")
        expect(page.locator("#invite")).to_contain_text(f"An account called {username} was made.")
        links[username] = page.locator("#invite-url").input_value()
        shot(page, shots, f"03-people-{username}")
    assert all(link.startswith(f"{url}/accounts/welcome/") for link in links.values())

    # 4. Each annotator opens their link, chooses a password and grades every passage by keyboard.
    for username in ANNOTATORS:
        annotator = new_page()
        annotator.goto(links[username])
        annotator.fill("input[name=new_password1]", NEW_PASSWORD)
        annotator.fill("input[name=new_password2]", NEW_PASSWORD)
        annotator.click("#welcome button[type=submit]")
        expect(annotator.locator("h1")).to_have_text("Newcomer passages")
        annotator.click("text=Start annotating")
        for n in range(UNITS):
            annotator.wait_for_selector(READY, state="attached")
            docid = annotator.locator(".passage-card .docid").inner_text()
            if n == 0:
                shot(annotator, shots, f"04-grade-{username}")
            press(annotator, str(GRADES[username][docid]))
            if n < UNITS - 1:
                progress = annotator.locator("#annotate-progress .progress-text")
                expect(progress).to_contain_text(f"{n + 1} of {UNITS} done")
        expect(annotator.locator("#all-done")).to_contain_text(f"you graded {UNITS} passages")
        shot(annotator, shots, f"05-done-{username}")
    graded = HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
    assert sorted(graded.values_list("annotator__username", flat=True).distinct()) == sorted(ANNOTATORS)
    assert graded.count() == 2 * UNITS
    timings["grading"] = time.monotonic() - started

    # 5. Run BM25 from the judges page and wait for it there.
    page.goto(f"{url}/campaigns/{SLUG}/")
    page.click("text=Model judges")
    page.fill("#start-judge input[name=name]", "bm25")
    page.select_option("#start-judge select[name=family]", "bm25")
    page.click("#start-judge button[type=submit]")
    page.wait_for_selector("#runs tr.run-row[data-status=succeeded]")
    expect(page.locator("#runs tr.run-row .progress-text")).to_have_text(f"{UNITS}/{UNITS} judged")
    shot(page, shots, "06-judges")
    timings["judge"] = time.monotonic() - started

    # 6. Open the report, waiting out "Building…" if it shows.
    page.goto(f"{url}/campaigns/{SLUG}/")
    page.click("text=Agreement report")
    page.wait_for_selector("#report-built", timeout=120_000)
    timings["report"] = time.monotonic() - started
    for summary in page.locator("details summary").all():
        summary.click()  # every section open, for the screenshot
    shot(page, shots, "07-report")

    # Every agreement statistic on the page carries its n and an interval, or says why it has none.
    found = page.evaluate(STATISTICS_CHECK)
    assert found["problems"] == [], found["problems"]
    assert found["tiles"] >= 2 and found["prose"] >= 2 and found["cells"] >= 40, found
    # The concrete facts: the two annotators' pair over every unit, the judge over the units they agreed on.
    expect(page.locator("#headline-fleiss")).to_contain_text(f"n = {UNITS} passages, 2 assessors")
    # The pair's kappas are sklearn's on the grades the two gave.
    ines, tomas = ([GRADES[name][docid] for docid in sorted(GRADES[name])] for name in ANNOTATORS)
    kappas = [f"{cohen_kappa_score(ines, tomas, weights=weights):.3f}" for weights in (None, "linear")]
    pair = page.locator("#humans table tbody tr")
    expect(pair).to_have_count(1)
    expect(pair.locator("td")).to_have_text([*sorted(ANNOTATORS), str(UNITS),
                                              *(re.compile(rf"^{kappa}\[") for kappa in kappas)])
    expect(page.locator("#headline .stat").first).to_have_text(re.compile(rf"^{AGREED}\s*passages with a human grade$"))
    judge = page.locator("#judges tbody tr")
    expect(judge).to_have_count(1)
    expect(judge.locator("td").nth(0)).to_have_text("bm25 bm25")
    expect(judge.locator("td").nth(2)).to_have_text(f"{AGREED} small dropped: {UNITS - AGREED} tied")
    # Three runs: the run-orders table says once, in its caption, why none of its cells has an interval.
    expect(page.locator("#run-orders caption.ci-note")).to_have_text(
        "No interval: too few runs to resample: 3 (an interval needs at least 4)")
    expect(page.locator("#run-orders tbody .ci-note")).to_have_count(0)
    # An interval names what it resampled: the pair's kappa the passages both graded.
    expect(page.locator("#humans table tbody tr td").nth(3).locator(".ci-over")).to_have_text("over items")
    print("newcomer timings (s, cumulative):", {k: round(v, 1) for k, v in timings.items()})


# Run in the page: every statistic that measures agreement (κ, α, τ, ρ, r, RBO, overlap, agreement, relative Δ)
# in the report's tiles, its prose and its tables. A value is a number printed to three decimals, or a dash whose
# tooltip says why it is undefined ("undefined: ..."). A value needs an n (in its tile, beside it, in its cell, or in
# the row's "(n)" column; a mean over topics its own count of topics) and an interval "[lo, hi]", or a note "no
# interval: why" under it or, for a whole table, as its caption. Plots are left out: their titles repeat a figure
# of a table above them.
STATISTICS_CHECK = r"""() => {
  const STAT = /κ|α|τ|ρ|Pearson|Spearman|Kendall|RBO|overlap@|Agreement|Relative Δ/;
  const VALUE = /^-?\d+\.\d{3}( %)?$/;
  const INTERVAL = /\[-?\d+(\.\d+)?, -?\d+(\.\d+)?\]/;
  const N = /\bn ?= ?\d+/;
  const found = {tiles: 0, prose: 0, cells: 0, problems: []};
  const text = el => el.textContent.replace(/\s+/g, " ").trim();
  const intervalIn = el => [...el.querySelectorAll(".ci-inline, .ci-under")].some(
    ci => INTERVAL.test(ci.textContent) || (ci.classList.contains("ci-note") && /^no interval: \S/.test(text(ci))));
  const undefinedWhy = el => {
    const dash = el.querySelector(".undefined");
    return !!dash && /^undefined: \S/.test(dash.title);
  };
  const own = el => { const c = el.cloneNode(true);
    c.querySelectorAll(".ci-inline, .ci-under, .muted, .flag, .dropped").forEach(x => x.remove()); return text(c); };
  const main = document.querySelector("main");
  const problem = (where, el, why) => found.problems.push(`${where}: ${why}: ${text(el).slice(0, 160)}`);

  for (const tile of main.querySelectorAll(".stats .stat")) {
    const value = tile.querySelector("b.num");
    const label = text(tile).slice(text(value).length);
    if (!STAT.test(label)) continue;
    found.tiles++;
    if (!N.test(label)) problem("tile", tile, "no n");
    if (VALUE.test(text(value))) { if (!intervalIn(tile)) problem("tile", tile, "no interval"); }
    else if (!undefinedWhy(value)) problem("tile", tile, "neither a value nor a reason");
  }
  for (const value of main.querySelectorAll("p b.num")) {
    if (!VALUE.test(text(value)) && !value.querySelector(".undefined")) continue;  // a count
    found.prose++;
    const after = document.createElement("span");  // what follows the value, up to the next one
    for (let el = value.nextElementSibling; el && !el.matches("b.num"); el = el.nextElementSibling)
      after.appendChild(el.cloneNode(true));
    if (!N.test(text(after))) problem("prose", value.parentElement, `no n after ${text(value)}`);
    if (VALUE.test(text(value)) ? !intervalIn(after) : !undefinedWhy(value))
      problem("prose", value.parentElement, `no interval after ${text(value)}`);
  }
  for (const table of main.querySelectorAll("table")) {
    const heads = [...table.querySelectorAll("thead tr:last-child th")].map(text);
    const nColumn = heads.findIndex(h => /\(n\)$|^Shared |^Passages$/.test(h));  // "Passages": the per-topic table
    const caption = table.querySelector("caption.ci-note");
    const tableNote = !!caption && /^No interval/.test(text(caption));
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => {
        if (!STAT.test(heads[i] || "")) return;
        found.cells++;
        const where = `${table.id || "table"} ${heads[i]}`;
        const value = own(cell);
        if (value === "—") { if (!undefinedWhy(cell)) problem(where, cell, "a dash that does not say why"); return; }
        if (!VALUE.test(value)) { problem(where, cell, `not a statistic's value: ${value}`); return; }
        if (!intervalIn(cell) && !tableNote) problem(where, cell, "no interval");
        const rowN = nColumn >= 0 && /^\d+/.test(text(row.children[nColumn]));
        if (!N.test(text(cell)) && (/per topic/.test(heads[i]) || !rowN)) problem(where, cell, "no n");
      });
    }
  }
  return found;
}"""
