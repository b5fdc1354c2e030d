"""answer_ranking: experts rank a topic's candidates (generated answers among documents), best first, on one or more
dimensions. One ranking per topic (docs/answer_ranking.md)."""

import json

from annotate.forms import CampaignOptionsForm, LinesOptionField, YesNoOptionField
from annotate.models import Campaign, Item, Unit
from annotate.selectors.annotation import (
    ORDER_CONFIRMATIONS,
    judgment_current_of,
    ranking_candidates,
    ranking_display,
)
from annotate.services.annotation import JudgmentValueError
from annotate.task_types import LAYOUT_RANKING, UNIT_TOPIC, TaskTypeSpec, register

# The label of a ranking judgment for agreement: the order itself lives in the value (docs/answer_ranking.md).
RANKED_LABEL = "ranked"


def _dimensions(key: str, value) -> str | None:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value) \
            or len(set(value)) != len(value):
        return "dimensions must be a non-empty list of distinct names"
    return None


def _ties(key: str, value) -> str | None:
    if not isinstance(value, bool):
        return "ties must be true or false"
    return None


class AnswerRankingOptionsForm(CampaignOptionsForm):
    dimensions = LinesOptionField(
        label="Dimensions",
        help_text="One dimension per line, in the order the ranking page shows them; a ranking covers each. "
                  "Empty: one dimension, overall.")
    ties = YesNoOptionField(
        label="Ties", unset="not set: no ties on the page, until an import brings tied rankings (it sets yes)",
        help_text="Whether candidates may share a place in a ranking. With no, imports of tied rankings are refused.")


@register
class AnswerRanking(TaskTypeSpec):
    name = "answer_ranking"
    unit = UNIT_TOPIC
    options = {"dimensions": _dimensions, "ties": _ties}
    options_form = AnswerRankingOptionsForm
    page = ("annotate/ranking.html", "annotate/_ranking.html")
    noun = "ranking"
    import_formats = ("label-studio", "jsonl", "trec-qrels", "trec-run", "judge-scores")
    importer = "tasktypes.importers.service.ranking_import"
    import_lines = "ranking_lines"
    report_builder = "agreement.report_ranking.ranking_report_build"
    report_layout = LAYOUT_RANKING

    def value_check(self, value, *, unit=None) -> str:
        if unit is None:
            raise JudgmentValueError("A ranking can only be checked against its topic.")
        _ranking_check(value=value, unit=unit)
        return RANKED_LABEL

    def value_from_post(self, post, *, assignment) -> dict:
        """The posted ranking with item ids; a first ranking of the topic must say how its order was settled
        (order_confirmed), so the shuffled order the page starts from is never taken for the expert's own."""
        value = _ranking_from_labels(post.get("ranking", ""), assignment=assignment)
        if isinstance(value, dict) and "order_confirmed" not in value and judgment_current_of(
                assignment=assignment) is None:
            raise JudgmentValueError(
                "The candidates are still in the shuffled order the page starts from: move them into your order, "
                "or press “Keep this order” if that order is already yours.")
        return value

    def value_words(self, value, *, assignment) -> str:
        """The order by candidate labels, best first, tied candidates joined by "=": "C, A = D, B" per dimension."""
        rankings = value.get("rankings") if isinstance(value, dict) else None
        if not isinstance(rankings, dict):
            return "a ranking this page cannot show"
        labels = {item.pk: label for label, item in ranking_candidates(assignment=assignment)}
        parts = []
        for name, groups in rankings.items():
            order = ", ".join(" = ".join(labels.get(pk, "?") for pk in group) for group in groups
                              if isinstance(group, list))
            parts.append(order if len(rankings) == 1 else f"{name.replace('_', ' ')}: {order}")
        return "; ".join(parts)

    def draft_from_post(self, post, *, assignment) -> dict:
        return _ranking_from_labels(post.get("draft", ""), assignment=assignment)

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        campaign = assignment.unit.campaign
        return ranking_display(assignment=assignment, dimensions=ranking_dimensions(campaign),
                               ties=bool((campaign.options or {}).get("ties")), arrangement=arrangement)


def ranking_dimensions(campaign: Campaign) -> list[str]:
    """The dimensions a ranking of CAMPAIGN covers, in the campaign's order; ["overall"] unless it lists some."""
    dimensions = (campaign.options or {}).get("dimensions") or ["overall"]
    return [str(name) for name in dimensions]


def _ranking_check(*, value, unit: Unit) -> None:
    """Check a ranking value against docs/answer_ranking.md: {"rankings": {dimension: [[item_pk, ...], ...]}}.

    Exactly the campaign's dimensions; per dimension every candidate Item of the unit's topic
    exactly once, best group first; groups of more than one only when the campaign allows ties.
    """
    campaign = unit.campaign
    if not isinstance(value, dict) or not {"rankings"} <= set(value) <= {"rankings", "order_confirmed"} \
            or not isinstance(value["rankings"], dict):
        raise JudgmentValueError('A ranking is {"rankings": {dimension: [[candidate, ...], ...]}}.')
    rankings = value["rankings"]
    dimensions = ranking_dimensions(campaign)
    if "order_confirmed" in value:
        _order_confirmed_check(value["order_confirmed"], dimensions=dimensions)
    missing_dims = [name for name in dimensions if name not in rankings]
    unknown_dims = sorted(str(name) for name in rankings if name not in dimensions)
    if unknown_dims:
        raise JudgmentValueError(f"This campaign does not rank by {', '.join(unknown_dims)}; "
                                 f"it ranks by {', '.join(dimensions)}.")
    if missing_dims:
        verb = "is" if len(missing_dims) == 1 else "are"
        raise JudgmentValueError(f"Rank by every dimension: {', '.join(missing_dims)} {verb} missing.")
    candidates = set(
        Item.objects.filter(topic_id=unit.topic_id, campaign_id=unit.campaign_id).values_list("pk", flat=True)
    )
    ties = bool((campaign.options or {}).get("ties"))
    for name in dimensions:
        where = f"{name.replace('_', ' ').capitalize()} — " if len(dimensions) > 1 else ""
        groups = rankings[name]
        if not isinstance(groups, list) or not all(isinstance(group, list) and group for group in groups):
            raise JudgmentValueError(
                _sentence(f"{where}a ranking is a list of non-empty groups of candidates, best first.")
            )
        seen: set[int] = set()
        twice = unknown = 0
        for group in groups:
            if len(group) > 1 and not ties:
                raise JudgmentValueError(
                    _sentence(f"{where}ties are not allowed in this campaign: give each candidate its own place.")
                )
            for pk in group:
                # bool is an int in Python; true/false are not candidate ids.
                if isinstance(pk, bool) or not isinstance(pk, int) or pk not in candidates:
                    unknown += 1
                elif pk in seen:
                    twice += 1
                else:
                    seen.add(pk)
        if unknown:
            what = "ranked id is not a candidate" if unknown == 1 else "ranked ids are not candidates"
            raise JudgmentValueError(_sentence(f"{where}{unknown} {what} of this topic."))
        if twice:
            raise JudgmentValueError(_sentence(f"{where}place each candidate once: {_count(twice)} placed twice."))
        left_out = len(candidates - seen)
        if left_out:
            raise JudgmentValueError(_sentence(f"{where}place every candidate: {_count(left_out, 'missing')}."))


def _order_confirmed_check(confirmed, *, dimensions: list[str]) -> None:
    """order_confirmed says, for every dimension and no other, whether the annotator moved candidates or kept the
    order shown."""
    if not isinstance(confirmed, dict) or any(state not in ORDER_CONFIRMATIONS for state in confirmed.values()):
        raise JudgmentValueError('order_confirmed is {dimension: "moved" or "kept"}.')
    unknown = sorted(str(name) for name in confirmed if name not in dimensions)
    if unknown:
        raise JudgmentValueError(f"This campaign does not rank by {', '.join(unknown)}; "
                                 f"it ranks by {', '.join(dimensions)}.")
    unsettled = [name.replace("_", " ") for name in dimensions if name not in confirmed]
    if unsettled:
        raise JudgmentValueError(f"Move candidates or keep the order shown in every dimension first: "
                                 f"{', '.join(unsettled)} is still in the shuffled starting order.")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _count(n: int, adjective: str = "") -> str:
    """The counts in ranking errors read as sentences: 1 is (missing), 2 are (missing)."""
    verb = "is" if n == 1 else "are"
    return f"{n} {verb} {adjective}".rstrip()


def _ranking_from_labels(raw: str, *, assignment) -> dict:
    """The posted {"rankings": {dimension: [[label, ...], ...]}} with item ids for labels.

    Only the labels are translated; the shape is passed on as it is for the service to judge,
    so the annotator reads one set of messages whichever layer finds the fault.
    """
    try:
        posted = json.loads(raw)
    except (TypeError, ValueError):
        raise JudgmentValueError("The ranking could not be read; reload the page and try again.") from None
    if not isinstance(posted, dict) or not isinstance(posted.get("rankings"), dict):
        return posted
    by_label = {label: item.pk for label, item in ranking_candidates(assignment=assignment)}

    def pk_of(label):
        if not isinstance(label, str):
            return label
        if label not in by_label:
            raise JudgmentValueError(f"There is no Candidate {label[:8]} in this topic.")
        return by_label[label]

    rankings = {}
    for name, groups in posted["rankings"].items():
        if isinstance(groups, list):
            groups = [[pk_of(label) for label in group] if isinstance(group, list) else group for group in groups]
        rankings[name] = groups
    return {**posted, "rankings": rankings}
