"""The ranking list without sight, in Chromium (issue 54): candidates take the focus (Tab, j/k), their names in the
accessibility tree say their places, a move is said in a status line, and the arrow keys act only inside the list.

The accessibility tree is Chromium's own, read through the DevTools protocol (Accessibility.getFullAXTree): what a
screen reader is given."""

import pytest
from playwright.sync_api import expect

from annotate.models import Item, Topic
from tests.browser_keys import READY, press
from tests.project.test_browser_a11y import violations
from tests.tasktypes.test_browser_ranking import LONG, keys_on_page, selected_key, shots, wait_for_query
from tests.tasktypes.test_ranking_services import ranking_campaign

SAID = "#rank-said"


def options(page) -> list[dict]:
    """The candidates shown, as the accessibility tree has them: name, description, selected, focused."""
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    cdp.detach()
    found = []
    for node in nodes:
        if node.get("ignored") or node.get("role", {}).get("value") != "option":
            continue
        states = {prop["name"]: prop["value"].get("value") for prop in node.get("properties", [])}
        found.append({"name": node["name"]["value"], "description": node.get("description", {}).get("value", ""),
                      "selected": states.get("selected") is True, "focused": states.get("focused") is True})
    return found


def names(page) -> list[str]:
    return [option["name"] for option in options(page)]


def focused_key(page):
    """The data-key of the candidate with the focus, or None when the focus is elsewhere."""
    return page.evaluate("() => { const el = document.activeElement.closest('.rank-item'); "
                         "return el ? el.dataset.key : null; }")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_tab_and_j_reach_the_candidates_whose_names_say_their_places_and_a_move_is_said(
        login_page, live_server, tmp_path):
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-a11y")
    page = login_page(ann.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    page.wait_for_selector(READY, state="attached")
    k0, k1, k2, k3 = keys_on_page(page)
    assert names(page) == [f"Candidate {k0}, place 1 of 4", f"Candidate {k1}, place 2 of 4",
                           f"Candidate {k2}, place 3 of 4", f"Candidate {k3}, place 4 of 4"]
    first = options(page)[0]
    assert first["selected"] and not first["focused"]  # the page does not take the focus on its own
    assert first["description"] == page.locator(f".rank-item[data-key={k0}] .rank-text").inner_text()
    # The buttons beside the list say their keys too.
    assert [page.locator(b).get_attribute("aria-keyshortcuts") for b in ("#rank-submit", "#rank-keep")] == [
        "Enter", "c"]

    # Tab: the list is one stop, its selected candidate; the next Tab leaves it.
    page.focus("#help-open")
    page.keyboard.press("Tab")
    assert focused_key(page) == k0
    assert [o["focused"] for o in options(page)] == [True, False, False, False]
    page.keyboard.press("Tab")
    assert focused_key(page) is None
    page.keyboard.press("Shift+Tab")
    assert focused_key(page) == k0

    # j, the arrows in the list: the focus follows the selection, and the tree says which is selected.
    press(page, "j")
    assert focused_key(page) == selected_key(page) == k1
    assert [(o["selected"], o["focused"]) for o in options(page)] == [
        (False, False), (True, True), (False, False), (False, False)]
    page.keyboard.press("ArrowDown")
    assert focused_key(page) == selected_key(page) == k2
    page.keyboard.press("ArrowUp")
    assert focused_key(page) == selected_key(page) == k1
    page.screenshot(path=str(shots(tmp_path) / "rank-a11y-focused.png"))

    # Shift+J: the move is said, with the new place; the candidate keeps the focus and its name the new place.
    press(page, "Shift+J")
    assert keys_on_page(page) == [k0, k2, k1, k3]
    expect(page.locator(SAID)).to_have_text(f"Candidate {k1} moved to place 3 of 4.")
    assert page.locator(SAID).get_attribute("role") == "status"
    assert focused_key(page) == k1
    assert names(page)[2] == f"Candidate {k1}, place 3 of 4"
    # The draft's line is apart, and does not speak over the move.
    page.wait_for_function("document.getElementById('draft-status').textContent === 'Draft saved'")
    assert page.locator("#draft-status").get_attribute("aria-live") is None
    expect(page.locator(SAID)).to_have_text(f"Candidate {k1} moved to place 3 of 4.")
    # A move that cannot be made is said too: the first stays first.
    press(page, "k")
    press(page, "k")
    press(page, "Shift+K")
    expect(page.locator(SAID)).to_have_text(f"Candidate {k0} stays at place 1 of 4.")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_arrow_keys_scroll_the_page_outside_the_list_and_select_inside_it(login_page, live_server):
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-arrows")
    Item.objects.filter(campaign=campaign).update(text=LONG)
    page = login_page(ann.username)
    page.set_viewport_size({"width": 900, "height": 500})
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    k0, k1, k2, _ = keys_on_page(page)

    page.locator("h1").click()  # the focus on the page, not in the list
    assert page.evaluate("window.scrollY") == 0
    page.keyboard.press("ArrowDown")
    page.wait_for_function("window.scrollY > 0")  # the page scrolls, as on any page
    assert selected_key(page) == k0
    assert focused_key(page) is None

    press(page, "j")  # j works from anywhere, and takes the focus into the list
    assert focused_key(page) == selected_key(page) == k1
    page.keyboard.press("ArrowDown")
    assert focused_key(page) == selected_key(page) == k2
    page.keyboard.press("Home")
    assert focused_key(page) == selected_key(page) == k0


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_ties_and_the_unranked_are_said_in_names_and_moves(login_page, live_server):
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-a11y-top2", options={"rank_depth": 2, "ties": True})
    topic = Topic.objects.get(campaign=campaign)
    Item.objects.create(campaign=campaign, topic=topic, kind="document", external_id="q1/c4",
                        text="Pharmacy leaflet: paracetamol and ibuprofen doses for adults.", data={})
    page = login_page(ann.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    k0, k1, k2, k3, k4 = keys_on_page(page)
    assert names(page) == [f"Candidate {k}, not ranked" for k in (k0, k1, k2, k3, k4)]

    press(page, "j")
    press(page, "j")
    press(page, "1")
    expect(page.locator(SAID)).to_have_text(f"Candidate {k2} moved to place 1 of 5. 1 more to rank.")
    press(page, "j")            # the first below the line
    press(page, "Shift+K")      # ranked, last
    expect(page.locator(SAID)).to_have_text(f"Candidate {k0} moved to place 2 of 5.")
    press(page, "t")
    expect(page.locator(SAID)).to_have_text(f"Candidate {k0} tied with the one above: place 1 of 5.")
    assert names(page)[:3] == [f"Candidate {k2}, place 1 of 5",
                               f"Candidate {k0}, place 1 of 5, tied with the one above",
                               f"Candidate {k1}, not ranked"]
    press(page, "x")
    expect(page.locator(SAID)).to_have_text(f"Candidate {k0} moved below the line: not ranked. 1 more to rank.")
    assert names(page)[1] == f"Candidate {k0}, not ranked"
    assert violations(page) == []  # a listbox holds options alone: the "Not ranked" line is only drawn


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_with_shortcuts_off_the_list_still_ranks_by_its_own_keys(login_page, live_server):
    """Shortcuts turned off leave no character key; in the list, Shift with an arrow moves and Space opens a long
    text (keys that act only where the focus is: WCAG 2.1.4)."""
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-a11y-off")
    Item.objects.filter(campaign=campaign).update(text=LONG)
    page = login_page(ann.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    page.evaluate("document.body.setAttribute('data-shortcuts', 'off')")  # as the account's setting writes it
    k0, k1, k2, k3 = keys_on_page(page)

    press(page, "j")
    assert selected_key(page) == k0  # off: j is no key
    page.focus("#help-open")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    assert focused_key(page) == selected_key(page) == k1
    page.keyboard.press("Shift+ArrowDown")
    assert keys_on_page(page) == [k0, k2, k1, k3]
    expect(page.locator(SAID)).to_have_text(f"Candidate {k1} moved to place 3 of 4.")
    assert focused_key(page) == k1

    text = page.locator(f".rank-item[data-key={k1}] .rank-text")
    assert "collapsed" in text.get_attribute("class")
    page.keyboard.press("Space")
    assert "collapsed" not in text.get_attribute("class")
    assert page.locator(f".rank-item[data-key={k1}] .rank-more").inner_text().startswith("Show less")
