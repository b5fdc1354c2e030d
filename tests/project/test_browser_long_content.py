"""Long content never breaks an annotation page, for every task type, in Chromium at 1,024 px: a 3 MB answer without
a space in it (it showed as an empty box: laid out as one line wider than Chromium's 33,554,432 px limit, it was not
painted at all), a 400-character URL and a 29,000-character paragraph. Nothing scrolls sideways, the judging buttons
are on the first screen, the long text is clamped and "Show all" opens it."""

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from annotate.models import Item, Role, Topic
from tests.browser_keys import READY
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory
from tests.tasktypes.test_ranking_services import ranking_campaign

BIG = ("Q29uY29yZC1hbnN3ZXItd2l0aG91dC1hLXNwYWNl" * 80_000)[:3_000_000]  # 3 MB, no break opportunity
URL = "https://example.org/" + "a-very-long-path-segment/" * 15 + "end"
URL = URL + "x" * (400 - len(URL))
PARAGRAPH = ("A paragraph that goes on and on about fever, fluids and rest, with no line break in it at all. "
             * 400)[:29_000]
VIEWPORT = {"width": 1024, "height": 768}


def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("CONCORD_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def qa(annotator):
    campaign = CampaignFactory(slug="long-qa", task_type="qa_correctness")
    topic = TopicFactory(campaign=campaign, text=f"what does {URL} say", data={"gold_answers": [PARAGRAPH, "fever"]})
    UnitFactory(campaign=campaign, topic=topic, item=ItemFactory(campaign=campaign, topic=topic, text=BIG),
                judgments_needed=1)
    return campaign, "#candidate", "#candidate", "#verdict-no"


def ais(annotator):
    campaign = CampaignFactory(slug="long-ais", task_type="ais")
    topic = TopicFactory(campaign=campaign, text=f"what does {URL} say", data={})
    item = ItemFactory(campaign=campaign, topic=topic, text=BIG,
                       data={"passage": PARAGRAPH, "title": "", "section": "", "url": URL})
    UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1)
    return campaign, "#answer", "#answer", "#interpretable-no"


def passages(annotator):
    campaign = CampaignFactory(slug="long-pas", task_type="passage_relevance")
    topic = TopicFactory(campaign=campaign, text=f"{URL} {PARAGRAPH}", data={})
    item = ItemFactory(campaign=campaign, topic=topic, kind="passage", text=BIG, data={"docid": "d1"})
    UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1)
    return campaign, "#passage", "#passage", "#grade-3"


def images(annotator, image_campaign):
    topic = Topic.objects.get(campaign=image_campaign, external_id="eiffel-construction")
    topic.data = {**topic.data, "page_title": URL, "section_context": PARAGRAPH, "page_context": BIG}
    topic.save()
    return image_campaign, "#page-title", "#section-title", "#grade-2"


def ranking(annotator):
    campaign, _ = ranking_campaign(topics=1, slug="long-rank")
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    topic = Topic.objects.get(campaign=campaign)
    topic.text, topic.data = f"what does {URL} say", {"narrative": PARAGRAPH}
    topic.save()
    Item.objects.filter(campaign=campaign).filter(pk=Item.objects.filter(campaign=campaign).order_by("pk")[0].pk) \
        .update(text=BIG)
    return campaign, ".rank-text.long", ".rank-text.long", "#rank-submit"


SETUPS = {"qa_correctness": qa, "ais": ais, "passage_relevance": passages, "image_relevance": images,
          "answer_ranking": ranking}


def ink(png: bytes) -> int:
    """How many pixels of a screenshot are dark enough to be text."""
    return sum(1 for value in Image.open(io.BytesIO(png)).convert("L").tobytes() if value < 110)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("task_type", list(SETUPS))
def test_long_content_wraps_is_clamped_and_opens(task_type, annotator, login_page, live_server, request, tmp_path):
    setup = SETUPS[task_type]
    extra = [request.getfixturevalue("image_campaign")] if task_type == "image_relevance" else []
    campaign, clamped, shows, button = setup(annotator, *extra)
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR) if task_type in (
        "qa_correctness", "ais", "passage_relevance") else None
    page = login_page("ann")
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    page.screenshot(path=str(shots(tmp_path) / f"long-{task_type}.png"))

    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    box = page.locator(button).bounding_box()
    assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], box
    # The 3 MB field shows text, not an empty box.
    field = page.locator(shows).first
    field_box = field.bounding_box()
    assert ink(page.screenshot(clip={**field_box, "height": min(field_box["height"], 60)})) > 30

    target = page.locator(clamped).first
    size = target.evaluate("el => [el.clientHeight, el.scrollHeight, el.textContent.length]")
    assert size[0] < size[1], size  # clamped
    if task_type == "answer_ranking":  # the candidate opens itself (Space): a control inside an option is hidden
        toggle = target.locator("xpath=ancestor::li[contains(@class, 'rank-item')]")
        assert "Show full text" in toggle.locator(".rank-more").inner_text()
        toggle.focus()
        page.keyboard.press("Space")  # keyboard reachable
        assert "Show less" in toggle.locator(".rank-more").inner_text()
    else:
        toggle = page.locator(f"button[aria-controls={target.get_attribute('id')}]")
        assert "Show" in toggle.inner_text()
        toggle.focus()
        page.keyboard.press("Enter")  # keyboard reachable
        assert toggle.get_attribute("aria-expanded") == "true"
    opened = target.evaluate("el => [el.clientHeight, el.scrollHeight, el.textContent.length]")
    assert opened[0] > size[0] and opened[2] == size[2]
    if opened[1] > opened[0]:  # still longer than its box (70 % of the window): it scrolls there, to its end
        target.evaluate("el => { el.scrollTop = el.scrollHeight; }")
        assert target.evaluate("el => el.scrollTop") > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
