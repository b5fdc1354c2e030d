"""The pairwise-demo campaign's simulated raters and its made-up judge, so that its report has people to compare, a
position bias to measure and a judge to set against them.

RATERS each judge every pair of the first JUDGED_PROMPTS prompts through the services the annotation page uses
(leases and submits), with the left side drawn as the page draws it: with probability LEFT_BIAS a rater takes the
response shown on the left whatever it says, else it prefers a by Bradley-Terry on STRENGTHS (a tie when the two
systems are equally strong and a coin says so). The other prompts' pairs wait for the demo's annotators. The made-up
judge "judge-demo" prefers the stronger system, except on JUDGE_FLIPS of the pairs, and is imported as an external
judge's verdicts (format judge-scores). Seeded: every fresh demo is the same.
"""

import math
import random
import tempfile
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.models import Campaign, Item, Role, Unit
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import membership_add
from interchange.importers.service import import_run
from tasktypes.pairwise_preference.spec import left_side
from tasktypes.pairwise_preference.verdicts import OTHER, TIE, A, B

RATERS = ("sim-rater-1", "sim-rater-2", "sim-rater-3")
STRENGTHS = {"careful": 1.5, "brief": 0.6, "verbose": 0.2, "sloppy": -2.3}
JUDGED_PROMPTS = 6
LEFT_BIAS = 0.15
TIE_SHARE = 0.1
JUDGE_FLIPS = 0.15
JUDGE = "judge-demo"
SEED = 33


def _preferred(rng: random.Random, data: dict) -> str:
    if rng.random() < TIE_SHARE:
        return TIE
    a, b = (STRENGTHS.get(data[side]["system"], 0.0) for side in (A, B))
    return A if rng.random() < 1 / (1 + math.exp(b - a)) else B


def pairwise_demo_simulate(*, campaign: Campaign) -> int:
    """RATERS' verdicts on the first JUDGED_PROMPTS prompts' pairs, then the made-up judge's on every pair; returns
    how many human verdicts were made. Run once, on the freshly imported campaign; opens its own transaction."""
    rng = random.Random(SEED)
    prompts = sorted(campaign.topics.values_list("external_id", flat=True))[:JUDGED_PROMPTS]
    made = 0
    with transaction.atomic():
        waiting = dict(Unit.objects.filter(campaign=campaign).exclude(item__topic__external_id__in=prompts)
                       .values_list("pk", "judgments_needed"))
        Unit.objects.filter(pk__in=list(waiting)).update(judgments_needed=0)
        for username in RATERS:
            user, _ = get_user_model().objects.get_or_create(username=username)
            membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)
            while (assignment := unit_lease_next(campaign=campaign, annotator=user)) is not None:
                left = left_side(unit_id=assignment.unit_id, annotator_id=user.pk)
                preferred = left if rng.random() < LEFT_BIAS else _preferred(rng, assignment.unit.item.data)
                judgment_submit(assignment=assignment, annotator=user, value={"preferred": preferred, "left": left})
                made += 1
        for needed in set(waiting.values()):
            Unit.objects.filter(pk__in=[pk for pk, k in waiting.items() if k == needed]).update(judgments_needed=needed)
    lines = ["topic\titem\tscore\tlabel"]
    for prompt, pair, data in Item.objects.filter(campaign=campaign).order_by("id").values_list(
            "topic__external_id", "external_id", "data"):
        a, b = (STRENGTHS.get(data[side]["system"], 0.0) for side in (A, B))
        label = A if a > b else B
        lines.append(f"{prompt}\t{pair}\t{a - b:.3f}\t{OTHER[label] if rng.random() < JUDGE_FLIPS else label}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "judge-demo.tsv"
        path.write_text("\n".join(lines) + "\n")
        import_run(campaign=campaign, fmt="judge-scores", paths=[path], judge=JUDGE)
    return made
