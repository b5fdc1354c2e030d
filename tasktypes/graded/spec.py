"""Graded relevance on a scale the campaign defines: the part every graded task type shares (image_relevance now).

A scale is the campaign option `scale`, a list of grades from 0 up, each with a name and a definition shown to
assessors: [{"grade": 0, "name": "Non-relevant", "definition": "..."}, ...], 2 to 10 grades (keys 0-9 grade on the
page). `relevant_from` is the lowest grade that counts as relevant where a measure or a statistic is binary. A task
type sets its DEFAULT_SCALE and DEFAULT_RELEVANT_FROM; a campaign without the options uses those.
"""

import re

from django import forms

from annotate.forms import CampaignOptionsForm, NumberOptionField, OptionField, TextOptionField
from annotate.models import HumanJudgment
from annotate.selectors.arms import judge_item_verdicts, judge_scores_all
from annotate.task_types.options import persistence
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from annotate.words import or_list
from tasktypes.graded.downloads import GRADED_DOWNLOADS

MAX_GRADES = 10  # keys 0-9
# The longest name and definition of a grade: the llm judge's prompt shows the whole scale, and its worst case
# (tasktypes.llm_prompts.grade.SCALE_MAX_CHARS) counts ten grades of these.
SCALE_NAME_MAX_CHARS = 200
SCALE_DEFINITION_MAX_CHARS = 2_000


def _scale_problem(key: str, value) -> str | None:
    shape = 'scale must be a list of {"grade": 0, "name": "...", "definition": "..."}, one per grade from 0 up'
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        return shape
    if not 2 <= len(value) <= MAX_GRADES:
        return f"scale must have 2 to {MAX_GRADES} grades (keys 0-9), not {len(value)}"
    for number, entry in enumerate(value):
        if set(entry) - {"grade", "name", "definition"}:
            unknown = sorted(set(entry) - {"grade", "name", "definition"})
            return f"scale grade {number}: unknown fields {', '.join(unknown)}"
        grade = entry.get("grade")
        if isinstance(grade, bool) or grade != number:
            return f"scale grades must be 0, 1, 2, ... in order; entry {number + 1} has grade {grade!r}"
        if not isinstance(entry.get("name"), str) or not entry["name"].strip():
            return f"scale grade {number}: a name is required"
        if not isinstance(entry.get("definition", ""), str):
            return f"scale grade {number}: the definition must be text"
        # A judge's prompt shows the whole scale: its length is part of the prompt's budget (SCALE_MAX_CHARS).
        if len(entry["name"]) > SCALE_NAME_MAX_CHARS:
            return (
                f"scale grade {number}: the name is {len(entry['name']):,} characters; at most {SCALE_NAME_MAX_CHARS}"
            )
        if len(entry.get("definition", "")) > SCALE_DEFINITION_MAX_CHARS:
            return (f"scale grade {number}: the definition is {len(entry['definition']):,} characters; at most "
                    f"{SCALE_DEFINITION_MAX_CHARS:,}")
    return None


GRADE_RULES = ("quantile", "fitted")


def _grade_mapping(key: str, value) -> str | None:
    if not isinstance(value, dict) or not all(isinstance(rule, str) and rule in GRADE_RULES for rule in value.values()):
        return 'grade_mapping must map judge names to "quantile" or "fitted"'
    return None


def _bias_tag(key: str, value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "bias_tag must be a run tag (a string)"
    return None


def _relevant_from_problem(key: str, value) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return "relevant_from must be a grade, at least 1"
    return None


WHOLE_NUMBER = re.compile(r"-?\d+")


class ScaleField(OptionField):
    """The scale, one grade per line: `grade | name | definition` (the definition may be left out). A grade that is
    not a whole number stays text, and a line without a name has none, for the scale's check to refuse."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false", "class": "mono"}), **kwargs)

    def read(self, text: str) -> list[dict]:
        scale = []
        for line in text.splitlines():
            if not line.strip():
                continue
            grade, _, rest = (part.strip() for part in line.partition("|"))
            name, _, definition = (part.strip() for part in rest.partition("|"))
            entry = {"grade": int(grade) if WHOLE_NUMBER.fullmatch(grade) else grade, "name": name}
            if definition:
                entry["definition"] = definition
            scale.append(entry)
        return scale

    def show(self, value) -> str:
        """One line per grade; a definition's own line breaks become spaces, so that it stays on its line."""
        if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
            return super().show(value)
        lines = []
        for entry in value:
            definition = " ".join(str(entry.get("definition") or "").split())
            lines.append(f"{entry.get('grade')} | {entry.get('name', '')}" + (f" | {definition}" if definition else ""))
        return "\n".join(lines)


class GradeMappingField(OptionField):
    """grade_mapping, one judge per line: `judge: quantile` or `judge: fitted` (a judge's name may hold colons)."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "class": "mono"}), **kwargs)

    def read(self, text: str) -> dict:
        mapping = {}
        for line in text.splitlines():
            if line.strip():
                judge, _, rule = line.rpartition(":") if ":" in line else (line, "", "")
                mapping[judge.strip()] = rule.strip()
        return mapping

    def show(self, value) -> str:
        if not isinstance(value, dict):
            return super().show(value)
        return "\n".join(f"{judge}: {rule}" for judge, rule in value.items())


class GradedOptionsForm(CampaignOptionsForm):
    scale = ScaleField(label="Scale")
    relevant_from = NumberOptionField(label="Relevant from grade")
    grade_mapping = GradeMappingField(
        label="Grades from a judge's scores",
        help_text="One judge per line as \"judge: quantile\" or \"judge: fitted\": how its scores become grades "
                  "(by the scores' quantiles, or by thresholds fitted on the human grades). Empty: quantile for every "
                  "judge.")
    bias_tag = TextOptionField(
        label="Bias tag",
        help_text="The run tag whose runs the report compares with the others (Relative Δ). Empty: the first tag of "
                  "the pooled runs, alphabetically.")
    # Clarke et al.'s compatibility (stats.compatibility; docs/statistics/compatibility.md).
    compat_p = NumberOptionField(
        label="Persistence p of compatibility",
        help_text="How deep compatibility looks: the chance a reader goes on to the next rank of a run. A number "
                  "strictly between 0 and 1; 0.95, the authors' default, weighs about the first 20 ranks. "
                  "Empty: 0.95.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        default = self.spec.scale()
        names = ", ".join(f"{entry['grade']} {entry['name']}" for entry in default)
        self.fields["scale"].help_text = (
            f"One grade per line as \"grade | name | definition\" (the definition may be left out), from 0 up in "
            f"order, 2 to {MAX_GRADES} grades (keys 0-9 grade on the page). Empty: the default, {names}.")
        self.fields["scale"].widget.attrs["placeholder"] = self.fields["scale"].show(default)
        self.fields["relevant_from"].help_text = (
            f"The lowest grade that counts as relevant where a statistic is binary (MAP, P@10, R@100, R@1000, the "
            f"binary kappa). Empty: {self.spec.DEFAULT_RELEVANT_FROM}.")


class GradedRelevance(TaskTypeSpec):
    """A task type whose assessors grade items on the campaign's scale."""

    DEFAULT_SCALE: list[dict] = []
    DEFAULT_RELEVANT_FROM = 1
    grade_phrase = "A grade"  # how value_check's messages name a value: "An image grade is ..."
    noun = "grade"
    # The Item.data key of the id that runs and qrels files name an item by (its doc id); item_kind and item_noun
    # (annotate.task_types) say what the items are.
    doc_key = ""
    options = {"scale": _scale_problem, "relevant_from": _relevant_from_problem, "grade_mapping": _grade_mapping,
               "bias_tag": _bias_tag, "compat_p": persistence}
    options_form = GradedOptionsForm
    # trec-run files are pooled to a depth (tasktypes.graded.formats: --depth, --tag) into the items to grade.
    pools_runs = True
    report_layout = "grades"
    # The qrels each source's grades make (report_extras) and the runs' leaderboards under them, beside the report.
    extra_downloads = GRADED_DOWNLOADS

    def import_lines(self, summary) -> list[str]:
        from tasktypes.graded.importers import graded_lines

        return graded_lines(summary)

    def report_build(self, *, campaign) -> dict:
        from tasktypes.graded.report import graded_report_build

        return graded_report_build(campaign=campaign)

    def report_extras(self, *, campaign, document: dict) -> dict:
        """The qrels each source's grades make (consensus, assessor-NAME, judge-NAME), served beside the report
        (tasktypes.graded.downloads)."""
        from tasktypes.graded.report import graded_qrels_sets

        return {"qrels": graded_qrels_sets(campaign=campaign)}

    def report_presentation(self):
        from tasktypes.graded.presentation import GradedPresentation

        return GradedPresentation()

    def scale(self, campaign=None) -> list[dict]:
        """The campaign's scale (its option, else the task type's default); every entry has a definition."""
        entries = ((campaign.options or {}).get("scale") if campaign is not None else None) or self.DEFAULT_SCALE
        return [{"grade": entry["grade"], "name": entry["name"], "definition": entry.get("definition", "")}
                for entry in entries]

    def levels(self, campaign=None) -> list[int]:
        return [entry["grade"] for entry in self.scale(campaign)]

    def relevant_from(self, campaign=None) -> int:
        return int((campaign.options or {}).get("relevant_from", self.DEFAULT_RELEVANT_FROM)
                   if campaign is not None else self.DEFAULT_RELEVANT_FROM)

    def label_negative(self, label: str, *, campaign) -> bool:
        """A grade below relevant_from."""
        return label.isdigit() and int(label) < self.relevant_from(campaign)

    def page_context(self, campaign) -> dict:
        """The scale, for the grade buttons, the keys line and the definitions in the page's help."""
        return {"scale": self.scale(campaign)}

    def judge_context(self, campaign) -> dict:
        """The scale and the relevance threshold, for judges that answer with a grade (the llm family)."""
        return {"scale": self.scale(campaign), "relevant_from": self.relevant_from(campaign)}

    def judge_prompt(self, family: str):
        """Which grade of the scale (tasktypes.llm_prompts.grade.GradePrompt), for the one family of judge_families that
        takes a prompt
        (passage_relevance's llm). Its judges carry qa_correctness's prompt's options too, as every llm judge did when
        the family held both prompts: their identity stays the same."""
        from tasktypes.llm_prompts.answer import AnswerPrompt
        from tasktypes.llm_prompts.grade import GradePrompt

        return GradePrompt(carries=(AnswerPrompt(),))

    def options_problem(self, campaign, options: dict) -> tuple[str, str] | None:
        """relevant_from must lie on the scale, and a new scale must keep every grade already given."""
        top = len(options.get("scale") or self.DEFAULT_SCALE) - 1
        relevant_from = options.get("relevant_from", self.DEFAULT_RELEVANT_FROM)
        if relevant_from > top:
            return "relevant_from", f"{relevant_from} is not a grade of the scale (0-{top})"
        if campaign.pk is None:  # a campaign being made (the New campaign form): nothing graded yet
            return None
        given = (HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
                 .exclude(label="").values_list("label", flat=True).distinct())
        beyond = sorted(int(label) for label in given if label.isdigit() and int(label) > top)
        if beyond:
            return "scale", (f"grades {', '.join(map(str, beyond))} have been given in this campaign and the new "
                             f"scale stops at {top}; keep them on the scale")
        return None

    def own_grade_add(self, display: dict, campaign) -> dict:
        """DISPLAY (annotate.selectors.annotation.unit_display's) with the annotator's own grade and its name."""
        own = display["own_value"]
        grade = own.get("grade") if isinstance(own, dict) else None
        display["own_grade"] = grade if isinstance(grade, int) and not isinstance(grade, bool) else None
        display["own_grade_name"] = next((entry["name"] for entry in self.scale(campaign)
                                          if entry["grade"] == display["own_grade"]), None)
        return display

    def items_created(self, *, campaign, items) -> None:
        """Complete the graded ITEMS (a queryset) that pooling or qrels just created; nothing by default."""

    def value_check(self, value, *, unit=None) -> str:
        """{"grade": g}, g one of the scale's grades; the label is the grade as a digit."""
        scale = self.scale(unit.campaign if unit is not None else None)
        numbers = or_list([str(entry["grade"]) for entry in scale])
        choices = or_list([f"{entry['grade']} {entry['name'].lower()}" for entry in scale])
        if not isinstance(value, dict) or set(value) != {"grade"}:
            raise JudgmentValueError(f'{self.grade_phrase} is {{"grade": {numbers}}}.')
        grade = value["grade"]
        if grade is None or grade == "":
            raise JudgmentValueError(f"Choose a grade: {choices}.")
        # bool is an int in Python, and "2" is not 2: a grade is exactly one of the scale's integers.
        if isinstance(grade, bool):
            raise JudgmentValueError(f"A grade is {numbers}, not true or false.")
        if not isinstance(grade, int):
            raise JudgmentValueError(f"A grade is one of the whole numbers {numbers} (not text or a fraction).")
        if not 0 <= grade < len(scale):
            raise JudgmentValueError(f"There is no grade {grade}: choose {choices}.")
        return str(grade)

    def value_words(self, value, *, assignment) -> str:
        grade = value.get("grade") if isinstance(value, dict) else None
        name = next((entry["name"] for entry in self.scale(assignment.unit.campaign) if entry["grade"] == grade), None)
        if name is None or isinstance(grade, bool):
            return "a grade this page cannot show"
        return f"{grade} {name}"

    def value_from_post(self, post, *, assignment) -> dict:
        return grade_value(grade=post.get("grade"))

    def adjudication_questions(self, campaign) -> list[dict]:
        return [{"name": "grade", "title": f"Which grade does this {self.item_noun} deserve?", "when": None,
                 "choices": [{"value": str(entry["grade"]), "words": f"{entry['grade']} {entry['name']}",
                              "key": str(entry["grade"]), "definition": entry["definition"]}
                             for entry in self.scale(campaign)]}]


    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """A judge's grade on the campaign's scale, as the report maps it (stats.grades): a judge that gives
        scores has them cut by the quantile rule over all its scores in the campaign; a judge that gives grades and
        no scores (an LLM grader, imported qrels) keeps its grades. Thresholds fitted on the human grades
        (grade_mapping "fitted") are not used here: they move as annotators work, and would feed other people's
        verdicts into a suggestion; such a judge's suggestions use the quantile rule."""
        # The report's mapping itself, from the statistics floor (imported here: scikit-learn is a start-up cost).
        from stats.grades import grade_of, quantile_cuts

        verdicts = judge_item_verdicts(campaign=campaign, judge=judge, units=units)
        levels = self.levels(campaign)
        scores = judge_scores_all(judge=judge) if any(score is not None for _, score in verdicts.values()) else []
        cuts = quantile_cuts(scores, levels=levels)
        result = {}
        for unit, (label, score) in verdicts.items():
            if scores and score is not None and cuts is not None:
                result[unit] = {"grade": grade_of(score, cuts, upper_inclusive=True)}
            elif not scores and label.isdigit() and int(label) in levels:
                result[unit] = {"grade": int(label)}
        return result

    def arm_key(self, value):
        """A grade value's grade, as its label ("2"); None when it is not one."""
        grade = value.get("grade") if isinstance(value, dict) else None
        return str(grade) if isinstance(grade, int) and not isinstance(grade, bool) else None


def grade_value(*, grade: str | None) -> dict:
    """The value for the form's GRADE, a digit.

    Only a digit is translated; anything else is passed on as it is, so value_check refuses a form post and a stored
    value with the same messages (a digit beyond the campaign's scale included).
    """
    return {"grade": int(grade) if isinstance(grade, str) and len(grade) == 1 and grade.isdigit() else grade}
