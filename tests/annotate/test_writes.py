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


@pytest.mark.django_db
def test_the_version_row_is_written_last():
    """The data version's row is the last lock a writing transaction takes (annotate.services.data_version): in the one
    statement too, whose WITH clauses PostgreSQL runs in no promised order. Triggers log the order the rows are
    written in (made inside the test's transaction, which takes them away again)."""
    if connection.vendor != "postgresql":
        pytest.skip("one statement on PostgreSQL only; elsewhere the writes are statements in the order given")
    campaign, (annotator,) = make_campaign(units=2)
    with transaction.atomic():
        campaign_data_changed(campaign_id=campaign.pk)
    judgment, _, updates = _verdict(campaign, annotator)
    tables = ["annotate_humanjudgment", "annotate_assignment", "annotate_unit", "annotate_campaigndataversion"]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE written (seq serial, what text)")
        cursor.execute("CREATE FUNCTION pg_temp.written_log() RETURNS trigger AS $$ BEGIN "
                       "INSERT INTO written (what) VALUES (TG_TABLE_NAME); RETURN NEW; END $$ LANGUAGE plpgsql")
        for table in tables:
            cursor.execute(f"CREATE TRIGGER written_{table} BEFORE INSERT OR UPDATE ON {table} FOR EACH ROW "
                           "EXECUTE FUNCTION pg_temp.written_log()")
    with transaction.atomic():
        written_together(created=judgment, updates=updates, campaign_id=campaign.pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT what FROM written ORDER BY seq")
        order = [what for (what,) in cursor.fetchall()]
    assert sorted(order) == sorted(tables) and order[-1] == "annotate_campaigndataversion"
