"""The registry of task types: what differs between them is asked of their spec, never branched on by name.

Each task type is one module of the `tasktypes` package (one class, a subclass of TaskTypeSpec) that registers
itself when Django starts (tasktypes.apps). Core code (campaigns, annotation, imports, reports) calls
`task_type_get(campaign.task_type)` and uses the hooks below; a test (tests/test_task_type_registry.py) keeps
branches on a task type's name out of the core.
"""

from collections import Counter
from collections.abc import Callable

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

# Options every task type takes (the report's coverage rules, agreement.system_level and agreement.report).


def _whole_number(key: str, value) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return f"{key} must be a whole number, at least 1"
    return None


def _share(key: str, value) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        return f"{key} must be a share from 0 to 1"
    return None


def _yes_no(key: str, value) -> str | None:
    if not isinstance(value, bool):
        return f"{key} must be true or false"
    return None


COMMON_OPTIONS: dict[str, Callable[[str, object], str | None]] = {
    "min_system_outputs": _whole_number,
    "small_sample": _whole_number,
    "min_system_coverage": _share,
    # After an import that adds items, start each configured judge on them (tasktypes.jobs).
    "judge_new_items": _yes_no,
}


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
        none yet (agreement.selectors asks it). The majority rule unless a task type has its own."""
        return majority_label(labels, needed=needed)

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
        return report


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
