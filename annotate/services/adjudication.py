"""Adjudication: the verdict that settles a unit whose verdicts disagree, stored beside the originals.

An adjudication is a HumanJudgment of kind adjudication (source web, the adjudicator's note in `note`). It never
replaces an annotation, never counts in Unit.judgments_done and never takes an overlap slot. Adjudicating a unit again
adds a version (the constraint judgment_one_current keeps one current per unit, adjudicator and kind). When several
adjudicators settle the same unit, the most recent current adjudication is the unit's label (reports.selectors).
"""

from django.db import transaction

from annotate.models import HumanJudgment, JudgmentKind, JudgmentSource, Unit
from annotate.selectors.adjudication import units_held_back
from annotate.selectors.campaigns import guidelines_current_id
from annotate.services.annotation import judgment_value_check
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.spec import JudgmentError

NOTE_MAX_CHARS = 5000


def adjudication_submit(*, unit: Unit, adjudicator, value, note: str = "") -> HumanJudgment:
    """Record ADJUDICATOR's verdict VALUE on UNIT with NOTE; returns the current adjudication.

    The caller has checked that ADJUDICATOR may adjudicate UNIT's campaign (annotate.access.campaign_for_adjudicator).
    VALUE is checked as an annotation is (the task type's value_check; JudgmentValueError in words). A unit still open
    to ADJUDICATOR as an annotator is refused (JudgmentError): they would judge it knowing the others' verdicts. The
    same value and note again records nothing new. Opens its own transaction and locks the unit.
    """
    note = (note or "").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise JudgmentError(f"The note is {len(note)} characters long; keep it under {NOTE_MAX_CHARS}.")
    label = judgment_value_check(task_type=unit.campaign.task_type, value=value, unit=unit)
    if unit.pk in units_held_back(campaign=unit.campaign, adjudicator=adjudicator):
        raise JudgmentError("This unit is still open to you as an annotator: judge it on the annotation page first, "
                            "or leave it to another adjudicator.")
    with transaction.atomic():
        Unit.objects.select_for_update().filter(pk=unit.pk).first()
        current = (HumanJudgment.objects.select_for_update()
                   .filter(unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION, is_current=True).first())
        if current is not None:
            if current.value == value and current.note == note:
                return current
            HumanJudgment.objects.filter(pk=current.pk).update(is_current=False)
        version = (current.version if current else 0) + 1
        if current is None:
            # An earlier adjudication may have been made current no more by an import; versions go on from the last.
            last = (HumanJudgment.objects.filter(unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION)
                    .order_by("-version").values_list("version", flat=True).first())
            version = (last or 0) + 1
        judgment = HumanJudgment.objects.create(
            unit=unit, annotator=adjudicator, kind=JudgmentKind.ADJUDICATION, source=JudgmentSource.WEB, value=value,
            label=label, version=version, is_current=True, note=note,
            guidelines_id=guidelines_current_id(unit_id=unit.pk))
        campaign_data_changed(campaign_id=unit.campaign_id)
    return judgment
