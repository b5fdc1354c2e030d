"""The ranking page: blind and anonymised, submit through the view, drafts that survive a reload, undo."""

import json
import re

import pytest
from django.urls import reverse

from annotate.models import Assignment, HumanJudgment, Item, JudgmentKind, Unit
from annotate.selectors.annotation import ranking_candidates
from judges.models import Judge, ModelJudgment
from tests.factories import UserFactory
from tests.tasktypes.test_ranking_services import ranking_campaign

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def setup(db):
    campaign, (ann,) = ranking_campaign(topics=3, slug="rank")
    return campaign, ann


def urls(campaign):
    return (reverse("annotate", args=[campaign.slug]), reverse("annotate-submit", args=[campaign.slug]),
            reverse("annotate-draft", args=[campaign.slug]))


def card_of(html):
    return html[html.index('id="rank-card"'):html.index("</article>")]


def shown_keys(html, dimension="overall"):
    panel = html[html.index(f'<ol class="rank-list" data-dimension="{dimension}"'):]
    panel = panel[:panel.index("</ol>")]
    return re.findall(r'data-key="([A-Z]+)"', panel)


def post_ranking(client, url, assignment, value):
    return client.post(url, {"assignment": assignment.pk, "ranking": json.dumps(value)}, **HTMX).content.decode()


def labels_of(assignment):
    return {label: item.pk for label, item in ranking_candidates(assignment=assignment)}


def test_the_page_shows_the_query_and_anonymised_candidates_only(client, setup):
    campaign, ann = setup
    unit = Unit.objects.get(campaign=campaign, position=0)
    judge = Judge.objects.create(campaign=campaign, name="SECRET-JUDGE-monot5", family="external", config={},
                                 config_hash="h" * 64)
    for item in Item.objects.filter(topic=unit.topic):
        ModelJudgment.objects.create(judge=judge, item=item, score=0.987654, raw="SECRET-RAW")
    client.force_login(ann)
    page, _, _ = urls(campaign)
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assert "what should I do about a fever 1" in html
    assert "0</b> of <b class=\"num\">3</b> topics done" in html
    assert "/static/answer_ranking/rank.js" in html and "/static/answer_ranking/rank.css" in html
    card = card_of(html)
    for text in ("Drink plenty of fluids", "Fever is the body", "Clinic page", "Forum post"):
        assert text in card
    assert sorted(re.findall(r"Candidate ([A-D])<", card)) == ["A", "B", "C", "D"]
    assert sorted(shown_keys(html)) == ["A", "B", "C", "D"]
    for secret in ("SECRET-SYSTEM", "SECRET-DOCNO", "SECRET-JUDGE", "SECRET-RAW", "0.98", "expert", "q1/c"):
        assert secret not in html, secret
    assert not re.search(r"document|\banswer\b|system|docno", card, re.IGNORECASE)
    # No item id in the list: candidates are addressed by their label only.
    listing = card[card.index('<ol class="rank-list"'):card.index("</ol>")]
    assert set(re.findall(r'\s(data-[a-z-]+)=', listing)) == {"data-dimension", "data-key"}
    for pk in Item.objects.filter(topic=unit.topic).values_list("pk", flat=True):
        assert f'"{pk}"' not in listing


def test_submitting_a_ranking_stores_item_ids_and_loads_the_next_topic(client, setup):
    campaign, ann = setup
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    html = client.get(page).content.decode()
    assignment = Assignment.objects.get(annotator=ann)
    keys = shown_keys(html)
    order = keys[::-1]
    value = {"rankings": {"overall": [[k] for k in order]}, "order_confirmed": {"overall": "moved"}}
    response = client.post(submit, {"assignment": assignment.pk, "ranking": json.dumps(value)}, **HTMX)
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "what should I do about a fever 2" in fragment and "<html" not in fragment
    assert "1</b> of <b class=\"num\">3</b> topics done" in fragment
    judgment = HumanJudgment.objects.get(annotator=ann)
    by_label = labels_of(assignment)
    assert judgment.value == {"rankings": {"overall": [[by_label[k]] for k in order]},
                              "order_confirmed": {"overall": "moved"}}
    assert judgment.label == "ranked"


def test_the_shuffled_starting_order_is_not_taken_for_a_ranking(client, setup):
    """A first ranking must say how its order was settled: moved by the annotator, or kept on purpose."""
    campaign, ann = setup
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    assignment = Assignment.objects.get(annotator=ann)
    as_shown = {"rankings": {"overall": [[k] for k in keys]}}
    fragment = post_ranking(client, submit, assignment, as_shown)
    assert "still in the shuffled order the page starts from" in fragment
    assert "what should I do about a fever 1" in fragment and not HumanJudgment.objects.exists()
    fragment = post_ranking(client, submit, assignment, {**as_shown, "order_confirmed": {"overall": "maybe"}})
    assert "order_confirmed is {dimension: &quot;moved&quot; or &quot;kept&quot;}." in fragment
    assert not HumanJudgment.objects.exists()
    post_ranking(client, submit, assignment, {**as_shown, "order_confirmed": {"overall": "kept"}})
    assert HumanJudgment.objects.get(annotator=ann).value["order_confirmed"] == {"overall": "kept"}


def test_a_refused_ranking_keeps_the_topic_and_the_arrangement_with_the_error_inline(client, setup):
    campaign, ann = setup
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    assignment = Assignment.objects.get(annotator=ann)
    tied = {"rankings": {"overall": [[keys[3], keys[2]], [keys[1]], [keys[0]]]},
            "order_confirmed": {"overall": "moved"}}
    fragment = client.post(submit, {"assignment": assignment.pk, "ranking": json.dumps(tied)}, **HTMX).content.decode()
    assert "Ties are not allowed in this campaign: give each candidate its own place." in fragment
    assert "what should I do about a fever 1" in fragment
    assert shown_keys(fragment) == [keys[3], keys[2], keys[1], keys[0]]  # the tie split, the order kept
    missing = {"rankings": {"overall": [[keys[0]], [keys[1]]]}, "order_confirmed": {"overall": "moved"}}
    fragment = post_ranking(client, submit, assignment, missing)
    assert "Place every candidate: 2 are missing." in fragment
    fragment = client.post(submit, {"assignment": assignment.pk, "ranking": "{not json"}, **HTMX).content.decode()
    assert "The ranking could not be read" in fragment
    deep = "[" * 100_000 + "]" * 100_000  # past Python's parser's depth: refused, not a server error
    response = client.post(submit, {"assignment": assignment.pk, "ranking": deep}, **HTMX)
    assert response.status_code < 500 and "The ranking could not be read" in response.content.decode()
    unknown = {"rankings": {"overall": [[k] for k in keys] + [["Q"]]}, "order_confirmed": {"overall": "kept"}}
    fragment = post_ranking(client, submit, assignment, unknown)
    assert "There is no Candidate Q in this topic." in fragment
    assert not HumanJudgment.objects.exists()


def test_a_draft_survives_a_reload(client, setup):
    campaign, ann = setup
    client.force_login(ann)
    page, _, draft_url = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    assignment = Assignment.objects.get(annotator=ann)
    arranged = [keys[2], keys[0], keys[3], keys[1]]
    response = client.post(draft_url, {"assignment": assignment.pk,
                                       "draft": json.dumps({"rankings": {"overall": [[k] for k in arranged]}})})
    assert response.status_code == 204
    html = client.get(page).content.decode()
    assert shown_keys(html) == arranged
    assert "Draft restored" in html
    # A draft exists because candidates were moved: Enter may submit it as it is.
    assert 'data-confirmed="{&quot;overall&quot;: &quot;moved&quot;}" data-confirm-required="1"' in html
    response = client.post(draft_url, {"assignment": assignment.pk, "draft": "nonsense"})
    assert response.status_code == 400 and "could not be read" in response.content.decode()


def test_a_draft_that_arrives_after_its_submit_is_a_conflict_not_a_bad_request(client, setup):
    """The page's draft of a topic can reach the server after the topic's submit (a click on Submit while the draft
    waited or was on its way): it was answered 400, as if the page had sent a malformed draft. It is 409 now, with a
    reason, and nothing is kept; rank.js drops a waiting draft on any submit."""
    campaign, ann = setup
    client.force_login(ann)
    page, submit_url, draft_url = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    assignment = Assignment.objects.get(annotator=ann)
    ranking = {"rankings": {"overall": [[k] for k in keys]}}
    post_ranking(client, submit_url, assignment, {**ranking, "order_confirmed": {"overall": "kept"}})
    assert HumanJudgment.objects.filter(annotator=ann, unit=assignment.unit).count() == 1
    response = client.post(draft_url, {"assignment": assignment.pk, "draft": json.dumps(ranking)})
    assert response.status_code == 409
    assert response.content.decode() == ("This unit is already submitted, so its draft was not kept; submit again to "
                                         "change it.")
    assert Assignment.objects.get(pk=assignment.pk).draft is None


def test_nobody_else_saves_a_draft_on_my_topic(client, setup):
    campaign, ann = setup
    client.force_login(ann)
    page, _, draft_url = urls(campaign)
    client.get(page)
    assignment = Assignment.objects.get(annotator=ann)
    outsider = UserFactory(username="outsider")
    client.force_login(outsider)
    response = client.post(draft_url, {"assignment": assignment.pk, "draft": json.dumps({"rankings": {}})})
    assert response.status_code == 404
    assert Assignment.objects.get(pk=assignment.pk).draft is None


def test_undo_shows_my_earlier_ranking_and_an_edit_adds_a_version(client, setup):
    campaign, ann = setup
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    first = Assignment.objects.get(annotator=ann)
    kept = {"rankings": {"overall": [[k] for k in keys]}, "order_confirmed": {"overall": "kept"}}
    client.post(submit, {"assignment": first.pk, "ranking": json.dumps(kept)}, **HTMX)
    fragment = client.get(page, {"undo": ""}, **HTMX).content.decode()
    assert "Changing an earlier ranking" in fragment and "what should I do about a fever 1" in fragment
    assert shown_keys(fragment) == keys
    reordered = keys[1:] + keys[:1]
    moved = {"rankings": {"overall": [[k] for k in reordered]}, "order_confirmed": {"overall": "moved"}}
    fragment = client.post(submit, {"assignment": first.pk, "ranking": json.dumps(moved)}, **HTMX).content.decode()
    assert "Your earlier ranking is changed." in fragment
    assert "what should I do about a fever 2" in fragment
    by_label = labels_of(first)
    history = list(HumanJudgment.objects.filter(annotator=ann, kind=JudgmentKind.ANNOTATION).order_by("version")
                   .values_list("value", "is_current"))
    assert history == [({"rankings": {"overall": [[by_label[k]] for k in keys]},
                         "order_confirmed": {"overall": "kept"}}, False),
                       ({"rankings": {"overall": [[by_label[k]] for k in reordered]},
                         "order_confirmed": {"overall": "moved"}}, True)]


def test_several_dimensions_get_one_list_each(client, db):
    campaign, (ann,) = ranking_campaign(options={"dimensions": ["relevance", "readability"], "ties": True})
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    html = client.get(page).content.decode()
    assert 'role="tab"' in html and "Relevance" in html and "Readability" in html
    rel, read = shown_keys(html, "relevance"), shown_keys(html, "readability")
    assert sorted(rel) == sorted(read) == ["A", "B", "C", "D"]
    assignment = Assignment.objects.get(annotator=ann)
    value = {"rankings": {"relevance": [[rel[0], rel[1]], [rel[2]], [rel[3]]], "readability": [[k] for k in read]},
             "order_confirmed": {"relevance": "moved", "readability": "kept"}}
    client.post(submit, {"assignment": assignment.pk, "ranking": json.dumps(value)}, **HTMX)
    stored = HumanJudgment.objects.get(annotator=ann).value["rankings"]
    by_label = labels_of(assignment)
    assert stored["relevance"] == [[by_label[rel[0]], by_label[rel[1]]], [by_label[rel[2]]], [by_label[rel[3]]]]


def test_a_ranking_recorded_without_confirmation_can_be_kept_as_it_is(client, setup):
    """An imported ranking (no order_confirmed) opened to change it needs no confirmation: it is the expert's own."""
    campaign, ann = setup
    client.force_login(ann)
    page, submit, _ = urls(campaign)
    keys = shown_keys(client.get(page).content.decode())
    assignment = Assignment.objects.get(annotator=ann)
    post_ranking(client, submit, assignment, {"rankings": {"overall": [[k] for k in keys]},
                                              "order_confirmed": {"overall": "kept"}})
    judgment = HumanJudgment.objects.get(annotator=ann)
    HumanJudgment.objects.filter(pk=judgment.pk).update(value={"rankings": judgment.value["rankings"]})
    fragment = client.get(page, {"undo": ""}, **HTMX).content.decode()
    assert 'data-confirmed="{}" data-confirm-required="0"' in fragment
    post_ranking(client, submit, assignment, {"rankings": {"overall": [[k] for k in keys]}})
    assert HumanJudgment.objects.filter(annotator=ann).count() == 1  # kept as it is: no new version
