"""The AIS form: the value it stores, the page without JavaScript, blindness, and overlap k for AIS units."""

import pytest
from django.urls import reverse

from annotate.models import HumanJudgment, Role, SystemOutput, Unit
from annotate.services.annotation import (
    JudgmentValueError,
    judgment_submit,
    judgment_value_check,
    unit_lease_next,
)
from judges.models import Judge, ModelJudgment
from tasktypes.ais.spec import value_from_answers as ais_value_from_answers
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

HTMX = {"HTTP_HX_REQUEST": "true"}

SHAPE = ('An AIS verdict is {"interpretable": true or false, "supported": true or false, '
         'or null when not interpretable}.')
ASK_INTERPRETABLE = "Say whether the answer is interpretable: yes or no."
ASK_SUPPORTED = "You found the answer interpretable: say whether the passage supports it, yes or no."
NOT_ASKED = "You found the answer not interpretable, so it is not judged for support: leave that question unanswered."


@pytest.fixture
def page_url(ais_campaign):
    return reverse("annotate", args=[ais_campaign.slug])


@pytest.fixture
def submit_url(ais_campaign):
    return reverse("annotate-submit", args=[ais_campaign.slug])


def check(value):
    return judgment_value_check(task_type="ais", value=value)


# --- The value and its label ---

@pytest.mark.parametrize(("value", "label"), [
    ({"interpretable": True, "supported": True}, "yes"),
    ({"interpretable": True, "supported": False}, "no"),
    ({"interpretable": False, "supported": None}, "no"),
])
def test_good_values_and_their_labels(value, label):
    assert check(value) == label


@pytest.mark.parametrize(("value", "message"), [
    ("yes", SHAPE),
    (None, SHAPE),
    ([True, True], SHAPE),
    ({}, SHAPE),
    ({"interpretable": True}, SHAPE),
    ({"interpretable": False}, SHAPE),
    ({"interpretable": True, "supported": True, "note": "x"}, SHAPE),
    ({"attributable": True, "supported": True}, SHAPE),
    ({"interpretable": "yes", "supported": True}, ASK_INTERPRETABLE),
    ({"interpretable": 1, "supported": True}, ASK_INTERPRETABLE),
    ({"interpretable": None, "supported": None}, ASK_INTERPRETABLE),
    ({"interpretable": True, "supported": None}, ASK_SUPPORTED),
    ({"interpretable": True, "supported": "no"}, ASK_SUPPORTED),
    ({"interpretable": True, "supported": 0}, ASK_SUPPORTED),
    ({"interpretable": False, "supported": False}, NOT_ASKED),
    ({"interpretable": False, "supported": True}, NOT_ASKED),
])
def test_malformed_values_are_refused_with_a_message(value, message):
    with pytest.raises(JudgmentValueError) as refused:
        check(value)
    assert str(refused.value) == message


@pytest.mark.parametrize(("interpretable", "supported", "value"), [
    ("yes", "yes", {"interpretable": True, "supported": True}),
    ("yes", "no", {"interpretable": True, "supported": False}),
    ("no", None, {"interpretable": False, "supported": None}),
    ("no", "", {"interpretable": False, "supported": None}),
])
def test_form_answers_become_the_value(interpretable, supported, value):
    assert ais_value_from_answers(interpretable=interpretable, supported=supported) == value


@pytest.mark.django_db
def test_the_service_records_nothing_for_a_malformed_value(ais_campaign, annotator):
    lease = unit_lease_next(campaign=ais_campaign, annotator=annotator)
    with pytest.raises(JudgmentValueError):
        judgment_submit(assignment=lease, annotator=annotator, value={"interpretable": False, "supported": False})
    assert HumanJudgment.objects.count() == 0
    assert Unit.objects.get(pk=lease.unit_id).judgments_done == 0


# --- The page, and the form without JavaScript ---

@pytest.mark.django_db
def test_the_page_shows_question_answer_passage_and_a_form_that_works_without_script(client, annotator, page_url):
    client.force_login(annotator)
    response = client.get(page_url)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="question">when did the eiffel tower open to the public<' in html
    assert 'id="answer">The Eiffel Tower opened to the public in 1889.<' in html
    # the passage keeps its line break (the stylesheet wraps on it); the source links out safely
    assert "World&#x27;s Fair.\nIt opened to the public on 31 March 1889" in html
    assert ('<a id="source-link" href="https://en.wikipedia.org/wiki/Eiffel_Tower" target="_blank" '
            'rel="noopener noreferrer">Eiffel Tower</a>') in html
    assert 'id="source-section">History<' in html
    # both questions as radio buttons and a submit button, so a browser without script can answer
    for name, answer in [("interpretable", "yes"), ("interpretable", "no"), ("supported", "yes"), ("supported", "no")]:
        assert f'type="radio" name="{name}" value="{answer}"' in html
    assert 'type="submit" class="primary" id="ais-submit"' in html
    assert "Interpretable?" in html and "Supported?" in html
    # the header and the keys line speak of this task, not of QA
    assert "does the evidence passage fully back it?" in html
    assert "<kbd>Backspace</kbd> back to question 1" in html
    assert "Gold answers" not in html and "not correct" not in html


@pytest.mark.django_db
def test_source_without_title_or_with_an_unsafe_url(client, ais_campaign, annotator, page_url, submit_url):
    client.force_login(annotator)
    shown = []
    for _ in range(5):
        response = client.get(page_url)
        shown.append(response.content.decode())
        client.post(submit_url, {"assignment": response.context["unit"]["assignment_id"], "interpretable": "no"})
    no_title, no_url, unsafe = shown[2], shown[3], shown[4]
    # no title: the link text is the URL
    assert ('href="http://example.org/kilimanjaro" target="_blank" rel="noopener noreferrer">'
            'http://example.org/kilimanjaro</a>') in no_title
    assert 'id="source-section">Geography<' in no_title
    # no URL: the title as plain text
    assert 'id="source-title">Sydney<' in no_url and "source-link" not in no_url
    # a javascript: URL is never a link
    assert "javascript:" not in unsafe and "source-link" not in unsafe
    assert 'id="source-title">Boiling point<' in unsafe


@pytest.mark.django_db
@pytest.mark.parametrize(("post", "value", "label"), [
    ({"interpretable": "yes", "supported": "yes"}, {"interpretable": True, "supported": True}, "yes"),
    ({"interpretable": "yes", "supported": "no"}, {"interpretable": True, "supported": False}, "no"),
    ({"interpretable": "no"}, {"interpretable": False, "supported": None}, "no"),
])
def test_a_plain_form_post_records_the_verdict(client, annotator, page_url, submit_url, post, value, label):
    client.force_login(annotator)
    unit = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": unit["assignment_id"], **post})
    assert response.status_code == 302 and response["Location"] == page_url
    judgment = HumanJudgment.objects.get(annotator=annotator)
    assert (judgment.value, judgment.label, judgment.version) == (value, label, 1)
    assert judgment.unit.item.text == "The Eiffel Tower opened to the public in 1889."
    after = client.get(page_url)
    assert after.context["progress"]["done"] == 1
    assert after.context["unit"]["candidate"] == "She did, the year after."


@pytest.mark.django_db
@pytest.mark.parametrize(("post", "message"), [
    ({"interpretable": "yes"}, ASK_SUPPORTED),
    ({"interpretable": "yes", "supported": ""}, ASK_SUPPORTED),
    ({"interpretable": "yes", "supported": "maybe"}, ASK_SUPPORTED),
    ({"interpretable": "no", "supported": "yes"}, NOT_ASKED),
    ({"interpretable": "no", "supported": "no"}, NOT_ASKED),
    ({"supported": "yes"}, ASK_INTERPRETABLE),
    ({"interpretable": "maybe"}, ASK_INTERPRETABLE),
    ({}, ASK_INTERPRETABLE),
])
def test_answers_that_do_not_go_together_are_refused_and_nothing_is_recorded(
    client, annotator, page_url, submit_url, post, message
):
    client.force_login(annotator)
    unit = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": unit["assignment_id"], **post}, follow=True)
    html = response.content.decode()
    assert message.replace("'", "&#x27;") in html  # shown on the page the browser is sent back to
    assert response.context["unit"]["assignment_id"] == unit["assignment_id"]  # the same unit again
    assert HumanJudgment.objects.count() == 0
    assert Unit.objects.filter(judgments_done__gt=0).count() == 0
    # the same through htmx: the unit's fragment again, with the message
    fragment = client.post(submit_url, {"assignment": unit["assignment_id"], **post}, **HTMX)
    assert message.replace("'", "&#x27;") in fragment.content.decode()
    assert fragment.context["unit"]["assignment_id"] == unit["assignment_id"]
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_undo_shows_the_earlier_answers_and_a_change_is_a_new_version(client, annotator, page_url, submit_url):
    client.force_login(annotator)
    first = client.get(page_url).context["unit"]
    second = client.post(
        submit_url, {"assignment": first["assignment_id"], "interpretable": "yes", "supported": "no"}, **HTMX
    ).context["unit"]
    back = client.get(page_url, {"undo": second["assignment_id"]}, **HTMX)
    html = back.content.decode()
    assert back.context["unit"]["assignment_id"] == first["assignment_id"]
    assert "you said\n    <b>interpretable yes</b>, <b>supported no</b>." in html
    assert 'class="choice yes chosen"><input type="radio" name="interpretable"' in html
    assert 'class="choice no chosen"><input type="radio" name="supported"' in html
    after = client.post(submit_url, {"assignment": first["assignment_id"], "interpretable": "no"}, **HTMX)
    assert "Your earlier verdict is changed." in after.content.decode()
    assert after.context["unit"]["assignment_id"] == second["assignment_id"]
    rows = HumanJudgment.objects.filter(annotator=annotator).order_by("version")
    assert [(r.value, r.label, r.is_current) for r in rows] == [
        ({"interpretable": True, "supported": False}, "no", False),
        ({"interpretable": False, "supported": None}, "no", True),
    ]
    # and an earlier "not interpretable" reads as such, with no word on support
    again = client.get(page_url, {"undo": second["assignment_id"]}, **HTMX).content.decode()
    assert "you said\n    <b>interpretable no</b>.\n" in again


# --- Blindness ---

@pytest.mark.django_db
def test_the_page_is_blind_to_systems_models_and_other_people(client, ais_campaign, annotator, page_url):
    unit = Unit.objects.filter(campaign=ais_campaign).order_by("position").first()
    SystemOutput.objects.create(campaign=ais_campaign, system="SECRET-SYSTEM-PostHoc", topic=unit.topic, item=unit.item)
    judge = Judge.objects.create(
        campaign=ais_campaign, name="secret-autoais-judge", family="autoais", config={}, config_hash="a" * 64
    )
    ModelJudgment.objects.create(judge=judge, item=unit.item, score=0.987654, label="MODEL-SAYS-NO", raw="NLI-RAW")
    other = UserFactory(username="other-rater-zed")
    MembershipFactory(campaign=ais_campaign, user=other, role=Role.ANNOTATOR)
    Unit.objects.filter(pk=unit.pk).update(judgments_needed=2, judgments_done=1)
    HumanJudgment.objects.create(
        unit=unit, annotator=other, value={"interpretable": True, "supported": False}, label="OTHER-LABEL-no"
    )

    client.force_login(annotator)
    for html in [client.get(page_url).content.decode(), client.get(page_url, **HTMX).content.decode()]:
        assert 'id="answer">The Eiffel Tower opened to the public in 1889.<' in html
        for hidden in ["SYSTEM-1-secret", "SECRET-SYSTEM", "secret-autoais-judge", "autoais", "MODEL-SAYS-NO",
                       "NLI-RAW", "0.98", "other-rater-zed", "OTHER-LABEL", "you said"]:
            assert hidden not in html, hidden


# --- Overlap k for AIS units ---

@pytest.mark.django_db
def test_three_raters_fill_a_unit_and_the_fourth_gets_the_next(client):
    campaign = CampaignFactory(slug="ais-k3", task_type="ais", overlap=3)
    for n in range(2):
        topic = TopicFactory(campaign=campaign, text=f"question {n}", data={})
        item = ItemFactory(campaign=campaign, topic=topic, text=f"answer {n}",
                           data={"passage": f"passage {n}", "title": "", "section": "", "url": "", "system": "s"})
        UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3, position=n)
    raters = [UserFactory(username=f"rater-{n}") for n in range(4)]
    for rater in raters:
        MembershipFactory(campaign=campaign, user=rater, role=Role.ANNOTATOR)
    page_url = reverse("annotate", args=[campaign.slug])
    submit_url = reverse("annotate-submit", args=[campaign.slug])
    answers = [{"interpretable": "yes", "supported": "yes"}, {"interpretable": "yes", "supported": "no"},
               {"interpretable": "no"}]

    shown = {}
    for rater in raters:  # all four open the page before anyone submits: the leases alone fill unit 0
        client.force_login(rater)
        shown[rater.username] = client.get(page_url).context["unit"]
    assert [shown[r.username]["candidate"] for r in raters] == ["answer 0", "answer 0", "answer 0", "answer 1"]
    for rater, answer in zip(raters, answers):
        client.force_login(rater)
        client.post(submit_url, {"assignment": shown[rater.username]["assignment_id"], **answer})

    first = Unit.objects.get(campaign=campaign, position=0)
    assert first.judgments_done == 3
    assert sorted(HumanJudgment.objects.filter(unit=first).values_list("label", flat=True)) == ["no", "no", "yes"]
    # a full unit is never offered again, not even to the fourth rater once their unit is done
    client.force_login(raters[3])
    client.post(submit_url, {"assignment": shown["rater-3"]["assignment_id"], "interpretable": "no"})
    assert client.get(page_url).context["unit"] is None
    assert HumanJudgment.objects.filter(unit=first).count() == 3


@pytest.mark.django_db
def test_five_raters_as_in_the_published_study(tmp_path):
    """`import_data --overlap 5`: each unrated answer waits for five raters; the sixth gets nothing more, and the
    report's label is the 3-2 majority with the votes behind it."""
    from django.core.management import call_command

    from agreement.report import agreement_report_build
    from annotate.models import Campaign
    from annotate.services.annotation import judgment_submit, unit_lease_next
    from tests.ais_synthetic import ais_csv_write, ais_rows

    rows = ais_rows(systems=1, questions=1, seed=2)
    rows[0]["human_rating"] = ""
    path = ais_csv_write(tmp_path / "ratings.csv", rows)
    call_command("import_data", "--campaign", "ais-k5", "--task-type", "ais", "--format", "attributed-qa",
                 "--overlap", "5", str(path))
    campaign = Campaign.objects.get(slug="ais-k5")
    assert campaign.overlap == 5
    values = [{"interpretable": True, "supported": True}] * 3 + [{"interpretable": True, "supported": False},
                                                                {"interpretable": False, "supported": None}]
    for n, value in enumerate(values):
        rater = UserFactory(username=f"k5-rater-{n}")
        assignment = unit_lease_next(campaign=campaign, annotator=rater)
        judgment_submit(assignment=assignment, annotator=rater, value=value)
    assert unit_lease_next(campaign=campaign, annotator=UserFactory(username="k5-rater-6")) is None
    assert Unit.objects.get(campaign=campaign).judgments_done == 5

    report = agreement_report_build(campaign=campaign)
    assert report["humans"]["annotators"] == 5 and report["humans"]["items_labelled"] == 1
    assert report["systems"][0]["human"] == 1.0  # three of five say attributable
    assert report["humans"]["questions"]["interpretable"]["ratings"] == 5
    assert report["humans"]["questions"]["supported"]["ratings"] == 4  # the rater who said no to Q1 has none
