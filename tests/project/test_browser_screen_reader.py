"""One unit of every task type as a screen reader meets it (issue 54): Chromium's accessibility tree, the one NVDA and
Orca read (through the DevTools protocol: Accessibility.getFullAXTree), walked over the unit. Every control in it
has a name; every control a key works names its key (keyshortcuts); after the verdict, given by its keys, the status
line says in a few words what was saved and how far the annotator is (static/js/unit.js: tell), the focus is on the
new unit's heading, and the unit is no live region (it would be read out whole each time). The walk is written out
(in $CONCORD_SCREENSHOTS when set, to read)."""

import os
from pathlib import Path

import pytest

from annotate.task_types.registry import task_type_names
from tests.browser_keys import press
from tests.project.test_query_counts import campaign_from_sample
from tests.sides import sqlite_run_only

CONTROLS = {"button", "radio", "checkbox", "textbox", "link", "combobox", "tab", "listitem", "option"}
# The keys that give one verdict on each type's first unit, as an annotator presses them.
VERDICT_KEYS = {
    "ais": ["y", "y"],                 # interpretable, then supported
    "answer_ranking": ["c"],           # keep the order shown
    "nugget_evaluation": ["s", "s", "s", "Enter"],  # each nugget supported, then submit the marks
}


def unit_walk(page) -> list[dict]:
    """The accessibility tree's nodes inside #annotate-unit, in document order: role, name, keyshortcuts, focused."""
    cdp = page.context.new_cdp_session(page)
    document = cdp.send("DOM.getDocument", {"depth": 0})
    unit = cdp.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": "#annotate-unit"})
    tree = cdp.send("Accessibility.getPartialAXTree", {"nodeId": unit["nodeId"], "fetchRelatives": False})
    full = cdp.send("Accessibility.getFullAXTree")["nodes"]
    root = tree["nodes"][0]["nodeId"] if tree["nodes"] else None
    children = {node["nodeId"]: node.get("childIds", []) for node in full}
    by_id = {node["nodeId"]: node for node in full}
    walked, todo = [], [root] if root else []
    while todo:
        node = by_id.get(todo.pop(0))
        if node is None:
            continue
        todo[0:0] = children.get(node["nodeId"], [])
        if node.get("ignored"):
            continue
        properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        walked.append({"role": node.get("role", {}).get("value", ""), "name": node.get("name", {}).get("value", ""),
                       "keys": properties.get("keyshortcuts", ""), "focused": bool(properties.get("focused")),
                       "live": properties.get("live", "")})
    cdp.detach()
    return walked


def said(walked) -> str:
    return "\n".join(f"{n['role']} “{n['name']}”" + (f" [{n['keys']}]" if n["keys"] else "")
                     + (" (focused)" if n["focused"] else "") for n in walked if n["role"] not in ("generic", "none"))


@pytest.mark.browser
@sqlite_run_only("what is read is the pages' markup, the same on either database")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("task_type", task_type_names())
def test_a_screen_reader_hears_each_controls_name_and_keys_and_a_short_status_after_a_verdict(
        task_type, login_page, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    world = campaign_from_sample(task_type, topics=3, tag="sr", media_root=settings.MEDIA_ROOT)
    out = Path(os.environ.get("CONCORD_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    page = login_page(world["users"]["annotator"].username)
    page.goto(f"{live_server.url}/campaigns/{world['campaign'].slug}/annotate/")
    page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
    before = unit_walk(page)
    controls = [n for n in before if n["role"] in CONTROLS - {"listitem"}]
    assert controls and all(n["name"].strip() for n in controls), said(before)
    keyed = page.evaluate("""() => Array.from(document.querySelectorAll('#annotate-unit [data-key]'))
        .filter(el => /^(BUTTON|INPUT|A|SUMMARY)$/.test(el.tagName) && el.getClientRects().length)
        .map(el => el.getAttribute('data-key').trim())""")
    assert keyed and {k for k in keyed} <= {n["keys"] for n in before if n["keys"]}, (keyed, said(before))
    assert page.locator("#annotate-unit").get_attribute("aria-live") is None

    progress = page.locator("#annotate-progress .progress-text").inner_text()
    for key in VERDICT_KEYS.get(task_type, [keyed[0].split()[0]]):
        press(page, key)
    page.wait_for_function("() => document.getElementById('unit-said').textContent.startsWith('Saved')")
    status = page.locator("#unit-said").inner_text()
    after = unit_walk(page)
    (out / f"screen-reader-{task_type}.txt").write_text(
        f"{said(before)}\n\n-- after the verdict ({' '.join(VERDICT_KEYS.get(task_type, [keyed[0].split()[0]]))})"
        f" the status says: {status}\n\n{said(after)}\n")
    assert status.endswith(" done.") and status != f"Saved. {progress}.", status
    assert [n["role"] for n in after if n["focused"]] == ["heading"], said(after)
