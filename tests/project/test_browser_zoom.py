"""Every task type's annotation page zoomed in (issue 54; WCAG 1.4.4 resize text, 1.4.10 reflow): a 1280 × 900
window at 200 % is 640 × 450 CSS pixels, at 400 % 320 × 225. At both, nothing needs scrolling sideways, the unit's
texts keep the width of the window, and the judging panel, where it stays pinned to the window's bottom edge, takes
at most a quarter of its height (static/js/unit.js lets a taller one go: it scrolls with the unit). A screenshot of
each is kept (in $CONCORD_SCREENSHOTS when set, to look at)."""

import os
from pathlib import Path

import pytest

from annotate.task_types.registry import task_type_names
from tests.project.test_query_counts import campaign_from_sample
from tests.sides import sqlite_run_only

ZOOMS = {200: (640, 450), 400: (320, 225)}

MEASURE = """() => {
  const card = document.querySelector('#annotate-unit .annotate-card');
  const pinned = card ? Array.from(card.children).find(el => getComputedStyle(el).position === 'sticky') : null;
  const texts = Array.from(document.querySelectorAll('#annotate-unit [data-clamp], #annotate-unit .rank-text'))
    .filter(el => el.getClientRects().length);
  return {
    pinned: pinned ? Math.ceil(pinned.getBoundingClientRect().height) : 0,
    height: window.innerHeight,
    width: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    wide: Array.from(document.querySelectorAll('body *')).filter(el => el.getBoundingClientRect().right >
      document.documentElement.clientWidth + 1).slice(0, 5).map(el => el.tagName + '.' + el.className + '#' + el.id),
    narrowest: texts.length ? Math.min(...texts.map(el => el.getBoundingClientRect().width)) : null,
  };
}"""


@pytest.mark.browser
@sqlite_run_only("what is measured is the pages' layout, the same on either database")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("task_type", task_type_names())
def test_every_annotation_page_reads_at_200_and_400_percent_zoom(task_type, login_page, live_server, settings,
                                                                   tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    world = campaign_from_sample(task_type, topics=3, tag="zoom", media_root=settings.MEDIA_ROOT)
    shots = Path(os.environ.get("CONCORD_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page = login_page(world["users"]["annotator"].username)
    found = {}
    for zoom, (width, height) in ZOOMS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/campaigns/{world['campaign'].slug}/annotate/")
        page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
        page.screenshot(path=str(shots / f"zoom-{task_type}-{zoom}.png"))
        found[zoom] = measured = page.evaluate(MEASURE)
        assert measured["scrollWidth"] <= measured["width"], (zoom, measured)
        assert measured["pinned"] <= measured["height"] / 4, (zoom, measured)
        assert measured["narrowest"] is None or measured["narrowest"] >= 0.6 * measured["width"], (zoom, measured)
    print(task_type, found)
