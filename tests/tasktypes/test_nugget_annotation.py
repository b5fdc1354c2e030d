"""nugget_evaluation's two steps on the annotation page (a creation unit per topic, an assignment unit per answer),
freezing a topic's list (opening its answers; a new round after marks), the Nuggets page and its API."""

import html
import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotate.models import Assignment, HumanJudgment, Item, JudgmentKind, Unit
from annotate.services.annotation import JudgmentValueError, judgment_submit, unit_lease_next
from tasktypes.nugget_evaluation.freeze import NuggetListError, nuggets_checked, topic_list_freeze
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, NUGGETS_KIND, list_label, marks_label, topic_list
from tasktypes.nugget_evaluation.lists import RULE_HUMAN, campaign_lists, lists_freeze
from tests.factories import UserFactory
from tests.tasktypes.nugget_campaign import PROPOSAL, nugget_campaign_build

HTMX = {"HTTP_HX_REQUEST": "true"}
LIST = [{"id": "n1", "text": "It opened in 1932", "importance": "vital"},
        {"id": "n2", "text": "Stone was used", "importance": "okay"}]


@pytest.fixture
def campaign(researcher, annotator):
    return nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=2)


def creation_post(assignment, rows, started_from=""):
    post = {"assignment": assignment.pk, "shown_version": "", "started_from": started_from,
            "nugget_text": [text for text, _, _ in rows], "nugget_importance": [imp for _, imp, _ in rows],
            "nugget_from": [source for _, _, source in rows]}
    return post


def submit(unit, annotator, value):
    """ANNOTATOR's VALUE on UNIT through the service, as the page submits it."""
    now = timezone.now()
    assignment, _ = Assignment.objects.get_or_create(unit=unit, annotator=annotator, defaults={
        "leased_at": now, "expires_at": now + timedelta(hours=1)})
    return judgment_submit(assignment=assignment, annotator=annotator, value=value)


def open_answer_units(campaign):
    return Unit.objects.filter(campaign=campaign, item__kind=ANSWER_KIND, judgments_needed__gt=0).count()


# --- Creation ---

def test_a_creation_unit_records_what_was_kept_edited_added_and_removed(campaign, annotator, client):
    client.force_login(annotator)
    assert client.get(reverse("annotate", args=[campaign.slug])).status_code == 200
    assignment = annotator.assignments.get()
    assert assignment.unit.item.kind == NUGGETS_KIND  # answers wait for a frozen list
    rows = [("The bridge opened in 1932", "vital", "p1"),   # the proposal's text: kept
            ("Built of stone from the valley", "okay", "p2"),  # reworded: edited
            ("  ", "vital", ""),                               # empty: dropped
            ("It carries the main road", "vital", "")]        # the assessor's own
    response = client.post(reverse("annotate-submit", args=[campaign.slug]),
                           creation_post(assignment, rows, started_from="import:auto.jsonl"), **HTMX)
    assert response.status_code == 200
    judgment = HumanJudgment.objects.get(unit=assignment.unit)
    assert judgment.label == list_label(judgment.value["nuggets"]) and judgment.label.startswith("nuggets:")
    assert [(n["text"], n["importance"], n["origin"], n["from"]) for n in judgment.value["nuggets"]] == [
        ("The bridge opened in 1932", "vital", "kept", "p1"),
        ("Built of stone from the valley", "okay", "edited", "p2"),
        ("It carries the main road", "vital", "added", None)]
    assert judgment.value["started_from"] == "import:auto.jsonl" and judgment.value["removed"] == []


def test_a_proposal_left_out_is_recorded_removed_and_a_forged_origin_is_not_believed(campaign, annotator):
    unit = Unit.objects.filter(campaign=campaign, item__kind=NUGGETS_KIND).first()
    from django.http import QueryDict

    post = QueryDict(mutable=True)
    post.setlist("nugget_text", ["A fact of my own"])
    post.setlist("nugget_importance", ["vital"])
    post.setlist("nugget_from", ["p9"])  # no such proposal: the nugget is the assessor's own
    post["started_from"] = "import:auto.jsonl"
    from tasktypes.nugget_evaluation.values import creation_from_post

    value = creation_from_post(post, unit=unit)
    assert value["nuggets"][0]["origin"] == "added" and value["nuggets"][0]["from"] is None
    assert value["removed"] == ["p1", "p2"]


@pytest.mark.parametrize(("rows", "words"), [
    ([], "Write at least one nugget."),
    ([("A fact", "crucial", "")], "importance is vital or okay, not 'crucial'"),
])
def test_bad_nuggets_are_refused_with_the_reason(campaign, annotator, client, rows, words):
    client.force_login(annotator)
    client.get(reverse("annotate", args=[campaign.slug]))
    assignment = annotator.assignments.get()
    response = client.post(reverse("annotate-submit", args=[campaign.slug]), creation_post(assignment, rows), **HTMX)
    assert words in html.unescape(response.content.decode())
    assert not HumanJudgment.objects.exists()


def test_a_list_is_checked_before_it_is_frozen():
    with pytest.raises(NuggetListError, match="used twice"):
        nuggets_checked([{"id": "a", "text": "x", "importance": "vital"},
                         {"id": "a", "text": "y", "importance": "okay"}])
    with pytest.raises(NuggetListError, match="at least one"):
        nuggets_checked([])


# --- Freezing and assignment ---

def test_answers_open_when_their_topic_is_frozen_and_take_a_mark_per_nugget(campaign, annotator):
    topic = campaign.topics.get(external_id="t0")
    assert open_answer_units(campaign) == 0
    topic_list_freeze(topic=topic, nuggets=LIST, source="import:test")
    assert open_answer_units(campaign) == 2  # t0's two answers; t1's still wait
    answer = Unit.objects.filter(topic=topic, item__kind=ANSWER_KIND).first()
    with pytest.raises(JudgmentValueError, match="Mark every nugget: 1 of 2"):
        submit(answer, annotator, value={"version": 1, "marks": {"n1": "support"}})
    with pytest.raises(JudgmentValueError, match="version 2"):
        submit(answer, annotator,
                        value={"version": 2, "marks": {"n1": "support", "n2": "not_support"}})
    with pytest.raises(JudgmentValueError, match="not 'yes'"):
        submit(answer, annotator, value={"version": 1, "marks": {"n1": "yes", "n2": "yes"}})
    judgment = submit(answer, annotator,
                               value={"version": 1, "marks": {"n1": "support", "n2": "partial_support"}})
    assert judgment.label == "sp" == marks_label({"n1": "support", "n2": "partial_support"}, ["n1", "n2"])


def test_a_long_list_is_labelled_by_its_digest_within_the_column():
    order = [f"n{i}" for i in range(80)]
    label = marks_label(dict.fromkeys(order, "support"), order)
    assert len(label) == 64 and label.startswith("h")
    assert label != marks_label({**dict.fromkeys(order, "support"), "n5": "not_support"}, order)


def test_a_new_list_after_marks_starts_a_new_round_and_keeps_the_old_marks(campaign, annotator):
    topic = campaign.topics.get(external_id="t0")
    topic_list_freeze(topic=topic, nuggets=LIST, source="import:test")
    # Before any mark, freezing again replaces the list in place.
    topic_list_freeze(topic=topic, nuggets=LIST[:1], source="import:again")
    topic.refresh_from_db()
    assert topic_list(topic.data)["version"] == 1 and len(topic_list(topic.data)["nuggets"]) == 1
    answer = Unit.objects.filter(topic=topic, item__kind=ANSWER_KIND).order_by("pk").first()
    old = submit(answer, annotator, value={"version": 1, "marks": {"n1": "support"}})
    topic_list_freeze(topic=topic, nuggets=LIST, source="import:v2")
    topic.refresh_from_db()
    assert topic_list(topic.data)["version"] == 2
    assert [found["source"] for found in topic.data["nugget_versions"]] == ["import:again"]
    copies = Item.objects.filter(topic=topic, kind=ANSWER_KIND, data__round=2).order_by("external_id")
    assert list(copies.values_list("external_id", flat=True)) == ["t0/run0@2", "t0/run1@2"]
    assert list(Unit.objects.filter(item__in=copies).values_list("judgments_needed", flat=True)) == [1, 1]
    old.refresh_from_db()
    assert old.value == {"version": 1, "marks": {"n1": "support"}} and old.is_current
    # The old round's units now mark against their own list still.
    with pytest.raises(JudgmentValueError, match="version 2"):
        submit(Unit.objects.get(item__external_id="t0/run1"), annotator,
                        value={"version": 2, "marks": {"n1": "support", "n2": "support"}})


def test_the_human_rule_takes_the_adjudicated_list_or_the_only_assessor(campaign, researcher, annotator):
    second = UserFactory(username="second")
    t0, t1 = (Unit.objects.get(topic__external_id=t, item__kind=NUGGETS_KIND) for t in ("t0", "t1"))
    mine = {"nuggets": [{**n, "origin": "added", "from": None} for n in LIST], "started_from": "", "removed": []}
    theirs = {**mine, "nuggets": mine["nuggets"][:1]}
    for unit in (t0, t1):
        HumanJudgment.objects.create(unit=unit, annotator=annotator, value=mine, label="nuggets")
    HumanJudgment.objects.create(unit=t1, annotator=second, value=theirs, label="nuggets")
    result = lists_freeze(campaign=campaign, source=RULE_HUMAN)
    assert result["frozen"] == 1 and result["left"] == {"t1": "two or more assessors' lists and none adjudicated"}
    HumanJudgment.objects.create(unit=t1, annotator=researcher, value=theirs, label="nuggets",
                                 kind=JudgmentKind.ADJUDICATION)
    result = lists_freeze(campaign=campaign, source=RULE_HUMAN)
    assert result["frozen"] == 1 and result["left"] == {"t0": "already frozen from assessor:ann"}
    frozen = {row.topic.external_id: row.frozen for row in campaign_lists(campaign=campaign)}
    assert frozen["t1"]["source"] == "adjudicated" and len(frozen["t1"]["nuggets"]) == 1
    assert open_answer_units(campaign) == 4


def test_the_nuggets_page_freezes_a_proposal_and_the_api_says_the_same(campaign, researcher, annotator, client):
    url = reverse("nugget-lists", args=[campaign.slug])
    client.force_login(annotator)
    assert client.get(url).status_code in (403, 404)  # researchers only
    client.force_login(researcher)
    page = client.get(url).content.decode()
    assert "import:auto.jsonl" in page and "0 of 2 topics frozen" in page
    t0 = campaign.topics.get(external_id="t0")
    response = client.post(url, {"source": "import:auto.jsonl", "topic": t0.pk}, follow=True)
    assert "1 topic frozen." in response.content.decode()
    api = client.get(reverse("api-nugget-lists", args=[campaign.slug])).json()
    assert [(row["topic"], (row["frozen"] or {}).get("source")) for row in api["topics"]] == [
        ("t0", "import:auto.jsonl"), ("t1", None)]
    assert api["topics"][0]["frozen"]["nuggets"] == PROPOSAL
    answer = client.post(reverse("api-nugget-freeze", args=[campaign.slug]),
                         data=json.dumps({"source": "import:auto.jsonl", "topics": ["t1", "t9"]}),
                         content_type="application/json")
    assert answer.status_code == 400 and "t9" in answer.json()["detail"]
    answer = client.post(reverse("api-nugget-freeze", args=[campaign.slug]),
                         data=json.dumps({"source": "import:auto.jsonl"}), content_type="application/json")
    assert answer.json() == {"frozen": 1, "new_rounds": 0,
                             "left": {"t0": "already frozen from import:auto.jsonl"}}
    assert open_answer_units(campaign) == 4


def test_the_assignment_page_shows_the_answer_its_citations_and_the_nuggets_blind(campaign, annotator, client):
    for topic in campaign.topics.all():
        topic_list_freeze(topic=topic, nuggets=LIST, source="judge:secret-judge")
    for unit in Unit.objects.filter(campaign=campaign, item__kind=NUGGETS_KIND):
        unit.judgments_needed = 0
        unit.save()
    client.force_login(annotator)
    page = client.get(reverse("annotate", args=[campaign.slug])).content.decode()
    assert "Answer 0 on the river bridge: it opened in 1932." in page
    assert "Passage 0 on the river bridge: built in 1930." in page  # the cited segment
    assert "It opened in 1932" in page and 'name="mark:n2"' in page
    assert "run0" not in page and "secret-judge" not in page  # no run, no judge
    assignment = unit_lease_next(campaign=campaign, annotator=annotator)
    response = client.post(reverse("annotate-submit", args=[campaign.slug]),
                           {"assignment": assignment.pk, "shown_version": "", "mark:n1": "support",
                            "mark:n2": "not_support"}, **HTMX)
    assert response.status_code == 200
    assert HumanJudgment.objects.get(unit=assignment.unit).value == {
        "version": 1, "marks": {"n1": "support", "n2": "not_support"}}


def test_the_downloads_give_each_layout_to_researchers_only(campaign, researcher, annotator, client):
    topic_list_freeze(topic=campaign.topics.get(external_id="t0"), nuggets=LIST, source="import:test")
    answer = Unit.objects.filter(topic__external_id="t0", item__kind=ANSWER_KIND).order_by("pk").first()
    submit(answer, annotator, {"version": 1, "marks": {"n1": "support", "n2": "partial_support"}})
    page_url, api_url = (reverse(name, args=[campaign.slug]) for name in ("nugget-export", "api-nugget-export"))
    client.force_login(annotator)
    assert client.get(page_url, {"shape": "nuggets-tsv"}).status_code in (403, 404)
    client.force_login(researcher)
    assert 'shape=assignments-tsv' in client.get(reverse("nugget-lists", args=[campaign.slug])).content.decode()
    tsv = client.get(page_url, {"shape": "nuggets-tsv"})
    assert tsv["Content-Type"].startswith("text/tab-separated-values")
    assert tsv.content.decode().splitlines()[1:] == ["t0\tn1\tvital\tIt opened in 1932", "t0\tn2\tokay\tStone was used"]
    marks = client.get(api_url, {"shape": "nuggetizer-assignments"}).content.decode().splitlines()
    assert len(marks) == 1 and [n["assignment"] for n in json.loads(marks[0])["nuggets"]] == [
        "support", "partial_support"]
    assert client.get(api_url, {"shape": "spreadsheet"}).status_code == 400
    assert client.get(page_url, {"shape": "spreadsheet"}).status_code == 404


def test_each_step_asks_for_its_own_number_of_judgments(researcher, annotator, client, tmp_path):
    """creation_overlap is the creation step's k apart from the overlap; a change of either is applied from the
    Nuggets page; an earlier round's answers close when a new round starts."""
    from annotate.services.campaigns import campaign_options_set
    from tasktypes.nugget_evaluation.steps import steps_out_of_step

    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=2, overlap=2,
                                     slug="steps")
    campaign = campaign_options_set(campaign=campaign, values={"creation_overlap": 3})
    assert steps_out_of_step(campaign) == {"creation": 2, "answers": 0}
    client.force_login(researcher)
    url = reverse("nugget-lists", args=[campaign.slug])
    assert "2 topic units and 0 answer units ask for another number" in " ".join(
        client.get(url).content.decode().split())
    assert client.post(url, {"action": "steps"}, follow=True).status_code == 200
    needed = dict(Unit.objects.filter(campaign=campaign).values_list("item__external_id", "judgments_needed"))
    assert (needed["t0/nuggets"], needed["t0/run0"]) == (3, 0)
    topic = campaign.topics.get(external_id="t0")
    topic_list_freeze(topic=topic, nuggets=LIST, source="import:one")
    Unit.objects.filter(campaign=campaign).update(judgments_needed=2)  # the settings page's overlap change
    assert steps_out_of_step(campaign) == {"creation": 2, "answers": 2}  # t1's answers opened unfrozen
    answer = client.post(reverse("api-nugget-steps", args=[campaign.slug]))
    assert answer.json() == {"changed": 4}
    assert steps_out_of_step(campaign) == {"creation": 0, "answers": 0}
    submit(Unit.objects.get(item__external_id="t0/run0"), annotator, {"version": 1, "marks": {
        "n1": "support", "n2": "support"}})
    lists_freeze(campaign=campaign, source="import:auto.jsonl", topics=[topic.pk])  # a new round for t0
    needed = dict(Unit.objects.filter(campaign=campaign).values_list("item__external_id", "judgments_needed"))
    # round 1: closed, the one marked kept as done; round 2: open
    assert (needed["t0/run0"], needed["t0/run1"], needed["t0/run0@2"], needed["t0/run1@2"]) == (1, 0, 2, 2)


def test_an_adjudicator_settles_an_answer_the_assessors_marked_apart(researcher, annotator, client):
    """Two assessors mark an answer differently: the answer waits in the adjudication queue, whose page shows the
    answer and the nuggets, and takes the marks as letters in the list's order."""
    second, judge = UserFactory(username="second"), UserFactory(username="adj")
    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator, second], topics=1, runs=2,
                                     overlap=2, slug="adjudicated")
    from annotate.models import Membership, Role

    Membership.objects.create(campaign=campaign, user=judge, role=Role.ADJUDICATOR)
    topic_list_freeze(topic=campaign.topics.get(), nuggets=LIST, source="import:test")
    unit = Unit.objects.get(item__external_id="t0/run0")
    submit(unit, annotator, {"version": 1, "marks": {"n1": "support", "n2": "support"}})
    submit(unit, second, {"version": 1, "marks": {"n1": "support", "n2": "not_support"}})
    client.force_login(judge)
    queue = client.get(f"/api/campaigns/{campaign.slug}/adjudication/").json()
    assert [row["label"] for row in queue["results"]] == ["t0/run0"]
    page = client.get(f"/campaigns/{campaign.slug}/adjudicate/{unit.pk}/").content.decode()
    assert "Answer 0 on the river bridge" in page and "Stone was used" in page
    refused = client.post(f"/campaigns/{campaign.slug}/adjudicate/{unit.pk}/", {"marks": "s"})
    assert "Mark every nugget: 1 of 2" in html.unescape(refused.content.decode())
    client.post(f"/campaigns/{campaign.slug}/adjudicate/{unit.pk}/", {"marks": "s p"})
    settled = HumanJudgment.objects.get(unit=unit, kind=JudgmentKind.ADJUDICATION)
    assert settled.value == {"version": 1, "marks": {"n1": "support", "n2": "partial_support"}}
    assert settled.label == "sp"


def test_the_report_takes_the_adjudicated_marks_as_the_humans(researcher, annotator):
    """An adjudicated answer's marks are the humans' mark in the scores; the assessors' agreement stays theirs."""
    from annotate.services.adjudication import adjudication_submit
    from tasktypes.nugget_evaluation.report import nugget_report_build

    second = UserFactory(username="second")
    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator, second], topics=1, runs=1,
                                     overlap=2, slug="settled")
    topic_list_freeze(topic=campaign.topics.get(), nuggets=LIST, source="import:test")
    unit = Unit.objects.get(item__external_id="t0/run0")
    submit(unit, annotator, {"version": 1, "marks": {"n1": "support", "n2": "not_support"}})
    submit(unit, second, {"version": 1, "marks": {"n1": "not_support", "n2": "not_support"}})
    before = nugget_report_build(campaign=campaign)
    adjudication_submit(unit=unit, adjudicator=researcher,
                        value={"version": 1, "marks": {"n1": "not_support", "n2": "support"}})
    after = nugget_report_build(campaign=campaign)
    assert before["humans"]["answers_adjudicated"] == 0 and after["humans"]["answers_adjudicated"] == 1
    assert after["assessors"] == before["assessors"]  # the two assessors' agreement is theirs
    # n1 is the only vital nugget: tied between the assessors, the earliest's support counts before (1.0); the
    # adjudicator's no support after (0.0). All (strict): n1 before, n2 after: 0.5 both times.
    assert answer_score(before, "vital_strict") == 1.0 and answer_score(after, "vital_strict") == 0.0
    assert answer_score(before, "all_strict") == answer_score(after, "all_strict") == 0.5


def answer_score(report, score):
    return report["answers"]["scores"]["humans"][score][0]


def test_two_assessors_lists_wait_for_an_adjudicator_who_keeps_one(researcher, annotator, client):
    """Two different lists of a topic put its creation unit in the adjudication queue; the adjudicator names the
    rater whose list to keep, and the assessors' rule freezes it."""
    second, judge = UserFactory(username="second"), UserFactory(username="adj")
    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator, second], topics=1, runs=1,
                                     overlap=2, slug="two-lists")
    from annotate.models import Membership, Role

    Membership.objects.create(campaign=campaign, user=judge, role=Role.ADJUDICATOR)
    unit = Unit.objects.get(item__kind=NUGGETS_KIND)
    mine = {"nuggets": [{**n, "origin": "added", "from": None} for n in LIST], "started_from": "", "removed": []}
    theirs = {**mine, "nuggets": mine["nuggets"][:1]}
    first = submit(unit, annotator, mine)
    submit(unit, second, theirs)
    assert first.label.startswith("nuggets:") and first.label != HumanJudgment.objects.get(annotator=second).label
    client.force_login(judge)
    queue = client.get(f"/api/campaigns/{campaign.slug}/adjudication/").json()
    assert [row["label"] for row in queue["results"]] == ["t0/nuggets"]
    page = f"/campaigns/{campaign.slug}/adjudicate/{unit.pk}/"
    assert "Passage 0 on the river bridge" in client.get(page).content.decode()
    assert "Name the rater whose list to keep: A, B." in html.unescape(
        client.post(page, {"marks": "C"}).content.decode())
    client.post(page, {"marks": "b"})
    assert HumanJudgment.objects.get(unit=unit, kind=JudgmentKind.ADJUDICATION).value == theirs
    assert lists_freeze(campaign=campaign, source=RULE_HUMAN)["frozen"] == 1
    assert topic_list(campaign.topics.get().data)["source"] == "adjudicated"


def test_a_person_matches_a_judges_list_with_the_frozen_one_and_the_report_counts_it(researcher, annotator,
                                                                                      client):
    """The Match page lists each frozen topic beside each other list; a person says which nugget matches which; the
    report's recovery counts those matches (not equal strings), with its n and interval."""
    from judges.models import Judge, ModelJudgment
    from tasktypes.nugget_evaluation.report import nugget_report_build

    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=1, slug="match")
    judge = Judge.objects.create(campaign=campaign, name="writer", family="external", config_hash="w" * 64)
    written = [{"id": "n1", "text": "Opened in the year 1932", "importance": "vital"},
               {"id": "n2", "text": "It is painted red", "importance": "okay"}]
    for topic in campaign.topics.all():
        topic_list_freeze(topic=topic, nuggets=LIST, source="import:test")
        ModelJudgment.objects.create(judge=judge, item=Item.objects.get(topic=topic, kind=NUGGETS_KIND),
                                     label="nuggets", raw=json.dumps({"nuggets": written}))
    url = reverse("nugget-match", args=[campaign.slug])
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    client.force_login(researcher)
    index = client.get(url).content.decode()
    assert index.count("judge:writer") == 2 and "not yet" in index
    form = client.get(url, {"topic": "t0", "source": "judge:writer"}).content.decode()
    assert 'name="match:n1"' in form and "Opened in the year 1932" in form
    refused = client.post(f"{url}?topic=t0&source=judge:writer", {"match:n1": "n9", "match:n2": ""})
    assert refused.status_code == 400 and "the other list has no nugget" in html.unescape(refused.content.decode())
    # "It opened in 1932" and "Opened in the year 1932" say the same: a match no string comparison would make
    client.post(f"{url}?topic=t0&source=judge:writer", {"match:n1": "n1", "match:n2": ""})
    client.post(f"{url}?topic=t1&source=judge:writer", {"match:n1": "", "match:n2": ""})
    assert campaign.topics.get(external_id="t0").data["matches"]["judge:writer"]["pairs"] == {"n1": "n1", "n2": None}
    matched = nugget_report_build(campaign=campaign)["creation"]["matched"]["judge:writer"]
    assert (matched["n"], matched["matched"], matched["n_topics"], matched["recovery"]) == (4, 1, 2, 0.25)
    assert (matched["n_vital"], matched["vital_recovery"]) == (2, 0.5)
    assert matched["recovery_ci_over"] == "topics" and "recovery_ci95" in matched
