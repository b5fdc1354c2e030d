"""The campaign page: the researcher's overview with each annotator's progress; annotators get a start button."""

from django.urls import reverse

from annotate.models import Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from tests.factories import MembershipFactory, UserFactory


def test_researcher_sees_each_annotators_progress(client, qa_campaign, researcher, annotator):
    second = UserFactory(username="ann-two")
    MembershipFactory(campaign=qa_campaign, user=second, role=Role.ANNOTATOR)
    for _ in range(2):
        judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                        value={"correct": True})
    unit_lease_next(campaign=qa_campaign, annotator=second)  # holds one unit, judged nothing yet

    client.force_login(researcher)
    progress = {
        row["username"]: row for row in client.get(reverse("campaign-detail", args=["qa"])).context["annotators"]
    }
    assert (progress["ann"]["web"], progress["ann"]["held"]) == (2, 0)
    assert (progress["ann-two"]["web"], progress["ann-two"]["held"]) == (0, 1)
    assert "res" not in progress


def test_campaign_page_query_count_does_not_grow_with_annotators(client, qa_campaign, researcher,
                                                                 django_assert_max_num_queries):
    for n in range(30):
        MembershipFactory(campaign=qa_campaign, user=UserFactory(username=f"extra{n}"), role=Role.ANNOTATOR)
    client.force_login(researcher)
    with django_assert_max_num_queries(20):
        response = client.get(reverse("campaign-detail", args=["qa"]))
    assert response.status_code == 200 and "extra29" in response.content.decode()


def test_annotator_sees_no_progress_of_others(client, qa_campaign, annotator):
    client.force_login(annotator)
    response = client.get(reverse("campaign-detail", args=["qa"]))
    assert "annotators" not in response.context and reverse("annotate", args=["qa"]) in response.content.decode()
