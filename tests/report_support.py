"""Reports as a worker leaves them: since a first open never builds (agreement.stored), a test that opens a report
page, a download or the API for its content has the report built first, as the worker's task would."""

from agreement.stored import stored_report_rebuild
from annotate.models import Campaign


def report_stored(campaign: Campaign | str) -> None:
    """Build and store the report of CAMPAIGN (a campaign or its slug) now, in this thread: the body of the task a
    first open queues (agreement.tasks.report_rebuild). Opens that follow, with no change between, show it."""
    if isinstance(campaign, str):
        campaign = Campaign.objects.get(slug=campaign)
    stored_report_rebuild(campaign_id=campaign.pk)
