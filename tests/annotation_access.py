"""An annotation page as people who do not see it as its author does meet it (issue 54), checked on the first unit of
every task type by tests/project/test_browser_a11y.py (annotation_states), on the world it builds for axe.

Zoomed in (zoom_checked; WCAG 1.4.4 resize text, 1.4.10 reflow): a 1280 × 900 window at 200 % is 640 × 450 CSS
pixels, at 400 % 320 × 225. At both, nothing needs scrolling sideways, the unit's texts keep most of the window's
width, and the judging panel, where it stays pinned to the window's bottom edge, takes at most a quarter of its height
(static/js/unit.js lets a taller one go: it scrolls with the unit).

Through a screen reader (screen_reader_checked): Chromium's accessibility tree, the one NVDA and Orca read (through
the DevTools protocol), walked over the unit. Every control has a name; every control a key works names its keys
(keyshortcuts); after one verdict given by its keys, the status line says in a few words what was saved and how far
the annotator is (unit.js: tell), the focus is on the new unit's heading, and the unit is no live region (it would be
read out whole each time).

What each saw is kept in $CONCORD_SCREENSHOTS when set (zoom-<type>-<zoom>.png, screen-reader-<type>.txt), to look at.
"""

import os
from pathlib import Path

from tests.browser_keys import press

ZOOMS = {200: (640, 450), 400: (320, 225)}
LAPTOP = {"width": 1280, "height": 900}
ZOOM_MEASURE = """() => {
  const card = document.querySelector('#annotate-unit .annotate-card');
  const pinned = card ? Array.from(card.children).find(el => getComputedStyle(el).position === 'sticky') : null;
  const texts = Array.from(document.querySelectorAll('#annotate-unit [data-clamp], #annotate-unit .rank-text'))
    .filter(el => el.getClientRects().length);
  const width = document.documentElement.clientWidth;
  return {
    pinned: pinned ? Math.ceil(pinned.getBoundingClientRect().height) : 0,
    height: window.innerHeight, width: width, scrollWidth: document.documentElement.scrollWidth,
    wide: Array.from(document.querySelectorAll('body *')).filter(el => el.getBoundingClientRect().right > width + 1)
      .slice(0, 5).map(el => el.tagName + '.' + el.className + '#' + el.id),
    narrowest: texts.length ? Math.min(...texts.map(el => el.getBoundingClientRect().width)) : null,
  };
}"""
CONTROLS = {"button", "radio", "checkbox", "textbox", "link", "combobox", "tab", "option"}
# The keys that give one verdict on each type's first unit, as an annotator presses them; else its first control's.
VERDICT_KEYS = {
    "ais": ["y", "y"],                 # interpretable, then supported
    "answer_ranking": ["c"],           # keep the order shown
    "nugget_evaluation": ["s", "s", "s", "Enter"],  # each nugget supported, then submit the marks
}


def kept_in() -> Path | None:
    folder = os.environ.get("CONCORD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) if folder else None


def zoom_checked(page, url: str, task_type: str) -> dict:
    """The first unit at URL measured at each of ZOOMS (asserting the module's rules); the window is a laptop's
    again afterwards. Returns the measures by zoom."""
    found, out = {}, kept_in()
    for zoom, (width, height) in ZOOMS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
        if out:
            page.screenshot(path=str(out / f"zoom-{task_type}-{zoom}.png"))
        found[zoom] = measured = page.evaluate(ZOOM_MEASURE)
        assert measured["scrollWidth"] <= measured["width"], (task_type, zoom, measured)
        assert measured["pinned"] <= measured["height"] / 4, (task_type, zoom, measured)
        assert measured["narrowest"] is None or measured["narrowest"] >= 0.6 * measured["width"], (
            task_type, zoom, measured)
    page.set_viewport_size(LAPTOP)
    return found


def unit_walk(page) -> list[dict]:
    """The accessibility tree's nodes inside #annotate-unit, in document order: role, name, keyshortcuts, focused."""
    cdp = page.context.new_cdp_session(page)
    try:
        document = cdp.send("DOM.getDocument", {"depth": 0})
        unit = cdp.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": "#annotate-unit"})
        top = cdp.send("Accessibility.getPartialAXTree", {"nodeId": unit["nodeId"], "fetchRelatives": False})
        full = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {node["nodeId"]: node for node in full}
    walked, todo = [], [top["nodes"][0]["nodeId"]] if top["nodes"] else []
    while todo:
        node = by_id.get(todo.pop(0))
        if node is None:
            continue
        todo[0:0] = node.get("childIds", [])
        if node.get("ignored"):
            continue
        properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        walked.append({"role": node.get("role", {}).get("value", ""), "name": node.get("name", {}).get("value", ""),
                       "keys": properties.get("keyshortcuts", ""), "focused": bool(properties.get("focused"))})
    return walked


def walk_text(walked) -> str:
    """WALKED as a screen reader's user would note it down: a line a node, its keys and whether it has the focus."""
    quiet = ("generic", "none", "InlineTextBox")
    return "\n".join(f"{n['role']} “{n['name']}”" + (f" [{n['keys']}]" if n["keys"] else "")
                     + (" (focused)" if n["focused"] else "") for n in walked if n["role"] not in quiet)


def screen_reader_checked(page, task_type: str) -> str:
    """The first unit on PAGE walked, one verdict given by its keys, the next walked (asserting the module's rules).
    Returns what the status line said."""
    before = unit_walk(page)
    controls = [n for n in before if n["role"] in CONTROLS]
    assert controls and all(n["name"].strip() for n in controls), walk_text(before)
    keyed = page.evaluate("""() => Array.from(document.querySelectorAll('#annotate-unit [data-key]'))
        .filter(el => /^(BUTTON|INPUT|A|SUMMARY)$/.test(el.tagName) && el.getClientRects().length)
        .map(el => el.getAttribute('data-key').trim())""")
    assert keyed and set(keyed) <= {n["keys"] for n in before if n["keys"]}, (keyed, walk_text(before))
    assert page.locator("#annotate-unit").get_attribute("aria-live") is None

    progress = page.locator("#annotate-progress .progress-text").inner_text()
    keys = VERDICT_KEYS.get(task_type, [keyed[0].split()[0]])
    for key in keys:
        press(page, key)
    page.wait_for_function("() => document.getElementById('unit-said').textContent.startsWith('Saved')")
    status = page.locator("#unit-said").inner_text()
    after = unit_walk(page)
    out = kept_in()
    if out:
        (out / f"screen-reader-{task_type}.txt").write_text(
            f"{walk_text(before)}\n\n-- after the verdict ({' '.join(keys)}) the status says: {status}\n\n"
            f"{walk_text(after)}\n")
    assert status.endswith(" done.") and status != f"Saved. {progress}.", status
    assert [n["role"] for n in after if n["focused"]] == ["heading"], walk_text(after)
    return status
