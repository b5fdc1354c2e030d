"""What a task type is: TaskTypeSpec, everything that differs between task types, as attributes and hooks that core
code asks (annotate.task_types.registry finds the subclasses, one per task type package)."""

from collections import Counter
from collections.abc import Callable, Collection
from typing import NamedTuple

from annotate.task_types import registry
from annotate.task_types.formats import Count, ImportFormat
from annotate.task_types.options import COMMON_OPTIONS

UNIT_ITEM = "item"  # one human verdict per item
UNIT_TOPIC = "topic"  # one human verdict (a ranking) per topic, over all its items

TIE = None  # an item whose current annotations split evenly has no human label
OPEN = ""  # nor has an item whose annotations are still coming and could yet change its majority


class JudgmentError(Exception):
    """A verdict that cannot be recorded; the message is shown to the annotator."""


class JudgmentValueError(JudgmentError):
    """The verdict itself is malformed (nothing was recorded); the annotator can fix it on the same unit."""


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


class JudgeVerdict(NamedTuple):
    """A judge's verdict on one item as the adjudication queue and page read it (annotate.selectors.adjudication):
    its label ("" when it gave none: a ranker's bare score), its score, and its confidence (stats.disagreement.
    judge_confidence; None when its score says nothing of it)."""

    label: str
    score: float | None
    confidence: float | None


class DownloadFile(NamedTuple):
    """A file an ExtraDownload writes: its text, the name it is saved as, and its content type."""

    text: str
    filename: str
    content_type: str = "text/plain; charset=utf-8"


class ExtraDownload(NamedTuple):
    """A file a task type serves beside its stored report, written from what report_extras stored with it (a graded
    type's qrels). agreement routes it under the campaign's report page (campaigns/<slug>/report/ROUTE, URL name
    URL_NAME; None for an API-only one, which answers JSON) and under its API (campaigns/<slug>/agreement/ROUTE,
    API_URL_NAME), opens
    the stored report (answering 202 while none is stored), then calls WRITE(request, campaign=, report=, extras=,
    **the route's arguments): a DownloadFile, or a dict that the API answers as JSON; Http404 when there is no such
    file. LABEL says what it is ("qrels"), SUMMARY is its API documentation's title."""

    label: str
    route: str
    url_name: str | None
    api_url_name: str
    write: Callable
    summary: str = ""


def view_assignment(*, unit, person):
    """An unsaved Assignment of UNIT to PERSON: what the annotation page's hooks (unit_context, value_from_post,
    value_words) take, for pages that show a unit without a lease (the adjudication page)."""
    from annotate.models import Assignment

    return Assignment(unit=unit, annotator=person, leased_at=None, expires_at=None)


class TaskTypeSpec:
    """Everything that differs between task types. Subclasses set the attributes and override the hooks."""

    name: str = ""
    # What the pages call the task type ("QA correctness").
    label: str = ""
    # The unit of human work: UNIT_ITEM or UNIT_TOPIC.
    unit: str = UNIT_ITEM
    # Human judgments per unit (k) of a new campaign when none is asked for. Two: with one, no unit is ever judged
    # by two people and the report's human agreement stays empty (n = 0); a type whose label is a panel's majority
    # asks for more (three, so that two of them decide).
    default_overlap: int = 2
    # Options of this task type only: name -> check(name, value) giving the problem, or None when fine.
    options: dict[str, Callable[[str, object], str | None]] = {}
    # The form of the campaign's options (a subclass of annotate.forms.CampaignOptionsForm, one field per option):
    # the Options page shows it, and the API checks its JSON through it. Every registered type declares one.
    options_form: type | None = None
    # The annotation page and the fragment htmx swaps in, templates of the task type's package (templates/<name>/).
    page: tuple[str, ...] = ()
    # What an annotator's judgment is called on the page ("verdict", "grade", "ranking").
    noun: str = "verdict"
    # What the pages call a topic's text, in the task type's own words ("question", "query"): the heading over it
    # where a core page shows it (the adjudication page).
    topic_noun: str = "question"
    # The import formats that feed this task type, in the order the import page lists them (annotate.task_types.
    # formats.ImportFormat instances: the type's own and the shared ones of interchange.importers.formats it takes).
    formats: tuple[ImportFormat, ...] = ()
    # The counts every import into this type adds to its summary whatever the format (annotate.task_types.formats.
    # Count; import_campaign_counts fills those about the campaign after the import).
    import_counts: tuple[Count, ...] = ()
    # What the items of a pooled task type are: Item.kind and what the pages call one (tasktypes.graded).
    item_kind: str = ""
    item_noun: str = "item"
    # Whether its runs are pooled to a depth into items to judge (the campaign page shows the pools).
    pools_runs: bool = False
    # The judge families (judges.families) that can judge this task type: the one place it is said.
    judge_families: tuple[str, ...] = ()
    # The sentence a claim probe (probes(): tasktypes.claim_probe) appends to an item's text, in the type's own words: a
    # claim, false on the items it is appended to, that the item is relevant, supported or correct.
    probe_claim: str = ""
    # The shape of the report document report_build makes, as its "layout" field tells readers of the JSON (task types
    # share one where their reports have the same shape); no code branches on it: its presentation shows it.
    report_layout: str = "verdicts"
    # How the arms report (reports.arms) compares this type's arm_keys: "labels" (equal or not; a unit's
    # reference is the blind majority) or "rankings" (Kendall's tau-b; the most typical blind ranking).
    arm_comparison: str = "labels"
    # The files its report serves beside the document (ExtraDownload), from what report_extras stores with it.
    extra_downloads: tuple[ExtraDownload, ...] = ()

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
        try:
            return self.value_check(value, unit=assignment.unit)
        except JudgmentValueError:
            return "a verdict this page cannot show"

    def draft_from_post(self, post, *, assignment) -> dict:
        """The draft a form POST keeps (JudgmentValueError for task types that keep no drafts)."""
        raise JudgmentValueError(f"Drafts are not kept for {self.name} units.")

    def judge_context(self, campaign) -> dict:
        """What a judge family that asks for it (judges.families.base.JudgeFamily.uses_task_context) is told of
        CAMPAIGN beside its items (a graded type's scale); {} by default."""
        return {}

    def judge_prompt(self, family: str):
        """The prompt a FAMILY judge that takes its prompt from the task type (judges.families.base.JudgeFamily.
        uses_prompt: the llm) puts to its model on this type's campaigns: a judges.families.base.JudgePrompt, with the
        options it adds to the family's configuration, the chat for an item and how a reply is read. None by default:
        such a family cannot judge this type, and a type that names one in judge_families gives its prompt here."""

    def judge_options(self, family: str) -> dict:
        """Options this task type adds to the configuration of a FAMILY judge on its campaigns (name ->
        judges.families.base.Option), read by its judge_batch and part of the judge's identity; {} by default."""
        return {}

    def judge_config_problem(self, family: str, config: dict) -> str | None:
        """What is wrong with the options judge_options added to a FAMILY judge's complete CONFIG taken together
        (their types are checked already); None when fine."""
        return None

    def judge_batch(self, family, items: list, config: dict, **extra) -> list:
        """FAMILY's verdicts (judges.families.base.Verdict) on ITEMS (ItemInput), one per item in order: what the task
        layer (judges.tasks) asks for every batch. EXTRA are what the family asked for (samples, connection,
        task_context). The family judges the items as they are by default; a task type whose items hold more than
        one text to judge (two responses side by side) puts them to the family its own way."""
        return family.judge_batch(items, config, **extra)

    def judge_input_missing(self, *, text: str, data: dict) -> str | None:
        """Why a model judge cannot judge an item with TEXT and DATA yet (its verdict fails with this reason, and
        "retry failed items" judges it later); None when it can."""
        return None

    def probes(self) -> dict:
        """The robustness probes its researchers may make of its items: {name: tasktypes.probes.ProbeKind}, in the
        order the pages list them (a kind says how it copies an item and when a verdict on the copy flips); none by
        default. Imports the modules of the kinds when called, so that start-up stays light."""
        return {}

    @property
    def probe_kinds(self) -> tuple[str, ...]:
        """The names of its probes (probes())."""
        return tuple(self.probes())

    def label_negative(self, label: str, *, campaign) -> bool:
        """Whether LABEL (a human's or a judge's) says the item is not relevant, not supported or not correct: the
        items the stuffing and instruction probes copy, and the verdicts they try to raise. "no" by default."""
        return label == "no"

    def unit_gradable(self, unit) -> None:
        """Refuse (JudgmentValueError) a browser verdict on a unit whose content the annotator cannot see."""

    # The names of the columns page_columns gives, in its order.
    page_column_names: tuple[str, ...] = ()

    def page_columns(self, *, unit_path: str, campaign, annotator, now) -> dict:
        """Columns that the queries reading a unit for the annotation page (the held lease, a lease's slot check) or
        for a verdict (the submit's assignment) carry beside it, so that what this type reads of other rows for the
        unit comes in the same query (issue 52: a page in a handful of queries): {name: expression} by
        page_column_names. UNIT_PATH leads from the query's rows to the unit ("" or "unit__": OuterRef(unit_path +
        "topic_id") is its topic); CAMPAIGN and ANNOTATOR are ids or OuterRefs; NOW is the moment asked at, None for a
        verdict's read (give then only what does not need it). page_columns_read takes the values. {} by default."""
        return {}

    def page_columns_read(self, unit, values: dict) -> None:
        """Keep on UNIT what page_columns' VALUES ({name: value}, those that were read) say, where the type's reads
        find it instead of asking the database."""

    def page_context(self, campaign) -> dict:
        """What the annotation page needs of the campaign beside the unit (a graded type's scale); {} by default."""
        return {}

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """What the annotation page shows of ASSIGNMENT's unit (annotate.selectors.annotation.unit_display, and what
        this task type adds); ARRANGEMENT is a refused value to show again."""
        raise NotImplementedError

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
        try:
            return self.value_check(value, unit=None)
        except JudgmentValueError:
            return None

    def option_problem(self, key: str, value) -> str | None:
        """What is wrong with VALUE for option KEY of a campaign of this type; None when it is fine."""
        check = self.options.get(key) or COMMON_OPTIONS.get(key)
        if check is None:
            owners = [spec.name for spec in registry.task_types() if key in spec.options]
            if owners:
                verb = "apply" if key.endswith("s") else "applies"  # "ties apply", "bias_tag applies"
                return f"{key} {verb} to {', '.join(owners)} campaigns"
            known = sorted({*COMMON_OPTIONS, *(name for spec in registry.task_types() for name in spec.options)})
            return f"unknown option (known: {', '.join(known)})"
        return check(key, value)

    def options_problem(self, campaign, options: dict) -> tuple[str, str] | None:
        """What is wrong with a campaign's OPTIONS taken together (each value passed option_problem): the option it
        concerns and the problem; None when fine."""
        return None

    # --- What the task type's package does: its imports and its report ---

    @property
    def import_formats(self) -> dict[str, ImportFormat]:
        """Its formats by name, in the order of `formats`."""
        return {fmt.name: fmt for fmt in self.formats}

    def import_campaign_counts(self, campaign) -> dict:
        """What an import's summary says of CAMPAIGN after the import beside what every one says (its topics and
        items), in this type's words: {count name: value}; {} by default."""
        return {}

    def import_lines(self, summary) -> list[str]:
        """An import's SUMMARY (an ImportSummary) in this task type's words, its format's own lines among them
        (summary.format_lines()): its verdicts by default."""
        return summary.verdict_lines()

    def report_build(self, *, campaign) -> dict:
        """The agreement report document of CAMPAIGN in this task type's layout (agreement.report.agreement_report_build
        adds what every report has), its adjudication block included; built with the report kit (reports/)."""
        raise NotImplementedError

    def report_extras(self, *, campaign, document: dict) -> dict:
        """What the stored report keeps beside DOCUMENT, CAMPAIGN's report, for its extra_downloads (a graded type's
        qrels by source); {} by default."""
        return {}

    def report_presentation(self):
        """How this task type's report is shown (a reports.presentation.ReportPresentation): its page's body, its
        tables, its plots and its text; agreement asks it and never looks at the document's layout."""
        raise NotImplementedError

    def sample(self):
        """Small synthetic content of this type (an annotate.task_types.sample.TaskTypeSample from its package's
        sample.py, imported when called), from which the project-wide tests build its campaigns; None by default, and
        those tests then fail for it. The app never asks it."""
        return None

    # --- Adjudication (annotate.selectors.adjudication, annotate.services.adjudication, docs/adjudication.md) ---

    def adjudication_disagreement(self, *, humans: list[tuple[str, object]], judges: dict[str, dict[int, JudgeVerdict]],
                                  kinds: Collection[str], judge: str | None, needed: int) -> dict | None:
        """How a unit's verdicts disagree, for the adjudication queue: {"kinds": the enabled KINDS found, "score": how
        much (higher: more), "confidence": the judges' confidence behind it (None: none known)}; None when no enabled
        kind is found. HUMANS are the unit's current annotations as (label, value); JUDGES the judges' verdicts on its
        items by judge name; JUDGE the judge of kind "judge"; NEEDED the unit's k. The task type's
        statistics floor gives the rule (stats.disagreement: the entropy of the votes for items), imported when a
        queue is ordered, not with the registry (scipy is a start-up cost)."""
        from stats.disagreement import items_disagreement

        return items_disagreement(humans=humans, judges=judges, kinds=kinds, judge=judge, needed=needed,
                                  human_label=self.human_label)

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


