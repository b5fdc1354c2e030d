"""An assisted annotator in Chromium: the model's suggestion pre-selected, Enter accepts it, another key changes it;
each task type's assisted page, screenshotted (CONCORD_SCREENSHOT_DIR keeps the pictures to look at)."""

import re

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment, Item, Membership, Role
from judges.models import Judge, ModelJudgment
from tests.agreement.test_browser_report_tables import OVERFLOWS
from tests.browser_keys import press
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory
from tests.report_support import report_stored
from tests.reports.test_arms_report import simulated  # noqa: F401 - fixture
from tests.tasktypes.test_browser_ranking import keys_on_page, shots, wait_for_query
from tests.tasktypes.test_ranking_services import ranking_campaign

SUGGESTED = re.compile(r"\bsuggested\b")


def assist(campaign, username, verdicts: dict):
    """Put USERNAME in the arm assisted by a judge with VERDICTS ({item: (label, score)})."""
    campaign.options = {**(campaign.options or {}), "arms": ["blind", "assisted:judge"],
                        "arm_assignment": "researcher"}
    campaign.save(update_fields=["options"])
    Membership.objects.filter(campaign=campaign, user__username=username, role=Role.ANNOTATOR).update(
        arm="assisted:judge")
    judge = Judge.objects.create(campaign=campaign, name="judge", family="external", config_hash="judge")
    for item, (label, score) in verdicts.items():
        ModelJudgment.objects.create(judge=judge, item=item, label=label, score=score)


def wait_for_text(page, element_id, text):
    page.wait_for_function(
        "([id, t]) => document.getElementById(id) && document.getElementById(id).textContent === t",
        arg=[element_id, text])


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_assisted_annotator_accepts_with_enter_and_changes_with_a_key(qa_campaign, login_page, live_server,
                                                                         tmp_path):
    items = {item.text: item for item in Item.objects.filter(campaign=qa_campaign)}
    assist(qa_campaign, "ann", {items["Leonardo da Vinci"]: ("yes", 0.9), items["Michelangelo"]: ("yes", 0.8)})
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/qa/annotate/")
    assert page.locator("#assist-note").inner_text() == ("A model suggests: correct. Enter accepts it; choose "
                                                          "another to change it.")
    expect(page.locator("#verdict-yes")).to_have_class(SUGGESTED)
    expect(page.locator("#verdict-no")).not_to_have_class(SUGGESTED)
    page.screenshot(path=str(shots(tmp_path) / "arms-qa.png"), full_page=True)
    press(page, "Enter")  # accepts "correct"
    wait_for_text(page, "candidate", "Michelangelo")
    expect(page.locator("#verdict-yes")).to_have_class(SUGGESTED)
    press(page, "n")  # the suggestion was wrong: changed
    wait_for_text(page, "candidate", "canberra")
    # The judge has no verdict on this one: the page says so and Enter does nothing.
    assert page.locator("#assist-note").inner_text() == ("No model suggestion is available for this answer: judge it "
                                                          "on your own.")
    press(page, "Enter")
    press(page, "y")
    wait_for_text(page, "candidate", "Sydney")
    recorded = {text: (arm, suggestion, label, seconds is not None) for text, arm, suggestion, label, seconds in
                HumanJudgment.objects.filter(unit__campaign=qa_campaign).values_list(
                    "unit__item__text", "arm", "suggestion", "label", "seconds")}
    assert recorded == {"Leonardo da Vinci": ("assisted:judge", {"correct": True}, "yes", True),
                        "Michelangelo": ("assisted:judge", {"correct": True}, "no", True),
                        "canberra": ("assisted:judge", None, "yes", True)}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_each_task_types_assisted_page(ais_campaign, image_campaign, login_page, live_server, tmp_path):
    folder = shots(tmp_path)
    ais_items = list(Item.objects.filter(campaign=ais_campaign).order_by("pk"))
    assist(ais_campaign, "ann", {ais_items[0]: ("no", 0.2)})
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/ais/annotate/")
    assert "A model suggests: interpretable, not supported." in page.locator("#assist-note").inner_text()
    expect(page.locator("#q-interpretable label.choice.yes")).to_have_class(SUGGESTED)
    page.screenshot(path=str(folder / "arms-ais.png"), full_page=True)
    press(page, "Enter")  # interpretable: yes, as suggested; then question 2
    expect(page.locator("#q-supported")).to_be_visible()
    expect(page.locator("#q-supported label.choice.no")).to_have_class(SUGGESTED)
    press(page, "Enter")  # supported: no, as suggested
    wait_for_text(page, "answer", "She did, the year after.")
    judgment = HumanJudgment.objects.get(unit__campaign=ais_campaign)
    assert judgment.value == {"interpretable": True, "supported": False} == judgment.suggestion

    image_items = list(Item.objects.filter(campaign=image_campaign).order_by("pk"))
    assist(image_campaign, "ann", {item: ("", float(n)) for n, item in enumerate(image_items)})
    page.goto(f"{live_server.url}/campaigns/img/annotate/")
    page.wait_for_selector("img.grade-image[data-loaded]")
    assert page.locator("#assist-note").inner_text().startswith("A model suggests: 0 ")
    expect(page.locator("#grade-0")).to_have_class(SUGGESTED)
    page.screenshot(path=str(folder / "arms-image.png"), full_page=True)
    press(page, "2")  # changed: the model said 0
    page.wait_for_function("() => document.querySelectorAll('#annotate-unit #assist-note').length === 1 && "
                           "document.querySelector('#annotate-progress').textContent.includes('1 of')")
    assert HumanJudgment.objects.get(unit__campaign=image_campaign).value == {"grade": 2}

    passages = CampaignFactory(slug="pass", task_type="passage_relevance", overlap=1)
    MembershipFactory(campaign=passages, user=ais_campaign.memberships.get(role=Role.ANNOTATOR).user,
                      role=Role.ANNOTATOR)
    topic = TopicFactory(campaign=passages, text="when is a fever in adults dangerous", data={})
    passage = ItemFactory(campaign=passages, topic=topic, kind="passage", data={"docid": "d1"},
                          text="A fever above 39.4 C (103 F) in an adult, or one that lasts more than three days, "
                               "needs a doctor.")
    UnitFactory(campaign=passages, topic=topic, item=passage, judgments_needed=1)
    assist(passages, "ann", {passage: ("3", None)})
    page.goto(f"{live_server.url}/campaigns/pass/annotate/")
    assert page.locator("#assist-note").inner_text().startswith("A model suggests: 3 ")
    expect(page.locator("#grade-3")).to_have_class(SUGGESTED)
    page.screenshot(path=str(folder / "arms-passage.png"), full_page=True)
    press(page, "Enter")
    page.wait_for_selector("#all-done")
    assert HumanJudgment.objects.get(unit__campaign=passages).value == {"grade": 3}

    ranking, (ranker,) = ranking_campaign(slug="rank")
    ranker.username = "ranker"
    ranker.save()
    a, b, c, d = Item.objects.filter(campaign=ranking).order_by("pk")
    assist(ranking, "ranker", {a: ("", 0.1), b: ("", 0.9), c: ("", 0.5), d: ("", 0.3)})
    page = login_page("ranker")
    page.goto(f"{live_server.url}/campaigns/rank/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    assert "The candidates start in a model's order." in page.locator("#assist-note").inner_text()
    page.screenshot(path=str(folder / "arms-ranking.png"), full_page=True)
    shown = keys_on_page(page)
    press(page, "Enter")  # an untouched order is not taken for the expert's own
    expect(page.locator("#rank-confirm")).to_be_visible()
    assert "still in the model's order the page started with" in page.locator("#rank-confirm").inner_text()
    assert not HumanJudgment.objects.filter(unit__campaign=ranking).exists()
    press(page, "c")  # keep the model's order: accepted
    page.wait_for_selector("#all-done")
    judgment = HumanJudgment.objects.get(unit__campaign=ranking)
    assert judgment.value["rankings"] == judgment.suggestion["rankings"] == {"overall": [[b.pk], [c.pk], [d.pk],
                                                                                         [a.pk]]}
    assert judgment.value["order_confirmed"] == {"overall": "kept"} and len(shown) == 4


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_report_page_shows_the_arms(simulated, researcher, login_page, live_server, tmp_path):
    MembershipFactory(campaign=simulated, user=researcher, role=Role.RESEARCHER)
    page = login_page("res")
    report_stored(simulated)
    page.goto(f"{live_server.url}/campaigns/sim/report/")
    section = page.locator("#arms")
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(shots(tmp_path) / "arms-report.png"))
    rows = page.locator("#arms-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").first.inner_text() == "blind"
    assert rows.nth(1).locator("td").first.inner_text() == "assisted by gpt"
    assert page.locator("#arms-differences tbody tr").count() == 2
    assert "assisted by gpt" in page.locator("#arms-suggestions tbody").inner_text()
    assert page.evaluate(OVERFLOWS) == []  # every table, the arms' too, within its card at 1280 px
