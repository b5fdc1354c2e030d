"""The image assessor in Chromium: keys 2, 0, 1 grade three images with auto-advance, u changes one, ? the grades."""

import re
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotate.models import HumanJudgment, Item
from tests.browser_keys import READY, press
from tests.browser_layout import SIZES, hidden_fields, size_id
from tests.factories import PASSWORD

PROGRESS = "#annotate-progress .progress-text"
IMAGE = "img.grade-image"
SHOTS = Path("/tmp/img-shots")


def full_url(external_id):
    pk = Item.objects.get(external_id=external_id).pk
    return reverse("campaign-image", kwargs={"slug": "img", "item_id": pk, "variant": "full"})


def wait_for_image(page, external_id):
    """Wait until the page shows EXTERNAL_ID's full image, loaded (naturalWidth > 0); returns its natural size."""
    url = full_url(external_id)
    page.wait_for_function(
        """([selector, url]) => {
             const img = document.querySelector(selector);
             return img && img.getAttribute('src') === url && img.complete && img.naturalWidth > 0;
           }""",
        arg=[IMAGE, url],
    )
    return page.eval_on_selector(IMAGE, "img => [img.naturalWidth, img.naturalHeight]")


def current_grades(campaign):
    return dict(
        HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).values_list("unit__item__external_id",
                                                                                         "value")
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_assessor_grades_by_keyboard_and_changes_a_grade(image_campaign, login_page, live_server):
    SHOTS.mkdir(exist_ok=True)
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{image_campaign.slug}/annotate/")
    assert wait_for_image(page, "img-1") == [1600, 900]
    assert page.locator("#page-title").inner_text() == "Eiffel Tower"
    assert page.locator("#section-title").inner_text() == "Construction"
    assert page.locator(PROGRESS).inner_text() == "0 of 5 done"
    # LARGE: the image fills the width it is given (a 1280 px window leaves it about 800 px)
    box = page.locator(IMAGE).bounding_box()
    assert box["width"] > 700 and box["height"] > 450, box
    # the placeholder thumbnail goes once the image is in, and the next image is fetched ahead
    expect(page.locator(IMAGE)).to_have_attribute("data-loaded", "")
    page.wait_for_function("url => performance.getEntriesByType('resource').some(e => e.name.endsWith(url))",
                           arg=full_url("img-2"))
    page.screenshot(path=str(SHOTS / "1-landscape.png"))
    # a laptop screen: the image shrinks so the grade buttons stay in view without scrolling
    page.set_viewport_size({"width": 1366, "height": 768})
    button = page.locator("#grade-2").bounding_box()
    assert button["y"] + button["height"] <= 768, button
    assert page.locator(IMAGE).bounding_box()["height"] > 350
    page.screenshot(path=str(SHOTS / "1-landscape-laptop.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.evaluate("window.__concordMarker = 'still here'")  # a full page load would wipe it

    press(page, "2")
    assert wait_for_image(page, "img-2") == [600, 1400]
    assert page.locator(PROGRESS).inner_text() == "1 of 5 done"
    box = page.locator(IMAGE).bounding_box()
    assert box["height"] > 450, box  # the tall image is scaled to the window's height, not cut off
    assert box["y"] + box["height"] <= 900
    page.screenshot(path=str(SHOTS / "2-tall.png"))

    press(page, "0")
    wait_for_image(page, "img-3")
    assert page.locator(PROGRESS).inner_text() == "2 of 5 done"
    assert page.locator("#section-title").inner_text() == "Climbing routes"
    expect(page.locator("#section-context")).to_contain_text("Route 12:")
    expect(page.locator("#page-context")).to_be_hidden()  # the long page text starts collapsed
    page.screenshot(path=str(SHOTS / "3-long-section.png"))

    press(page, "1")
    wait_for_image(page, "img-4")
    assert page.locator(PROGRESS).inner_text() == "3 of 5 done"
    assert page.evaluate("window.__concordMarker") == "still here"
    assert current_grades(image_campaign) == {"img-1": {"grade": 2}, "img-2": {"grade": 0}, "img-3": {"grade": 1}}

    # u: back to the last grade (img-3, related); 2 changes it to relevant and returns to img-4
    press(page, "u")
    wait_for_image(page, "img-3")
    assert "you said 1 Related" in page.locator("#earlier-grade").inner_text()
    expect(page.locator("#grade-1")).to_have_class(re.compile(r"\bchosen\b"))
    page.screenshot(path=str(SHOTS / "4-undo.png"))
    press(page, "2")
    wait_for_image(page, "img-4")
    assert page.locator(".annotate-note.ok").inner_text() == "Your earlier grade is changed."
    assert page.locator(PROGRESS).inner_text() == "3 of 5 done"
    history = list(
        HumanJudgment.objects.filter(unit__item__external_id="img-3").order_by("version")
        .values_list("value", "label", "version", "is_current")
    )
    assert history == [({"grade": 1}, "1", 1, False), ({"grade": 2}, "2", 2, True)]

    # ?: the grade definitions; keys typed meanwhile grade nothing; Escape closes them
    press(page, "?")
    help_dialog = page.locator("#help")
    expect(help_dialog).to_be_visible()
    text = help_dialog.inner_text()
    assert "Relevant" in text and "Related" in text and "Non-relevant" in text
    assert "against the section, not the page alone" in text
    page.screenshot(path=str(SHOTS / "5-definitions.png"))
    press(page, "0")
    press(page, "Escape")
    expect(help_dialog).to_be_hidden()
    assert page.locator(IMAGE).get_attribute("src") == full_url("img-4")
    assert len(current_grades(image_campaign)) == 3
    assert page.evaluate("window.__concordMarker") == "still here"

    # the last image was never imported: the page says so and offers no grade
    press(page, "1")
    page.wait_for_selector("#image-missing")
    assert page.locator(PROGRESS).inner_text() == "4 of 5 done"
    expect(page.locator("#image-missing")).to_contain_text("The image is missing.")
    assert page.locator("button[name=grade]").count() == 0
    press(page, "2")
    page.wait_for_timeout(300)
    assert "img-5" not in current_grades(image_campaign)
    page.screenshot(path=str(SHOTS / "6-missing.png"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_without_javascript_the_grade_buttons_post_the_form(image_campaign, browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", "ann")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.goto(f"{live_server.url}/campaigns/{image_campaign.slug}/annotate/")
        assert page.locator(IMAGE).get_attribute("src") == full_url("img-1")
        page.click("#grade-2")
        page.wait_for_load_state()
        assert page.locator(IMAGE).get_attribute("src") == full_url("img-2")
        assert page.locator(PROGRESS).inner_text() == "1 of 5 done"
        assert current_grades(image_campaign) == {"img-1": {"grade": 2}}
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_the_grades_never_cover_the_section_or_the_image(image_campaign, login_page, live_server, size):
    SHOTS.mkdir(exist_ok=True)
    page = login_page("ann")
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/campaigns/{image_campaign.slug}/annotate/")
    wait_for_image(page, "img-1")
    page.wait_for_selector(READY, state="attached")
    page.screenshot(path=str(SHOTS / f"image-{size_id(size)}.png"))
    fields = ["#page-title", "#section-title", "#section-context", IMAGE]
    assert hidden_fields(page, fields, panel="form.grades") == {}
