"""The campaign's data version: one more at every change of what its report reads (DESIGN.md §5, stored reports).

Every write of judgments, items, imports or report options calls `campaign_data_changed` inside its transaction,
as its last statement: the version and the data then commit together, and the row lock it takes is held only from
there to the commit. A report built at version v is current while the version is still v.
"""

from django.db import IntegrityError, transaction
from django.db.models import F

from annotate.models import CampaignDataVersion


def campaign_data_changed(*, campaign_id: int) -> None:
    """Make a new data version for the campaign. Call inside the writing transaction, after its other writes."""
    if CampaignDataVersion.objects.filter(campaign_id=campaign_id).update(version=F("version") + 1):
        return
    try:
        with transaction.atomic():  # a savepoint: a racing first change may have made the row
            CampaignDataVersion.objects.create(campaign_id=campaign_id, version=1)
            return
    except IntegrityError:
        pass
    CampaignDataVersion.objects.filter(campaign_id=campaign_id).update(version=F("version") + 1)
