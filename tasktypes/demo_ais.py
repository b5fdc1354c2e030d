"""The ais-demo campaign's simulated raters, so that its report compares people as well as a judge.

The demo's ratings file gives one human_rating per rated answer, which the import keeps as the item's adjudicated
label; alone it has no raters to compare (the report showed "0 annotators" and a dash in every human cell). Here
RATERS simulated raters each judge every rated answer through the same services the annotation page uses (leases and
submits). Each gives the file's verdict with probability AGREE, else the other one, independently: attributable is
"interpretable, supported"; not attributable is "interpretable, not supported", or with probability NOT_INTERPRETABLE
"not interpretable" (question 2 is then not asked).
The adjudicated label stays the file's, so the judge is still compared with it. The answers without a rating still
wait for the campaign's k raters: the demo's annotators. Seeded: every fresh demo is the same.
"""

import random

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.models import Campaign, HumanJudgment, JudgmentKind, Membership, Role, Unit
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import membership_add

RATERS = ("sim-rater-1", "sim-rater-2", "sim-rater-3")
AGREE = 0.85
NOT_INTERPRETABLE = 0.2
SEED = 30


def ais_demo_raters_present(*, campaign: Campaign) -> bool:
    """Whether RATERS have been made members of CAMPAIGN (ais_demo_simulate ran on it)."""
    return Membership.objects.filter(campaign=campaign, user__username__in=RATERS).exists()


def ais_demo_simulate(*, campaign: Campaign) -> int:
    """Have RATERS judge each of CAMPAIGN's answers that carries an imported (adjudicated) rating; returns how many
    judgments were made. Run once, on the freshly imported campaign or on one an earlier version made without raters
    (load_demo); opens its own transaction.

    The lease service hands out the first open unit, so while the raters work the rated units are opened for
    len(RATERS) judgments and the unrated ones are held back (k = 0); the unrated ones get their k back before the
    transaction ends, so nobody sees them closed.
    """
    rating = {unit_id: label == "yes" for unit_id, label in HumanJudgment.objects.filter(
        unit__campaign=campaign, kind=JudgmentKind.ADJUDICATION, is_current=True).values_list("unit_id", "label")}
    rng = random.Random(SEED)
    made = 0
    with transaction.atomic():
        waiting = dict(Unit.objects.filter(campaign=campaign).exclude(pk__in=list(rating))
                       .values_list("pk", "judgments_needed"))
        Unit.objects.filter(pk__in=list(waiting)).update(judgments_needed=0)
        Unit.objects.filter(pk__in=list(rating)).update(judgments_needed=len(RATERS))
        for username in RATERS:
            user, _ = get_user_model().objects.get_or_create(username=username)
            membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)
            while (assignment := unit_lease_next(campaign=campaign, annotator=user)) is not None:
                attributable = rating[assignment.unit_id]
                if rng.random() >= AGREE:
                    attributable = not attributable
                if attributable:
                    value = {"interpretable": True, "supported": True}
                elif rng.random() < NOT_INTERPRETABLE:
                    value = {"interpretable": False, "supported": None}
                else:
                    value = {"interpretable": True, "supported": False}
                judgment_submit(assignment=assignment, annotator=user, value=value)
                made += 1
        for needed in set(waiting.values()):
            Unit.objects.filter(pk__in=[pk for pk, k in waiting.items() if k == needed]).update(judgments_needed=needed)
    return made
