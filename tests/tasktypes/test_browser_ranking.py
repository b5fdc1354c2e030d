"""Ranking a topic in Chromium: keyboard alone (j/k, shift+j/k, a number key, Enter), drag and drop, drafts."""

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.models import Assignment, HumanJudgment, Item
from annotate.selectors.annotation import ranking_candidates
from tests.browser_keys import READY, press
from tests.browser_layout import SIZES, hidden_fields, size_id
from tests.tasktypes.test_ranking_services import ranking_campaign

LIST = ".rank-list[data-dimension=overall] > .rank-item"
PROGRESS = "#annotate-progress .progress-text"
LONG = "A long clinical page. " + "Fever in adults is usually harmless and passes within days. " * 30


def shots(tmp_path) -> Path:
    """Where screenshots go: CONCORD_SCREENSHOT_DIR to look at them after the run, else the test's tmp dir."""
    folder = Path(os.environ.get("CONCORD_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keys_on_page(page, dimension="overall"):
    items = f".rank-list[data-dimension={dimension}] > .rank-item"
    return page.eval_on_selector_all(items, "els => els.map(e => e.dataset.key)")


def selected_key(page):
    return page.eval_on_selector(f"{LIST}.selected", "e => e.dataset.key")


def wait_for_query(page, text):
    page.wait_for_function(
        "t => document.getElementById('query') && document.getElementById('query').textContent === t", arg=text
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_rank_by_keyboard_then_by_drag_and_drop_and_a_reload_keeps_the_draft(login_page, live_server, tmp_path):
    campaign, (ann,) = ranking_campaign(topics=3, slug="rank")
    ann.username = "ranker"
    ann.save()
    second_topic_doc = Item.objects.get(campaign=campaign, external_id="q2/c2")
    second_topic_doc.text = LONG
    second_topic_doc.save()

    page = login_page("ranker")
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    assert page.locator(PROGRESS).inner_text() == "0 of 3 topics done"
    page.evaluate("window.__concordMarker = 'still here'")  # a full page load would wipe it
    k0, k1, k2, k3 = keys_on_page(page)
    assert selected_key(page) == k0

    press(page, "j")            # select the second
    assert selected_key(page) == k1
    press(page, "Shift+J")      # move it down one place
    assert keys_on_page(page) == [k0, k2, k1, k3]
    press(page, "k")
    press(page, "k")            # back to the first
    assert selected_key(page) == k0
    press(page, "4")            # put it fourth
    assert keys_on_page(page) == [k2, k1, k3, k0]
    press(page, "k")
    press(page, "Shift+K")      # the third moves up one place
    expected = [k2, k3, k1, k0]
    assert keys_on_page(page) == expected
    assert page.locator(f"{LIST} .rank-pos").all_inner_texts() == ["1", "2", "3", "4"]
    page.screenshot(path=str(shots(tmp_path) / "rank-keyboard.png"), full_page=True)
    first = Assignment.objects.get(annotator=ann)
    press(page, "Enter")
    wait_for_query(page, "what should I do about a fever 2")
    assert page.locator(PROGRESS).inner_text() == "1 of 3 topics done"
    assert page.evaluate("window.__concordMarker") == "still here"

    by_label = {label: item.pk for label, item in ranking_candidates(assignment=first)}
    judgment = HumanJudgment.objects.get(annotator=ann, is_current=True)
    assert judgment.value == {"rankings": {"overall": [[by_label[k]] for k in expected]},
                              "order_confirmed": {"overall": "moved"}}

    # The second topic: a long candidate starts collapsed and opens with o.
    labels = {item.pk: label for label, item in ranking_candidates(assignment=Assignment.objects.get(
        annotator=ann, unit__topic__external_id="q2"))}
    long_item = page.locator(f"{LIST}[data-key={labels[second_topic_doc.pk]}]")
    # Waited for: htmx settles a swapped-in element that keeps an id of the unit before (rank-text-overall-C) with
    # that element's attributes for its settle delay (20 ms), then gives it its own.
    expect(long_item.locator(".rank-text.collapsed")).to_have_count(1)
    collapsed_height = long_item.bounding_box()["height"]
    long_item.click()
    press(page, "o")
    assert long_item.locator(".rank-text.collapsed").count() == 0
    assert long_item.bounding_box()["height"] > 2 * collapsed_height
    page.screenshot(path=str(shots(tmp_path) / "rank-long-open.png"), full_page=True)
    press(page, "o")
    assert long_item.locator(".rank-text.collapsed").count() == 1

    # Drag the first candidate onto the third: it lands after it.
    d0, d1, d2, d3 = keys_on_page(page)
    page.drag_and_drop(f"{LIST}[data-key={d0}]", f"{LIST}[data-key={d2}]")
    dragged = [d1, d2, d0, d3]
    assert keys_on_page(page) == dragged
    page.wait_for_function("document.getElementById('draft-status').textContent === 'Draft saved'")
    page.screenshot(path=str(shots(tmp_path) / "rank-dragged.png"), full_page=True)

    page.reload()
    wait_for_query(page, "what should I do about a fever 2")
    assert keys_on_page(page) == dragged
    assert page.locator("#draft-status").inner_text() == "Draft restored"

    # u: back to the first topic, as submitted; Enter keeps it without a new version.
    press(page, "u")
    wait_for_query(page, "what should I do about a fever 1")
    assert "Changing an earlier ranking" in page.locator(".editing-banner").inner_text()
    assert keys_on_page(page) == expected
    press(page, "Enter")
    wait_for_query(page, "what should I do about a fever 2")
    assert keys_on_page(page) == dragged  # still the draft of the topic I hold
    assert HumanJudgment.objects.filter(annotator=ann).count() == 1

    # A click on Submit right after a move: the draft waiting to be sent is dropped. It was sent while the submit was
    # on its way, reached a submitted topic and was answered 400, and the page said nothing. The submit's answer is
    # held back a second here, longer than the draft's wait.
    sent = []
    page.on("request", lambda request: sent.extend(kind for kind in ("draft", "submit")
                                                    if f"/annotate/{kind}/" in request.url))

    def slow_submit(route):
        answer = route.fetch()
        time.sleep(1)
        route.fulfill(response=answer)

    page.route("**/annotate/submit/", slow_submit)
    page.drag_and_drop(f"{LIST}[data-key={dragged[0]}]", f"{LIST}[data-key={dragged[2]}]")
    page.click("#rank-submit")
    wait_for_query(page, "what should I do about a fever 3")
    page.wait_for_timeout(500)
    # No draft after the submit. (On a loaded machine the click can come after the draft's 400 ms wait: that draft
    # goes first, to a topic not yet submitted, and is answered as any draft.)
    assert sent.count("submit") == 1 and "draft" not in sent[sent.index("submit"):]
    assert HumanJudgment.objects.filter(annotator=ann).count() == 2


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_ties_by_keyboard_and_several_dimensions(login_page, live_server, tmp_path):
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-dims",
                                        options={"dimensions": ["relevance", "readability"], "ties": True})
    ann.username = "ranker2"
    ann.save()
    page = login_page("ranker2")
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    rel = keys_on_page(page, "relevance")
    press(page, "j")
    press(page, "t")            # the second ties with the first
    assert page.locator(".rank-list[data-dimension=relevance] .rank-pos").all_inner_texts() == ["1", "1", "2", "3"]
    page.screenshot(path=str(shots(tmp_path) / "rank-tie.png"), full_page=True)
    press(page, "d")            # the readability list
    assert page.locator("#rank-panel-readability").is_visible()
    assert not page.locator("#rank-panel-relevance").is_visible()
    read = keys_on_page(page, "readability")
    press(page, "2")            # the first goes second
    page.screenshot(path=str(shots(tmp_path) / "rank-dimensions.png"), full_page=True)
    press(page, "Enter")
    page.wait_for_selector("#all-done")
    assignment = Assignment.objects.get(annotator=ann)
    by_label = {label: item.pk for label, item in ranking_candidates(assignment=assignment)}
    value = HumanJudgment.objects.get(annotator=ann).value
    assert value == {"rankings": {
        "relevance": [[by_label[rel[0]], by_label[rel[1]]], [by_label[rel[2]]], [by_label[rel[3]]]],
        "readability": [[by_label[read[1]]], [by_label[read[0]]], [by_label[read[2]]], [by_label[read[3]]]],
    }, "order_confirmed": {"relevance": "moved", "readability": "moved"}}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_untouched_ranking_is_kept_only_on_purpose(login_page, live_server, tmp_path):
    """Enter on the shuffled starting order refuses; c (Keep this order) submits it, recorded as kept; a ranking
    arranged by moving candidates is recorded as moved."""
    campaign, (ann,) = ranking_campaign(topics=2, slug="rank-untouched")
    ann.username = "ranker3"
    ann.save()
    page = login_page("ranker3")
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    shown = keys_on_page(page)

    press(page, "Enter")
    note = page.locator("#rank-confirm")
    expect(note).to_be_visible()
    expect(note).to_contain_text("still in the shuffled order")
    page.wait_for_timeout(200)  # time for a request, were one sent
    assert page.locator("#query").inner_text() == "what should I do about a fever 1"
    assert not HumanJudgment.objects.exists()
    page.screenshot(path=str(shots(tmp_path) / "rank-untouched.png"))

    press(page, "c")  # keep this order: it is submitted, as shown, and recorded as kept
    wait_for_query(page, "what should I do about a fever 2")
    first = Assignment.objects.get(annotator=ann, unit__topic__external_id="q1")
    by_label = {label: item.pk for label, item in ranking_candidates(assignment=first)}
    assert HumanJudgment.objects.get(annotator=ann).value == {
        "rankings": {"overall": [[by_label[k]] for k in shown]}, "order_confirmed": {"overall": "kept"}}

    k0, k1, k2, k3 = keys_on_page(page)
    press(page, "Shift+J")  # the first candidate down one place
    press(page, "Enter")
    page.wait_for_selector("#all-done")
    second = HumanJudgment.objects.get(annotator=ann, unit__topic__external_id="q2")
    labels = {item.pk: label for label, item in ranking_candidates(
        assignment=Assignment.objects.get(annotator=ann, unit__topic__external_id="q2"))}
    assert [labels[group[0]] for group in second.value["rankings"]["overall"]] == [k1, k0, k2, k3]
    assert second.value["order_confirmed"] == {"overall": "moved"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_the_pinned_submit_never_covers_the_selected_candidate(login_page, live_server, size, tmp_path):
    """Candidates run on below the window; j selects the next one and scrolls it into view above the pinned panel,
    not behind it."""
    campaign, (ann,) = ranking_campaign(topics=1, slug="rank-view")
    Item.objects.filter(campaign=campaign).update(text=LONG)
    page = login_page(ann.username)
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    assert hidden_fields(page, ["#query", f"{LIST}.selected"]) == {}
    for n in range(1, 4):
        press(page, "j")
        assert selected_key(page) == keys_on_page(page)[n]
        assert hidden_fields(page, [f"{LIST}.selected"]) == {}, n
    page.screenshot(path=str(shots(tmp_path) / f"rank-{size_id(size)}-last.png"))
