"""pairwise_preference: two systems' responses to one prompt, side by side; the human (or a judge) says which is
better, or a tie, or (option both_bad) that both are bad. Which response shows on the left is drawn per unit and
annotator and recorded with the verdict, so the raters' position bias can be measured. One verdict per pair."""

import hashlib

from annotate.forms import CampaignOptionsForm, YesNoOptionField
from annotate.guidelines import guidelines_html
from annotate.selectors.annotation import unit_display
from annotate.task_types.options import yes_no
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from tasktypes.pairwise_preference.verdicts import A, B, BOTH_BAD, CHOICES, OTHER, SIDES, TIE



class PairwiseOptionsForm(CampaignOptionsForm):
    both_bad = YesNoOptionField(
        label="Both bad", unset="not set: no (better, worse or a tie)",
        help_text="Offer a fourth answer, both responses are bad, beside left, right and tie. The report counts it as "
                  "a tie when it compares raters.")


def left_side(*, unit_id: int, annotator_id: int) -> str:
    """Which candidate ("a" or "b") shows on the left for this annotator on this unit: drawn by a hash, so the same
    page shows the same order on every load, and half the annotators see each order."""
    digest = hashlib.sha256(f"{unit_id}:{annotator_id}".encode()).digest()
    return A if digest[0] % 2 == 0 else B


def both_bad_allowed(campaign) -> bool:
    return bool((campaign.options or {}).get("both_bad"))


@register
class PairwisePreference(TaskTypeSpec):
    name = "pairwise_preference"
    label = "Pairwise preference"
    default_overlap = 3
    options = {"both_bad": yes_no}
    options_form = PairwiseOptionsForm
    page = ("pairwise_preference/annotate.html", "pairwise_preference/_unit.html")
    noun = "preference"
    topic_noun = "prompt"
    item_kind = "pair"
    item_noun = "pair"
    import_formats = ("pairwise-jsonl", "judge-scores", "item-categories")
    format_help = {
        "pairwise-jsonl": "One pair per line: {\"prompt_id\", \"prompt\", \"system_a\", \"response_a\", \"system_b\", "
                          "\"response_b\"}, and optionally a human verdict {\"winner\": \"a\", \"b\", \"tie\" or "
                          "\"both_bad\", \"annotator\"} (docs/formats/pairwise-jsonl.md).",
        "judge-scores": "TSV with header topic, item, score, label: an external judge's verdict on each pair, label "
                        "a, b or tie (topic: the prompt id; item: the pair's id), under the judge name below.",
    }
    report_layout = "preferences"

    def value_check(self, value, *, unit=None) -> str:
        if not isinstance(value, dict) or not set(value) <= {"preferred", "left"} or "preferred" not in value:
            raise JudgmentValueError('A preference is {"preferred": "a", "b", "tie" or "both_bad", "left": "a" or "b"}.')
        preferred, left = value["preferred"], value.get("left")
        if preferred not in (*SIDES, TIE, BOTH_BAD):
            raise JudgmentValueError(f"preferred is a, b, tie or both_bad, not {preferred!r}.")
        if left not in (*SIDES, None):
            raise JudgmentValueError(f"left is the candidate shown on the left, a or b, not {left!r}.")
        if preferred == BOTH_BAD and unit is not None and not both_bad_allowed(unit.campaign):
            raise JudgmentValueError("This campaign does not offer both bad (option both_bad).")
        return preferred

    def value_from_post(self, post, *, assignment) -> dict:
        choice = post.get("choice", "")
        if choice not in CHOICES:
            raise JudgmentValueError("Choose left, right or tie.")
        left = left_side(unit_id=assignment.unit_id, annotator_id=assignment.annotator_id)
        right = OTHER[left]
        return {"preferred": {"left": left, "right": right}.get(choice, choice), "left": left}

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The prompt and the two responses, in the order drawn for this annotator; no system's name (blind)."""
        display = unit_display(assignment=assignment)
        data = assignment.unit.item.data or {}
        left = left_side(unit_id=assignment.unit_id, annotator_id=assignment.annotator_id)
        right = OTHER[left]
        own = display.get("own_value") or {}
        chosen = {left: "left", right: "right"}.get(own.get("preferred"), own.get("preferred"))
        return {**display, "left_side": left, "chosen": chosen,
                "both_bad": both_bad_allowed(assignment.unit.campaign),
                "left_html": guidelines_html((data.get(left) or {}).get("text", "")),
                "right_html": guidelines_html((data.get(right) or {}).get("text", ""))}

    def value_words(self, value, *, assignment) -> str:
        """A verdict in words: the response it preferred by its letter, and the side it was on for whoever gave it."""
        preferred = value.get("preferred") if isinstance(value, dict) else None
        if preferred in SIDES:
            side = {value.get("left"): "left"}.get(preferred, "right" if value.get("left") in SIDES else "")
            return f"{preferred.upper()} is better" + (f" (shown {side})" if side else "")
        return {TIE: "a tie", BOTH_BAD: "both bad"}.get(preferred, "a verdict this page cannot show")

    def adjudication_questions(self, campaign) -> list[dict]:
        choices = [{"value": A, "words": "A is better", "key": "a"}, {"value": B, "words": "B is better", "key": "b"},
                   {"value": TIE, "words": "A tie", "key": "t"}]
        if both_bad_allowed(campaign):
            choices.append({"value": BOTH_BAD, "words": "Both bad", "key": "x"})
        return [{"name": "preferred", "title": "Which response is better?", "when": None, "choices": choices}]

    def adjudication_value_from_post(self, post, *, unit, adjudicator) -> dict:
        return {"preferred": post.get("preferred", "")}

    def adjudication_display(self, *, unit, adjudicator) -> dict:
        """The prompt and both responses as A and B (the stored order), with their systems' names."""
        data = unit.item.data or {}
        return {"question": unit.topic.text, "candidate": "",
                "candidates": [{"label": f"{side.upper()} ({(data.get(side) or {}).get('system', '')})",
                                "text": (data.get(side) or {}).get("text", "")} for side in SIDES]}

    def import_run(self, *, campaign, fmt, paths, summary, unused, **parameters) -> None:
        from tasktypes.pairwise_preference.importers import pairs_import

        pairs_import(campaign=campaign, paths=paths, summary=summary, unused=unused)

    def report_build(self, *, campaign) -> dict:
        from tasktypes.pairwise_preference.report import preference_report_build

        return preference_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.pairwise_preference.presentation import PreferencePresentation

        return PreferencePresentation()
