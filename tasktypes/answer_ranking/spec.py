"""answer_ranking: experts rank a topic's candidates (generated answers among documents), best first, on one or more
dimensions. One ranking per topic (docs/answer_ranking.md)."""

import json

from django import forms

from annotate.forms import (
    CampaignOptionsForm,
    ChoiceOptionField,
    LinesOptionField,
    NumberOptionField,
    OptionField,
    YesNoOptionField,
)
from annotate.models import Unit
from annotate.selectors.annotation import (
    ORDER_CONFIRMATIONS,
    judgment_current_of,
    ranking_candidates,
    ranking_display,
    topic_candidates,
    topic_candidates_column,
    topic_candidates_known,
)
from annotate.selectors.arms import judge_topic_scores
from annotate.task_types.registry import register
from annotate.task_types.spec import UNIT_TOPIC, JudgmentValueError, TaskTypeSpec, view_assignment
from interchange.importers.formats import ITEM_CATEGORIES, JUDGE_SCORES
from tasktypes.answer_ranking.formats import IMPORT_COUNTS, DocumentQrels, LabelStudio, RankerRun, RankingJsonl
from tasktypes.answer_ranking.options import NRP_RULES, rank_depth, ranking_dimensions

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


def _rank_depth(key: str, value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return "rank_depth must be a whole number, at least 1"
    return None


def _nrp_rule(key: str, value) -> str | None:
    if value not in NRP_RULES:
        return f"{key} is one of {', '.join(NRP_RULES)}, not {value!r}"
    return None


def _nrp_weights(key: str, value) -> str | None:
    if not isinstance(value, dict) or not value or not all(
            isinstance(name, str) and name.strip() and isinstance(weight, (int, float)) and not isinstance(weight, bool)
            and weight >= 0 for name, weight in value.items()) or not any(weight > 0 for weight in value.values()):
        return (f"{key} must map dimensions to weights, numbers from 0 up, at least one above 0 "
                '(one "dimension: weight" per line)')
    return None


class WeightsOptionField(OptionField):
    """Names with a number each, one "name: number" per line; a line without a number is kept for the check to
    refuse."""

    def __init__(self, **kwargs):
        super().__init__(widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}), **kwargs)

    def read(self, text: str):
        weights = {}
        for line in (line.strip() for line in text.splitlines()):
            if not line:
                continue
            name, _, number = line.rpartition(":")
            try:
                weights[name.strip()] = float(number) if "." in number else int(number)
            except ValueError:
                return text
        return weights

    def show(self, value) -> str:
        if isinstance(value, dict):
            return "\n".join(f"{name}: {weight}" for name, weight in value.items())
        return super().show(value)


class AnswerRankingOptionsForm(CampaignOptionsForm):
    dimensions = LinesOptionField(
        label="Dimensions",
        help_text="One dimension per line, in the order the ranking page shows them; a ranking covers each. "
                  "Empty: one dimension, overall.")
    ties = YesNoOptionField(
        label="Ties", unset="not set: no ties on the page, until an import brings tied rankings (it sets yes)",
        help_text="Whether candidates may share a place in a ranking. With no, imports of tied rankings are refused.")
    rank_depth = NumberOptionField(
        label="Rank depth",
        help_text="Rank only the best k: an annotator places at least the best k candidates of a topic (all of them "
                  "when it has fewer) and may leave the rest unranked; the unranked count as tied below every "
                  "ranked one. Empty: every candidate is ranked.")
    nrp_rule = ChoiceOptionField(
        label="NRP rule", choices=NRP_RULES, unset="not set: paper",
        help_text="How a generated answer's normalised rank position among its topic's documents is computed: the "
                  "paper's 1 − r/|D|, or 1 − r/(|D| + 1) as the study's released code does (its published figures "
                  "use that one). Empty: paper.")
    nrp_weights = WeightsOptionField(
        label="NRP weights of the dimensions",
        help_text="For the NRP by dimension (each dimension's best ranker by nDCG@10 against its qrels set): one "
                  '"dimension: weight" per line; the dimensions\' NRPs are combined as a mean with these weights. '
                  "Empty: equal weights.")


@register
class AnswerRanking(TaskTypeSpec):
    name = "answer_ranking"
    label = "Answer ranking"
    unit = UNIT_TOPIC
    options = {"dimensions": _dimensions, "ties": _ties, "rank_depth": _rank_depth, "nrp_rule": _nrp_rule,
               "nrp_weights": _nrp_weights}
    options_form = AnswerRankingOptionsForm
    page = ("answer_ranking/annotate.html", "answer_ranking/_unit.html")
    noun = "ranking"
    topic_noun = "query"
    formats = (LabelStudio(), RankingJsonl(), DocumentQrels(), RankerRun(), JUDGE_SCORES, ITEM_CATEGORIES)
    import_counts = IMPORT_COUNTS
    judge_families = ("bm25", "cross-encoder", "dense", "monot5")
    report_layout = "ranking"
    arm_comparison = "rankings"

    def import_campaign_counts(self, campaign) -> dict:
        from tasktypes.answer_ranking.importers import ranking_campaign_counts

        return ranking_campaign_counts(campaign)

    def import_lines(self, summary) -> list[str]:
        from tasktypes.answer_ranking.importers import ranking_lines

        return ranking_lines(summary)

    def report_build(self, *, campaign) -> dict:
        from tasktypes.answer_ranking.report import ranking_report_build

        return ranking_report_build(campaign=campaign)

    def report_presentation(self):
        from tasktypes.answer_ranking.presentation import RankingPresentation

        return RankingPresentation()

    def sample(self):
        from tasktypes.answer_ranking.sample import RankingSample

        return RankingSample()

    def adjudication_disagreement(self, *, humans, judges, kinds, judge, needed) -> dict | None:
        """How far the unit's rankings are apart (stats.disagreement.rankings_disagreement)."""
        from stats.disagreement import rankings_disagreement

        return rankings_disagreement(humans=humans, judges=judges, kinds=kinds, judge=judge, needed=needed,
                                     human_label=self.human_label)

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
            start = "the model's order" if assignment.suggestion else "the shuffled order"
            raise JudgmentValueError(
                f"The candidates are still in {start} the page starts from: move them into your order, "
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

    def suggestions(self, *, campaign, judge, units=None) -> dict[int, dict]:
        """The judge's order of a topic's candidates by score, best first, in every dimension the campaign ranks
        (a ranker scores a candidate once, whatever the dimension): candidates with equal scores share a place when
        the campaign allows ties, else they follow one another by item id. None (left out) unless the judge scored
        every candidate of the topic. No order_confirmed: an untouched suggested order must still be kept
        explicitly (Keep this order), so an accepted suggestion is on record as such."""
        dimensions = ranking_dimensions(campaign)
        ties = bool((campaign.options or {}).get("ties"))
        result = {}
        for unit, scores in judge_topic_scores(campaign=campaign, judge=judge, units=units).items():
            if not scores or any(score is None for score in scores.values()):
                continue
            groups = []
            for value in sorted(set(scores.values()), reverse=True):
                group = sorted(pk for pk, score in scores.items() if score == value)
                groups += [group] if ties else [[pk] for pk in group]
            result[unit] = {"rankings": {name: [list(group) for group in groups] for name in dimensions}}
        return result

    def arm_key(self, value):
        """A ranking's order, {dimension: tie groups}, order_confirmed left aside; None when it is not a ranking."""
        rankings = value.get("rankings") if isinstance(value, dict) else None
        if not isinstance(rankings, dict):
            return None
        return {str(name): [list(group) for group in groups if isinstance(group, list)]
                for name, groups in rankings.items() if isinstance(groups, list)}

    # A ranking page and a ranking's check read the topic's candidates: with the unit, in the query that reads it.
    page_column_names = ("page_candidates",)

    def page_columns(self, *, unit_path: str, campaign, annotator, now) -> dict:
        return {"page_candidates": topic_candidates_column(unit_path=unit_path)}

    def page_columns_read(self, unit, values: dict) -> None:
        if "page_candidates" in values:
            topic_candidates_known(unit, values["page_candidates"])

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """ranking_display's page; with rank_depth k also `rank_depth`, `need` (min(k, candidates)), and per
        dimension `ranked` (how many candidates the order shown ranks: its first ones) with the rest `unranked`."""
        campaign = assignment.unit.campaign
        context = ranking_display(assignment=assignment, dimensions=ranking_dimensions(campaign),
                                  ties=bool((campaign.options or {}).get("ties")), arrangement=arrangement)
        depth = rank_depth(campaign)
        context["rank_depth"] = depth
        if depth is None:
            return context
        if arrangement is None:  # what ranking_display started from
            own = judgment_current_of(assignment=assignment)
            arrangement = own.value if own else (assignment.draft or assignment.suggestion)
        rankings = arrangement.get("rankings") if isinstance(arrangement, dict) else None
        by_label = {label: item.pk for label, item in ranking_candidates(assignment=assignment)}
        for dim in context["dimensions"]:
            groups = rankings.get(dim["name"]) if isinstance(rankings, dict) else None
            placed = {pk for group in groups if isinstance(group, list) for pk in group} \
                if isinstance(groups, list) else set()
            # ranking_display lists the placed candidates first, in their order, then the others.
            dim["ranked"] = sum(1 for entry in dim["entries"] if by_label[entry["key"]] in placed)
            for n, entry in enumerate(dim["entries"]):
                if n >= dim["ranked"]:
                    entry.update(unranked=True, tied=False)
        context["need"] = min(depth, len(by_label))
        return context


    # --- Adjudication: a topic's rankings disagree by 1 - their mean pairwise Kendall tau-b ---

    def adjudication_display(self, *, unit, adjudicator) -> dict:
        """The query, its narrative and every candidate under the adjudicator's own labels (ranking_candidates)."""
        assignment = view_assignment(unit=unit, person=adjudicator)
        return {"question": unit.topic.text, "narrative": str((unit.topic.data or {}).get("narrative") or ""),
                "candidates": [{"label": label, "text": item.text}
                               for label, item in ranking_candidates(assignment=assignment)]}

    def adjudication_questions(self, campaign) -> list[dict]:
        ties = bool((campaign.options or {}).get("ties"))
        example = "B, A = C, D" if ties else "B, A, C, D"
        return [{"name": f"order-{name}", "title": f"Order by {name.replace('_', ' ')}, best first", "text": True,
                 "placeholder": f"candidate letters, best first, e.g. {example}", "when": None, "choices": []}
                for name in ranking_dimensions(campaign)]

    def adjudication_value_from_post(self, post, *, unit, adjudicator) -> dict:
        """The typed orders ("B, A = C, D": commas between places, "=" between tied candidates) as a ranking."""
        rankings = {}
        for name in ranking_dimensions(unit.campaign):
            text = str(post.get(f"order-{name}") or "")
            rankings[name] = [[label.strip().upper() for label in place.split("=") if label.strip()]
                              for place in text.split(",") if place.strip()]
        return _ranking_from_labels(json.dumps({"rankings": rankings}),
                                    assignment=view_assignment(unit=unit, person=adjudicator))

    def adjudication_judge_words(self, verdicts, *, unit, adjudicator) -> str:
        """The judge's order of the candidates by score, best first, in the adjudicator's labels."""
        labels = {item.pk: label for label, item in
                  ranking_candidates(assignment=view_assignment(unit=unit, person=adjudicator))}
        scored = [(verdict.score, labels[pk]) for pk, verdict in verdicts.items()
                  if verdict.score is not None and pk in labels]
        if not scored:
            return "no scores"
        return ", ".join(label for _, label in sorted(scored, key=lambda pair: (-pair[0], pair[1])))


def _ranking_check(*, value, unit: Unit) -> None:
    """Check a ranking value against docs/answer_ranking.md: {"rankings": {dimension: [[item_pk, ...], ...]}}.

    Exactly the campaign's dimensions; per dimension every candidate Item of the unit's topic
    exactly once, best group first; groups of more than one only when the campaign allows ties.
    With the campaign's rank_depth k, a partial ranking: at least the best min(k, n) of the topic's n candidates,
    each at most once; the candidates left out are unranked (tied below every ranked one).
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
    candidates = {item.pk for item in topic_candidates(unit=unit)}
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
        depth = rank_depth(campaign)
        if depth is None and left_out:
            raise JudgmentValueError(_sentence(f"{where}place every candidate: {_count(left_out, 'missing')}."))
        if depth is not None and len(seen) < min(depth, len(candidates)):
            need = min(depth, len(candidates))
            raise JudgmentValueError(_sentence(
                f"{where}rank the best {need} candidates: {len(seen)} {'is' if len(seen) == 1 else 'are'} "
                f"ranked, {need - len(seen)} more to place; the rest may stay unranked."))


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
    except (TypeError, ValueError, RecursionError):  # RecursionError: nested past Python's parser's depth
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
