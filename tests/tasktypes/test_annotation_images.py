"""image_relevance: the grade it stores, the grading page (and what it hides), and who may fetch the image files."""

from pathlib import Path

import pytest
from django.urls import reverse

from annotate.models import HumanJudgment, Item, Role, SystemOutput, Topic, Unit
from annotate.services.annotation import (
    JudgmentValueError,
    judgment_submit,
    judgment_value_check,
    unit_lease_next,
)
from conftest import IMAGE_RUN, IMAGE_UNITS, image_write
from judges.models import Judge, ModelJudgment
from tasktypes.graded.spec import grade_value as image_grade_value
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

HTMX = {"HTTP_HX_REQUEST": "true"}

SHAPE = 'An image grade is {"grade": 0, 1 or 2}.'
CHOOSE = "Choose a grade: 0 non-relevant, 1 related or 2 relevant."
NOT_BOOL = "A grade is 0, 1 or 2, not true or false."
NOT_NUMBER = "A grade is one of the whole numbers 0, 1 or 2 (not text or a fraction)."
MISSING = "This image is missing (not imported yet), so it cannot be graded. Tell the campaign's researcher."


@pytest.fixture
def page_url(image_campaign):
    return reverse("annotate", args=[image_campaign.slug])


@pytest.fixture
def submit_url(image_campaign):
    return reverse("annotate-submit", args=[image_campaign.slug])


def item(external_id):
    return Item.objects.get(external_id=external_id)


def image_url(item_id, variant="full", slug="img"):
    return reverse("campaign-image", kwargs={"slug": slug, "item_id": item_id, "variant": variant})


def check(value):
    return judgment_value_check(task_type="image_relevance", value=value)


# --- The value and its label ---

@pytest.mark.parametrize(("value", "label"), [({"grade": 0}, "0"), ({"grade": 1}, "1"), ({"grade": 2}, "2")])
def test_good_values_and_their_labels(value, label):
    assert check(value) == label


@pytest.mark.parametrize(("value", "message"), [
    (2, SHAPE),
    ("2", SHAPE),
    (None, SHAPE),
    ([2], SHAPE),
    ({}, SHAPE),
    ({"grade": 2, "note": "x"}, SHAPE),
    ({"relevance": 2}, SHAPE),
    ({"grade": None}, CHOOSE),
    ({"grade": ""}, CHOOSE),
    ({"grade": True}, NOT_BOOL),
    ({"grade": False}, NOT_BOOL),
    ({"grade": "2"}, NOT_NUMBER),
    ({"grade": 2.0}, NOT_NUMBER),
    ({"grade": [2]}, NOT_NUMBER),
    ({"grade": 3}, "There is no grade 3: choose 0 non-relevant, 1 related or 2 relevant."),
    ({"grade": -1}, "There is no grade -1: choose 0 non-relevant, 1 related or 2 relevant."),
])
def test_malformed_values_are_refused_with_a_message(value, message):
    with pytest.raises(JudgmentValueError) as excinfo:
        check(value)
    assert str(excinfo.value) == message


@pytest.mark.parametrize(("posted", "value"), [
    ("0", {"grade": 0}), ("1", {"grade": 1}), ("2", {"grade": 2}),
    # Any digit is a grade on some scale; the check refuses one beyond the campaign's ("There is no grade 3").
    ("3", {"grade": 3}), ("12", {"grade": "12"}), ("", {"grade": ""}), (None, {"grade": None}),
    ("true", {"grade": "true"}),
])
def test_the_form_value_translates_digits_only(posted, value):
    assert image_grade_value(grade=posted) == value


# --- The page ---

@pytest.mark.django_db
def test_the_page_shows_the_section_and_the_full_image_with_three_grades(client, annotator, page_url):
    client.force_login(annotator)
    response = client.get(page_url)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="page-title">Eiffel Tower<' in html
    assert 'id="section-title">Construction<' in html
    assert "Work on the foundations started on 28 January 1887." in html
    assert "named after the engineer Gustave Eiffel" in html
    first, second = item("img-1"), item("img-2")
    assert f'src="{image_url(first.pk)}"' in html  # the original, not the thumbnail, is the image shown
    assert f"background-image: url('{image_url(first.pk, 'thumb')}')" in html  # the placeholder while it loads
    assert f'data-prefetch="{image_url(second.pk)}"' in html  # the next image
    assert 'width="1600" height="900"' in html
    for grade, name in [("0", "Non-relevant"), ("1", "Related"), ("2", "Relevant")]:
        assert f'name="grade" value="{grade}" id="grade-{grade}" data-key="{grade}"' in html
        assert f"<kbd>{grade}</kbd> {name}</button>" in html
    assert "0</b> of <b class=\"num\">5</b> done" in html
    assert "Grading an image" in html and "Judge the image against the <b>section</b>" in html  # the definitions


@pytest.mark.django_db
def test_a_long_page_context_starts_collapsed_and_a_short_one_open(client, image_campaign, annotator, page_url):
    client.force_login(annotator)
    assert '<details class="field context page-context" open>' in client.get(page_url).content.decode()
    for _ in range(2):
        judgment_submit(assignment=unit_lease_next(campaign=image_campaign, annotator=annotator), annotator=annotator,
                        value={"grade": 1})
    html = client.get(page_url).content.decode()
    assert 'id="section-title">Climbing routes<' in html
    assert '<details class="field context page-context">' in html
    assert "Route 12: the path climbs" in html


@pytest.mark.django_db
def test_section_text_is_escaped(client, image_campaign, annotator, page_url):
    Topic.objects.filter(campaign=image_campaign, external_id="eiffel-construction").update(
        data={"page_title": "<b>bold</b>", "section_title": "<script>alert(1)</script>",
              "section_context": "<img src=x onerror=alert(2)>"})
    client.force_login(annotator)
    html = client.get(page_url).content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "<b>bold</b>" not in html


@pytest.mark.django_db
def test_a_grade_is_stored_and_the_next_image_follows(client, annotator, page_url, submit_url):
    client.force_login(annotator)
    first = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": first["assignment_id"], "grade": "2"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'src="{image_url(item("img-2").pk)}"' in html
    assert '1</b> of <b class="num">5</b> done' in html
    judgment = HumanJudgment.objects.get(annotator=annotator)
    assert (judgment.value, judgment.label) == ({"grade": 2}, "2")
    assert isinstance(judgment.value["grade"], int)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ("5", "There is no grade 5: choose 0 non-relevant, 1 related or 2 relevant."),
        ("", CHOOSE),
        ("true", NOT_NUMBER),
        (None, CHOOSE),
    ],
)
def test_a_bad_grade_is_refused_and_the_same_image_stays(client, annotator, page_url, submit_url, posted, message):
    client.force_login(annotator)
    first = client.get(page_url).context["unit"]
    data = {"assignment": first["assignment_id"]} | ({"grade": posted} if posted is not None else {})
    response = client.post(submit_url, data, **HTMX)
    assert f'id="annotate-error">{message}<' in response.content.decode().replace("&#x27;", "'")
    assert response.context["unit"]["assignment_id"] == first["assignment_id"]
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_without_javascript_the_buttons_post_and_redirect(client, annotator, page_url, submit_url):
    client.force_login(annotator)
    first = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": first["assignment_id"], "grade": "0"})
    assert response.status_code == 302 and response["Location"] == page_url
    page = client.get(page_url)
    assert page.context["progress"]["done"] == 1
    assert page.context["unit"]["image"]["item_id"] == item("img-2").pk
    assert HumanJudgment.objects.get(annotator=annotator).value == {"grade": 0}


@pytest.mark.django_db
def test_undo_shows_my_grade_and_changing_it_keeps_the_old_version(client, annotator, page_url, submit_url):
    client.force_login(annotator)
    first = client.get(page_url).context["unit"]
    second = client.post(submit_url, {"assignment": first["assignment_id"], "grade": "1"}, **HTMX).context["unit"]
    back = client.get(page_url, {"undo": second["assignment_id"]}, **HTMX)
    html = back.content.decode()
    assert back.context["unit"]["assignment_id"] == first["assignment_id"]
    assert "Changing an earlier grade" in html and "<b>1 Related</b>" in html
    assert 'class="verdict grade g1 chosen"' in html
    # after an edit the page goes back to the unit I hold: that is the image to prefetch
    assert f'data-prefetch="{image_url(item("img-2").pk)}"' in html
    after = client.post(submit_url, {"assignment": first["assignment_id"], "grade": "2"}, **HTMX)
    assert after.context["unit"]["assignment_id"] == second["assignment_id"]
    assert "Your earlier grade is changed." in after.content.decode()
    rows = HumanJudgment.objects.filter(annotator=annotator).order_by("version")
    assert [(r.value, r.label, r.version, r.is_current) for r in rows] == [
        ({"grade": 1}, "1", 1, False), ({"grade": 2}, "2", 2, True)]


@pytest.mark.django_db
def test_a_missing_image_says_so_and_cannot_be_graded(client, image_campaign, annotator, page_url, submit_url):
    for _ in range(4):
        judgment_submit(assignment=unit_lease_next(campaign=image_campaign, annotator=annotator), annotator=annotator,
                        value={"grade": 2})
    client.force_login(annotator)
    response = client.get(page_url)
    html = response.content.decode()
    assert response.context["unit"]["image"]["available"] is False
    assert "The image is missing." in html and "image Q7296-missing" in html
    assert 'name="grade"' not in html and "<img" not in html
    assert 'id="undo"' in html  # going back is still possible
    posted = client.post(submit_url, {"assignment": response.context["unit"]["assignment_id"], "grade": "2"}, **HTMX)
    assert MISSING in posted.content.decode().replace("&#x27;", "'")
    assert HumanJudgment.objects.filter(unit__item__external_id="img-5").count() == 0
    assert Unit.objects.get(item__external_id="img-5").judgments_done == 0


@pytest.mark.django_db
def test_a_deleted_file_cannot_be_graded_either(image_campaign, annotator, settings):
    assignment = unit_lease_next(campaign=image_campaign, annotator=annotator)
    (Path(settings.MEDIA_ROOT) / assignment.unit.item.data["image"]).unlink()
    with pytest.raises(JudgmentValueError, match="This image is missing"):
        judgment_submit(assignment=assignment, annotator=annotator, value={"grade": 1})
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_the_page_is_blind_to_runs_models_and_other_people(client, image_campaign, annotator, page_url):
    unit = Unit.objects.filter(campaign=image_campaign).order_by("position").first()
    judge = Judge.objects.create(campaign=image_campaign, name="secret-clip-judge", family="clipscore", config={},
                                 config_hash="c" * 64)
    ModelJudgment.objects.create(judge=judge, item=unit.item, score=0.876543, label="MODEL-GRADE-2",
                                 raw="Relevance: 97")
    other = UserFactory(username="other-assessor-zed")
    MembershipFactory(campaign=image_campaign, user=other, role=Role.ANNOTATOR)
    Unit.objects.filter(pk=unit.pk).update(judgments_needed=2, judgments_done=1)
    HumanJudgment.objects.create(unit=unit, annotator=other, value={"grade": 0}, label="0")
    assert SystemOutput.objects.filter(item=unit.item, system=IMAGE_RUN.format(n=1)).exists()

    client.force_login(annotator)
    for response in (client.get(page_url), client.get(page_url, **HTMX)):
        html = response.content.decode()
        assert response.context["unit"]["image"]["item_id"] == unit.item_id  # the unit with all that behind it
        for hidden in ["RUN-clip-secret", "secret-clip-judge", "clipscore", "MODEL-GRADE", "Relevance: 97", "0.876",
                       "other-assessor-zed", "images/Q243-landscape.jpg", "thumbnails/Q243", "chosen"]:
            assert hidden not in html, hidden


# --- Serving the files ---

def _as(client, user):
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def people(image_campaign, annotator, researcher):
    other_campaign = CampaignFactory(slug="other-img", task_type="image_relevance")
    outsider, their_annotator = UserFactory(username="outsider"), UserFactory(username="their-ann")
    MembershipFactory(campaign=other_campaign, user=their_annotator, role=Role.ANNOTATOR)
    return {"anonymous": None, "outsider": outsider, "other_campaign_annotator": their_annotator,
            "annotator": annotator, "researcher": researcher}


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "status"), [
    ("anonymous", 302), ("outsider", 404), ("other_campaign_annotator", 404), ("annotator", 200), ("researcher", 200),
])
@pytest.mark.parametrize("variant", ["full", "thumb"])
def test_who_may_fetch_an_image(client, people, who, status, variant):
    response = _as(client, people[who]).get(image_url(item("img-1").pk, variant))
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
@pytest.mark.parametrize(("external_id", "content_type"), [
    ("img-1", "image/jpeg"), ("img-2", "image/png"), ("img-3", "image/webp"), ("img-4", "image/gif"),
])
def test_the_file_comes_with_its_type_nosniff_inline_and_private(client, image_campaign, annotator, settings,
                                                                external_id, content_type):
    image = item(external_id)
    response = _as(client, annotator).get(image_url(image.pk))
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("inline")
    assert external_id not in response["Content-Disposition"] and "Q243" not in response["Content-Disposition"]
    cache = {part.strip() for part in response["Cache-Control"].split(",")}
    assert "private" in cache and "public" not in cache
    assert b"".join(response.streaming_content) == (Path(settings.MEDIA_ROOT) / image.data["image"]).read_bytes()
    thumb = client.get(image_url(image.pk, "thumb"))
    assert thumb["Content-Type"] == "image/jpeg" and thumb["X-Content-Type-Options"] == "nosniff"
    assert b"".join(thumb.streaming_content)[:3] == b"\xff\xd8\xff"  # a JPEG


@pytest.mark.django_db
def test_the_researcher_of_the_campaign_may_fetch_without_being_an_annotator(client, image_campaign, researcher):
    assert not image_campaign.memberships.filter(user=researcher, role=Role.ANNOTATOR).exists()
    assert _as(client, researcher).get(image_url(item("img-2").pk, "full")).status_code == 200


@pytest.mark.django_db
def test_an_item_of_another_campaign_is_not_reachable_through_this_one(client, image_campaign, annotator, settings):
    theirs = CampaignFactory(slug="theirs-img", task_type="image_relevance")
    topic = TopicFactory(campaign=theirs, external_id="t", data={})
    data = image_write(Path(settings.MEDIA_ROOT), "theirs-1", (300, 200), "JPEG")
    their_item = ItemFactory(campaign=theirs, topic=topic, external_id="theirs-1", kind="image", data=data)
    UnitFactory(campaign=theirs, topic=topic, item=their_item)
    _as(client, annotator)
    assert client.get(image_url(their_item.pk)).status_code == 404
    assert client.get(image_url(their_item.pk, slug="theirs-img")).status_code == 404
    assert client.get(image_url(999999)).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["original", "FULL", "thumbnail", "image", "..", "full.png"])
def test_an_unknown_variant_is_not_found(client, image_campaign, annotator, variant):
    assert _as(client, annotator).get(image_url(item("img-1").pk, variant)).status_code == 404


@pytest.mark.django_db
def test_a_missing_file_is_not_found(client, image_campaign, annotator, settings):
    _as(client, annotator)
    not_imported = item("img-5")
    assert client.get(image_url(not_imported.pk)).status_code == 404
    assert client.get(image_url(not_imported.pk, "thumb")).status_code == 404
    deleted = item("img-1")
    (Path(settings.MEDIA_ROOT) / deleted.data["thumbnail"]).unlink()
    assert client.get(image_url(deleted.pk, "thumb")).status_code == 404
    assert client.get(image_url(deleted.pk, "full")).status_code == 200


@pytest.mark.django_db
def test_paths_outside_the_media_folder_and_unknown_formats_are_not_served(client, image_campaign, annotator, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for you")
    outside, unknown = item("img-1"), item("img-2")
    Item.objects.filter(pk=outside.pk).update(data=outside.data | {"image": "../secret.txt"})
    Item.objects.filter(pk=unknown.pk).update(data=unknown.data | {"format": "SVG"})
    _as(client, annotator)
    assert client.get(image_url(outside.pk)).status_code == 404
    assert client.get(image_url(unknown.pk)).status_code == 404


@pytest.mark.django_db
def test_only_image_items_are_served(client, image_campaign, annotator):
    Item.objects.filter(external_id="img-1").update(kind="answer")
    assert _as(client, annotator).get(image_url(item("img-1").pk)).status_code == 404


@pytest.mark.django_db
def test_posting_to_an_image_is_refused(client, image_campaign, annotator):
    assert _as(client, annotator).post(image_url(item("img-1").pk)).status_code == 405


def test_the_fixture_has_one_image_not_imported():
    assert [spec[4] for spec in IMAGE_UNITS].count(None) == 1
