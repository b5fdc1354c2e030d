"""The graded report in Chromium at 1280 px, on screen and in print: every table fits inside its card, so no column
(the judges' "Mean κ per topic", the run orders' "Relative Δ") is cut or hidden behind a scroll bar."""

import re
from pathlib import Path

import pytest

from annotate.models import Campaign
from interchange.importers.runs_pool import runs_pool_import
from interchange.importers.service import import_run
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_graded import HUMAN, SPLIT, _second_assessor, passage_campaign  # noqa: F401 (fixture)

SHOTS = Path("/tmp/report-shots")

# Every table of the page whose right edge leaves its box: the nearest card (or the page's main column), or a
# header cell outside the table's own visible part. Collapsed <details> are opened first: a reader opens them.
OVERFLOWS = """() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const out = [];
  const main = document.querySelector('main');
  for (const [i, table] of document.querySelectorAll('main table').entries()) {
    const box = table.closest('.card') || main;
    const outer = box.getBoundingClientRect();
    const style = getComputedStyle(box);
    const right = outer.right - parseFloat(style.borderRightWidth);
    const t = table.getBoundingClientRect();
    const name = table.id || table.className || `table ${i}`;
    if (t.right > right + 0.5) out.push(`${name}: table right ${t.right} > box ${right}`);
    // A scrolling wrapper hides what is past its own right edge.
    let clip = right;
    for (let el = table.parentElement; el && el !== box; el = el.parentElement) {
      const r = el.getBoundingClientRect();
      if (getComputedStyle(el).overflowX !== 'visible') clip = Math.min(clip, r.right);
    }
    for (const th of table.querySelectorAll('thead th')) {
      const r = th.getBoundingClientRect();
      if (r.right > clip + 0.5) out.push(`${name}: "${th.innerText.trim()}" ends at ${r.right} > ${clip}`);
    }
  }
  return out;
}"""


@pytest.fixture
def tagged_runs(passage_campaign, tmp_path):  # noqa: F811
    """The fixture's runs plus a tagged one, so Relative Δ has figures (the widest column)."""
    runs = tmp_path / "tagged.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {10 - rank} r4-tagged\n" for qid in HUMAN
                            for rank, doc in enumerate(("b", "a", "d", "c"), start=1)))
    runs_pool_import(campaign=passage_campaign, paths=[runs], depth=10, tag="clip-based")
    return Campaign.objects.get(pk=passage_campaign.pk)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_report_table_fits_its_card_at_1280_px_and_in_print(tagged_runs, login_page, live_server, tmp_path):
    SHOTS.mkdir(exist_ok=True)
    _second_assessor(tagged_runs, split=SPLIT)  # k = 2: Fleiss' kappa and alpha, and 5 tied passages dropped
    # An automatic judge's leaderboard (trec-leaderboard): its run orders against the humans' have a table too.
    board = tmp_path / "board.txt"
    board.write_text("".join(f"{run} {measure} {qid} {0.1 * i + 0.01 * j}\n"
                             for i, run in enumerate(["r3", "r2", "r1", "r4-tagged"])
                             for measure in ("nDCG@10", "AP(rel=2)", "P(rel=2)@10", "nDCG@20")
                             for j, qid in enumerate(sorted(HUMAN))))
    import_run(campaign=tagged_runs, fmt="trec-leaderboard", paths=[board], judge="autojudge")
    report_stored(tagged_runs)  # as the worker leaves it: a first open never builds
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/{tagged_runs.slug}/report/")
    # Every number with its n and its interval, the tiles too; the tied passages counted beside each judge's n.
    tile = page.locator("#headline-fleiss").inner_text()
    assert "n = 16 passages, 2 assessors" in tile and re.search(r"\[-?\d\.\d{3}, -?\d\.\d{3}\]", tile), tile
    humans = page.locator("#humans").inner_text()
    assert humans.count("(n = 16 passages, 2 assessors)") == 2, humans
    assert "dropped: 5 tied" in page.locator("#judges").inner_text()
    assert page.locator("#judges thead th").last.inner_text().startswith("Mean κ per topic")
    assert page.locator("#run-orders thead th").last.inner_text() == "Relative Δ"
    assert "%" in page.locator("#run-orders tbody tr").first.locator("td").last.inner_text()
    # The track's measures: one closed table each, a value with its n (topics) and interval (or why none) per cell;
    # the run orders list every measure, nine rows per judge.
    assert page.locator("details.track-measure").count() == 6
    assert page.locator("#run-orders tbody tr").count() == 2 * 9
    assert page.locator("#leaderboard-orders tbody tr").count() == 4  # the four measures the leaderboard gives
    page.locator("#track-compat summary").click()
    compat = page.locator("#track-compat table")
    assert compat.locator("thead th").all_inner_texts() == ["Run", "Compat (p = 0.95) humans", "Compat (p = 0.95) bm25",
                                                          "Compat (p = 0.95) grader"]
    first = compat.locator("tbody tr").first.locator("td").nth(1).inner_text()
    assert re.search(r"\d\.\d{3} n=4\s*\[\d\.\d{3}, \d\.\d{3}\]", first), first
    overflows = page.evaluate(OVERFLOWS)  # opens the <details> too, so that the screenshot shows every table
    page.screenshot(path=str(SHOTS / "graded-report-1280.png"), full_page=True)
    assert overflows == [], "\n".join(overflows)
    page.emulate_media(media="print")
    assert page.evaluate(OVERFLOWS) == []
    page.set_viewport_size({"width": 718, "height": 1000})  # A4 less Chromium's print margins, in CSS px
    overflows = page.evaluate(OVERFLOWS)
    page.screenshot(path=str(SHOTS / "graded-report-print-a4.png"), full_page=True)
    assert overflows == [], "\n".join(overflows)
