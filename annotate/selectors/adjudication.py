"""Reads for adjudication: the queue of units whose verdicts disagree, and what the adjudication page shows of one.

The queue holds the units with a disagreement of a kind the campaign's option `adjudication` switches on (humans,
judge, judges: annotate.adjudication_kinds.ADJUDICATION_KINDS) and no current adjudication yet; adjudicated units are
listed apart. The task type says how a unit's verdicts disagree (TaskTypeSpec.adjudication_disagreement): the entropy of
the
votes for items, 1 - the mean pairwise Kendall tau-b for ranked topics. Most disagreement first, then the judges'
confidence (highest first: a confident judge that contradicts is the strongest sign), then the queue position.

Blind rules: an adjudicator who is also an annotator of the campaign is never offered a unit still open to them as an
annotator (annotate.selectors.annotation.units_open_to); a unit they adjudicated is no longer open to them.

A fixed number of queries whatever the campaign's size: flat values_list reads, grouped in Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.http import Http404

from annotate.adjudication_kinds import ADJUDICATION_DEFAULT, ADJUDICATION_JUDGE, ADJUDICATION_KINDS
from annotate.models import Campaign, HumanJudgment, JudgmentKind, Membership, Role, Unit
from annotate.selectors.annotation import letter_label, units_open_to
from annotate.task_types.registry import task_type_get
from annotate.task_types.spec import JudgeVerdict, view_assignment

# A judge's score from 0 to 1 is compared with its threshold (its configuration's, else this).
DEFAULT_THRESHOLD = 0.5


def judge_confidence(score: float | None, threshold=None, *, label: str = "") -> float | None:
    """A judge's confidence in a verdict, from 0 (its score on the threshold) to 1 (its score at 0 or 1): the distance
    of a score from 0 to 1 from the judge's threshold (DEFAULT_THRESHOLD unless its configuration sets one), over the
    farthest the score could be on that side. A score of 1.000 at threshold 0.5 is 1, not the bare distance 0.5. For
    an LLM judge, whose score is the share of its samples that gave the winning verdict, 1 is a unanimous vote and 0
    an even split. None for no score, a score outside [0, 1], or a verdict without a LABEL: a ranker's bare score (a
    BM25 score that happens to lie between 0 and 1 included) is no verdict and says nothing of a confidence."""
    if not label or score is None or not math.isfinite(score) or not 0.0 <= score <= 1.0:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        threshold = DEFAULT_THRESHOLD
    score, threshold = float(score), float(threshold)
    room = 1.0 - threshold if score >= threshold else threshold  # 0 only for a score on a threshold of 0 or 1
    return abs(score - threshold) / room if room else 0.0


@dataclass
class QueueEntry:
    unit_id: int
    position: int
    label: str  # what the unit is called in the queue: its topic's and item's external ids
    kinds: list[str]
    score: float
    confidence: float | None
    adjudicated_by: str = ""  # for adjudicated units: who gave the current adjudication, and when
    adjudicated_at: object = None
    note: str = ""

    @property
    def kind_words(self) -> str:
        return "; ".join(ADJUDICATION_KINDS[kind] for kind in self.kinds)


@dataclass
class AdjudicationQueue:
    kinds: list[str]
    judge: str | None
    waiting: list[QueueEntry] = field(default_factory=list)
    adjudicated: list[QueueEntry] = field(default_factory=list)
    # Why the queue may be shorter than it looks: a judge named in the options that the campaign lacks, and the units
    # left out because they are still open to the adjudicator as an annotator.
    judge_missing: bool = False
    held_back: int = 0

    @property
    def next(self) -> QueueEntry | None:
        return self.waiting[0] if self.waiting else None


def adjudication_settings(campaign: Campaign) -> tuple[list[str], str | None]:
    """(kinds switched on, the judge of kind "judge") from the campaign's options, with their defaults."""
    options = campaign.options or {}
    kinds = [kind for kind in options.get("adjudication") or ADJUDICATION_DEFAULT if kind in ADJUDICATION_KINDS]
    judge = options.get("adjudication_judge") if ADJUDICATION_JUDGE in kinds else None
    return kinds, judge or None


def judge_verdicts(campaign: Campaign) -> tuple[dict[str, dict[int, JudgeVerdict]], dict[int, int]]:
    """{judge name: {item: its verdict}} of the campaign's judges (failed verdicts left out) and {item: topic}. Two
    queries (judges.models, read through the campaign's `judges`)."""
    judges = {pk: (name, config or {}) for pk, name, config in campaign.judges.values_list("id", "name", "config")}
    verdicts: dict[str, dict[int, JudgeVerdict]] = {name: {} for name, _ in judges.values()}
    item_topic: dict[int, int] = {}
    rows = campaign.judges.filter(judgments__failed=False).values_list(
        "id", "judgments__item_id", "judgments__item__topic_id", "judgments__label", "judgments__score")
    for judge_id, item_id, topic_id, label, score in rows:
        name, config = judges[judge_id]
        item_topic[item_id] = topic_id
        verdicts[name][item_id] = JudgeVerdict(label=label or "", score=score,
                                               confidence=judge_confidence(score, config.get("threshold"),
                                                                           label=label or ""))
    return verdicts, item_topic


def _is_annotator(campaign: Campaign, person) -> bool:
    if getattr(campaign, "roles_of", None) == person.pk:  # looked up with the campaign (annotate.access)
        return campaign.is_annotator
    return Membership.objects.filter(campaign=campaign, user=person, role=Role.ANNOTATOR).exists()


def units_held_back(*, campaign: Campaign, adjudicator) -> set[int]:
    """The units ADJUDICATOR may not adjudicate because they are still open to them as an annotator (blind)."""
    if adjudicator is None or not _is_annotator(campaign, adjudicator):
        return set()
    return set(units_open_to(campaign=campaign, annotator=adjudicator).values_list("pk", flat=True))


def adjudication_queue(*, campaign: Campaign, adjudicator=None) -> AdjudicationQueue:
    """The units of CAMPAIGN waiting for adjudication, most disagreement first, and those adjudicated already (most
    recent first), as ADJUDICATOR may see them (None: everyone's view, no unit held back). Five or six queries."""
    spec = task_type_get(campaign.task_type)
    kinds, judge = adjudication_settings(campaign)
    queue = AdjudicationQueue(kinds=kinds, judge=judge)
    units = {pk: (item_id, topic_id, position, needed, topic_key, item_key) for
             pk, item_id, topic_id, position, needed, topic_key, item_key in
             Unit.objects.filter(campaign=campaign).values_list("id", "item_id", "topic_id", "position",
                                                                "judgments_needed", "topic__external_id",
                                                                "item__external_id")}
    humans: dict[int, list[tuple[str, object]]] = {}
    adjudications: dict[int, tuple] = {}
    rows = HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).values_list(
        "unit_id", "kind", "label", "value", "annotator__username", "created_at", "note").order_by("created_at", "id")
    for unit_id, kind, label, value, username, created_at, note in rows:
        if kind == JudgmentKind.ADJUDICATION:
            adjudications[unit_id] = (username, created_at, note)  # the most recent current adjudication wins
        else:
            humans.setdefault(unit_id, []).append((label, value))
    verdicts, item_topic = judge_verdicts(campaign)
    queue.judge_missing = judge is not None and judge not in verdicts
    by_target: dict[int, dict[str, dict[int, JudgeVerdict]]] = {}  # item (or topic, for topic units) -> judges
    topic_units = {topic_id for item_id, topic_id, *_ in units.values() if item_id is None}
    for name, by_item in verdicts.items():
        for item_id, verdict in by_item.items():
            target = -item_topic[item_id] if item_topic[item_id] in topic_units else item_id
            by_target.setdefault(target, {}).setdefault(name, {})[item_id] = verdict
    held = units_held_back(campaign=campaign, adjudicator=adjudicator)
    for unit_id, (item_id, topic_id, position, needed, topic_key, item_key) in units.items():
        target = item_id if item_id is not None else -topic_id
        found = spec.adjudication_disagreement(humans=humans.get(unit_id, []), judges=by_target.get(target, {}),
                                               kinds=kinds, judge=judge, needed=needed)
        adjudicated = adjudications.get(unit_id)
        if found is None and adjudicated is None:
            continue
        if unit_id in held:
            queue.held_back += 1
            continue
        entry = QueueEntry(unit_id=unit_id, position=position, label=item_key or topic_key,
                           kinds=found["kinds"] if found else [], score=found["score"] if found else 0.0,
                           confidence=found["confidence"] if found else None)
        if adjudicated is None:
            queue.waiting.append(entry)
        else:
            entry.adjudicated_by, entry.adjudicated_at, entry.note = adjudicated
            queue.adjudicated.append(entry)
    queue.waiting.sort(key=lambda e: (-e.score, -(e.confidence or 0.0), e.position, e.unit_id))
    queue.adjudicated.sort(key=lambda e: (e.adjudicated_at, e.unit_id), reverse=True)
    return queue


def adjudication_unit_get(*, campaign: Campaign, unit_id) -> Unit:
    """Unit UNIT_ID of CAMPAIGN with its topic and item; Http404 for another campaign's or a malformed id."""
    try:
        return Unit.objects.select_related("campaign", "topic", "item").get(pk=int(unit_id), campaign=campaign)
    except (Unit.DoesNotExist, TypeError, ValueError):
        raise Http404("No such unit.") from None


def adjudication_unit_view(*, unit: Unit, adjudicator) -> dict:
    """What the adjudication page (and the API) shows of UNIT to ADJUDICATOR.

    {"unit": the task type's display, "raters": [{"rater": "Rater A", "words", "label", "value", "source"}],
     "judges": [{"name", "family", "words", "label", "score", "samples": [texts]}], "current": the current
     adjudication or None, "history": earlier adjudications}. Raters are lettered by who judged the unit first (their
    first version), so a rater's letter on a unit stays the same when they change their verdict; no name is shown.
    """
    spec = task_type_get(unit.campaign.task_type)
    seen = view_assignment(unit=unit, person=adjudicator)
    rows = list(HumanJudgment.objects.filter(unit=unit).values_list(
        "annotator_id", "kind", "value", "label", "source", "is_current", "created_at", "note", "annotator__username",
        "version").order_by("created_at", "id"))
    order: list[int] = []
    raters = []
    for annotator_id, kind, *_ in rows:
        if kind == JudgmentKind.ANNOTATION and annotator_id not in order:
            order.append(annotator_id)
    for annotator_id, kind, value, label, source, current, *_ in rows:
        if kind == JudgmentKind.ANNOTATION and current:
            raters.append({"rater": f"Rater {letter_label(order.index(annotator_id))}", "label": label,
                           "value": value, "words": spec.value_words(value, assignment=seen), "source": source})
    raters.sort(key=lambda row: (len(row["rater"]), row["rater"]))
    adjudications = [{"by": username, "words": spec.value_words(value, assignment=seen), "value": value,
                      "label": label, "note": note, "at": created_at, "version": version, "is_current": current}
                     for annotator_id, kind, value, label, source, current, created_at, note, username, version in rows
                     if kind == JudgmentKind.ADJUDICATION]
    current = [row for row in adjudications if row["is_current"]]
    item_ids = [unit.item_id] if unit.item_id else None
    judges = {pk: (name, family, config or {}) for pk, name, family, config in
              unit.campaign.judges.order_by("name").values_list("id", "name", "family", "config")}
    # One filter(): the conditions hold for the same verdict (separate filter() calls would join it twice).
    on_unit = {"judgments__item_id__in": item_ids} if item_ids else {"judgments__item__topic_id": unit.topic_id}
    verdict_rows = unit.campaign.judges.filter(judgments__failed=False, **on_unit)
    by_judge: dict[int, dict[int, JudgeVerdict]] = {}
    for judge_id, item_id, label, score in verdict_rows.values_list("id", "judgments__item_id", "judgments__label",
                                                                    "judgments__score"):
        by_judge.setdefault(judge_id, {})[item_id] = JudgeVerdict(
            label=label or "", score=score,
            confidence=judge_confidence(score, judges[judge_id][2].get("threshold"), label=label or ""))
    samples: dict[int, list[str]] = {}
    if item_ids:
        for judge_id, text in unit.campaign.judges.filter(llm_samples__item_id__in=item_ids).order_by(
                "id", "llm_samples__index").values_list("id", "llm_samples__text"):
            samples.setdefault(judge_id, []).append(text)
    judge_rows = []
    for pk, (name, family, _) in judges.items():
        verdicts = by_judge.get(pk, {})
        single = next(iter(verdicts.values())) if item_ids and verdicts else None
        judge_rows.append({"name": name, "family": family, "judged": bool(verdicts),
                           "words": spec.adjudication_judge_words(verdicts, unit=unit, adjudicator=adjudicator)
                           if verdicts else "no verdict",
                           "label": single.label if single else None, "score": single.score if single else None,
                           "confidence": single.confidence if single else None, "samples": samples.get(pk, [])})
    return {"unit": spec.adjudication_display(unit=unit, adjudicator=adjudicator), "raters": raters,
            "judges": judge_rows, "current": current[-1] if current else None,
            "adjudications": adjudications, "questions": spec.adjudication_questions(unit.campaign)}
