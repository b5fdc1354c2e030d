"""Leasing units with exact overlap k, submitting, editing and undoing verdicts."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, HumanJudgment, JudgmentSource, Role, Unit
from annotate.selectors.annotation import annotation_progress, assignment_previous
from annotate.services.annotation import (
    JudgmentError,
    JudgmentStale,
    JudgmentValueError,
    judgment_edit,
    judgment_submit,
    unit_lease_next,
)
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

YES = {"correct": True}
NO = {"correct": False}


def make_campaign(*, units=3, overlap=1, annotators=1):
    campaign = CampaignFactory(task_type="qa_correctness", overlap=overlap)
    topic = TopicFactory(campaign=campaign, text="who wrote hamlet", data={"gold_answers": ["William Shakespeare"]})
    for position in range(units):
        item = ItemFactory(campaign=campaign, topic=topic, text=f"candidate {position}")
        UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=overlap, position=position)
    people = [UserFactory() for _ in range(annotators)]
    for person in people:
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
    return campaign, people


def expire(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assignment.refresh_from_db()


@pytest.mark.django_db
def test_lease_gives_the_first_unit_by_position_and_reload_keeps_it(settings):
    settings.ANNOTATION_LEASE_SECONDS = 600
    campaign, (ann,) = make_campaign(units=3)
    first = unit_lease_next(campaign=campaign, annotator=ann)
    assert first.unit.position == 0
    assert first.status == AssignmentStatus.ACTIVE
    assert 599 <= (first.expires_at - first.leased_at).total_seconds() <= 600
    again = unit_lease_next(campaign=campaign, annotator=ann)
    assert again.pk == first.pk
    assert Assignment.objects.filter(annotator=ann).count() == 1


@pytest.mark.django_db
def test_submit_counts_the_judgment_and_moves_on():
    campaign, (ann,) = make_campaign(units=2)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    judgment = judgment_submit(assignment=lease, annotator=ann, value=YES)
    assert (judgment.label, judgment.version, judgment.is_current, judgment.source) == (
        "yes",
        1,
        True,
        JudgmentSource.WEB,
    )
    lease.refresh_from_db()
    assert lease.status == AssignmentStatus.SUBMITTED and lease.submitted_at is not None
    assert Unit.objects.get(pk=lease.unit_id).judgments_done == 1
    second = unit_lease_next(campaign=campaign, annotator=ann)
    assert second.unit.position == 1
    judgment_submit(assignment=second, annotator=ann, value=NO)
    assert unit_lease_next(campaign=campaign, annotator=ann) is None


@pytest.mark.django_db
def test_exactly_k_annotators_get_a_unit_and_never_the_same_one_twice():
    campaign, people = make_campaign(units=2, overlap=2, annotators=3)
    a, b, c = people
    lease_a = unit_lease_next(campaign=campaign, annotator=a)
    lease_b = unit_lease_next(campaign=campaign, annotator=b)
    lease_c = unit_lease_next(campaign=campaign, annotator=c)
    assert lease_a.unit_id == lease_b.unit_id  # two slots on the first unit
    assert lease_c.unit_id != lease_a.unit_id  # the third annotator gets the next unit
    judgment_submit(assignment=lease_a, annotator=a, value=YES)
    judgment_submit(assignment=lease_b, annotator=b, value=NO)
    judgment_submit(assignment=lease_c, annotator=c, value=YES)
    assert unit_lease_next(campaign=campaign, annotator=a).unit_id == lease_c.unit_id
    assert unit_lease_next(campaign=campaign, annotator=b) is None  # unit 1's second slot is leased to a
    assert unit_lease_next(campaign=campaign, annotator=c) is None  # c judged unit 1, unit 0 is full
    counts = {u.pk: u.judgments_done for u in Unit.objects.filter(campaign=campaign)}
    assert counts == {lease_a.unit_id: 2, lease_c.unit_id: 1}


@pytest.mark.django_db
def test_imported_judgments_count_towards_k():
    campaign, (ann,) = make_campaign(units=2, overlap=1)
    Unit.objects.filter(campaign=campaign, position=0).update(judgments_done=3)  # e.g. three imported annotators
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    assert lease.unit.position == 1


@pytest.mark.django_db
def test_an_expired_lease_frees_the_slot_for_someone_else():
    campaign, (a, b) = make_campaign(units=1, overlap=1, annotators=2)
    lease_a = unit_lease_next(campaign=campaign, annotator=a)
    assert unit_lease_next(campaign=campaign, annotator=b) is None
    expire(lease_a)
    lease_b = unit_lease_next(campaign=campaign, annotator=b)
    assert lease_b is not None and lease_b.unit_id == lease_a.unit_id
    lease_a.refresh_from_db()
    assert lease_a.status == AssignmentStatus.EXPIRED
    # a comes back late: the slot went to b, so a's verdict is refused and the unit stays at k.
    with pytest.raises(JudgmentError, match="ran out and another annotator has taken it"):
        judgment_submit(assignment=lease_a, annotator=a, value=YES)
    judgment_submit(assignment=lease_b, annotator=b, value=NO)
    assert Unit.objects.get(pk=lease_b.unit_id).judgments_done == 1
    assert HumanJudgment.objects.filter(unit_id=lease_b.unit_id).count() == 1


@pytest.mark.django_db
def test_an_expired_lease_whose_slot_is_still_free_is_accepted():
    campaign, (a, b) = make_campaign(units=1, overlap=1, annotators=2)
    lease_a = unit_lease_next(campaign=campaign, annotator=a)
    expire(lease_a)
    judgment = judgment_submit(assignment=lease_a, annotator=a, value=YES)
    assert judgment.label == "yes"
    assert Unit.objects.get(pk=lease_a.unit_id).judgments_done == 1
    assert unit_lease_next(campaign=campaign, annotator=b) is None  # complete now


@pytest.mark.django_db
def test_an_annotator_whose_own_lease_expired_gets_the_unit_back():
    campaign, (ann,) = make_campaign(units=2)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    expire(lease)
    again = unit_lease_next(campaign=campaign, annotator=ann)
    assert again.pk == lease.pk and again.status == AssignmentStatus.ACTIVE
    assert again.expires_at > timezone.now()


@pytest.mark.django_db
def test_undo_and_edit_add_a_version_and_keep_the_history():
    campaign, (ann,) = make_campaign(units=2)
    first = unit_lease_next(campaign=campaign, annotator=ann)
    judgment_submit(assignment=first, annotator=ann, value=YES)
    second = unit_lease_next(campaign=campaign, annotator=ann)
    # u: back to the last submitted unit, then change the verdict from yes to no.
    previous = assignment_previous(campaign=campaign, annotator=ann, before=second)
    assert previous.pk == first.pk
    edited = judgment_submit(assignment=previous, annotator=ann, value=NO)
    assert (edited.label, edited.version, edited.is_current) == ("no", 2, True)
    rows = list(HumanJudgment.objects.filter(unit_id=first.unit_id, annotator=ann).order_by("version"))
    assert [(r.label, r.version, r.is_current) for r in rows] == [("yes", 1, False), ("no", 2, True)]
    assert Unit.objects.get(pk=first.unit_id).judgments_done == 1  # an edit is not a new judgment
    # The lease on the second unit is untouched: the annotator continues where they were.
    assert unit_lease_next(campaign=campaign, annotator=ann).pk == second.pk
    # judgment_edit changes it once more; the same value again records nothing new.
    third = judgment_edit(judgment=edited, annotator=ann, value=YES)
    assert third.version == 3
    assert judgment_edit(judgment=third, annotator=ann, value=YES).pk == third.pk
    assert HumanJudgment.objects.filter(unit_id=first.unit_id).count() == 3


@pytest.mark.django_db
def test_a_repeated_submit_does_not_make_a_new_version():
    campaign, (ann,) = make_campaign(units=1)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    one = judgment_submit(assignment=lease, annotator=ann, value=YES)
    two = judgment_submit(assignment=lease, annotator=ann, value=YES)
    assert one.pk == two.pk
    assert Unit.objects.get(pk=lease.unit_id).judgments_done == 1


@pytest.mark.django_db
def test_assignment_previous_steps_back_through_submissions_in_order():
    campaign, (ann,) = make_campaign(units=3)
    submitted = []
    for _ in range(3):
        lease = unit_lease_next(campaign=campaign, annotator=ann)
        judgment_submit(assignment=lease, annotator=ann, value=YES)
        submitted.append(lease.pk)
    last = assignment_previous(campaign=campaign, annotator=ann, before=None)
    middle = assignment_previous(campaign=campaign, annotator=ann, before=last)
    first = assignment_previous(campaign=campaign, annotator=ann, before=middle)
    assert [first.pk, middle.pk, last.pk] == submitted
    assert assignment_previous(campaign=campaign, annotator=ann, before=first) is None


@pytest.mark.parametrize("value", [{"correct": "yes"}, {"correct": 1}, {}, {"correct": True, "note": "x"}, "yes", None])
@pytest.mark.django_db
def test_malformed_values_are_refused_and_nothing_is_recorded(value):
    campaign, (ann,) = make_campaign(units=1)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    with pytest.raises(JudgmentError, match="QA verdict"):
        judgment_submit(assignment=lease, annotator=ann, value=value)
    assert HumanJudgment.objects.count() == 0
    assert Unit.objects.get(pk=lease.unit_id).judgments_done == 0


@pytest.mark.django_db
def test_an_annotator_cannot_submit_or_edit_for_someone_else():
    campaign, (a, b) = make_campaign(units=1, overlap=2, annotators=2)
    lease_a = unit_lease_next(campaign=campaign, annotator=a)
    with pytest.raises(JudgmentError, match="another annotator"):
        judgment_submit(assignment=lease_a, annotator=b, value=YES)
    judgment = judgment_submit(assignment=lease_a, annotator=a, value=YES)
    with pytest.raises(JudgmentError, match="your own"):
        judgment_edit(judgment=judgment, annotator=b, value=NO)
    assert list(HumanJudgment.objects.values_list("annotator_id", "label")) == [(a.pk, "yes")]


@pytest.mark.django_db
def test_progress_counts_my_judgments_and_the_units_still_open_to_me():
    campaign, (a, b) = make_campaign(units=4, overlap=1, annotators=2)
    assert annotation_progress(campaign=campaign, annotator=a) == {"done": 0, "remaining": 4, "more": False, "total": 4,
                                                                   "percent": 0}
    lease = unit_lease_next(campaign=campaign, annotator=a)
    judgment_submit(assignment=lease, annotator=a, value=YES)
    unit_lease_next(campaign=campaign, annotator=a)  # holding unit 2: still counted as open to a
    unit_lease_next(campaign=campaign, annotator=b)  # b holds unit 3: no longer open to a
    progress = annotation_progress(campaign=campaign, annotator=a)
    assert (progress["done"], progress["total"], progress["percent"]) == (1, 3, 33)
    assert annotation_progress(campaign=campaign, annotator=b)["total"] == 2


@pytest.mark.django_db
def test_progress_counts_open_units_only_up_to_its_cap(monkeypatch, client):
    # A million-unit campaign cannot be counted on every page: past the cap the line says "more than".
    monkeypatch.setattr("annotate.selectors.annotation.REMAINING_COUNTED", 3)
    campaign, (a,) = make_campaign(units=5, overlap=1, annotators=1)
    judgment_submit(assignment=unit_lease_next(campaign=campaign, annotator=a), annotator=a, value=YES)
    assert annotation_progress(campaign=campaign, annotator=a) == {"done": 1, "remaining": 3, "more": True,
                                                                   "total": None, "percent": None}
    client.force_login(a)
    html = client.get(f"/campaigns/{campaign.slug}/annotate/").content.decode()
    assert '<b class="num">1</b> done · more than <b class="num">3</b> to go' in html
    judgment_submit(assignment=unit_lease_next(campaign=campaign, annotator=a), annotator=a, value=YES)
    assert annotation_progress(campaign=campaign, annotator=a) == {"done": 2, "remaining": 3, "more": False, "total": 5,
                                                                   "percent": 40}


@pytest.mark.django_db
def test_a_resent_submission_records_nothing_twice():
    """The page sends a verdict again when its answer was lost (the same submission id): one version, whatever
    happened meanwhile, and remembered by the database (no cache to forget it)."""
    from django.core.cache import cache

    campaign, (ann,) = make_campaign(units=1)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    first = judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None, submission="tab-a-0001")
    assert first.submission == "tab-a-0001"
    again = judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None, submission="tab-a-0001")
    assert again.pk == first.pk
    assert HumanJudgment.objects.filter(annotator=ann).count() == 1
    assert Unit.objects.get(pk=lease.unit_id).judgments_done == 1
    # Changed since in another tab; the late resend of the first verdict is still recognised and changes nothing.
    judgment_submit(assignment=lease, annotator=ann, value=NO, shown_version=1, submission="tab-b-0001")
    cache.clear()
    late = judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None, submission="tab-a-0001")
    assert (late.label, late.version) == ("no", 2)
    assert list(HumanJudgment.objects.filter(annotator=ann).order_by("version").values_list(
        "label", "is_current", "submission")) == [("yes", False, "tab-a-0001"), ("no", True, "tab-b-0001")]
    # A verdict this page never managed to record, made on a view out of date by now, is refused, never applied.
    with pytest.raises(JudgmentStale):
        judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None, submission="tab-c-0001")
    assert HumanJudgment.objects.filter(annotator=ann).count() == 2
    with pytest.raises(JudgmentValueError, match="malformed submission id"):
        judgment_submit(assignment=lease, annotator=ann, value=YES, submission="<script>")


@pytest.mark.django_db(transaction=True)
def test_a_submission_rolled_back_is_not_remembered():
    """Were an edit that never committed remembered as sent, its resend would be taken for done and lost."""
    campaign, (ann,) = make_campaign(units=1)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None)
    with pytest.raises(RuntimeError), transaction.atomic():
        judgment_submit(assignment=lease, annotator=ann, value=NO, shown_version=1, submission="edit-0001")
        raise RuntimeError("the request failed after the submit")
    assert HumanJudgment.objects.get(is_current=True).label == "yes"
    resent = judgment_submit(assignment=lease, annotator=ann, value=NO, shown_version=1, submission="edit-0001")
    assert (resent.label, resent.version, resent.submission) == ("no", 2, "edit-0001")


@pytest.mark.django_db
def test_a_verdict_from_a_stale_view_is_refused_and_nothing_changes():
    campaign, (ann,) = make_campaign(units=1)
    lease = unit_lease_next(campaign=campaign, annotator=ann)
    judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None)  # tab A, shown unjudged
    with pytest.raises(JudgmentStale) as stale:  # tab B, also shown unjudged, says otherwise
        judgment_submit(assignment=lease, annotator=ann, value=NO, shown_version=None)
    assert (stale.value.current.label, stale.value.current.version) == ("yes", 1)
    assert "another tab or window" in str(stale.value)
    # The same verdict from the stale view overwrites nothing: accepted, no new version.
    assert judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=None).version == 1
    # Chosen knowingly (the version it replaces named), it is applied.
    assert judgment_submit(assignment=lease, annotator=ann, value=NO, shown_version=1).version == 2
    with pytest.raises(JudgmentStale):  # an edit made on version 1, now that version 2 stands
        judgment_submit(assignment=lease, annotator=ann, value=YES, shown_version=1)
    assert list(HumanJudgment.objects.filter(annotator=ann).order_by("version").values_list("label", "is_current")) \
        == [("yes", False), ("no", True)]
    # A caller that does not say what it was shown (a script) keeps the last-write-wins behaviour.
    assert judgment_submit(assignment=lease, annotator=ann, value=YES).version == 3
