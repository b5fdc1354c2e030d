"""Ranking the best 2 of 5 candidates in Chromium with the keyboard alone (the answer_ranking option rank_depth)."""

import pytest

from annotate.models import Assignment, HumanJudgment, Item, Topic
from annotate.selectors.annotation import ranking_candidates
from tests.browser_keys import press
from tests.tasktypes.test_browser_ranking import keys_on_page, selected_key, shots, wait_for_query
from tests.tasktypes.test_ranking_services import ranking_campaign

LIST = ".rank-list[data-dimension=overall]"


def ranked_keys(page):
    return page.eval_on_selector_all(f"{LIST} > .rank-item:not(.unranked)", "els => els.map(e => e.dataset.key)")


def note(page):
    return page.locator("#rank-confirm").inner_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_rank_the_best_two_of_five_by_keyboard(login_page, live_server, tmp_path):
    campaign, (ann,) = ranking_campaign(topics=2, slug="top2", options={"rank_depth": 2})
    ann.username = "ranker"
    ann.save()
    for topic in Topic.objects.filter(campaign=campaign):  # a fifth candidate per topic
        Item.objects.create(campaign=campaign, topic=topic, kind="document", external_id=f"{topic.external_id}/c4",
                            text="Pharmacy leaflet: paracetamol and ibuprofen doses for adults.", data={})

    page = login_page("ranker")
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    wait_for_query(page, "what should I do about a fever 1")
    assert "Rank the best 2; leave the rest." in page.locator(".annotate-head").inner_text()
    k0, k1, k2, k3, k4 = keys_on_page(page)
    # Nothing is ranked yet: every candidate is below the "Not ranked" line, which says what is left to do.
    assert ranked_keys(page) == []
    assert page.locator(f"{LIST} .rank-cut-title").inner_text() == "NOT RANKED"  # shown in capitals
    assert page.locator(f"{LIST} .rank-cut-note").inner_text().startswith("Place 2 more above this line")
    assert page.locator(f"{LIST} .rank-pos").all_inner_texts() == ["–"] * 5
    page.screenshot(path=str(shots(tmp_path) / "rank-top2-start.png"), full_page=True)

    # Enter and "Keep this order" store nothing while fewer than 2 are ranked.
    press(page, "Enter")
    assert note(page).startswith("Rank the best 2 first: 2 more to place above the “Not ranked” line.")
    press(page, "c")
    assert note(page).startswith("Rank the best 2 first: 2 more to place")
    assert not HumanJudgment.objects.exists()

    press(page, "j")
    press(page, "j")            # the third candidate
    assert selected_key(page) == k2
    press(page, "1")            # ranked first
    assert ranked_keys(page) == [k2]
    assert page.locator(f"{LIST} .rank-cut-note").inner_text().startswith("Place 1 more")
    press(page, "Enter")
    assert note(page).startswith("Rank the best 2 first: 1 more to place")
    assert not HumanJudgment.objects.exists()

    press(page, "j")            # k0, the first below the line
    assert selected_key(page) == k0
    press(page, "Shift+K")      # across the line: ranked second
    assert ranked_keys(page) == [k2, k0]
    press(page, "j")
    press(page, "j")            # k3, below the line
    assert selected_key(page) == k3
    press(page, "1")            # ranked first: three are ranked now
    assert ranked_keys(page) == [k3, k2, k0]
    press(page, "j")
    press(page, "j")            # k0, ranked third
    press(page, "x")            # back below the line
    assert ranked_keys(page) == [k3, k2]
    assert keys_on_page(page) == [k3, k2, k0, k1, k4]
    assert page.locator(f"{LIST} .rank-pos").all_inner_texts() == ["1", "2", "–", "–", "–"]
    assert page.locator(f"{LIST} .rank-cut-note").inner_text() == ""
    page.screenshot(path=str(shots(tmp_path) / "rank-top2-ranked.png"), full_page=True)

    first = Assignment.objects.get(annotator=ann, unit__topic__external_id="q1")
    press(page, "Enter")
    wait_for_query(page, "what should I do about a fever 2")
    by_label = {label: item.pk for label, item in ranking_candidates(assignment=first)}
    judgment = HumanJudgment.objects.get(annotator=ann, is_current=True)
    assert judgment.value == {"rankings": {"overall": [[by_label[k3]], [by_label[k2]]]},
                              "order_confirmed": {"overall": "moved"}}

    # Back to the first topic: its two ranked candidates above the line, the three others below.
    press(page, "u")
    wait_for_query(page, "what should I do about a fever 1")
    assert ranked_keys(page) == [k3, k2]
    assert sorted(keys_on_page(page)[2:]) == sorted([k0, k1, k4])
