"""The assist-demo campaign's simulated people: an assistance experiment and adjudications with known behaviour.

Six simulated annotators judge every answer through the same services the annotation page uses (leases, arms,
suggestions, submits), so their judgments record an arm, the suggestion shown and the seconds taken:
- three in the arm "blind", right (against the NQ-open 301 study's final verdict) with probability BLIND_RIGHT;
- three in the arm "assisted:gpt-4", who accept GPT-4's verdict when it is right and, when it is wrong, copy it with
  probability COPY_WRONG (else give the right verdict).
The demo's adjudicator has settled all answers but LEFT_WAITING with the study's verdict (the study settled every
answer); those wait in the adjudication queue. The report's "Assistance experiment" section should recover
BLIND_RIGHT and COPY_WRONG within its intervals (its reference is the adjudicated verdict where there is one).
Seeded: every fresh demo is the same.
"""

import csv
import random
from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F

from annotate.models import Assignment, Campaign, Item, Role, Unit
from annotate.selectors.adjudication import adjudication_queue
from annotate.services.adjudication import adjudication_submit
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.arms import member_arm_set
from annotate.services.campaigns import campaign_options_set, membership_add

JUDGE = "gpt-4"
ARMS = ["blind", f"assisted:{JUDGE}"]
BLIND_RIGHT = 0.8
COPY_WRONG = 0.3
SIMULATED = {**{f"sim-blind-{n}": "blind" for n in (1, 2, 3)}, **{f"sim-assisted-{n}": ARMS[1] for n in (1, 2, 3)}}
# Seconds per judgment, drawn uniformly: an assisted annotator reads a suggestion and mostly accepts it.
SECONDS = {"blind": (12.0, 30.0), ARMS[1]: (6.0, 16.0)}
NOTE = "Settled with the NQ-open 301 study's final verdict."
SEED = 16
LEFT_WAITING = 12


def assist_demo_simulate(*, campaign: Campaign, truth_path: Path, adjudicator) -> int:
    """Set CAMPAIGN's experiment and adjudication options, make the simulated annotators' judgments and the first
    half of the adjudications. Returns how many judgments were made. Run once, on the freshly imported campaign."""
    campaign_options_set(campaign=campaign, values={
        "arms": ARMS, "arm_assignment": "balanced", "arm_per": "annotator",
        "adjudication": ["humans", "judge"], "adjudication_judge": JUDGE,
    })
    campaign.refresh_from_db()
    truth = _truth(campaign=campaign, path=truth_path)
    rng = random.Random(SEED)
    with transaction.atomic():  # one commit for the whole simulation (each service call is a savepoint in it)
        made = _annotators_simulate(campaign=campaign, truth=truth, rng=rng)
    # As the study settled every answer, the adjudicator has settled all but LEFT_WAITING of them: every other one of
    # the queue's first 2 * LEFT_WAITING units (most disagreement first) waits, so settled and waiting ones mix.
    waiting = adjudication_queue(campaign=campaign, adjudicator=adjudicator).waiting
    left = {entry.unit_id for entry in waiting[:2 * LEFT_WAITING:2]}
    for unit in Unit.objects.filter(campaign=campaign).exclude(pk__in=left).order_by("position", "pk"):
        adjudication_submit(unit=unit, adjudicator=adjudicator, value={"correct": truth[unit.item_id]}, note=NOTE)
    return made


def _annotators_simulate(*, campaign: Campaign, truth: dict[int, bool], rng: random.Random) -> int:
    """The simulated annotators judge every answer open to them, in their arms (see the module). Returns how many."""
    made = 0
    for username, arm in SIMULATED.items():
        user, _ = get_user_model().objects.get_or_create(username=username)
        membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)
        member_arm_set(campaign=campaign, user=user, arm=arm)
        while (assignment := unit_lease_next(campaign=campaign, annotator=user)) is not None:
            right = truth[assignment.unit.item_id]
            suggestion = (assignment.suggestion or {}).get("correct")
            if assignment.arm == "blind" or suggestion is None:
                correct = right if rng.random() < BLIND_RIGHT else not right
            else:
                correct = suggestion if suggestion == right or rng.random() < COPY_WRONG else right
            low, high = SECONDS[assignment.arm]
            Assignment.objects.filter(pk=assignment.pk).update(
                leased_at=F("leased_at") - timedelta(seconds=rng.uniform(low, high)))
            judgment_submit(assignment=assignment, annotator=user, value={"correct": correct})
            made += 1
    return made


def _truth(*, campaign: Campaign, path: Path) -> dict[int, bool]:
    """Item pk -> the study's final verdict, from the fixture's truth.tsv (topic, item, verdict)."""
    items = dict(Item.objects.filter(campaign=campaign).values_list("external_id", "pk"))
    with path.open(newline="", encoding="utf-8") as handle:
        return {items[row["item"]]: row["verdict"] == "yes"
                for row in csv.DictReader(handle, delimiter="\t") if row["item"] in items}


