"""The campaign's data version: one more at every change of what its report reads (docs/design.md §5, stored reports).

Every write of judgments, items, imports or report options calls `campaign_data_changed` inside its transaction,
as its last statement: the version and the data then commit together, and the row lock it takes is held only from
there to the commit. A report built at version v is current while the version is still v.

Lock order: the version row is the last lock every writing transaction takes (after the campaign row, units,
assignments, judgments, judge runs); after it, a transaction writes at most a row nobody else locks first (an import
job's own row). A transaction that holds it therefore waits for nothing but its own commit, so the version row can
never close a deadlock: on PostgreSQL a submit (unit, assignment, then version) and a lease (campaign, then units with
SKIP LOCKED, then version only when it gave the annotator an arm) queue on it only for the moment between the other's
last statement and its commit. The price is that a campaign's writers commit one after the other.

The writes that bump it (docs/stored-reports.md): human judgments (annotate.services.annotation and .adjudication),
every import (interchange.importers.service.import_run, the one funnel of the command, the page, the API and import
jobs), archive restores, model judgments (judges.tasks stores each batch's verdicts with one), judge runs started,
cancelled, resumed or retried (judges.services), options, overlap k, and arms given or taken (annotate.services).
Not bumped: what the report does not read (guidelines, names and descriptions, queue positions, leases and drafts).
"""

from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from annotate.models import CampaignDataVersion


def campaign_data_changed(*, campaign_id: int) -> None:
    """Make a new data version for the campaign. Call inside the writing transaction, after its other writes."""
    versions, values = campaign_data_changed_query(campaign_id=campaign_id)
    if versions.update(**values):
        return
    try:
        with transaction.atomic():  # a savepoint: a racing first change may have made the row
            CampaignDataVersion.objects.create(campaign_id=campaign_id, version=1)
            return
    except IntegrityError:
        pass
    # The racing first change has committed its row (PostgreSQL made the insert above wait for it): one more after it.
    versions.update(**values)


def campaign_data_changed_query(*, campaign_id: int) -> tuple[QuerySet, dict]:
    """The update that makes the campaign's next data version, once its row exists: (the queryset, its update()'s
    values); for a statement that makes it with other writes (annotate.writes)."""
    return (CampaignDataVersion.objects.filter(campaign_id=campaign_id),
            {"version": F("version") + 1, "changed_at": timezone.now()})  # update() skips auto_now
