"""The kinds of disagreement that put a unit in the adjudication queue (option `adjudication`; annotate.selectors.
adjudication, docs/adjudication.md): name -> what the Options page and the queue call it, and the checks of the
options `adjudication` and `adjudication_judge`."""

from annotate.words import or_list

ADJUDICATION_HUMANS = "humans"
ADJUDICATION_JUDGE = "judge"
ADJUDICATION_JUDGES = "judges"
ADJUDICATION_KINDS = {
    ADJUDICATION_HUMANS: "the unit's human verdicts disagree with each other",
    ADJUDICATION_JUDGE: "the human label and the chosen judge (adjudication_judge) disagree",
    ADJUDICATION_JUDGES: "the campaign's judges disagree among themselves",
}
ADJUDICATION_DEFAULT = [ADJUDICATION_HUMANS]


def adjudication_check(key: str, value) -> str | None:
    if not isinstance(value, list) or not value or not all(isinstance(kind, str) for kind in value) \
            or len(set(value)) != len(value):
        return f"{key} must be a list of distinct kinds of disagreement: {or_list(list(ADJUDICATION_KINDS))}"
    unknown = [kind for kind in value if kind not in ADJUDICATION_KINDS]
    if unknown:
        return f"{key}: {unknown[0]!r} is no kind of disagreement; choose among {or_list(list(ADJUDICATION_KINDS))}"
    return None


def judge_name_check(key: str, value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"{key} must be the name of one of the campaign's judges"
    return None


def adjudication_options_problem(options: dict) -> tuple[str, str] | None:
    """The adjudication options taken together: "judge" needs the judge it compares the humans with."""
    kinds = options.get("adjudication") or ADJUDICATION_DEFAULT
    if ADJUDICATION_JUDGE in kinds and not options.get("adjudication_judge"):
        return ("adjudication_judge", "choose the judge whose disagreement with the human label puts a unit in the "
                                      "adjudication queue, or switch that kind of disagreement off")
    return None
