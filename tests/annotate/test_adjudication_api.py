"""Adjudication through the REST API and the pages (no browser): who may, what they see, what a verdict records."""

import pytest

from annotate.models import HumanJudgment, JudgmentKind, Membership, Role, Unit
from annotate.selectors.annotation import ranking_candidates
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.task_types.spec import view_assignment
from tests.adjudication_support import disagreement_campaign
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

QUEUE = "/api/campaigns/adj/adjudication/"


@pytest.fixture
def world(researcher):
    return disagreement_campaign(researcher=researcher)


def unit_url(unit, api=True):
    return f"/api/campaigns/adj/adjudication/{unit.pk}/" if api else f"/campaigns/adj/adjudicate/{unit.pk}/"


def test_the_queue_is_for_adjudicators_and_researchers(client, world, researcher):
    campaign, people, units = world
    client.force_login(people["a1"])
    refused = client.get(QUEUE)
    assert refused.status_code == 403
    assert refused.json()["detail"] == ("This page is for the adjudicators of campaign “Campaign adj”, who settle the "
                                        "units whose verdicts disagree; you are an annotator here. A researcher can "
                                        "make you one on the campaign's People page.")
    assert client.get(unit_url(units[1])).status_code == 403
    client.force_login(UserFactory(username="stranger"))
    assert client.get(QUEUE).status_code == 404
    for who in (people["adj"], researcher):
        client.force_login(who)
        listing = client.get(QUEUE).json()
        assert listing["count"] == 3 and [row["label"] for row in listing["results"]] == ["u4", "u1", "u3"]
        assert listing["results"][0]["kinds"] == ["humans"] and listing["results"][0]["score"] == pytest.approx(1.0)


def test_a_unit_shows_every_verdict_with_the_raters_anonymised(client, world):
    campaign, people, units = world
    client.force_login(people["adj"])
    body = client.get(unit_url(units[1])).json()
    assert body["unit"]["question"] == "who painted the mona lisa"
    assert body["unit"]["candidate"] == "candidate answer 1" and body["unit"]["gold_answers"] == ["Leonardo da Vinci"]
    assert [(r["rater"], r["label"], r["words"]) for r in body["raters"]] == [
        ("Rater A", "yes", "correct"), ("Rater B", "yes", "correct"), ("Rater C", "no", "not correct")]
    judges = {row["name"]: row for row in body["judges"]}
    assert (judges["llm"]["label"], judges["llm"]["score"]) == ("no", 0.8)
    assert judges["llm"]["samples"] == [f"sample {n} of u1: the answer is no" for n in range(3)]
    assert judges["em"]["samples"] == [] and judges["em"]["label"] == "yes"
    text = client.get(unit_url(units[1])).content.decode()
    assert all(name not in text for name in ('"a1"', '"a2"', '"a3"'))  # no rater's name anywhere


def test_a_verdict_is_stored_beside_the_originals(client, world):
    campaign, people, units = world
    client.force_login(people["adj"])
    answer = client.post(unit_url(units[1]), {"value": {"correct": False}, "note": "Wrong painter."},
                         content_type="application/json")
    assert answer.status_code == 201
    body = answer.json()
    assert (body["kind"], body["label"], body["note"], body["version"], body["unit_id"]) == (
        "adjudication", "no", "Wrong painter.", 1, units[1].pk)
    assert HumanJudgment.objects.filter(unit=units[1], kind=JudgmentKind.ANNOTATION, is_current=True).count() == 3
    assert Unit.objects.get(pk=units[1].pk).judgments_done == 3
    assert [row["label"] for row in client.get(QUEUE).json()["results"]] == ["u4", "u3"]
    adjudicated = client.get(QUEUE, {"status": "adjudicated"}).json()["results"]
    assert [(row["label"], row["adjudicated_by"], row["note"]) for row in adjudicated] == [("u1", "adj",
                                                                                            "Wrong painter.")]
    shown = client.get(unit_url(units[1])).json()["adjudications"]
    assert [(row["by"], row["words"], row["note"], row["is_current"]) for row in shown] == [
        ("adj", "not correct", "Wrong painter.", True)]


def test_a_bad_verdict_is_refused_in_words(client, world):
    campaign, people, units = world
    client.force_login(people["adj"])
    answer = client.post(unit_url(units[1]), {"value": {"correct": "perhaps"}}, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json() == {"detail": 'A QA verdict is {"correct": true} or {"correct": false}.'}
    assert client.get(QUEUE, {"status": "everything"}).status_code == 400
    assert not HumanJudgment.objects.filter(kind=JudgmentKind.ADJUDICATION).exists()


def test_a_unit_still_open_to_the_adjudicator_as_annotator_is_not_shown_to_them(client, world):
    campaign, people, units = world
    client.force_login(people["a3"])  # annotator and adjudicator; u4 waits for their annotation
    assert [row["label"] for row in client.get(QUEUE).json()["results"]] == ["u1", "u3"]
    refused = client.get(unit_url(units[4]))
    assert refused.status_code == 403 and "still open to you as an annotator" in refused.json()["detail"]
    assert "Rater" not in refused.content.decode()
    assert client.post(unit_url(units[4]), {"value": {"correct": True}},
                       content_type="application/json").status_code == 403
    assert client.get(unit_url(units[4], api=False)).status_code == 403
    assert not HumanJudgment.objects.filter(kind=JudgmentKind.ADJUDICATION).exists()


def test_annotators_never_see_adjudications_or_other_raters_verdicts(client, world):
    campaign, people, units = world
    client.force_login(people["adj"])
    client.post(unit_url(units[1]), {"value": {"correct": False}, "note": "NOTE-ONLY-ADJUDICATORS-SEE"},
                content_type="application/json")
    client.force_login(people["a1"])
    for url in ("/campaigns/adj/", "/campaigns/adj/annotate/", "/api/campaigns/adj/"):
        page = client.get(url).content.decode()
        assert "NOTE-ONLY-ADJUDICATORS-SEE" not in page and "Rater A" not in page and "adjudicat" not in page.lower()
    # a1's last verdict, offered to change (undo), is their own: correct.
    undo = client.get("/campaigns/adj/annotate/", {"undo": ""}).content.decode()
    assert "NOTE-ONLY-ADJUDICATORS-SEE" not in undo


# --- The pages (forms) ---


def test_the_page_takes_a_verdict_and_a_note_then_shows_the_next_unit(client, world):
    campaign, people, units = world
    client.force_login(people["adj"])
    queue = client.get("/campaigns/adj/adjudicate/").content.decode()
    assert 'id="adjudicate-next"' in queue and f'/campaigns/adj/adjudicate/{units[4].pk}/' in queue
    page = client.get(unit_url(units[1], api=False)).content.decode()
    assert "Rater A" in page and "Rater C" in page and "sample 2 of u1: the answer is no" in page
    assert 'data-key="y"' in page and 'data-key="n"' in page
    answer = client.post(unit_url(units[1], api=False), {"verdict": "no", "note": "Wrong painter."})
    assert answer.status_code == 302 and answer["Location"] == f"/campaigns/adj/adjudicate/{units[4].pk}/"
    refused = client.post(unit_url(units[3], api=False), {"verdict": "", "note": "kept"})
    assert refused.status_code == 400 and "Choose yes or no." in refused.content.decode()
    assert ">kept</textarea>" in refused.content.decode()  # the note written is not lost
    assert HumanJudgment.objects.get(kind=JudgmentKind.ADJUDICATION).note == "Wrong painter."


def test_the_campaign_page_links_to_the_queue_with_its_count(client, world, researcher):
    campaign, people, units = world
    client.force_login(people["adj"])
    page = client.get("/campaigns/adj/").content.decode()
    assert "Adjudicate (3 waiting)" in page and "Start annotating" not in page
    client.force_login(researcher)
    assert "Adjudicate (3 waiting)" in client.get("/campaigns/adj/").content.decode()
    client.force_login(people["a1"])
    assert "Adjudicate" not in client.get("/campaigns/adj/").content.decode()


def test_the_people_page_and_the_members_api_make_adjudicators(client, world, researcher):
    campaign, people, units = world
    UserFactory(username="judy")
    UserFactory(username="jim")
    client.force_login(researcher)
    page = client.get("/campaigns/adj/people/").content.decode()
    assert 'value="adjudicator"' in page
    client.post("/campaigns/adj/people/", {"action": "add", "username": "judy", "role": "adjudicator"})
    answer = client.post("/api/campaigns/adj/members/", {"username": "jim", "role": "adjudicator"},
                         content_type="application/json")
    assert answer.status_code == 201 and answer.json()["role"] == "adjudicator"
    assert set(Membership.objects.filter(campaign=campaign, role=Role.ADJUDICATOR).values_list(
        "user__username", flat=True)) == {"a3", "adj", "judy", "jim"}


def test_the_judge_kind_needs_its_judge(client, world, researcher):
    campaign, people, units = world
    client.force_login(researcher)
    answer = client.put("/api/campaigns/adj/options/", {"options": {"adjudication": ["judge"]}},
                        content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        "option adjudication_judge: choose the judge whose disagreement with the human label puts a unit in the "
        "adjudication queue, or switch that kind of disagreement off")
    page = client.post("/campaigns/adj/options/", {"adjudication": ["humans", "judge"], "adjudication_judge": "llm"})
    assert page.status_code == 302
    campaign.refresh_from_db()
    assert campaign.options == {"adjudication": ["humans", "judge"], "adjudication_judge": "llm"}
    options_page = client.get("/campaigns/adj/options/").content.decode()
    assert (
        '<option value="llm" selected>llm</option>' in options_page and '<option value="em">em</option>' in options_page
    )


# --- Other task types: the same pages with the task type's own questions ---


def test_a_ranked_topic_is_adjudicated_by_typing_the_order(client):
    campaign = CampaignFactory(slug="rank", task_type="answer_ranking", overlap=2, options={"dimensions": ["overall"]})
    r1, r2, adj = (UserFactory(username=name) for name in ("r1", "r2", "radj"))
    for user, role in ((r1, Role.ANNOTATOR), (r2, Role.ANNOTATOR), (adj, Role.ADJUDICATOR)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    topic = TopicFactory(campaign=campaign, external_id="7", text="how do vaccines work", data={"narrative": "N."})
    pks = [ItemFactory(campaign=campaign, topic=topic, external_id=f"7/c{n}", text=f"candidate text {n}").pk
           for n in range(3)]
    unit = Unit.objects.create(campaign=campaign, topic=topic, item=None, judgments_needed=2, judgments_done=2)
    for user, order in ((r1, [0, 1, 2]), (r2, [2, 1, 0])):
        HumanJudgment.objects.create(unit=unit, annotator=user, label="ranked",
                                     value={"rankings": {"overall": [[pks[n]] for n in order]}})
    client.force_login(adj)
    assert [row["label"] for row in client.get("/api/campaigns/rank/adjudication/").json()["results"]] == ["7"]
    page = client.get(f"/campaigns/rank/adjudicate/{unit.pk}/").content.decode()
    assert "how do vaccines work" in page and "candidate text 2" in page and 'name="order-overall"' in page
    label = {item.pk: letter for letter, item in ranking_candidates(assignment=view_assignment(unit=unit, person=adj))}
    body = client.get(f"/api/campaigns/rank/adjudication/{unit.pk}/").json()
    assert [r["words"] for r in body["raters"]] == [", ".join(label[pks[n]] for n in order)
                                                    for order in ([0, 1, 2], [2, 1, 0])]
    typed = f"{label[pks[1]]}, {label[pks[0]].lower()}, {label[pks[2]]}"
    refused = client.post(f"/campaigns/rank/adjudicate/{unit.pk}/", {"order-overall": typed[:4]})
    assert refused.status_code == 400 and "place every candidate: 1 is missing" in refused.content.decode().lower()
    assert client.post(f"/campaigns/rank/adjudicate/{unit.pk}/", {"order-overall": typed}).status_code == 302
    adjudication = HumanJudgment.objects.get(kind=JudgmentKind.ADJUDICATION)
    assert adjudication.value == {"rankings": {"overall": [[pks[1]], [pks[0]], [pks[2]]]}}


def test_an_ais_unit_asks_its_two_questions(client, ais_campaign, researcher):
    other = UserFactory(username="other-rater")
    MembershipFactory(campaign=ais_campaign, user=other, role=Role.ANNOTATOR)
    Unit.objects.filter(campaign=ais_campaign).update(judgments_needed=2)
    for who, value in ((other, {"interpretable": True, "supported": True}),
                       (ais_campaign.memberships.get(role=Role.ANNOTATOR, user__username="ann").user,
                        {"interpretable": False, "supported": None})):
        judgment_submit(assignment=unit_lease_next(campaign=ais_campaign, annotator=who), annotator=who, value=value)
    unit = Unit.objects.filter(campaign=ais_campaign).order_by("position", "pk").first()
    client.force_login(researcher)
    page = client.get(f"/campaigns/{ais_campaign.slug}/adjudicate/{unit.pk}/").content.decode()
    assert 'data-when-name="interpretable" data-when-value="yes"' in page and "Evidence passage" in page
    assert "interpretable, supported" in page and "not interpretable" in page
    answer = client.post(f"/campaigns/{ais_campaign.slug}/adjudicate/{unit.pk}/", {"interpretable": "yes"})
    assert answer.status_code == 400
    assert "You found the answer interpretable: say whether the passage supports it, yes or no." in \
        answer.content.decode()
    assert client.post(f"/campaigns/{ais_campaign.slug}/adjudicate/{unit.pk}/",
                       {"interpretable": "yes", "supported": "no"}).status_code == 302
    assert HumanJudgment.objects.get(kind=JudgmentKind.ADJUDICATION).value == {"interpretable": True,
                                                                               "supported": False}


def test_the_queue_page_lists_a_bounded_number_of_units_and_points_to_the_api_for_all(client, world, monkeypatch):
    campaign, people, units = world
    monkeypatch.setattr("annotate.views_adjudicate.QUEUE_ROWS_SHOWN", 1)
    client.force_login(people["adj"])

    def rows(page, table):
        return page.split(f'<table id="{table}">')[1].split("</table>")[0].count("<tr><td")

    page = client.get("/campaigns/adj/adjudicate/").content.decode()
    assert rows(page, "queue") == 1 and "3 units waiting; the first 1 are listed" in page
    client.post(unit_url(units[1]), {"value": {"correct": False}}, content_type="application/json")
    client.post(unit_url(units[3]), {"value": {"correct": True}}, content_type="application/json")
    page = client.get("/campaigns/adj/adjudicate/").content.decode()
    assert rows(page, "queue") == 1 and "1 unit waiting." in page
    assert rows(page, "adjudicated") == 1 and "2 units adjudicated; the 1 most recent are listed" in page


def test_a_judges_confidence_runs_from_0_to_1_and_a_bare_score_has_none(client, world):
    """A judge that scored 1.000 (em: an exact match) is fully confident, not "confidence 0.50" (the bare distance
    from the threshold 0.5); an LLM's 0.8 share of the vote is 0.60. A ranker's raw score, even one that lies between
    0 and 1, is no verdict and gets no confidence."""
    campaign, people, units = world
    bm25 = campaign.judges.create(name="bm25", family="bm25", config={}, config_hash="bm25")
    bm25.judgments.create(item=units[1].item, label="", score=0.62)
    client.force_login(people["adj"])
    judges = {row["name"]: row for row in client.get(unit_url(units[1])).json()["judges"]}
    assert judges["em"]["confidence"] == pytest.approx(1.0) and judges["llm"]["confidence"] == pytest.approx(0.6)
    assert judges["bm25"]["score"] == pytest.approx(0.62) and judges["bm25"]["confidence"] is None
    page = client.get(unit_url(units[1], api=False)).content.decode()
    assert "score 1.000 · confidence 1.00" in page and "score 0.800 · confidence 0.60" in page
    assert "score 0.620</p>" in page.replace("</span>", "")


def test_a_passage_unit_is_headed_by_its_query_not_a_question(client):
    campaign = CampaignFactory(slug="pas", task_type="passage_relevance", overlap=2)
    adjudicator = UserFactory(username="adj")
    MembershipFactory(campaign=campaign, user=adjudicator, role=Role.ADJUDICATOR)
    topic = TopicFactory(campaign=campaign, external_id="q1", text="how long does concrete take to cure", data={})
    item = ItemFactory(campaign=campaign, topic=topic, external_id="q1/d1", kind="passage", data={"docid": "d1"},
                       text="Concrete reaches most of its strength in about four weeks.")
    unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=2)
    client.force_login(adjudicator)
    page = client.get(f"/campaigns/pas/adjudicate/{unit.pk}/").content.decode()
    assert "<h2>Query</h2>" in page and "<h2>Question</h2>" not in page and "<h2>Passage</h2>" in page


def test_the_home_page_names_an_adjudicators_role_and_links_their_queue(client, world):
    campaign, people, units = world
    queue = 'href="/campaigns/adj/adjudicate/">Adjudication queue</a>'
    for who, roles in (("adj", "adjudicator"), ("a3", "annotator, adjudicator"), ("a1", "annotator")):
        client.force_login(people[who])
        page = client.get("/").content.decode()
        assert f'<td class="roles">{roles}</td>' in page, who
        assert (queue in page) == (who != "a1"), who
