"""The annotation page: who may open it, what it shows (and hides), submit, undo and the progress line."""

import pytest
from django.urls import reverse

from annotate.models import HumanJudgment, JudgmentKind, JudgmentSource, Role, SystemOutput, Unit
from judges.models import Judge, ModelJudgment
from tests.factories import MembershipFactory, UserFactory

HTMX = {"HTTP_HX_REQUEST": "true"}


def login(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def page_url(qa_campaign):
    return reverse("annotate", args=[qa_campaign.slug])


@pytest.fixture
def submit_url(qa_campaign):
    return reverse("annotate-submit", args=[qa_campaign.slug])


@pytest.mark.django_db
def test_annotator_sees_question_gold_answers_and_candidate(client, annotator, page_url):
    response = login(client, annotator).get(page_url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "who painted the mona lisa" in html
    assert "Leonardo da Vinci" in html
    assert 'id="candidate">Leonardo da Vinci<' in html
    assert "0</b> of <b class=\"num\">6</b> done" in html
    assert "static/js/annotate.js" in html or "/static/js/annotate" in html


@pytest.mark.django_db
def test_the_page_is_blind_to_systems_models_and_other_people(client, qa_campaign, annotator, page_url):
    unit = Unit.objects.filter(campaign=qa_campaign).order_by("position").first()
    SystemOutput.objects.create(
        campaign=qa_campaign, system="SECRET-SYSTEM-FiD", topic=unit.topic, item=unit.item, data={"prediction": "x"}
    )
    judge = Judge.objects.create(
        campaign=qa_campaign, name="secret-gpt-judge", family="external", config={}, config_hash="h" * 64
    )
    ModelJudgment.objects.create(
        judge=judge, item=unit.item, score=0.123456, label="MODEL-SAYS-NO", raw="MODEL-RAW-TEXT"
    )
    other = UserFactory(username="other-annotator-zed")
    MembershipFactory(campaign=qa_campaign, user=other, role=Role.ANNOTATOR)
    # Another person's verdict on this unit, and an imported adjudication (k=1 is not reached by
    # the adjudication: only annotations count, so the unit is still open).
    Unit.objects.filter(pk=unit.pk).update(judgments_needed=2)
    HumanJudgment.objects.create(unit=unit, annotator=other, value={"correct": False}, label="OTHER-LABEL-no")
    Unit.objects.filter(pk=unit.pk).update(judgments_done=1)
    adjudicator = UserFactory(username="adjudicator-ghost")
    HumanJudgment.objects.create(
        unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION, source=JudgmentSource.IMPORT,
        value={"correct": True}, label="ADJUDICATED-yes",
    )

    response = login(client, annotator).get(page_url)
    html = response.content.decode()
    assert 'id="candidate">Leonardo da Vinci<' in html  # the unit with all that data behind it is the one shown
    for hidden in ["SECRET-SYSTEM-FiD", "secret-gpt-judge", "MODEL-SAYS-NO", "MODEL-RAW-TEXT", "0.123",
                   "other-annotator-zed", "OTHER-LABEL", "adjudicator-ghost", "ADJUDICATED", "external"]:
        assert hidden not in html, hidden
    # the fragment htmx swaps in is just as blind
    fragment = client.get(page_url, **HTMX).content.decode()
    assert "<html" not in fragment
    assert 'id="candidate">Leonardo da Vinci<' in fragment
    assert not any(hidden in fragment for hidden in ["SECRET-SYSTEM", "MODEL-SAYS", "OTHER-LABEL", "ADJUDICATED"])


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "researcher", "outsider"])
def test_only_annotators_of_the_campaign_may_open_the_page(client, qa_campaign, researcher, page_url, submit_url, who):
    if who == "researcher":
        login(client, researcher)
    elif who == "outsider":
        login(client, UserFactory(username="outsider"))
    response = client.get(page_url)
    if who == "anonymous":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    elif who == "researcher":  # a member without the role: told what the page is for, in a plain page
        assert response.status_code == 403
        assert "This page is for the annotators of campaign “Campaign qa”; you are a researcher here." in \
            response.content.decode()
        assert client.post(submit_url, {"assignment": 1, "verdict": "yes"}).status_code == 403
    else:  # not a member: the campaign's existence is not revealed
        assert response.status_code == 404
        assert client.post(submit_url, {"assignment": 1, "verdict": "yes"}).status_code == 404
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_submit_returns_the_next_unit_fragment_with_progress(client, annotator, page_url, submit_url):
    login(client, annotator)
    first = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": first["assignment_id"], "verdict": "yes"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'id="candidate">Michelangelo<' in html
    assert '1</b> of <b class="num">6</b> done' in html
    judgment = HumanJudgment.objects.get(annotator=annotator)
    assert (judgment.label, judgment.value) == ("yes", {"correct": True})


@pytest.mark.django_db
def test_undo_shows_my_previous_verdict_and_changing_it_keeps_the_old_version(client, annotator, page_url, submit_url):
    login(client, annotator)
    first = client.get(page_url).context["unit"]
    second = client.post(submit_url, {"assignment": first["assignment_id"], "verdict": "yes"}, **HTMX).context["unit"]
    back = client.get(page_url, {"undo": second["assignment_id"]}, **HTMX)
    assert back.context["unit"]["assignment_id"] == first["assignment_id"]
    assert "Changing an earlier verdict" in back.content.decode()
    assert back.context["unit"]["own_label"] == "yes"
    after = client.post(submit_url, {"assignment": first["assignment_id"], "verdict": "no"}, **HTMX)
    assert after.context["unit"]["assignment_id"] == second["assignment_id"]  # back to where I was
    assert "Your earlier verdict is changed." in after.content.decode()
    rows = HumanJudgment.objects.filter(annotator=annotator).order_by("version")
    assert [(r.label, r.version, r.is_current) for r in rows] == [("yes", 1, False), ("no", 2, True)]
    assert '1</b> of <b class="num">6</b> done' in after.content.decode()


@pytest.mark.django_db
def test_undo_with_nothing_earlier_says_so(client, annotator, page_url):
    login(client, annotator)
    first = client.get(page_url).context["unit"]
    response = client.get(page_url, {"undo": first["assignment_id"]}, **HTMX)
    assert "There is no earlier verdict to change." in response.content.decode()
    assert response.context["unit"]["assignment_id"] == first["assignment_id"]


@pytest.mark.django_db
def test_cannot_submit_or_undo_with_another_annotators_assignment(client, qa_campaign, annotator, page_url, submit_url):
    other = UserFactory(username="ann2")
    MembershipFactory(campaign=qa_campaign, user=other, role=Role.ANNOTATOR)
    theirs = login(client, other).get(page_url).context["unit"]["assignment_id"]
    login(client, annotator)
    assert client.post(submit_url, {"assignment": theirs, "verdict": "yes"}, **HTMX).status_code == 404
    assert client.get(page_url, {"undo": theirs}).status_code == 404
    assert client.post(submit_url, {"assignment": "not-a-number", "verdict": "yes"}).status_code == 404
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_an_unknown_verdict_is_refused_and_the_same_unit_stays(client, annotator, page_url, submit_url):
    login(client, annotator)
    first = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": first["assignment_id"], "verdict": "maybe"}, **HTMX)
    assert "Choose yes or no." in response.content.decode()
    assert response.context["unit"]["assignment_id"] == first["assignment_id"]
    assert HumanJudgment.objects.count() == 0


@pytest.mark.django_db
def test_without_htmx_submit_redirects_back_to_the_page(client, annotator, page_url, submit_url):
    login(client, annotator)
    first = client.get(page_url).context["unit"]
    response = client.post(submit_url, {"assignment": first["assignment_id"], "verdict": "no"})
    assert response.status_code == 302 and response["Location"] == page_url
    assert client.get(page_url).context["progress"]["done"] == 1


@pytest.mark.django_db
def test_all_done_when_nothing_is_left(client, qa_campaign, annotator, page_url, submit_url):
    login(client, annotator)
    unit = client.get(page_url).context["unit"]
    for _ in range(6):
        response = client.post(submit_url, {"assignment": unit["assignment_id"], "verdict": "yes"}, **HTMX)
        unit = response.context["unit"]
    html = response.content.decode()
    assert unit is None
    assert "All done" in html and '6</b> of <b class="num">6</b> done' in html
    assert Unit.objects.filter(campaign=qa_campaign, judgments_done=1).count() == 6


@pytest.mark.django_db
def test_a_verdict_from_a_stale_view_answers_409_with_the_choice(client, annotator, page_url, submit_url):
    """Two tabs showed the unit unjudged; the second tab's verdict finds the first one's and is not applied."""
    login(client, annotator).get(page_url)
    unit = Unit.objects.get(assignments__annotator=annotator)
    assignment = unit.assignments.get()
    sent = {"assignment": assignment.pk, "shown_version": "", "verdict": "yes", "submission": "tab-one-0001"}
    assert client.post(submit_url, sent, **HTMX).status_code == 200
    response = client.post(submit_url, {**sent, "verdict": "no", "submission": "tab-two-0001"}, **HTMX)
    assert response.status_code == 409
    html = response.content.decode()
    assert 'id="stale-choice"' in html and "<html" not in html
    assert 'there you said\n     <b id="stale-newer">correct</b>' in html
    assert '<b id="stale-mine">not correct</b>' in html
    # "Replace" sends this tab's verdict again, naming the version it replaces; "Keep" just moves on.
    assert '<input type="hidden" name="verdict" value="no">' in html
    assert '<input type="hidden" name="shown_version" value="1">' in html
    assert list(HumanJudgment.objects.filter(unit=unit).values_list("label", "version")) == [("yes", 1)]
    replaced = client.post(submit_url, {"assignment": assignment.pk, "shown_version": "1", "verdict": "no"}, **HTMX)
    assert replaced.status_code == 200 and "Your earlier verdict is changed." in replaced.content.decode()
    assert HumanJudgment.objects.get(unit=unit, is_current=True).label == "no"
    # Without JavaScript the whole page says the same, with the same status.
    full = client.post(submit_url, {"assignment": assignment.pk, "shown_version": "1", "verdict": "yes"})
    assert full.status_code == 409 and "<html" in full.content.decode() and 'id="stale-choice"' in full.content.decode()


@pytest.mark.django_db
def test_a_signed_out_page_script_gets_401_and_a_browser_the_login_page(client, qa_campaign, page_url, submit_url):
    for url, method in ((submit_url, client.post), (page_url, client.get)):
        for headers in (HTMX, {"HTTP_X_REQUESTED_WITH": "fetch"}):
            response = method(url, **headers)
            assert response.status_code == 401
            assert response["Content-Type"].startswith("text/plain")
            assert response.content.decode() == "Your session has ended: sign in again. Nothing was carried out."
            assert response["WWW-Authenticate"].startswith("Session ")
        navigated = method(url)
        assert navigated.status_code == 302 and navigated["Location"].startswith(reverse("login"))
    assert not HumanJudgment.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("now", ["removed", "researcher"])
def test_a_former_annotator_cannot_submit_on_their_own_lease(client, qa_campaign, annotator, page_url, submit_url,
                                                             now):
    """The submit reads the assignment and the campaign's roles in one query: an assignment of one's own is no pass
    once one is no longer among the campaign's annotators (404 for a non-member, 403 for a member in another role)."""
    mine = login(client, annotator).get(page_url).context["unit"]["assignment_id"]
    membership = qa_campaign.memberships.get(user=annotator)
    if now == "removed":
        membership.delete()
    else:
        membership.role = Role.RESEARCHER
        membership.save(update_fields=["role"])
    response = client.post(submit_url, {"assignment": mine, "verdict": "yes"}, **HTMX)
    assert response.status_code == (404 if now == "removed" else 403)
    assert HumanJudgment.objects.count() == 0
