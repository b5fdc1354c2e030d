"""pairwise_preference: two systems' responses to one prompt, side by side; the human (or a judge) says which is
better, or a tie, or (option both_bad) that both are bad. Which response shows on the left is drawn per unit and
annotator and recorded with the verdict, so the raters' position bias can be measured. One verdict per pair."""

import hashlib

from annotate.forms import CampaignOptionsForm, NumberOptionField, YesNoOptionField
from annotate.guidelines import guidelines_html
from annotate.selectors.annotation import unit_display
from annotate.selectors.arms import judge_item_verdicts
from annotate.task_types.options import whole_number, yes_no
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError, TaskTypeSpec
from interchange.importers.formats import ITEM_CATEGORIES, JudgeScores
from tasktypes.pairwise_preference.formats import (
    ArenaConversations,
    MtBenchHuman,
    PairwiseJsonl,
    PairwiseOutputs,
    PandalmTestset,
    TrecPreferences,
)
from tasktypes.pairwise_preference.verdicts import BOTH_BAD, CHOICES, OTHER, SIDES, TIE, A, B


class PairwiseOptionsForm(CampaignOptionsForm):
    both_bad = YesNoOptionField(
        label="Both bad", unset="not set: no (better, worse or a tie)",
        help_text="Offer a fourth answer, both responses are bad, beside left, right and tie. The report counts it as "
                  "a tie when it compares raters.")
    pair_prompts = NumberOptionField(
        label="Prompts per pair of systems",
        help_text="Format pairwise-outputs: each pair of systems meets on this many prompts, drawn among those both "
                  "answered (a sampled design, for many systems). A whole number. Empty: every pair of systems on "
                  "every prompt both answered.")
    pair_seed = NumberOptionField(
        label="Seed of the pairs' draw",
        help_text="Format pairwise-outputs: the seed that draws the prompts of each pair of systems and the order "
                  "of each pair; the same seed and files make the same pairs. A whole number. Empty: 1.")


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
    options = {"both_bad": yes_no, "pair_prompts": whole_number, "pair_seed": whole_number}
    options_form = PairwiseOptionsForm
    page = ("pairwise_preference/annotate.html", "pairwise_preference/_unit.html")
    noun = "preference"
    topic_noun = "prompt"
    item_kind = "pair"
    item_noun = "pair"
    formats = (
        PairwiseJsonl(), MtBenchHuman(), ArenaConversations(), TrecPreferences(), PandalmTestset(), PairwiseOutputs(),
        JudgeScores(help="TSV with header topic, item, score, label: an external judge's verdict on each pair, label "
                         "a, b or tie (topic: the prompt id; item: the pair's id), under the judge name below."),
        ITEM_CATEGORIES,
    )
    report_layout = "preferences"
    judge_families = ("cross-encoder", "dense", "llm", "monot5")

    def value_check(self, value, *, unit=None) -> str:
        if not isinstance(value, dict) or not set(value) <= {"preferred", "left"} or "preferred" not in value:
            raise JudgmentValueError(
                'A preference is {"preferred": "a", "b", "tie" or "both_bad", "left": "a" or "b"}.'
            )
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
        sides = {left: "left", right: "right"}
        own = display.get("own_value") or {}
        chosen = sides.get(own.get("preferred"), own.get("preferred"))
        suggested = (assignment.suggestion or {}).get("preferred")
        return {**display, "left_side": left, "chosen": chosen, "suggested": sides.get(suggested, suggested),
                "both_bad": both_bad_allowed(assignment.unit.campaign),
                "left_html": guidelines_html((data.get(left) or {}).get("text", "")),
                "right_html": guidelines_html((data.get(right) or {}).get("text", ""))}

    def value_words(self, value, *, assignment) -> str:
        """A verdict in words: the response it preferred by its letter, and the side it was on for whoever gave it.
        A suggestion names no side (see suggestions): it is worded by the side ASSIGNMENT's annotator sees."""
        preferred = value.get("preferred") if isinstance(value, dict) else None
        if preferred in SIDES and "left" not in value and assignment is not None:
            left = left_side(unit_id=assignment.unit_id, annotator_id=assignment.annotator_id)
            return f"the {'left' if preferred == left else 'right'} response is better"
        if preferred in SIDES:
            side = {value.get("left"): "left"}.get(preferred, "right" if value.get("left") in SIDES else "")
            return f"{preferred.upper()} is better" + (f" (shown {side})" if side else "")
        return {TIE: "a tie", BOTH_BAD: "both bad"}.get(preferred, "a verdict this page cannot show")

    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """A judge's preference as {"preferred": "a", "b", "tie" or "both_bad"}, naming the response and not a side:
        the side each response shows on is drawn per annotator, and the page maps it (unit_context's "suggested").
        An order-inconsistent verdict suggests nothing, nor does both_bad where the campaign does not offer it."""
        allowed = {*SIDES, TIE, *([BOTH_BAD] if both_bad_allowed(campaign) else [])}
        return {unit: {"preferred": label}
                for unit, (label, _) in judge_item_verdicts(campaign=campaign, judge=judge, units=units).items()
                if label in allowed}

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

    def probes(self) -> dict:
        from tasktypes.pairwise_preference.probes import RESPONSES_SWAPPED

        return {RESPONSES_SWAPPED.name: RESPONSES_SWAPPED}

    def judge_prompt(self, family: str):
        from tasktypes.pairwise_preference.judging import judge_prompt

        return judge_prompt(family)

    def judge_options(self, family: str) -> dict:
        from tasktypes.pairwise_preference.judging import judge_options

        return judge_options(family)

    def judge_config_problem(self, family: str, config: dict) -> str | None:
        from tasktypes.pairwise_preference.judging import judge_config_problem

        return judge_config_problem(family, config)

    def judge_batch(self, family, items: list, config: dict, **extra) -> list:
        from tasktypes.pairwise_preference.judging import pairs_judge

        return pairs_judge(family, items, config, **extra)

    def report_build(self, *, campaign) -> dict:
        from tasktypes.pairwise_preference.report import preference_report_build

        return preference_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.pairwise_preference.presentation import PreferencePresentation

        return PreferencePresentation()

    def sample(self):
        from tasktypes.pairwise_preference.sample import PreferenceSample

        return PreferenceSample()
