"""annotate.writes: a verdict's writes in one statement on PostgreSQL, one after the other elsewhere, the same rows
either way."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from annotate.models import Assignment, AssignmentStatus, CampaignDataVersion, HumanJudgment, JudgmentKind, Unit
from annotate.services.annotation import unit_lease_next
from annotate.services.data_version import campaign_data_changed
from annotate.writes import written_together
from tests.annotate.test_annotation_services import make_campaign

VALUE = {"correct": True, "note": "naïve \"quoted\" text", "nested": [1, {"a": None}]}


def _verdict(campaign, annotator) -> tuple[HumanJudgment, Assignment, list]:
    assignment = unit_lease_next(campaign=campaign, annotator=annotator)
    judgment = HumanJudgment(unit_id=assignment.unit_id, annotator=annotator, assignment=assignment,
                             kind=JudgmentKind.ANNOTATION, value=VALUE, label="yes", suggestion=None, seconds=1.5)
    updates = [(Assignment.objects.filter(pk=assignment.pk), {"status": AssignmentStatus.SUBMITTED, "draft": None}),
               (Unit.objects.filter(pk=assignment.unit_id), {"judgments_done": F("judgments_done") + 1})]
    return judgment, assignment, updates


def _version(campaign) -> int:
    return CampaignDataVersion.objects.filter(campaign=campaign).values_list("version", flat=True).first() or 0


@pytest.mark.django_db
@pytest.mark.parametrize("first_change", [True, False])
def test_the_judgment_the_updates_and_a_new_version_are_written(first_change):
    campaign, (annotator,) = make_campaign(units=2)
    if not first_change:
        with transaction.atomic():
            campaign_data_changed(campaign_id=campaign.pk)
    before = _version(campaign)
    judgment, assignment, updates = _verdict(campaign, annotator)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        written_together(created=judgment, updates=updates, campaign_id=campaign.pk)
    statements = [query["sql"] for query in queries.captured_queries
                  if not query["sql"].startswith(("BEGIN", "SAVEPOINT", "RELEASE"))]
    if connection.vendor == "postgresql":  # one statement, and the version row made apart only the first time
        assert len(statements) == (1 if not first_change else 3)
        assert statements[0].startswith("WITH ")
    else:
        assert len(statements) == 4 + (1 if first_change else 0)  # the version row made on the update that found none
    assert judgment.pk is not None and not judgment._state.adding
    stored = HumanJudgment.objects.get(pk=judgment.pk)
    assert (stored.value, stored.label, stored.seconds, stored.assignment_id) == (VALUE, "yes", 1.5, assignment.pk)
    assert stored.created_at is not None and stored.is_current and stored.version == 1
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED and assignment.draft is None
    assert Unit.objects.get(pk=assignment.unit_id).judgments_done == 1
    assert _version(campaign) == before + 1


@pytest.mark.django_db
def test_a_failing_write_leaves_nothing():
    """A unique row already there (the same submission twice): the whole statement fails, nothing of it stays."""
    campaign, (annotator,) = make_campaign(units=2)
    judgment, assignment, updates = _verdict(campaign, annotator)
    with transaction.atomic():
        written_together(created=judgment, updates=updates, campaign_id=campaign.pk)
    version = _version(campaign)
    again = HumanJudgment(pk=judgment.pk, unit_id=assignment.unit_id, annotator=annotator, value=VALUE, label="no")
    with pytest.raises(IntegrityError), transaction.atomic():
        written_together(created=again, updates=updates, campaign_id=campaign.pk)
    assert Unit.objects.get(pk=assignment.unit_id).judgments_done == 1
    assert _version(campaign) == version
    assert HumanJudgment.objects.get().label == "yes"
