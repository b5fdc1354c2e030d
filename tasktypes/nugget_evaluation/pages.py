"""What the annotation page shows of a nugget_evaluation unit (spec.unit_context): for a creation unit the topic, its
passages, the nuggets so far (the assessor's own, a draft, or a proposal started from) and the proposals on offer;
for an assignment unit the answer's sentences with their cited segments, and the frozen nuggets with the marks so
far. Blind: no run's name, no judge's name beside a proposal, no one else's marks."""

from tasktypes.nugget_evaluation.layout import MARK_LETTERS, MARKS
from tasktypes.nugget_evaluation.values import MARK_WORDS, is_creation, proposals_of, round_list


def _proposal_names(unit) -> list[tuple[str, str]]:
    """The proposals' sources as (source, the name the page shows): "List 1", "List 2" (a judge's name is not
    shown, so an assessor does not know whose list they start from)."""
    return [(source, f"List {n}") for n, source in enumerate(sorted(proposals_of(unit)), start=1)]


def unit_context(*, assignment, display: dict, arrangement=None) -> dict:
    unit = assignment.unit
    shown = arrangement if arrangement is not None else (display.get("own_value") or assignment.draft or None)
    if is_creation(unit):
        return {**display, **_creation(unit=unit, shown=shown if isinstance(shown, dict) else None)}
    return {**display, **_assignment(unit=unit, shown=shown if isinstance(shown, dict) else None)}


def _creation(*, unit, shown: dict | None) -> dict:
    data = unit.topic.data or {}
    nuggets = [n for n in (shown or {}).get("nuggets") or [] if isinstance(n, dict)]
    proposals = proposals_of(unit)
    return {"step": "creation", "passages": data.get("passages") or [],
            "nuggets": [{"text": n.get("text", ""), "importance": n.get("importance", ""), "from": n.get("from") or ""}
                        for n in nuggets],
            "started_from": (shown or {}).get("started_from", ""),
            "proposals": [{"source": source, "name": name, "nuggets": proposals[source]}
                          for source, name in _proposal_names(unit)]}


def _assignment(*, unit, shown: dict | None) -> dict:
    frozen = round_list(unit)
    data = unit.item.data or {}
    segments = data.get("segments") or {}
    sentences = [{"text": s.get("text", ""), "citations": [{"id": c, "text": segments.get(str(c), "")}
                                                          for c in s.get("citations") or []]}
                 for s in data.get("sentences") or [] if isinstance(s, dict)]
    marks = (shown or {}).get("marks") or {}
    nuggets = [{**nugget, "mark": marks.get(nugget["id"], "")} for nugget in (frozen or {}).get("nuggets") or []]
    return {"step": "assignment", "sentences": sentences, "nuggets": nuggets,
            "version": (frozen or {}).get("version"), "frozen": frozen is not None,
            "mark_choices": [{"value": mark, "key": MARK_LETTERS[mark], "words": MARK_WORDS[mark]} for mark in MARKS]}
