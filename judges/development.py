"""Judge development on a development part, the final figure on a held-out part (docs/judges.md, "Development
split").

A campaign's items are split once, seeded and stratified by topic or by system, into a development part and a
held-out part (Item.split; the settings in Campaign.development_split, both kept in the campaign archive). From then
on every statistic of a judge is read on one part only (reports.selectors.judge_part_filter): a judge the researcher
has not marked final on the development part, where its prompt may be tuned; a judge marked final (Judge.final_at) on
the held-out part, which no statistic of any other judge reads. Marking final cannot be undone, and the report says
how many versions were marked final before each one (each one a look at the held-out part). Items imported after the
split join it at the import (split_new_items), drawn the same way among themselves.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotate.models import Campaign, Item
from annotate.services.data_version import campaign_data_changed
from judges.models import Judge

DEVELOPMENT, HELD_OUT = "development", "held_out"
STRATA = {
    "topic": "each topic's items",
    "system": "each system's items (the item's system; items without one together)",
}
HELD_OUT_DEFAULT = 0.5
HELD_OUT_RANGE = (0.1, 0.9)
_UPDATE_CHUNK = 5_000  # item ids per UPDATE (SQLite binds at most 32,766 values a statement)


class SplitError(ValueError):
    """The split cannot be made, or a judge cannot be marked final: the message says why."""


def split_make(*, campaign: Campaign, held_out: float = HELD_OUT_DEFAULT, seed: int = 0, stratify: str = "topic",
               user=None) -> dict:
    """Split CAMPAIGN's items (see the module's docstring): in each stratum a share HELD_OUT of its items, drawn with
    SEED, goes to the held-out part (the share of a stratum too small to split exactly is drawn too, so that the
    parts' sizes come out right on average). Returns split_summary. SplitError when the campaign is split already
    or a setting is out of range."""
    if not HELD_OUT_RANGE[0] <= held_out <= HELD_OUT_RANGE[1]:
        raise SplitError(f"the held-out share must be between {HELD_OUT_RANGE[0]} and {HELD_OUT_RANGE[1]}; "
                         f"got {held_out}")
    if stratify not in STRATA:
        raise SplitError(f"stratify by one of {', '.join(STRATA)}; got {stratify!r}")
    with transaction.atomic():
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        if locked.development_split:
            raise SplitError("this campaign is split already: a split is made once, so that the held-out part "
                             "stays unseen")
        settings = {"held_out": float(held_out), "seed": int(seed), "stratify": stratify,
                    "made_at": f"{timezone.now():%Y-%m-%d %H:%M} UTC",
                    "made_by": getattr(user, "username", "") or ""}
        _assign(campaign=locked, settings=settings)
        locked.development_split = settings
        locked.save(update_fields=["development_split"])
        campaign_data_changed(campaign_id=campaign.pk)
    campaign.development_split = settings
    return split_summary(campaign=campaign)


def split_new_items(*, campaign: Campaign) -> int:
    """Give the items of CAMPAIGN without a part one, drawn as the split was made (its seed and the number of items
    already split seed the draw); 0 when the campaign has no split. Call inside the import's transaction."""
    settings = Campaign.objects.filter(pk=campaign.pk).values_list("development_split", flat=True).first()
    return _assign(campaign=campaign, settings=settings) if settings else 0


def _assign(*, campaign: Campaign, settings: dict) -> int:
    """Draw the parts of CAMPAIGN's items that have none, stratum by stratum; returns how many were given one."""
    rows = Item.objects.filter(campaign=campaign, split="").values_list("pk", "external_id", "topic__external_id",
                                                                        "data")
    strata: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for pk, external_id, topic, data in rows:
        key = topic if settings["stratify"] == "topic" else str((data or {}).get("system") or "")
        strata[key].append((external_id, pk))
    if not strata:
        return 0
    already = Item.objects.filter(campaign=campaign).exclude(split="").count()
    rng = np.random.default_rng([settings["seed"], already])
    share = settings["held_out"]
    held, kept = [], []
    for key in sorted(strata):
        members = [pk for _, pk in sorted(strata[key])]  # by external id: the same draw in every database
        wanted = share * len(members)
        count = math.floor(wanted) + int(rng.random() < wanted - math.floor(wanted))
        order = rng.permutation(len(members))
        held += [members[i] for i in order[:count]]
        kept += [members[i] for i in order[count:]]
    for part, ids in ((HELD_OUT, held), (DEVELOPMENT, kept)):
        for start in range(0, len(ids), _UPDATE_CHUNK):
            Item.objects.filter(pk__in=ids[start:start + _UPDATE_CHUNK]).update(split=part)
    return len(held) + len(kept)


def judge_mark_final(*, judge: Judge) -> Judge:
    """Mark JUDGE final: from now on its figures are read on the held-out part. SplitError without a split, or when
    it is final already."""
    with transaction.atomic():
        locked = Judge.objects.select_for_update().select_related("campaign").get(pk=judge.pk)
        if not locked.campaign.development_split:
            raise SplitError("this campaign has no development split: make one first")
        if locked.final_at is not None:
            raise SplitError(f"judge {locked.name!r} was marked final already, "
                             f"{locked.final_at:%Y-%m-%d %H:%M} UTC")
        locked.final_at = timezone.now()
        locked.save(update_fields=["final_at"])
        campaign_data_changed(campaign_id=locked.campaign_id)
    return locked


def split_summary(*, campaign: Campaign) -> dict | None:
    """The split as the report and the judge pages state it: its settings, the items in each part, and the judges
    marked final in order, each with how many versions were marked final before it; None without a split. Two
    queries."""
    settings = campaign.development_split
    if not settings:
        return None
    counts = dict(Item.objects.filter(campaign=campaign).values_list("split").annotate(n=Count("id")).order_by())
    finals = list(Judge.objects.filter(campaign=campaign, final_at__isnull=False).order_by("final_at", "pk")
                  .values_list("name", "final_at"))
    return {**settings, "development": counts.get(DEVELOPMENT, 0), "held_out_items": counts.get(HELD_OUT, 0),
            "unassigned": counts.get("", 0), "stratify_words": STRATA.get(settings.get("stratify"), ""),
            "final": [{"judge": name, "marked_at": f"{marked:%Y-%m-%d %H:%M} UTC", "before": index}
                      for index, (name, marked) in enumerate(finals)]}
