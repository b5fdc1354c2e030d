"""The registry of task types: what differs between them is asked of their spec, never branched on by name.

Each task type is one module of the `tasktypes` package (one class, a subclass of TaskTypeSpec) that registers
itself when Django starts (tasktypes.apps). Core code (campaigns, annotation, imports, reports) calls
`task_type_get(campaign.task_type)` and uses the hooks below; a test (tests/test_task_type_registry.py) keeps
branches on a task type's name out of the core.
"""

from collections import Counter
from collections.abc import Callable, Collection
from typing import NamedTuple

from django.utils.module_loading import import_string

UNIT_ITEM = "item"  # one human verdict per item
UNIT_TOPIC = "topic"  # one human verdict (a ranking) per topic, over all its items

TIE = None  # an item whose current annotations split evenly has no human label
OPEN = ""  # nor has an item whose annotations are still coming and could yet change its majority


def majority_label(labels: list[str], *, needed: int) -> str | None:
    """The human label of an item from its current annotation LABELS, k = NEEDED of which are wanted.

    With all k in (or more), the majority, or TIE when the top labels tie. With fewer, the leading label
    only once it is decided: when even if every missing annotation went to the runner-up, the leader would
    still lead (2 of 3 agreeing decides; 1 of 3, or 1 of 2, does not); else OPEN. The same rule for every
    task type whose units are items.
    """
    if labels.count(labels[0]) == len(labels) and len(labels) >= needed:
        return labels[0]
    ranked = Counter(labels).most_common()
    top, top_count = ranked[0]
    second_count = ranked[1][1] if len(ranked) > 1 else 0
    missing = max(0, needed - len(labels))
    if missing == 0:
        return TIE if second_count == top_count else top
    return top if second_count + missing < top_count else OPEN


def or_list(words: list[str]) -> str:
    """"0, 1 or 2": how messages and prompts list a scale's grades (task types, imports, judges)."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


# The shapes of agreement report (the report document's "layout"): what its page, CSVs, plots and text show.
# Task types share a layout where their reports have the same shape.
LAYOUT_VERDICTS = "verdicts"  # yes/no verdicts on items, systems by accuracy
LAYOUT_ATTRIBUTION = "attribution"  # verdicts, plus per-question rater agreement and disagreements
LAYOUT_RANKING = "ranking"  # per-topic rankings, tau-b per topic and dimension
LAYOUT_GRADES = "grades"  # graded relevance of pooled items, runs scored under each source's qrels

# Options every task type takes (the report's coverage rules, reports.system_level and reports.verdicts).


def _whole_number(key: str, value) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return f"{key} must be a whole number, at least 1"
    return None


def _share(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        return f"{key} must be a share from 0 to 1"
    return None


def _width(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 2:
        return f"{key} must be an interval width greater than 0 and at most 2 (e.g. 0.1)"
    return None


def _persistence(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 1:
        return f"{key} must be a number strictly between 0 and 1, e.g. 0.9"
    return None


def _yes_no(key: str, value) -> str | None:
    if not isinstance(value, bool):
        return f"{key} must be true or false"
    return None


# An assistance experiment (annotate.services.arms): the campaign's arms, each "blind" or "assisted:JUDGE".
ARM_BLIND = "blind"
ARM_ASSISTED = "assisted:"
ARM_ASSIGNMENTS = {
    "random": "each annotator (or unit) drawn into an arm at random",
    "balanced": "into the arm with the fewest annotators (or units) so far, ties at random",
    "researcher": "the researcher puts each annotator in an arm on the People page",
}
# The order in which open units are offered to annotators (option queue_order; annotate.services.queue_order).
QUEUE_ORDERS = {
    "position": "in the order the units were imported",
    "informative": "first the units the judges disagree on most, then those they are least sure of",
}
ARM_PER = {
    "annotator": "an annotator stays in one arm for the whole campaign",
    "unit": "each unit an annotator is given is put in an arm of its own",
}


def arm_judge(arm: str) -> str | None:
    """The judge an arm shows ("assisted:JUDGE" -> "JUDGE"); None for blind."""
    return arm[len(ARM_ASSISTED):] if arm.startswith(ARM_ASSISTED) else None


def _arms(key: str, value) -> str | None:
    if not isinstance(value, list) or not value or not all(isinstance(arm, str) for arm in value):
        return f'{key} must be a list of arms, e.g. ["blind", "assisted:JUDGE"]'
    for arm in value:
        if arm != ARM_BLIND and not (arm.startswith(ARM_ASSISTED) and arm[len(ARM_ASSISTED):].strip()):
            return (f'{arm!r} is not an arm: an arm is "blind" or "assisted:" followed by the name of a judge of '
                    f'the campaign, e.g. "assisted:gpt-4"')
        if len(arm) > 120:
            return f"{arm[:40]!r}... is too long for an arm (at most 120 characters)"
    if len(set(value)) != len(value):
        return f"{key} names an arm twice"
    if len(value) < 2:
        return f"{key} needs two arms or more to compare (e.g. blind and an assisted arm)"
    return None


def _choice(choices: dict[str, str]) -> Callable[[str, object], str | None]:
    def check(key: str, value) -> str | None:
        if value not in choices:
            return f"{key} is one of {or_list(list(choices))}, not {value!r}"
        return None
    return check


# The kinds of disagreement that put a unit in the adjudication queue (option adjudication; annotate.selectors.
# adjudication): name -> what the Options page and the queue call it.
ADJUDICATION_HUMANS = "humans"
ADJUDICATION_JUDGE = "judge"
ADJUDICATION_JUDGES = "judges"
ADJUDICATION_KINDS = {
    ADJUDICATION_HUMANS: "the unit's human verdicts disagree with each other",
    ADJUDICATION_JUDGE: "the human label and the chosen judge (adjudication_judge) disagree",
    ADJUDICATION_JUDGES: "the campaign's judges disagree among themselves",
}
ADJUDICATION_DEFAULT = [ADJUDICATION_HUMANS]


def _adjudication(key: str, value) -> str | None:
    if not isinstance(value, list) or not value or not all(isinstance(kind, str) for kind in value) \
            or len(set(value)) != len(value):
        return f"{key} must be a list of distinct kinds of disagreement: {or_list(list(ADJUDICATION_KINDS))}"
    unknown = [kind for kind in value if kind not in ADJUDICATION_KINDS]
    if unknown:
        return f"{key}: {unknown[0]!r} is no kind of disagreement; choose among {or_list(list(ADJUDICATION_KINDS))}"
    return None


def _judge_name(key: str, value) -> str | None:
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


COMMON_OPTIONS: dict[str, Callable[[str, object], str | None]] = {
    "min_system_outputs": _whole_number,
    "small_sample": _whole_number,
    "min_system_coverage": _share,
    # Ranking agreement at the top (stats.rank_agreement): RBO's persistence, and k of overlap@k and tau-b@k.
    "rbo_p": _persistence,
    "top_k": _whole_number,
    # After an import that adds items, start each configured judge on them (tasktypes.jobs).
    "judge_new_items": _yes_no,
    # The assistance experiment (docs/arms.md; annotate.services.arms, reports.arms).
    "arms": _arms,
    "arm_assignment": _choice(ARM_ASSIGNMENTS),
    "arm_per": _choice(ARM_PER),
    # What puts a unit in the adjudication queue (annotate.selectors.adjudication), and the judge of kind "judge".
    "adjudication": _adjudication,
    "adjudication_judge": _judge_name,
    # The labelling budget (stats.budget): the interval width it counts labels towards, and the queue order.
    "budget_width": _width,
    "queue_order": _choice(QUEUE_ORDERS),
}


class JudgeVerdict(NamedTuple):
    """A judge's verdict on one item as the adjudication queue and page read it (annotate.selectors.adjudication):
    its label ("" when it gave none: a ranker's bare score), its score, and its confidence (stats.disagreement.
    judge_confidence; None when its score says nothing of it)."""

    label: str
    score: float | None
    confidence: float | None


def view_assignment(*, unit, person):
    """An unsaved Assignment of UNIT to PERSON: what the annotation page's hooks (unit_context, value_from_post,
    value_words) take, for pages that show a unit without a lease (the adjudication page)."""
    from annotate.models import Assignment

    return Assignment(unit=unit, annotator=person, leased_at=None, expires_at=None)


class TaskTypeSpec:
    """Everything that differs between task types. Subclasses set the attributes and override the hooks."""

    name: str = ""
    # The unit of human work: UNIT_ITEM or UNIT_TOPIC.
    unit: str = UNIT_ITEM
    # Human judgments per unit (k) of a new campaign when none is asked for.
    default_overlap: int = 1
    # Options of this task type only: name -> check(name, value) giving the problem, or None when fine.
    options: dict[str, Callable[[str, object], str | None]] = {}
    # The form of the campaign's options (a subclass of annotate.forms.CampaignOptionsForm, one field per option):
    # the Options page shows it, and the API checks its JSON through it. Every registered type declares one.
    options_form: type | None = None
    # The annotation page and the fragment htmx swaps in.
    page: tuple[str, str] = ("annotate/annotate.html", "annotate/_unit.html")
    # What an annotator's judgment is called on the page ("verdict", "grade", "ranking").
    noun: str = "verdict"
    # What the pages call a topic's text, in the task type's own words ("question", "query"): the heading over it
    # where a core page shows it (the adjudication page).
    topic_noun: str = "question"
    # The import formats that feed this task type (tasktypes.importers.service runs them), and the import page's
    # help for the formats that mean something of their own here (the others have the page's general help).
    import_formats: tuple[str, ...] = ()
    format_help: dict[str, str] = {}
    # The importer, a dotted path to a function(*, campaign, fmt, paths, system, judge, score_judge, depth, tag,
    # summary) that runs this task type's formats inside the import's transaction (tasktypes.importers.service).
    importer: str = ""
    # The ImportSummary method that words an import's summary for this task type.
    import_lines: str = "verdict_lines"
    # What the items of a pooled task type are: Item.kind and what the pages call one (tasktypes.graded).
    item_kind: str = ""
    item_noun: str = "item"
    # Whether trec-run files are pooled to a depth into items to judge (rather than read as a judge's scores).
    pools_runs: bool = False
    # Judge families that can judge this task type beside those whose own `task_types` name it
    # (judges.families.families_for lists both).
    judge_families: tuple[str, ...] = ()
    # The report builder, a dotted path to a function(*, campaign) -> dict (agreement.report calls it), and the
    # layout of the document it builds.
    report_builder: str = ""
    report_layout: str = LAYOUT_VERDICTS
    # How the arms report (reports.arms) compares this type's arm_keys: "labels" (equal or not; a unit's
    # reference is the blind majority) or "rankings" (Kendall's tau-b; the most typical blind ranking).
    arm_comparison: str = "labels"
    # The report's adjudication block (reports.adjudication), unless the report builder gave it: a dotted path
    # to a function(*, campaign) -> dict.
    adjudication_report_builder: str = "reports.adjudication.adjudication_items_build"
    # How a unit's verdicts disagree (adjudication_disagreement): a dotted path to a pure function of the statistics
    # floor (stats.disagreement), imported when a queue is ordered, not with the registry (scipy is a start-up cost).
    adjudication_rule: str = "stats.disagreement.items_disagreement"

    def value_check(self, value, *, unit=None) -> str:
        """Check a submitted VALUE (JudgmentValueError when malformed) and return its label for agreement.

        UNIT is the unit judged, for task types whose values depend on it."""
        raise NotImplementedError

    def value_from_post(self, post, *, assignment) -> dict:
        """The value a form POST stands for; only translated here, value_check judges it."""
        raise NotImplementedError

    def value_words(self, value, *, assignment) -> str:
        """VALUE as the annotation page words a verdict, e.g. "not correct" (the choice offered when another tab
        judged the unit meanwhile); its label by default."""
        from annotate.services.annotation import JudgmentValueError

        try:
            return self.value_check(value, unit=assignment.unit)
        except JudgmentValueError:
            return "a verdict this page cannot show"

    def draft_from_post(self, post, *, assignment) -> dict:
        """The draft a form POST keeps (JudgmentValueError for task types that keep no drafts)."""
        from annotate.services.annotation import JudgmentValueError

        raise JudgmentValueError(f"Drafts are not kept for {self.name} units.")

    def judge_context(self, campaign) -> dict:
        """What a judge family that asks for it (judges.families.base.JudgeFamily.uses_task_context) is told of
        CAMPAIGN beside its items (a graded type's scale); {} by default."""
        return {}

    def judge_input_missing(self, *, text: str, data: dict) -> str | None:
        """Why a model judge cannot judge an item with TEXT and DATA yet (its verdict fails with this reason, and
        "retry failed items" judges it later); None when it can."""
        return None

    def unit_gradable(self, unit) -> None:
        """Refuse (JudgmentValueError) a browser verdict on a unit whose content the annotator cannot see."""

    def page_context(self, campaign) -> dict:
        """What the annotation page needs of the campaign beside the unit (a graded type's scale); {} by default."""
        return {}

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """What the annotation page shows of ASSIGNMENT's unit; ARRANGEMENT is a refused value to show again."""
        from annotate.selectors.annotation import unit_display

        return unit_display(assignment=assignment)

    def human_label(self, labels: list[str], *, needed: int) -> str | None:
        """An item's human label from its current annotation LABELS, k = NEEDED wanted; TIE or OPEN when there is
        none yet (reports.selectors asks it). The majority rule unless a task type has its own. LABELS come in no
        particular order, and the answer may depend only on how many of each there are: the report asks once per
        distinct tally, not once per item."""
        return majority_label(labels, needed=needed)

    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """{unit id: value} for UNITS of CAMPAIGN (every unit when None): the value, in this task type's value format
        (value_check accepts it), that JUDGE's (a judges.models.Judge of the campaign) verdict on the unit stands
        for, as an assisted arm shows it pre-selected and the arms report compares with it. Units the judge has no
        readable verdict on are left out. A fixed number of queries whatever the number of units. {} by default."""
        return {}

    def suggestion(self, *, unit, judge) -> dict | None:
        """The suggestion an assisted arm shows on UNIT (see suggestions); None when JUDGE has no verdict on it."""
        return self.suggestions(campaign=unit.campaign, judge=judge, units=[unit]).get(unit.pk)

    def arm_key(self, value):
        """What the arms report (reports.arms) compares of a VALUE: its label by default (a ranking type:
        its order); None when the value cannot be read."""
        from annotate.services.annotation import JudgmentValueError

        try:
            return self.value_check(value, unit=None)
        except JudgmentValueError:
            return None

    def option_problem(self, key: str, value) -> str | None:
        """What is wrong with VALUE for option KEY of a campaign of this type; None when it is fine."""
        check = self.options.get(key) or COMMON_OPTIONS.get(key)
        if check is None:
            owners = [spec.name for spec in _REGISTRY.values() if key in spec.options]
            if owners:
                verb = "apply" if key.endswith("s") else "applies"  # "ties apply", "bias_tag applies"
                return f"{key} {verb} to {', '.join(owners)} campaigns"
            known = sorted({*COMMON_OPTIONS, *(name for spec in _REGISTRY.values() for name in spec.options)})
            return f"unknown option (known: {', '.join(known)})"
        return check(key, value)

    def options_problem(self, campaign, options: dict) -> tuple[str, str] | None:
        """What is wrong with a campaign's OPTIONS taken together (each value passed option_problem): the option it
        concerns and the problem; None when fine."""
        return None

    def report_build(self, *, campaign) -> dict:
        report = import_string(self.report_builder)(campaign=campaign)
        report["layout"] = self.report_layout
        if "adjudication" not in report:  # builders that have read the labels already add it without a query more
            report["adjudication"] = import_string(self.adjudication_report_builder)(campaign=campaign)
        arms = import_string("reports.arms.arms_report_build")(campaign=campaign)
        if arms is not None:  # an assistance experiment (option arms): how its arms compare
            report["arms"] = arms
        return report

    # --- Adjudication (annotate.selectors.adjudication, annotate.services.adjudication, docs/adjudication.md) ---

    def adjudication_disagreement(self, *, humans: list[tuple[str, object]], judges: dict[str, dict[int, JudgeVerdict]],
                                  kinds: Collection[str], judge: str | None, needed: int) -> dict | None:
        """How a unit's verdicts disagree, for the adjudication queue: {"kinds": the enabled KINDS found, "score": how
        much (higher: more), "confidence": the judges' confidence behind it (None: none known)}; None when no enabled
        kind is found. HUMANS are the unit's current annotations as (label, value); JUDGES the judges' verdicts on its
        items by judge name; JUDGE the judge of kind "judge"; NEEDED the unit's k. The task type's
        adjudication_rule computes it (stats.disagreement: the entropy of the votes for items)."""
        return import_string(self.adjudication_rule)(humans=humans, judges=judges, kinds=kinds, judge=judge,
                                                     needed=needed, human_label=self.human_label)

    def adjudication_display(self, *, unit, adjudicator) -> dict:
        """What the adjudication page shows of UNIT: what the annotation page shows (unit_context), no lease."""
        return self.unit_context(assignment=view_assignment(unit=unit, person=adjudicator))

    def adjudication_questions(self, campaign) -> list[dict]:
        """The adjudication form's questions, the annotation form's: [{"name": the POST field, "title",
        "choices": [{"value", "words", "key"}], "when": (another question's name, its value) or None, "text": False}];
        a question with "text" True is a line of text instead (with a "placeholder")."""
        raise NotImplementedError

    def adjudication_value_from_post(self, post, *, unit, adjudicator) -> dict:
        """The value an adjudication form POST stands for (value_check judges it); the annotation form's by default."""
        return self.value_from_post(post, assignment=view_assignment(unit=unit, person=adjudicator))

    def adjudication_judge_words(self, verdicts: dict[int, JudgeVerdict], *, unit, adjudicator) -> str:
        """A judge's VERDICTS on UNIT's items in words: its label on the item by default."""
        verdict = next(iter(verdicts.values()), None)
        return verdict.label if verdict is not None and verdict.label else "no verdict"


_REGISTRY: dict[str, TaskTypeSpec] = {}


class UnknownTaskType(LookupError):
    """A task type no module registered; the message is for the user."""


def register(spec_class: type[TaskTypeSpec]) -> type[TaskTypeSpec]:
    """Class decorator: register one instance of SPEC_CLASS under its name."""
    _REGISTRY[spec_class.name] = spec_class()
    return spec_class


def task_type_get(name: str) -> TaskTypeSpec:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownTaskType(f"unknown task type {name!r}; choose one of {', '.join(task_type_names())}") from None


def task_type_names() -> list[str]:
    return list(_REGISTRY)


def import_formats() -> dict[str, set[str]]:
    """Format -> the task types it feeds, from every task type's import_formats."""
    formats: dict[str, set[str]] = {}
    for spec in _REGISTRY.values():
        for fmt in spec.import_formats:
            formats.setdefault(fmt, set()).add(spec.name)
    return formats
