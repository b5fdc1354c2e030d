"""A campaign's options as a form: one field per option; the base form holds the options every task type takes.

Each task type declares its form (TaskTypeSpec.options_form), a subclass of CampaignOptionsForm in its own module. A
field's cleaned value is the option's JSON value, None when the field is empty (the option is unset and the task
type's default applies). Fields read text leniently and never judge a value themselves: the task type's checks do
(campaign_options_problems), so the Options page, the API (annotate.serializers, which binds the JSON values as they
are) and the command line refuse the same values with the same words.
"""

import json

from django import forms
from django.utils.text import slugify

from annotate.adjudication_kinds import ADJUDICATION_KINDS
from annotate.arms import ARM_ASSIGNMENTS, ARM_PER, arm_judge
from annotate.services.campaigns import (
    OVERLAP_MAX,
    SLUG_MAX,
    campaign_options_editable,
    campaign_options_problems,
    slug_problem,
)
from annotate.task_types.options import PPI_PLANS, QUEUE_ORDERS
from annotate.task_types.registry import task_type_get, task_type_names


class Given:
    """An option's JSON value bound to a form as it is (from the API): read without the page's text parsing."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class OptionField(forms.Field):
    """One option: its JSON value shown as text (`show`), and text read back as a value (`read`)."""

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value):
        if isinstance(value, Given):
            return value.value
        text = (value or "").strip()
        return self.read(text) if text else None

    def prepare_value(self, value):
        if isinstance(value, Given):
            value = value.value
        if value is None:
            return ""
        if isinstance(value, str):  # posted text, or a text option
            return value
        return self.show(value)

    def read(self, text: str):
        return text

    def show(self, value) -> str:
        return json.dumps(value, ensure_ascii=False)


class NumberOptionField(OptionField):
    """A number; text that is not one is kept as text, for the option's check to refuse in its own words."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}), **kwargs)

    def read(self, text: str):
        for number in (int, float):
            try:
                return number(text)
            except ValueError:
                pass
        return text


class LinesOptionField(OptionField):
    """A list of names, one per line; blank lines are skipped."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}), **kwargs)

    def read(self, text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if line.strip()]

    def show(self, value) -> str:
        if isinstance(value, list) and all(isinstance(name, str) for name in value):
            return "\n".join(value)
        return super().show(value)


class YesNoOptionField(OptionField):
    """true or false, chosen as yes or no; empty is unset. Any other answer is passed on for the check to refuse."""

    ANSWERS = {"yes": True, "no": False, "true": True, "false": False}

    def __init__(self, *, unset: str, **kwargs):
        super().__init__(widget=forms.Select(choices=[("", unset), ("yes", "yes"), ("no", "no")]), **kwargs)

    def read(self, text: str):
        return self.ANSWERS.get(text.lower(), text)

    def show(self, value) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        return super().show(value)


class ChoiceOptionField(OptionField):
    """One of CHOICES (value: description); empty is unset. Any other answer is passed on for the check to refuse."""

    def __init__(self, *, choices: dict[str, str], unset: str, **kwargs):
        options = [("", unset), *((value, f"{value}: {words}") for value, words in choices.items())]
        super().__init__(widget=forms.Select(choices=options), **kwargs)


class TextOptionField(OptionField):
    """A line of text."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.TextInput(attrs={"autocomplete": "off"}), **kwargs)


class ChecklistOptionField(OptionField):
    """Some of CHOICES (value: description), as checkboxes; none ticked is unset. Values not among the choices are
    passed on for the check to refuse."""

    def __init__(self, *, choices: dict[str, str], **kwargs):
        super().__init__(widget=forms.CheckboxSelectMultiple(choices=list(choices.items())), **kwargs)

    def to_python(self, value):
        if isinstance(value, Given):
            return value.value
        chosen = [str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if v not in (None, "")]
        return chosen or None

    def prepare_value(self, value):
        if isinstance(value, Given):
            value = value.value
        return value if isinstance(value, list) else []


class JudgeOptionField(OptionField):
    """The name of one of the campaign's judges, from a list (the form fills it: CampaignOptionsForm.__init__); empty
    is unset."""

    def __init__(self, *, unset: str, **kwargs):
        super().__init__(widget=forms.Select(choices=[("", unset)]), **kwargs)


class CampaignOptionsForm(forms.Form):
    """The options every task type takes: the agreement report's coverage rules (reports.system_level and
    reports.verdicts keep the defaults the help texts name)."""

    # The fields of the options every task type takes, shown after the task type's own.
    COMMON = ("min_system_outputs", "min_system_coverage", "small_sample", "rbo_p", "top_k", "judge_new_items",
              "adjudication", "adjudication_judge", "arms", "arm_assignment", "arm_per", "budget_width", "queue_order",
              "alt_test_epsilon", "ppi_plan", "ppi_check_share")

    min_system_outputs = NumberOptionField(
        label="Outputs judged by both, at least",
        help_text="A system with fewer outputs judged by both the humans and a judge is left out of that judge's "
                  "correlations. A whole number. Empty: 10.")
    min_system_coverage = NumberOptionField(
        label="Share of a system's outputs judged by both, at least",
        help_text="A system whose outputs judged by both are a smaller share of all its outputs is left out too. "
                  "A share from 0 to 1. Empty: 0.5.")
    small_sample = NumberOptionField(
        label="Small sample below",
        help_text="A statistic over fewer shared items is greyed on the report and marked small. A whole number. "
                  "Empty: 30.")
    # Ranking agreement at the top (stats.rank_agreement; docs/statistics/ranking-at-the-top.md).
    rbo_p = NumberOptionField(
        label="Persistence p of rank-biased overlap",
        help_text="How much of RBO's weight goes to the top of a ranking: the chance a reader goes on to the next "
                  "rank. A number strictly between 0 and 1; 0.9 puts 86% of the weight on the top 10. Empty: 0.9.")
    top_k = NumberOptionField(
        label="k of overlap@k and tau-b@k",
        help_text="How deep the top of a ranking (of candidates, or of systems by score) is that overlap@k and "
                  "Kendall's tau-b on the top k compare. A whole number. Empty: 5.")
    judge_new_items = YesNoOptionField(
        label="Judge new items",
        unset="not set: no (the judge page offers to judge them)",
        help_text="After an import that adds items, start each configured judge on them at once. Empty: no.")
    # The assistance experiment (docs/arms.md; annotate.services.arms).
    arms = LinesOptionField(
        label="Arms of an assistance experiment",
        help_text="One arm per line: blind (the page as it is), or assisted:JUDGE (judge JUDGE's verdict shown "
                  "pre-selected, to accept or change). Two arms or more. Empty: no experiment.")
    arm_assignment = ChoiceOptionField(
        label="Arms given", choices=ARM_ASSIGNMENTS, unset="not set: balanced",
        help_text="How annotators (or units) are put in arms. Empty: balanced.")
    arm_per = ChoiceOptionField(
        label="Arm kept per", choices=ARM_PER, unset="not set: annotator",
        help_text="Whether an annotator keeps one arm, or each unit gets its own. Empty: annotator.")
    adjudication = ChecklistOptionField(
        label="Adjudicate units where", choices=ADJUDICATION_KINDS,
        help_text="The kinds of disagreement that put a unit in the adjudication queue (docs/adjudication.md). "
                  "None ticked: where the human verdicts disagree.")
    adjudication_judge = JudgeOptionField(
        label="Judge compared with the human label", unset="none",
        help_text="The judge whose disagreement with the human label puts a unit in the adjudication queue; "
                  "required when that kind is ticked above.")

    # The labelling budget (docs/budget.md; stats.budget, annotate.services.queue_order).
    budget_width = NumberOptionField(
        label="Interval width to aim at",
        help_text="The report's budget says how many more human labels would narrow each headline statistic's 95% "
                  "interval to this width. A number above 0, at most 2. Empty: 0.1.")
    alt_test_epsilon = NumberOptionField(
        label="Alternative annotator test: epsilon",
        help_text="How much worse than an annotator a judge may be and still count as a replacement, for being "
                  "cheaper (the report's alternative annotator test). The test's authors suggest 0.2 for experts, "
                  "0.15 for trained annotators, 0.1 for crowd workers. A number from 0 up to 1. Empty: 0.2.")
    # Humans and judges together (docs/statistics/ppi.md; reports.ppi).
    ppi_plan = ChoiceOptionField(
        label="Plan of the humans-and-judges check", choices=PPI_PLANS, unset="not set: active",
        help_text="Where humans judged every unit, the report checks the humans-and-judges estimate on a share of "
                  "the units drawn by this plan. Empty: active.")
    ppi_check_share = NumberOptionField(
        label="Share of units the check labels",
        help_text="The share of the units the humans-and-judges check draws. A number between 0 and 1. Empty: 0.1.")
    queue_order = ChoiceOptionField(
        label="Queue order", choices=QUEUE_ORDERS, unset="not set: position",
        help_text="The order open units are offered in, applied to the open units when you save; after imports and "
                  "judge runs, manage.py order_queue applies it again (docs/budget.md). Empty: position.")

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, initial=campaign_options_editable(campaign), **kwargs)
        self.campaign = campaign
        self._judges_offer(campaign)
        self.spec = task_type_get(campaign.task_type)
        # Options of the bound JSON that no field holds (the API's): checked with the rest, and refused.
        self.given: dict = {}
        # Option name -> what is wrong with it, once the form is cleaned (the API words its answer from these).
        self.problems: dict[str, str] = {}
        missing = self.arm_judges_missing()
        if missing:
            self.fields["arms"].help_text += (
                f" Note: this campaign has no judge called {' or '.join(missing)} yet; until it has, that arm's "
                "annotators see no suggestion and judge as the blind arm does.")

    def arm_judges_missing(self) -> list[str]:
        """The judges the campaign's saved arms name that it does not have (yet): allowed, since judges are often
        made after the campaign, but said on the page."""
        if self.campaign.pk is None:
            return []
        arms = (self.campaign.options or {}).get("arms")
        names = [arm_judge(arm) for arm in arms if isinstance(arm, str)] if isinstance(arms, list) else []
        names = [name for name in names if name]
        if not names:
            return []
        have = set(self.campaign.judges.filter(name__in=names).values_list("name", flat=True))
        return [name for name in names if name not in have]

    def _judges_offer(self, campaign) -> None:
        """The campaign's judges as adjudication_judge's choices (and the option's own value, should its judge be
        gone, so the page shows what is set); one query, none for a campaign not made yet."""
        names = list(campaign.judges.order_by("name").values_list("name", flat=True)) if campaign.pk else []
        chosen = (campaign.options or {}).get("adjudication_judge")
        if isinstance(chosen, str) and chosen and chosen not in names:
            names.append(chosen)
        widget = self.fields["adjudication_judge"].widget
        widget.choices = [widget.choices[0], *((name, name) for name in names)]

    @classmethod
    def from_options(cls, *, campaign, options: dict) -> "CampaignOptionsForm":
        """The form bound to OPTIONS, a JSON object of option values (the API's), checked as they are."""
        form = cls({key: Given(value) for key, value in options.items()}, campaign=campaign)
        form.given = {key: value for key, value in options.items() if key not in form.fields}
        return form

    def own_fields(self) -> list:
        """The task type's own fields, in the form's order."""
        return [field for field in self if field.name not in self.COMMON]

    def common_fields(self) -> list:
        return [self[name] for name in self.COMMON]

    def clean(self):
        cleaned = super().clean()
        options = {**{key: value for key, value in cleaned.items() if value is not None}, **self.given}
        self.problems = campaign_options_problems(campaign=self.campaign, options=options)
        for key, problem in self.problems.items():
            if key in self.fields:
                self.add_error(key, problem)
            else:
                self.add_error(None, f"option {key}: {problem}")
        return cleaned

    def options(self) -> dict:
        """The campaign's editable options this valid form stands for: every field that is not empty."""
        return {**{key: value for key, value in self.cleaned_data.items() if value is not None}, **self.given}

    def problem_words(self) -> list[str]:
        """Each problem, naming its option: "option relevant_from: 4 is not a grade of the scale (0-3)"."""
        return [f"option {key}: {problem}" for key, problem in self.problems.items()]

    def change_words(self) -> str:
        """What saving this valid form changes in the campaign's options (the initial ones), for the page to say."""
        before, after = self.initial, self.options()
        words = []
        for key in [*self.fields, *sorted(set(before) - set(self.fields))]:
            if key in after and before.get(key, object()) != after[key]:
                value = after[key]
                shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (bool, int, float, str)) else \
                    "changed"
                words.append(f"{key} {shown}")
            elif key in before and key not in after:
                words.append(f"{key} unset (the default applies)")
        return ", ".join(words) or "nothing changed"


# --- Making a campaign, its settings, its people ---


def task_type_choices() -> list[tuple[str, str]]:
    """(name, label) of every registered task type, by label."""
    choices = [(name, task_type_get(name).label or name) for name in task_type_names()]
    return sorted(choices, key=lambda choice: choice[1])


GUIDELINES_HELP = ("Markdown: **bold**, *italics*, lists, headings, tables, links to http(s) and mailto addresses. "
                   "Raw HTML and images are not shown. Annotators read them behind ? on the annotation page.")


class OverlapField(forms.IntegerField):
    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=OVERLAP_MAX, label="Overlap k",
                         widget=forms.NumberInput(attrs={"min": 1, "max": OVERLAP_MAX, "class": "short"}), **kwargs)


class CampaignCreateForm(forms.Form):
    """A new campaign's own fields; its task type's options are the task type's options form beside it (the view binds
    both; annotate.services.campaigns.campaign_create checks everything again). `options_for` is the task type
    whose option fields the page showed: a different task type posted means those fields were not for it."""

    task_type = forms.ChoiceField(label="Task type")
    options_for = forms.CharField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(label="Name", max_length=200, widget=forms.TextInput(attrs={"autocomplete": "off"}))
    slug = forms.CharField(
        label="Slug", required=False, max_length=100,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
        help_text="The campaign's name in addresses, the API and the command line: letters, digits, - and _. "
                  "Empty: made from the name.")
    overlap = OverlapField(required=False)
    guidelines = forms.CharField(label="Guidelines for annotators", required=False, help_text=GUIDELINES_HELP,
                                 widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "true"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = [("", "Choose a task type"), *task_type_choices()]

    def chosen_task_type(self) -> str | None:
        """The task type posted or asked for, when it is a registered one (the options form to show with it)."""
        name = (self.data.get("task_type") if self.is_bound else self.initial.get("task_type")) or ""
        return name if name in task_type_names() else None

    def clean_slug(self):
        slug = self.cleaned_data["slug"].strip() or slugify(self.data.get("name", ""))[:SLUG_MAX].strip("-")
        problem = slug_problem(slug)
        if problem:
            raise forms.ValidationError(problem[0].upper() + problem[1:] + ".")
        return slug

    def clean(self):
        cleaned = super().clean()
        task_type = cleaned.get("task_type")
        if task_type and cleaned.get("options_for") != task_type:
            raise forms.ValidationError(f"The options below are now those of {dict(task_type_choices())[task_type]}: "
                                        "check them and press Create again.")
        return cleaned


class CampaignSettingsForm(forms.Form):
    """What a researcher changes about a campaign after making it (annotate.services.campaigns.campaign_update)."""

    name = forms.CharField(label="Name", max_length=200)
    overlap = OverlapField(
        help_text="How many different annotators judge each unit. With 1 the report has no human agreement to show "
                  "(no unit is judged twice); 2 or more gives it. A change applies to every unit, those made "
                  "already included: more reopens complete units for the judgments now missing; fewer keeps every "
                  "judgment made.")
    guidelines = forms.CharField(
        label="Guidelines for annotators", required=False, widget=forms.Textarea(attrs={"rows": 14}),
        help_text=GUIDELINES_HELP + " Saving a change keeps the earlier text as an earlier version; each judgment "
                                    "records the version it was made under.")


class MemberAddForm(forms.Form):
    """A person to add to a campaign (annotate.services.campaigns.member_add)."""

    username = forms.CharField(label="Username", max_length=150,
                               widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}))
    role = forms.ChoiceField(label="Role", initial="annotator",
                             choices=[("annotator", "Annotator"), ("researcher", "Researcher"),
                                      ("adjudicator", "Adjudicator (settles the units whose verdicts disagree)")],
                             widget=forms.RadioSelect)
    create = forms.BooleanField(
        label="A new person: make an account with this username", required=False,
        help_text="You get a one-time link to pass on, with which they choose their password.")
