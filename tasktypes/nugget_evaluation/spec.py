"""nugget_evaluation: TREC RAG-style nugget evaluation of generated answers (layout.py says how its data is kept).
Creation units (one per topic) take a list of nuggets; assignment units (one per answer of a run) take a mark per
nugget of the topic's frozen list. An answer's unit opens once its topic's list is frozen (freeze.py)."""

from annotate.forms import CampaignOptionsForm, NumberOptionField
from annotate.selectors.annotation import unit_display
from annotate.task_types.formats import Count
from annotate.task_types.options import whole_number
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from interchange.importers.formats import ITEM_CATEGORIES, JudgeScores
from tasktypes.nugget_evaluation import values
from tasktypes.nugget_evaluation.downloads import ANSWERS
from tasktypes.nugget_evaluation.formats import FORMATS
from tasktypes.nugget_evaluation.layout import IMPORTANCES, MARK_LETTERS, MARKS, VITAL, topic_list


class NuggetOptionsForm(CampaignOptionsForm):
    creation_overlap = NumberOptionField(
        label="Assessors per topic's nuggets",
        help_text="How many assessors write each topic's nuggets (the creation step's k), apart from how many mark "
                  "each answer (the overlap). A whole number, at least 1. Empty: the overlap. After a change, "
                  "the Nuggets page applies it to the units already made.")


@register
class NuggetEvaluation(TaskTypeSpec):
    name = "nugget_evaluation"
    label = "Nugget evaluation"
    default_overlap = 2
    options = {"creation_overlap": whole_number}
    options_form = NuggetOptionsForm
    page = ("nugget_evaluation/annotate.html", "nugget_evaluation/_unit.html")
    noun = "nugget judgment"
    topic_noun = "topic"
    item_noun = "answer"
    formats = (*FORMATS,
               JudgeScores(help="TSV with header topic, item, score and optionally label: an external judge's score "
                                "of each answer (item: its id, <topic>/<run>), under the judge name below; shown "
                                "with the judge's verdicts, while the nugget figures read marks "
                                "(nuggetizer-assignments, assignments-tsv)."),
               ITEM_CATEGORIES)
    report_layout = "nuggets"
    extra_downloads = (ANSWERS,)
    import_counts = (Count("topics_not_frozen", help="Topics with no frozen nugget list: their answers wait."),)
    judge_families = ("autoais", "llm")

    def import_campaign_counts(self, campaign) -> dict:
        from annotate.models import Topic

        return {"topics_not_frozen": sum(1 for data in Topic.objects.filter(campaign=campaign)
                                         .values_list("data", flat=True) if topic_list(data or {}) is None)}

    def import_lines(self, summary) -> list[str]:
        """The verdicts' lines, and the topics whose answers wait for a frozen list (and where to freeze them)."""
        waiting = summary.count("topics_not_frozen")
        return [*summary.verdict_lines(), *([f"topics whose answers wait for a frozen nugget list: {waiting} (freeze "
                                             f"lists on the campaign's Nuggets page, /campaigns/{summary.campaign}"
                                             f"/nuggets/)"] if waiting else [])]

    def value_check(self, value, *, unit=None) -> str:
        return values.value_check(value, unit=unit)

    def value_from_post(self, post, *, assignment) -> dict:
        return values.value_from_post(post, unit=assignment.unit)

    def draft_from_post(self, post, *, assignment) -> dict:
        """A draft is what the form holds, however incomplete: the nuggets written so far, the marks given so far."""
        try:
            return values.value_from_post(post, unit=assignment.unit)
        except JudgmentValueError:
            return {"nuggets": []} if values.is_creation(assignment.unit) else {"marks": {}}

    def value_words(self, value, *, assignment) -> str:
        return values.value_words(value)

    def unit_gradable(self, unit) -> None:
        if not values.is_creation(unit) and values.round_list(unit) is None:
            raise JudgmentValueError("This topic's nuggets are not frozen yet: its answers cannot be marked.")

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        from tasktypes.nugget_evaluation.pages import unit_context

        return unit_context(assignment=assignment, display=unit_display(assignment=assignment),
                            arrangement=arrangement)

    def adjudication_questions(self, campaign) -> list[dict]:
        # The adjudication form asks the same questions of every unit of a campaign; an answer's marks are many, so
        # an adjudicator writes them as a line of text, "s p n ..." in the list's order; on a topic's nuggets, the
        # rater whose list is kept.
        return [{"name": "marks", "title": "An answer: its marks, one letter per nugget in order (s, p or n). A "
                                           "topic's nuggets: the rater whose list to keep (A, B, ...)",
                 "when": None, "choices": [], "text": True, "placeholder": "s p n s, or A"}]

    def adjudication_display(self, *, unit, adjudicator) -> dict:
        """The topic, the answer, and the nuggets of its list numbered in order (the marks are typed in that order);
        a creation unit shows the topic and its passages."""
        if values.is_creation(unit):
            return {"question": unit.topic.text, "candidate": "",
                    "candidates": [{"label": passage.get("title") or passage.get("id", ""), "text": passage["text"]}
                                   for passage in (unit.topic.data or {}).get("passages") or []]}
        frozen = values.round_list(unit) or {"nuggets": []}
        return {"question": unit.topic.text, "candidate": unit.item.text,
                "candidates": [{"label": f"{n}. {nugget['importance']}", "text": nugget["text"]}
                               for n, nugget in enumerate(frozen["nuggets"], start=1)]}

    def adjudication_value_from_post(self, post, *, unit, adjudicator) -> dict:
        if values.is_creation(unit):
            return values.rater_list(unit=unit, adjudicator=adjudicator, letter=post.get("marks", ""))
        frozen = values.round_list(unit)
        if frozen is None:
            raise JudgmentValueError("This topic's nuggets are not frozen yet.")
        letters = post.get("marks", "").split()
        by_letter = {letter: mark for mark, letter in MARK_LETTERS.items()}
        return {"version": frozen["version"],
                "marks": {nugget["id"]: by_letter.get(letter.lower(), letter)
                          for nugget, letter in zip(frozen["nuggets"], letters, strict=False)}}

    def judge_prompt(self, family: str):
        from tasktypes.nugget_evaluation.judging import judge_prompt

        return judge_prompt(family)

    def judge_options(self, family: str) -> dict:
        from tasktypes.nugget_evaluation.judging import judge_options

        return judge_options(family)

    def judge_config_problem(self, family: str, config: dict) -> str | None:
        from tasktypes.nugget_evaluation.judging import judge_config_problem

        return judge_config_problem(family, config)

    def judge_batch(self, family, items: list, config: dict, **extra) -> list:
        """A nuggets item asks for the topic's nuggets, an answer item for a mark per nugget (judging.py)."""
        from tasktypes.nugget_evaluation.judging import nuggets_judge

        return nuggets_judge(family, items, config, **extra)

    def page_context(self, campaign) -> dict:
        return {"importances": IMPORTANCES, "vital": VITAL, "marks": MARKS, "mark_letters": MARK_LETTERS}

    def report_build(self, *, campaign) -> dict:
        from tasktypes.nugget_evaluation.report import nugget_report_build

        return nugget_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.nugget_evaluation.presentation import NuggetPresentation

        return NuggetPresentation()

    def sample(self):
        from tasktypes.nugget_evaluation.sample import NuggetSample

        return NuggetSample()
