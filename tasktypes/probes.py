"""Robustness probes: copies of a campaign's items changed in a way that must not change a sound judge's verdict, and
how often each judge's verdict flips on them.

The kinds are the task types': each declares those its researchers may make (TaskTypeSpec.probes, a ProbeKind per
name: how an item is copied, and when a verdict on the copy flips). This module knows no kind by name: it draws the
items a kind copies, stores the copies and measures the flips. RaisingProbe is the rule of the kinds that copy an item
the humans call negative and change it so that a judge fooled by the change rates it higher (query words stuffed in,
a false claim appended: tasktypes.claim_probe).

A probe is a row of its own (judges.models.Probe), never an item: no unit, queue, statistic, export or labels table
reads it; its verdicts (judges.models.ProbeVerdict, judges.probes) are read here only.

A judge's flip rate on a kind is read on the probes whose item it judged on its part of the development split (the
same rule as every statistic: reports.selectors.judge_part_filter): of the probes that count for the kind
(ProbeKind.flipped is not None), the share that flipped. Each rate has its n and a Wilson 95% interval (statsmodels),
and up to EXAMPLES flipped probes with their texts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Count

from annotate.models import Campaign, Item
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.registry import task_type_get, task_types
from judges.models import Judge, ModelJudgment, Probe, ProbeVerdict
from judges.probes import PER_KIND_DEFAULT, PER_KIND_MOST
from reports.selectors import human_labels_get, judge_part_filter

EXAMPLES = 3
EXAMPLE_CHARS = 400

Verdict = tuple[str, float | None]  # a judge's (label, score) on an item or a probe


class ProbeKind:
    """One kind of probe, as a task type declares it (TaskTypeSpec.probes): its name (stored on each probe), what the
    pages call it and say it is, which items it copies, how it changes one, and when a verdict on the copy flips."""

    name: str = ""
    title: str = ""
    what: str = ""
    # Which items it copies: those the humans call negative (TaskTypeSpec.label_negative), or every labelled one.
    negative_only: bool = False

    def changed(self, item: Item, *, spec) -> tuple[str, dict]:
        """The text and data of this kind's copy of ITEM, an item of a campaign of task type SPEC."""
        raise NotImplementedError

    def flipped(self, *, original: Verdict, probe: Verdict, negative) -> bool | None:
        """Whether a judge's verdict PROBE on the copy flips its verdict ORIGINAL on the item; None when the pair does
        not count. NEGATIVE(label) says whether a label calls an item not relevant, not supported or not correct."""
        raise NotImplementedError


class RaisingProbe(ProbeKind):
    """A copy of an item the humans call negative, changed so that a judge fooled by the change rates it higher: of the
    probes whose item the judge itself called negative, it flips when it rates the copy higher."""

    negative_only = True

    def flipped(self, *, original: Verdict, probe: Verdict, negative) -> bool | None:
        """None for a failed verdict or an original that is not negative. A judge that gives scores only (a ranker)
        flips when it scores the copy higher; one that gives labels, when the copy's is not negative or a higher
        grade."""
        (label, score), (probe_label, probe_score) = original, probe
        if not label and not probe_label:
            return None if score is None or probe_score is None else probe_score > score
        if not negative(label) or not probe_label:
            return None
        return not negative(probe_label) or (probe_label.isdigit() and label.isdigit()
                                             and int(probe_label) > int(label))


class _DeclaredKinds(Mapping):
    """Every task type's probe kinds by name (TaskTypeSpec.probes), for a reader that holds a name only; a campaign's
    own are its task type's probes()."""

    def _kinds(self) -> dict[str, ProbeKind]:
        kinds: dict[str, ProbeKind] = {}
        for spec in task_types():
            for name, kind in spec.probes().items():
                kinds.setdefault(name, kind)
        return kinds

    def __getitem__(self, name: str) -> ProbeKind:
        return self._kinds()[name]

    def __iter__(self):
        return iter(self._kinds())

    def __len__(self) -> int:
        return len(self._kinds())


KINDS: Mapping[str, ProbeKind] = _DeclaredKinds()


class ProbeError(ValueError):
    """Probes that cannot be made as asked; the message says why."""


def probes_make(*, campaign: Campaign, kinds: list[str], per_kind: int = PER_KIND_DEFAULT, seed: int = 0) -> dict:
    """Make up to PER_KIND probes of each of KINDS from CAMPAIGN's items with a human label, drawn with SEED; a kind
    the campaign has probes of already is left as it is. Returns {kind: {"made": n, "kept": n, "eligible": n}}.
    ProbeError for a kind its task type does not offer, or PER_KIND out of range."""
    spec = task_type_get(campaign.task_type)
    offered = spec.probes()
    unknown = [kind for kind in kinds if kind not in offered]
    if not kinds or unknown:
        names = ", ".join(offered) or "none"
        raise ProbeError(f"{spec.label} campaigns take the probes {names}; not {', '.join(unknown) or 'none'}")
    if isinstance(per_kind, bool) or not isinstance(per_kind, int) or not 1 <= per_kind <= PER_KIND_MOST:
        raise ProbeError(f"probes per kind must be a whole number from 1 to {PER_KIND_MOST}, not {per_kind!r}")
    labels = human_labels_get(campaign=campaign).item_label
    items = {item.pk: item for item in Item.objects.filter(campaign=campaign, pk__in=list(labels))
             .select_related("topic").order_by("pk")}
    existing = _probe_counts(campaign)
    summary = {}
    with transaction.atomic():
        for kind in kinds:
            summary[kind] = _kind_make(offered[kind], campaign=campaign, spec=spec, items=items, labels=labels,
                                       existing=existing[kind], per_kind=per_kind, seed=seed)
        campaign_data_changed(campaign_id=campaign.pk)
    return summary


def _kind_make(kind: ProbeKind, *, campaign, spec, items: dict, labels: dict, existing: int, per_kind: int,
               seed: int) -> dict:
    """KIND's probes of ITEMS (those with a human label in LABELS), unless the campaign has EXISTING ones already."""
    import numpy as np

    eligible = [pk for pk, item in items.items()
                if (not kind.negative_only or spec.label_negative(labels[pk], campaign=campaign))
                and not spec.judge_input_missing(text=item.text, data=item.data or {})]
    if existing:
        return {"made": 0, "kept": existing, "eligible": len(eligible)}
    chosen = sorted(np.random.default_rng(seed).permutation(eligible)[:per_kind].tolist()) if eligible else []
    probes = []
    for pk in chosen:
        text, data = kind.changed(items[pk], spec=spec)
        probes.append(Probe(campaign=campaign, item=items[pk], kind=kind.name, text=text, data=data))
    Probe.objects.bulk_create(probes)
    return {"made": len(chosen), "kept": 0, "eligible": len(eligible)}


def probes_delete(*, campaign: Campaign, kind: str) -> int:
    """Delete CAMPAIGN's probes of KIND with every judge's verdicts on them (to make them again); how many."""
    with transaction.atomic():
        _, deleted = Probe.objects.filter(campaign=campaign, kind=kind).delete()
        campaign_data_changed(campaign_id=campaign.pk)
    return deleted.get(Probe._meta.label, 0)


def _words(verdict: Verdict) -> str:
    """A verdict as the examples show it: its label, or a ranker's score."""
    label, score = verdict
    return label or ("" if score is None else f"score {score:.4g}")


def _probe_counts(campaign: Campaign) -> Counter:
    """kind -> how many probes CAMPAIGN has of it. One query."""
    return Counter(dict(Probe.objects.filter(campaign=campaign).order_by().values_list("kind")
                        .annotate(n=Count("pk"))))


def _kind_row(kind: ProbeKind, probes: int) -> dict:
    """A kind as the page and the report list it, with how many probes the campaign has of it."""
    return {"kind": kind.name, "title": kind.title, "what": kind.what, "probes": probes}


def _kind_rate(kind: ProbeKind, *, probes: dict, own: dict, seen: dict, items: dict, negative) -> dict:
    """One judge's flip rate on KIND's PROBES (id -> (item, text)), from its verdicts OWN on probes and SEEN on
    items: n, flips, the rate with its Wilson interval, and the first flipped examples."""
    from stats.interrater import share_with_interval

    asked, counted, flips, examples = 0, 0, 0, []
    for probe_id, (item_id, text) in probes.items():
        if probe_id not in own:
            continue
        asked += 1
        original = seen.get(item_id)
        flipped = None if original is None else kind.flipped(original=original, probe=own[probe_id],
                                                             negative=negative)
        if flipped is None:
            continue
        counted += 1
        if flipped:
            flips += 1
            if len(examples) < EXAMPLES:
                examples.append({"item": items.get(item_id, ""), "original": _words(original),
                                 "probe": _words(own[probe_id]), "text": text[:EXAMPLE_CHARS]})
    share = share_with_interval(flips, counted)
    return {"kind": kind.name, "asked": asked, "n": counted, "flips": flips, "rate": share["share"],
            "rate_ci95": share["share_ci95"], "rate_ci_over": "Wilson", "examples": examples}


def probe_report(*, campaign: Campaign) -> dict | None:
    """The probes block of CAMPAIGN's report: each kind made, and for each judge that ran on them its flip rate per kind
    with n, a Wilson 95% interval (stats.interrater.share_with_interval), how many of its verdicts failed, and flipped
    examples. None when the campaign has no probes. Six queries."""
    from stats.interrater import WILSON

    spec = task_type_get(campaign.task_type)
    offered = spec.probes()
    by_kind: dict[str, dict[int, tuple[int, str]]] = {}
    for pk, item_id, kind, text in Probe.objects.filter(campaign=campaign).order_by("pk").values_list(
            "pk", "item_id", "kind", "text"):
        by_kind.setdefault(kind, {})[pk] = (item_id, text)
    if not by_kind:
        return None
    kinds = [kind for kind in offered if kind in by_kind]  # in the order the task type lists them
    verdicts: dict[int, dict[int, Verdict]] = {}
    for judge_id, probe_id, label, score in ProbeVerdict.objects.filter(probe__campaign=campaign, failed=False) \
            .values_list("judge_id", "probe_id", "label", "score"):
        verdicts.setdefault(judge_id, {})[probe_id] = (label, score)
    failed = Counter(ProbeVerdict.objects.filter(probe__campaign=campaign, failed=True)
                     .values_list("judge_id", "probe__kind"))
    ran = set(verdicts) | {judge_id for judge_id, _ in failed}
    source_items = {item for probes in by_kind.values() for item, _ in probes.values()}
    originals: dict[int, dict[int, Verdict]] = {}
    rows = (ModelJudgment.objects.filter(judge_part_filter(campaign), judge__campaign=campaign, failed=False,
                                         judge_id__in=ran, item_id__in=source_items)
            .values_list("judge_id", "item_id", "label", "score"))
    for judge_id, item_id, label, score in rows:
        originals.setdefault(judge_id, {})[item_id] = (label, score)
    items = dict(Item.objects.filter(pk__in=source_items).values_list("pk", "external_id"))

    def negative(label: str) -> bool:
        return spec.label_negative(label, campaign=campaign)

    judges = [{"name": name, "kinds": [
        {**_kind_rate(offered[kind], probes=by_kind[kind], own=verdicts.get(judge_id, {}),
                      seen=originals.get(judge_id, {}),
                      items=items, negative=negative), "failed": failed[judge_id, kind]} for kind in kinds]}
        for judge_id, name in Judge.objects.filter(pk__in=ran).order_by("name").values_list("pk", "name")]
    return {"kinds": [_kind_row(offered[kind], len(by_kind[kind])) for kind in kinds],
            "judges": judges, "ci_method": f"flip rate: the share of the probes that count that flipped; {WILSON}"}


def probes_view(*, campaign: Campaign) -> dict:
    """What the probes page and its API show: the kinds the task type offers with how many probes each has, and the
    flip rates (probe_report)."""
    counts = _probe_counts(campaign)
    offered = task_type_get(campaign.task_type).probes().values()
    return {"offered": [_kind_row(kind, counts[kind.name]) for kind in offered],
            "report": probe_report(campaign=campaign)}
