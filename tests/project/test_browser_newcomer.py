"""The README's walkthrough ("From signing in to a report, in the browser"), step by step, in Chromium only: from a
fresh `load_demo` the demo researcher makes a passage_relevance campaign with the default overlap k, imports the
demo's topics, runs and collection on the import page with their defaults, adds the demo's assessor1 and assessor2 on
the People page, each signs in and grades every passage by keyboard, the researcher runs BM25 from the judges page and
reads the report, whose first agreement tile holds the two assessors' Fleiss' kappa with its n, and where every
agreement statistic carries its n and an interval or says why it has none. Issue 47 found the README's steps ending
in an empty kappa (n = 0): new campaigns took k = 1, so the two assessors never graded the same passage.

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
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotate.models import Campaign, HumanJudgment
from judges.models import JudgeRun
from tasktypes.management.commands.load_demo import DEMO_PASSWORD, DEMO_RESEARCHER
from tests.browser_keys import READY, press

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO = django_settings.BASE_DIR / "fixtures" / "passage_demo"
SLUG = "newcomer-passages"
ANNOTATORS = ("assessor1", "assessor2")
# The grades each assessor gives, by passage id: every passage the demo's three runs pool at the default depth, 25 over
# 5 queries. They agree on 19 and split on 6, so the k = 2 campaign has ties to drop and statistics with spread.
GRADES = {
    "assessor1": {"c1": 3, "c2": 1, "c3": 2, "c4": 0, "c5": 2, "n1": 3, "n2": 1, "n3": 1, "n4": 0, "n5": 2,
                  "r1": 3, "r2": 0, "r3": 1, "r4": 2, "r5": 1, "k1": 3, "k2": 2, "k3": 0, "k4": 0, "k5": 2,
                  "h1": 3, "h2": 1, "h3": 2, "h4": 0, "h5": 2},
    "assessor2": {"c1": 3, "c2": 1, "c3": 1, "c4": 0, "c5": 3, "n1": 3, "n2": 1, "n3": 2, "n4": 0, "n5": 2,
                  "r1": 3, "r2": 0, "r3": 1, "r4": 2, "r5": 0, "k1": 3, "k2": 1, "k3": 0, "k4": 1, "k5": 2,
                  "h1": 3, "h2": 1, "h3": 2, "h4": 0, "h5": 2},
}
UNITS = len(GRADES["assessor1"])
AGREED = sum(GRADES["assessor1"][d] == GRADES["assessor2"][d] for d in GRADES["assessor1"])


def sign_in(page, url: str, username: str) -> None:
    """Sign USERNAME in on the sign-in form, with the demo's password, as the README's steps do."""
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}/")


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

    # 1. Sign in as the demo researcher.
    page = new_page()
    sign_in(page, url, DEMO_RESEARCHER)

    # 2. New campaign: passage_relevance and a name; the overlap k left as it comes, which must give agreement.
    page.click("#campaign-new")
    page.wait_for_load_state()  # htmx (deferred) binds the task type's change before it is chosen
    page.select_option("select[name=task_type]", "passage_relevance")
    page.wait_for_selector("#field-overlap")
    expect(page.locator("input[name=overlap]")).to_have_attribute("placeholder", "2")
    expect(page.locator("#overlap-agreement")).to_contain_text("With 1, every unit is judged once")
    page.fill("input[name=name]", "Newcomer passages")
    shot(page, shots, "01-new-campaign")
    page.click("#campaign-form button[type=submit]")
    expect(page).to_have_url(f"{url}/campaigns/{SLUG}/")
    expect(page.locator("h1")).to_have_text("Newcomer passages")
    campaign = Campaign.objects.get(slug=SLUG)
    assert (campaign.task_type, campaign.overlap) == ("passage_relevance", 2)

    # 3. Import the demo's topics, its runs (pooled at the default depth) and its collection, each waited for on its
    # job page.
    for fmt, name, summary in (
        ("trec-topics", "topics.tsv", "created: 5 topics, 0 passages to grade"),
        ("trec-run", "runs.txt", f"{UNITS} passages to grade, 75 run lines linked, 0 grades, {UNITS} units"),
        ("collection", "collection.tsv", f"passages given their text: {UNITS}"),
    ):
        page.click("text=Import data")
        page.select_option("select[name=format]", fmt)
        page.set_input_files("input[name=files]", str(DEMO / name))
        page.click("form button[type=submit]")
        page.wait_for_selector('#import-job[data-status="done"]')
        text = page.locator("#import-summary").inner_text()
        assert summary in text, text
        shot(page, shots, f"02-import-{fmt}")
        page.click(f"a:has-text('{campaign.name}')")
    expect(page.locator("#pools tbody tr")).to_have_count(5)
    timings["imports"] = time.monotonic() - started

    # 4. People: the demo's two assessors, added as annotators. Each signs in in a window of their own, opens the
    # campaign, Start annotating, and grades every passage by keyboard.
    page.click("a.button:has-text('People')")
    for username in ANNOTATORS:
        page.fill("input[name=username]", username)
        page.check("input[name=role][value=annotator]")
        page.click("#member-add button[type=submit]")
        expect(page.locator(".messages")).to_contain_text(f"{username} is now")
    shot(page, shots, "03-people")
    for username in ANNOTATORS:
        annotator = new_page()
        sign_in(annotator, url, username)
        annotator.click(f"a:has-text('{campaign.name}')")
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
        annotator.context.close()  # a signed-out window holds no memory through the rest
    graded = HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
    assert sorted(graded.values_list("annotator__username", flat=True).distinct()) == sorted(ANNOTATORS)
    assert graded.count() == 2 * UNITS
    timings["grading"] = time.monotonic() - started

    # 5. Model judges: start bm25 of the family bm25 and wait for it there; then the Agreement report.
    page.goto(f"{url}/campaigns/{SLUG}/")
    page.click("text=Model judges")
    page.fill("#start-judge input[name=name]", "bm25")
    page.select_option("#start-judge select[name=family]", "bm25")
    page.click("#start-judge button[type=submit]")
    page.wait_for_selector("#runs tr.run-row[data-status=succeeded]")
    expect(page.locator("#runs tr.run-row .progress-text")).to_have_text(f"{UNITS}/{UNITS} judged")
    shot(page, shots, "06-judges")
    timings["judge"] = time.monotonic() - started

    # Open the report, waiting out "Building…" if it shows.
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
    # The first agreement tile: the two assessors' Fleiss' kappa over every passage (statsmodels' on the grades they
    # gave), not the empty one with its hint.
    first, second = ([GRADES[name][docid] for docid in sorted(GRADES[name])] for name in ANNOTATORS)
    fleiss = fleiss_kappa(aggregate_raters(list(zip(first, second, strict=True)))[0])
    tile = page.locator("#headline-fleiss")
    expect(tile.locator("b.num")).to_have_text(f"{fleiss:.3f}")
    expect(tile).to_contain_text(f"n = {UNITS} passages, 2 assessors")
    expect(tile.locator("#why-no-human-agreement")).to_have_count(0)
    tile.screenshot(path=str(shots / "08-first-tile.png"))
    # The pair's kappas are sklearn's on the grades the two gave; the judge is compared over the units they agreed on.
    kappas = [f"{cohen_kappa_score(first, second, weights=weights):.3f}" for weights in (None, "linear")]
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
