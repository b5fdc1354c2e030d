"""What an assisted arm suggests for each task type, how the page pre-selects it, and what a judgment records."""

import re
from datetime import timedelta

import pytest
from django.test import Client

from annotate.models import Assignment, HumanJudgment, Item, Membership, Role
from annotate.selectors.annotation import ranking_candidates
from annotate.services.annotation import judgment_edit, judgment_submit, judgment_value_check, unit_lease_next
from annotate.task_types.registry import task_type_get
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.tasktypes.test_ranking_services import ranking_campaign

ASSISTED = {"arms": ["blind", "assisted:judge"], "arm_assignment": "researcher"}


def judge_of(campaign, verdicts: dict, *, name="judge"):
    """A judge with VERDICTS, {item: (label, score)}."""
    judge = Judge.objects.create(campaign=campaign, name=name, family="external", config_hash=name)
    for item, (label, score) in verdicts.items():
        ModelJudgment.objects.create(judge=judge, item=item, label=label, score=score)
    return judge


def assisted(campaign, person, arm="assisted:judge"):
    campaign.options = {**(campaign.options or {}), **ASSISTED}
    campaign.save(update_fields=["options"])
    Membership.objects.filter(campaign=campaign, user=person, role=Role.ANNOTATOR).update(arm=arm)


def suggestions(campaign, judge):
    spec = task_type_get(campaign.task_type)
    found = spec.suggestions(campaign=campaign, judge=judge)
    for unit_id, value in found.items():  # every suggestion is a value its task type accepts
        judgment_value_check(task_type=campaign.task_type, value=value, unit=campaign.units.get(pk=unit_id))
    return {campaign.units.get(pk=unit_id).item_id or unit_id: value for unit_id, value in found.items()}


@pytest.mark.django_db
def test_qa_and_ais_suggest_the_judges_verdict_and_nothing_where_it_failed(qa_campaign, ais_campaign):
    first, second, third = Item.objects.filter(campaign=qa_campaign).order_by("pk")[:3]
    judge = judge_of(qa_campaign, {first: ("yes", 0.9), second: ("no", 0.1)})
    ModelJudgment.objects.create(judge=judge, item=third, label="", failed=True, raw="unreadable")
    assert suggestions(qa_campaign, judge) == {first.pk: {"correct": True}, second.pk: {"correct": False}}

    one, two = Item.objects.filter(campaign=ais_campaign).order_by("pk")[:2]
    autoais = judge_of(ais_campaign, {one: ("yes", 0.8), two: ("no", 0.2)})
    assert suggestions(ais_campaign, autoais) == {one.pk: {"interpretable": True, "supported": True},
                                                   two.pk: {"interpretable": True, "supported": False}}


@pytest.mark.django_db
def test_graded_types_suggest_the_grade_the_reports_quantile_rule_gives(image_campaign):
    items = list(Item.objects.filter(campaign=image_campaign).order_by("pk"))
    # Scores 1..5: median 3, 75th percentile 4 -> below 3: 0; 3 to 4: 1; above 4: 2 (Yang & Lin).
    clip = judge_of(image_campaign, {item: ("", float(n)) for n, item in enumerate(items, start=1)}, name="clip")
    assert suggestions(image_campaign, clip) == {items[0].pk: {"grade": 0}, items[1].pk: {"grade": 0},
                                                 items[2].pk: {"grade": 1}, items[3].pk: {"grade": 1},
                                                 items[4].pk: {"grade": 2}}
    # A judge that gives grades and no scores keeps them, on the campaign's own scale.
    passages = CampaignFactory(task_type="passage_relevance", overlap=1)
    topic = TopicFactory(campaign=passages, text="fever in adults", data={})
    graded = [ItemFactory(campaign=passages, topic=topic, kind="passage", text=f"passage {n}", data={"docid": f"d{n}"})
              for n in range(3)]
    for n, item in enumerate(graded):
        UnitFactory(campaign=passages, topic=topic, item=item, judgments_needed=1, position=n)
    llm = judge_of(passages, {graded[0]: ("3", None), graded[1]: ("0", None), graded[2]: ("7", None)}, name="llm")
    assert suggestions(passages, llm) == {graded[0].pk: {"grade": 3}, graded[1].pk: {"grade": 0}}


@pytest.mark.django_db
def test_answer_ranking_suggests_the_judges_order_by_score_with_ties_where_allowed():
    campaign, _ = ranking_campaign(options={"dimensions": ["relevance", "readability"], "ties": True})
    a, b, c, d = Item.objects.filter(campaign=campaign).order_by("pk")
    judge = judge_of(campaign, {a: ("", 0.2), b: ("", 0.9), c: ("", 0.5), d: ("", 0.5)})
    unit = campaign.units.get()
    order = [[b.pk], [c.pk, d.pk], [a.pk]]
    assert suggestions(campaign, judge) == {unit.pk: {"rankings": {"relevance": order, "readability": order}}}
    campaign.options = {"dimensions": ["relevance", "readability"], "ties": False}
    campaign.save(update_fields=["options"])
    untied = [[b.pk], [c.pk], [d.pk], [a.pk]]
    assert suggestions(campaign, judge)[unit.pk]["rankings"]["relevance"] == untied
    ModelJudgment.objects.filter(item=a).delete()  # a candidate it never scored: no order to suggest
    assert suggestions(campaign, judge) == {}


@pytest.mark.django_db
def test_the_assisted_page_preselects_the_suggestion_and_a_blind_page_is_unchanged(qa_campaign, annotator,
                                                                                   password):
    items = list(Item.objects.filter(campaign=qa_campaign).order_by("pk"))
    judge_of(qa_campaign, {items[0]: ("no", 0.1)})
    client = Client()
    client.login(username="ann", password=password)
    blind_page = client.get("/campaigns/qa/annotate/").content.decode()
    Assignment.objects.all().delete()

    assisted(qa_campaign, annotator)
    page = client.get("/campaigns/qa/annotate/").content.decode()
    assert "A model suggests: <b id=\"assist-words\">not correct</b>." in page
    assert re.search(r'id="verdict-no" data-key="n Enter" class="verdict no suggested"', page)
    assert re.search(r'id="verdict-yes" data-key="y" class="verdict yes"', page)

    Membership.objects.filter(user=annotator).update(arm="blind")
    Assignment.objects.all().delete()
    again = client.get("/campaigns/qa/annotate/").content.decode()
    assert "assist-note" not in again and "Enter" not in re.search(r'<form class="verdicts".*?</form>', again,
                                                                    re.S).group(0)
    def card(html):  # the unit's card, less the ids that differ between two leases
        article = re.search(r'<article class="card annotate-card.*?</article>', html, re.S).group(0)
        return re.sub(r'name="(csrfmiddlewaretoken|assignment)" value="[^"]*"|data-assignment="\d+"|'
                      r'data-undo-after="\d+"|undo=\d+', "", article)

    assert card(again) == card(blind_page)  # blind annotators see exactly today's page

    # An assisted unit the judge has no verdict on says so, and suggests nothing.
    Membership.objects.filter(user=annotator).update(arm="assisted:judge")
    Assignment.objects.all().delete()
    HumanJudgment.objects.all().delete()
    ModelJudgment.objects.all().delete()
    page = client.get("/campaigns/qa/annotate/").content.decode()
    assert "No model suggestion is available for this answer: judge it on your own." in page
    assert "Enter" not in re.search(r'<form class="verdicts".*?</form>', page, re.S).group(0)


@pytest.mark.django_db
def test_ais_graded_and_ranking_pages_preselect_their_suggestions(ais_campaign, annotator, password, settings,
                                                                  tmp_path):
    client = Client()
    client.login(username="ann", password=password)
    items = list(Item.objects.filter(campaign=ais_campaign).order_by("pk"))
    judge_of(ais_campaign, {items[0]: ("no", 0.3)})
    assisted(ais_campaign, annotator)
    page = client.get("/campaigns/ais/annotate/").content.decode()
    assert "A model suggests: <b id=\"assist-words\">interpretable, not supported</b>." in page
    assert 'id="interpretable-yes" data-key="y Enter"' in page and 'id="supported-no" data-key="n Enter"' in page
    assert 'id="interpretable-no" data-key="n"' in page and 'id="supported-yes" data-key="y"' in page

    passages = CampaignFactory(slug="pass", task_type="passage_relevance", overlap=1)
    MembershipFactory(campaign=passages, user=annotator, role=Role.ANNOTATOR)
    topic = TopicFactory(campaign=passages, text="fever in adults", data={})
    item = ItemFactory(campaign=passages, topic=topic, kind="passage", text="Fever above 39 C: see a doctor.",
                       data={"docid": "d1"})
    UnitFactory(campaign=passages, topic=topic, item=item, judgments_needed=1)
    judge_of(passages, {item: ("2", None)})
    assisted(passages, annotator)
    page = client.get("/campaigns/pass/annotate/").content.decode()
    assert re.search(r'A model suggests: <b id="assist-words">2 [^<]+</b>', page)
    assert re.search(r'id="grade-2" data-key="2 Enter"\s+class="verdict grade g2 suggested"', page)
    assert re.search(r'id="grade-3" data-key="3"\s+class="verdict grade g3"', page)

    ranking, (person,) = ranking_campaign(slug="rank")
    person.set_password(password)
    person.save()
    a, b, c, d = Item.objects.filter(campaign=ranking).order_by("pk")
    judge_of(ranking, {a: ("", 0.1), b: ("", 0.4), c: ("", 0.3), d: ("", 0.2)})
    assisted(ranking, person)
    client.login(username=person.username, password=password)
    page = client.get("/campaigns/rank/annotate/").content.decode()
    assert "The candidates start in a model&#x27;s order." in page or "The candidates start in a model's order." in page
    shown = re.findall(r'<div class="rank-label">Candidate (\w+)<', page)
    labels = {item.pk: label for label, item in
              ranking_candidates(assignment=Assignment.objects.get(annotator=person))}
    assert shown == [labels[b.pk], labels[c.pk], labels[d.pk], labels[a.pk]]  # the judge's order, best first
    assert 'data-confirmed="{}"' in page  # untouched, it must still be kept explicitly (c) or rearranged


@pytest.mark.django_db
def test_a_judgment_records_its_arm_suggestion_and_seconds_and_later_versions_keep_them(qa_campaign, annotator):
    items = list(Item.objects.filter(campaign=qa_campaign).order_by("pk"))
    judge_of(qa_campaign, {items[0]: ("yes", 0.9)})
    assisted(qa_campaign, annotator)
    assignment = unit_lease_next(campaign=qa_campaign, annotator=annotator)
    Assignment.objects.filter(pk=assignment.pk).update(leased_at=assignment.leased_at - timedelta(seconds=42))
    assignment.refresh_from_db()
    first = judgment_submit(assignment=assignment, annotator=annotator, value={"correct": False})
    assert (first.arm, first.suggestion) == ("assisted:judge", {"correct": True})
    assert 42 <= first.seconds < 60
    second = judgment_edit(judgment=first, annotator=annotator, value={"correct": True})
    assert (second.version, second.arm, second.suggestion, second.seconds) == (2, "assisted:judge",
                                                                               {"correct": True}, None)
    # Outside an experiment a judgment still records its time, and no arm.
    plain = CampaignFactory(task_type="qa_correctness", overlap=1)
    topic = TopicFactory(campaign=plain)
    UnitFactory(campaign=plain, topic=topic, item=ItemFactory(campaign=plain, topic=topic), judgments_needed=1)
    someone = UserFactory()
    MembershipFactory(campaign=plain, user=someone, role=Role.ANNOTATOR)
    judgment = judgment_submit(assignment=unit_lease_next(campaign=plain, annotator=someone), annotator=someone,
                               value={"correct": True})
    assert (judgment.arm, judgment.suggestion) == ("", None) and judgment.seconds is not None


@pytest.mark.django_db
def test_an_annotator_waiting_for_an_arm_is_told_so(qa_campaign, annotator, password):
    qa_campaign.options = ASSISTED
    qa_campaign.save(update_fields=["options"])
    client = Client()
    client.login(username="ann", password=password)
    page = client.get("/campaigns/qa/annotate/").content.decode()
    assert "The researcher has not yet put you in an arm of this campaign&#x27;s experiment" in page
    assert "All done" not in page


@pytest.mark.django_db
def test_an_archive_carries_arms_suggestions_and_seconds_with_a_rankings_item_ids_mapped(tmp_path):
    from interchange.archive import campaign_export, campaign_import

    campaign, (person,) = ranking_campaign(slug="rank-arms")
    items = list(Item.objects.filter(campaign=campaign).order_by("pk"))
    judge_of(campaign, {item: ("", float(n)) for n, item in enumerate(items)})
    assisted(campaign, person)
    assignment = unit_lease_next(campaign=campaign, annotator=person)
    judgment_submit(assignment=assignment, annotator=person,
                    value={**assignment.suggestion, "order_confirmed": {"overall": "kept"}})
    archive = tmp_path / "rank-arms.zip"
    campaign_export(campaign, archive)
    campaign_import(archive, slug="rank-copy")

    def by_external_id(value, campaign_slug):
        ids = dict(Item.objects.filter(campaign__slug=campaign_slug).values_list("pk", "external_id"))
        return {dim: [[ids[pk] for pk in group] for group in groups] for dim, groups in value["rankings"].items()}

    original = HumanJudgment.objects.get(unit__campaign=campaign)
    copy = HumanJudgment.objects.get(unit__campaign__slug="rank-copy")
    assert copy.suggestion != original.suggestion  # new item ids...
    assert by_external_id(copy.suggestion, "rank-copy") == by_external_id(
        original.suggestion, "rank-arms"
    )  # same order
    assert by_external_id(copy.value, "rank-copy") == by_external_id(copy.suggestion, "rank-copy")
    assert (copy.arm, copy.seconds) == (original.arm, original.seconds)
    leased = Assignment.objects.get(unit__campaign__slug="rank-copy")
    assert by_external_id(leased.suggestion, "rank-copy") == by_external_id(original.suggestion, "rank-arms")
    assert Membership.objects.get(campaign__slug="rank-copy", user=person, role=Role.ANNOTATOR).arm == "assisted:judge"


@pytest.mark.django_db
def test_the_options_page_takes_arms_as_lines_and_says_when_a_judge_does_not_exist_yet(qa_campaign, researcher):
    client = Client()
    client.force_login(researcher)
    answer = client.post("/campaigns/qa/options/", {"arms": "blind\nassisted:gpt-4", "arm_assignment": "random",
                                                    "arm_per": "unit"}, follow=True)
    assert answer.status_code == 200
    qa_campaign.refresh_from_db()
    assert {key: qa_campaign.options[key] for key in ("arms", "arm_assignment", "arm_per")} == {
        "arms": ["blind", "assisted:gpt-4"], "arm_assignment": "random", "arm_per": "unit"}
    page = client.get("/campaigns/qa/options/").content.decode()
    assert "this campaign has no judge called gpt-4 yet" in page
    Judge.objects.create(campaign=qa_campaign, name="gpt-4", family="external", config_hash="g")
    assert "has no judge called" not in client.get("/campaigns/qa/options/").content.decode()
    refused = client.post("/campaigns/qa/options/", {"arms": "blind\nshown"})
    assert refused.status_code == 400
    assert "&#x27;shown&#x27; is not an arm: an arm is &quot;blind&quot; or &quot;assisted:&quot;" in \
        refused.content.decode()
