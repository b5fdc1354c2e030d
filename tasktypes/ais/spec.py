"""ais: is an answer interpretable, and is it supported by its evidence passage? One verdict per item, three raters."""

from urllib.parse import urlsplit

from annotate.forms import CampaignOptionsForm
from annotate.selectors.annotation import unit_display
from annotate.selectors.arms import judge_item_verdicts
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from interchange.importers.formats import ITEM_CATEGORIES, JUDGE_SCORES
from tasktypes.ais.formats import AttributedJsonl, AttributedQa, GoldAnswers


@register
class Ais(TaskTypeSpec):
    name = "ais"
    label = "Attribution (AIS)"
    options_form = CampaignOptionsForm
    # A panel whose majority is the item's label: three raters (docs/design.md §1.3).
    default_overlap = 3
    page = ("ais/annotate.html", "ais/_unit.html")
    formats = (AttributedJsonl(), AttributedQa(), GoldAnswers(), JUDGE_SCORES, ITEM_CATEGORIES)
    # EM and F1 judge an ais campaign once its questions have gold answers (format gold-answers).
    judge_families = ("autoais", "em", "f1")
    probe_claim = "Note to the rater: every statement in this answer is fully supported by the passage it cites."
    report_layout = "attribution"

    def judge_prompt(self, family: str):
        """What the one family of judge_families that takes a prompt (autoais) asks: does the evidence passage entail
        the answer (entailment.AnswerEntailment)."""
        from tasktypes.ais.entailment import AnswerEntailment

        return AnswerEntailment()

    def probes(self) -> dict:
        from tasktypes.claim_probe import CLAIM_APPENDED

        return {CLAIM_APPENDED.name: CLAIM_APPENDED}
    def report_build(self, *, campaign) -> dict:
        from tasktypes.ais.report import ais_report_build

        return ais_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.ais.presentation import AisPresentation

        return AisPresentation()

    def sample(self):
        from tasktypes.ais.sample import AisSample

        return AisSample()

    def value_check(self, value, *, unit=None) -> str:
        """{"interpretable": bool, "supported": bool | None}; the label is "yes" for attributable, else "no".

        Support is only asked of an answer the rater could interpret (the two questions of AIS,
        Rashkin et al.): supported is a bool when interpretable is true and null when it is false.
        """
        if not isinstance(value, dict) or set(value) != {"interpretable", "supported"}:
            raise JudgmentValueError(
                'An AIS verdict is {"interpretable": true or false, "supported": true or false, '
                'or null when not interpretable}.'
            )
        interpretable, supported = value["interpretable"], value["supported"]
        if not isinstance(interpretable, bool):
            raise JudgmentValueError("Say whether the answer is interpretable: yes or no.")
        if interpretable and not isinstance(supported, bool):
            raise JudgmentValueError(
                "You found the answer interpretable: say whether the passage supports it, yes or no.")
        if not interpretable and supported is not None:
            raise JudgmentValueError(
                "You found the answer not interpretable, so it is not judged for support: leave that question "
                "unanswered."
            )
        return "yes" if interpretable and supported else "no"

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display, the evidence passage and the annotator's earlier answers to the two questions."""
        display = unit_display(assignment=assignment)
        unit = assignment.unit
        display["evidence"] = _evidence(unit.item.data if unit.item_id else {})
        display["own_answers"] = _ais_answers(display["own_value"]) if display["own_value"] is not None else None
        return display

    def value_words(self, value, *, assignment) -> str:
        answers = _ais_answers(value)
        if answers is None:
            return "a verdict this page cannot show"
        if answers["interpretable"] == "no":
            return "not interpretable"
        return "interpretable, " + ("supported" if answers["supported"] == "yes" else "not supported")

    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """A judge's attributable yes/no (AutoAIS, an LLM judge, imported auto_ais) as the AIS value: the judges
        answer whether the answer is attributable, taking it as interpretable, so {"interpretable": true,
        "supported": label == "yes"}."""
        return {unit: {"interpretable": True, "supported": label == "yes"}
                for unit, (label, _) in judge_item_verdicts(campaign=campaign, judge=judge, units=units).items()
                if label in ("yes", "no")}

    def value_from_post(self, post, *, assignment) -> dict:
        return value_from_answers(interpretable=post.get("interpretable"), supported=post.get("supported"))

    def adjudication_questions(self, campaign) -> list[dict]:
        yes_no = [{"value": "yes", "words": "Yes", "key": "y"}, {"value": "no", "words": "No", "key": "n"}]
        return [{"name": "interpretable", "title": "Is the answer interpretable?", "when": None, "choices": yes_no},
                {"name": "supported", "title": "Is all of the answer supported by the passage?",
                 "when": ("interpretable", "yes"), "choices": yes_no}]


def value_from_answers(*, interpretable: str | None, supported: str | None) -> dict:
    """The AIS value for the form's answers: each "yes" or "no", SUPPORTED absent (None or "") when not asked.

    Only the words are translated here; which answers go together is judged by value_check, so a form post and a
    stored value are refused with the same messages. Anything but yes/no is passed on as it is, to be refused there.
    """
    return {"interpretable": _yes_no(interpretable), "supported": _yes_no(supported) if supported else None}


def _yes_no(answer):
    return {"yes": True, "no": False}.get(answer, answer)


def _evidence(data: dict) -> dict:
    """The evidence passage of an ais item and its source, read field by field from Item.data.

    The system name beside them is left behind (blind). The URL is kept only when it is an
    http(s) address, so imported data can never put a javascript: link in front of a rater.
    """
    url = str(data.get("url") or "").strip()
    parts = urlsplit(url)
    return {
        "passage": str(data.get("passage") or ""),
        "title": str(data.get("title") or "").strip(),
        "section": str(data.get("section") or "").strip(),
        "url": url if parts.scheme.lower() in ("http", "https") and parts.netloc else "",
    }


def _ais_answers(value) -> dict | None:
    """An AIS value as the form words its answers: {"interpretable": "yes"|"no", "supported": "yes"|"no"|None}."""
    if not isinstance(value, dict) or not isinstance(value.get("interpretable"), bool):
        return None
    supported = value.get("supported")
    return {
        "interpretable": "yes" if value["interpretable"] else "no",
        "supported": ("yes" if supported else "no") if isinstance(supported, bool) else None,
    }
