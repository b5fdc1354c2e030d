"""The values of the two steps (layout.py): checked, read from the annotation form, put in words. Pure functions
over a unit's topic data; spec.py calls them."""

from annotate.selectors.adjudication import adjudication_unit_view
from annotate.task_types.spec import JudgmentValueError
from tasktypes.nugget_evaluation.freeze import NuggetListError, nuggets_checked
from tasktypes.nugget_evaluation.layout import (
    MARK_LETTERS,
    MARKS,
    NUGGETS_KIND,
    ORIGIN_ADDED,
    ORIGIN_EDITED,
    ORIGIN_KEPT,
    ORIGINS,
    PARTIAL,
    SUPPORT,
    VITAL,
    list_label,
    marks_label,
    topic_lists,
)

MARK_WORDS = {SUPPORT: "supported", PARTIAL: "partly supported", "not_support": "not supported"}


def is_creation(unit) -> bool:
    return unit is not None and unit.item_id is not None and unit.item.kind == NUGGETS_KIND


def round_list(unit) -> dict | None:
    """The frozen list an assignment UNIT marks: the topic's list whose version is its answer's round."""
    round_ = (unit.item.data or {}).get("round", 1)
    return next((found for found in topic_lists(unit.topic.data) if found.get("version") == round_), None)


def creation_check(value) -> str:
    if not isinstance(value, dict) or "nuggets" not in value or not set(value) <= {"nuggets", "started_from",
                                                                                   "removed"}:
        raise JudgmentValueError('Nuggets are {"nuggets": [{"id", "text", "importance", "origin", "from"}], '
                                 '"started_from", "removed"}.')
    try:
        nuggets_checked(value["nuggets"])
    except NuggetListError as exc:
        raise JudgmentValueError(f"These nuggets cannot be kept: {exc}.") from exc
    for nugget in value["nuggets"]:
        if nugget.get("origin", ORIGIN_ADDED) not in ORIGINS:
            raise JudgmentValueError(f"A nugget's origin is added, kept or edited, not {nugget.get('origin')!r}.")
    if not isinstance(value.get("started_from", ""), str) or not isinstance(value.get("removed", []), list):
        raise JudgmentValueError("started_from is a source's name and removed a list of proposal ids.")
    return list_label(value["nuggets"])


def assignment_check(value, *, unit=None) -> str:
    if not isinstance(value, dict) or set(value) != {"version", "marks"} or not isinstance(value["marks"], dict):
        raise JudgmentValueError('Nugget marks are {"version": the list\'s version, "marks": {nugget id: '
                                 '"support", "partial_support" or "not_support"}}.')
    bad = sorted({mark for mark in value["marks"].values() if mark not in MARKS}, key=str)
    if bad:
        raise JudgmentValueError(f"A mark is support, partial_support or not_support, not {bad[0]!r}.")
    if unit is None:
        return marks_label(value["marks"], sorted(value["marks"]))
    frozen = round_list(unit)
    if frozen is None:
        raise JudgmentValueError("This topic's nuggets are not frozen yet: its answers cannot be marked.")
    if value["version"] != frozen["version"]:
        raise JudgmentValueError(f"These marks are for version {value['version']} of the topic's nuggets; the "
                                 f"answer is marked against version {frozen['version']}.")
    order = [nugget["id"] for nugget in frozen["nuggets"]]
    missing = [nugget for nugget in order if nugget not in value["marks"]]
    extra = sorted(set(value["marks"]) - set(order))
    if missing:
        raise JudgmentValueError(f"Mark every nugget: {len(missing)} of {len(order)} are not marked yet.")
    if extra:
        raise JudgmentValueError(f"No nugget {extra[0]!r} in this topic's list.")
    return marks_label(value["marks"], order)


def value_check(value, *, unit=None) -> str:
    if unit is not None:
        return creation_check(value) if is_creation(unit) else assignment_check(value, unit=unit)
    return creation_check(value) if isinstance(value, dict) and "nuggets" in value else assignment_check(value)


def proposals_of(unit) -> dict[str, list[dict]]:
    """The lists a creation UNIT may start from: the topic's proposals by source."""
    found = (unit.topic.data or {}).get("proposals") or {}
    return {source: nuggets for source, nuggets in found.items() if isinstance(nuggets, list)}


def creation_from_post(post, *, unit) -> dict:
    """The nuggets the creation form posts, in order: rows nugget_text / nugget_importance / nugget_from (a
    proposal's id, empty for one the assessor added); a row with no text is dropped. Where each came from is read
    here, not posted: kept when its text is the proposal's, edited when not, added without a proposal."""
    started = post.get("started_from", "")
    proposals = {nugget["id"]: nugget for nugget in proposals_of(unit).get(started, [])} if started else {}
    texts, importances, origins = (post.getlist(name) for name in ("nugget_text", "nugget_importance", "nugget_from"))
    nuggets: list[dict] = []
    used: set[str] = set()
    for n, text in enumerate(texts):
        text = " ".join(text.split())
        if not text:
            continue
        importance = importances[n] if n < len(importances) else ""
        source = origins[n] if n < len(origins) else ""
        proposal = proposals.get(source)
        if proposal is None:
            origin, source = ORIGIN_ADDED, None
        else:
            origin = ORIGIN_KEPT if " ".join(proposal["text"].split()) == text else ORIGIN_EDITED
            used.add(source)
        nuggets.append({"id": f"n{len(nuggets) + 1}", "text": text, "importance": importance, "origin": origin,
                        "from": source})
    if not nuggets:
        raise JudgmentValueError("Write at least one nugget.")
    return {"nuggets": nuggets, "started_from": started if proposals else "",
            "removed": [pid for pid in proposals if pid not in used]}


def rater_list(*, unit, adjudicator, letter: str) -> dict:
    """The creation value of the rater lettered LETTER on UNIT, lettered as the adjudication page shows them to
    ADJUDICATOR (annotate.selectors.adjudication.adjudication_unit_view): the list an adjudicator keeps."""
    raters = adjudication_unit_view(unit=unit, adjudicator=adjudicator)["raters"]
    by_letter = {row["rater"].removeprefix("Rater "): row["value"] for row in raters}
    chosen = by_letter.get(letter.strip().upper())
    if not isinstance(chosen, dict):
        raise JudgmentValueError(f"Name the rater whose list to keep: {', '.join(by_letter) or 'no rater yet'}.")
    return chosen


def assignment_from_post(post, *, unit) -> dict:
    """The marks the assignment form posts: one radio group mark:<nugget id> per nugget of the unit's list."""
    frozen = round_list(unit)
    if frozen is None:
        raise JudgmentValueError("This topic's nuggets are not frozen yet: its answers cannot be marked.")
    marks = {nugget["id"]: post.get(f"mark:{nugget['id']}") for nugget in frozen["nuggets"]
             if post.get(f"mark:{nugget['id']}")}
    return {"version": frozen["version"], "marks": marks}


def value_from_post(post, *, unit) -> dict:
    return creation_from_post(post, unit=unit) if is_creation(unit) else assignment_from_post(post, unit=unit)


def value_words(value) -> str:
    if isinstance(value, dict) and isinstance(value.get("nuggets"), list):
        vital = sum(1 for nugget in value["nuggets"] if isinstance(nugget, dict) and nugget.get("importance") == VITAL)
        return f"{len(value['nuggets'])} nuggets, {vital} vital"
    if isinstance(value, dict) and isinstance(value.get("marks"), dict):
        marks = [mark for mark in value["marks"].values() if mark in MARKS]
        letters = " ".join(MARK_LETTERS[mark] for mark in marks)
        return f"{letters} ({', '.join(f'{marks.count(mark)} {MARK_WORDS[mark]}' for mark in MARKS)})"
    return "marks this page cannot show"
