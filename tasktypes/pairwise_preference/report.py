"""The pairwise_preference report: how each judge agrees with the humans' majority (Cohen's kappa over a, b and tie,
and agreement with ties and without), the humans among themselves (the ceiling), the raters' position bias (the
humans' first-position rate), and the systems' Bradley-Terry scores under the humans and under each judge, each with
its n and an interval (stats.preference; intervals resample prompts). Both bad counts as a tie when raters are
compared."""

from annotate.ids import json_text
from annotate.models import HumanJudgment, Item, JudgmentKind
from judges.models import ModelJudgment
from reports.adjudication import adjudication_items_block
from reports.beside import beside
from reports.humans import humans_block, selected_annotators
from reports.replacement import replacement_block
from reports.selectors import human_labels_get, judge_labels_get, judge_part_filter, label_plan_get
from stats.interrater import WILSON, cohen_kappa, item_agreement_intervals, share_with_interval
from stats.preference import (
    FIRST,
    SECOND,
    TIE,
    first_position_rate,
    pool_preference_scores,
    pooled_by_prompt,
    preference_scores,
)
from stats.uncertainty import bootstrap_method
from tasktypes.pairwise_preference.judging import FIRST_SHOWN, INCONSISTENT, ORDERS, order_answers
from tasktypes.pairwise_preference.ppi import preference_ppi
from tasktypes.pairwise_preference.verdicts import BOTH_BAD, SIDES

# A verdict as the three answers raters are compared on.
THREE = {"a": "a", "b": "b", "tie": "tie", BOTH_BAD: "tie"}


def _pairs(campaign) -> dict[int, tuple[str, str, str]]:
    """item -> (its prompt's id, system a, system b): one query, the responses' texts left unread."""
    rows = Item.objects.filter(campaign=campaign).values_list(
        "id", "topic__external_id", json_text("data__a__system"), json_text("data__b__system"))
    return {pk: (topic, a or "", b or "") for pk, topic, a, b in rows}


# A verdict on a pair as the outcome of a comparison of its systems, system a first.
OUTCOME = {"a": FIRST, "b": SECOND, "tie": TIE}


def _comparison(pair: tuple[int, str, str], label: str) -> tuple[str, str, str] | None:
    """A verdict LABEL on PAIR as a comparison of its systems (a first); None for a label that is no verdict."""
    outcome = OUTCOME.get(THREE.get(label, ""))
    return None if outcome is None else (pair[1], pair[2], outcome)


def _comparisons(verdicts: list[tuple[int, str]], pairs: dict) -> tuple[list, list]:
    """VERDICTS [(item, label)] as comparisons of their systems, and the prompt each was made on."""
    comparisons, clusters = [], []
    for item, label in verdicts:
        comparison = _comparison(pairs[item], label) if item in pairs else None
        if comparison is not None:
            comparisons.append(comparison)
            clusters.append(pairs[item][0])
    return comparisons, clusters


def _judge_orders(campaign) -> dict[str, list[dict[str, str]]]:
    """judge name -> the answer of each order it was asked in, per pair, for the judges that generate their verdicts
    (the llm family's pairwise mode, tasktypes.pairwise_preference.judging); the others score each response alone."""
    from judges.families import SAMPLE_FAMILIES

    answers: dict[str, list[dict[str, str]]] = {}
    rows = ModelJudgment.objects.filter(judge_part_filter(campaign), judge__campaign=campaign,
                                        judge__family__in=SAMPLE_FAMILIES, failed=False)
    for name, raw in rows.values_list("judge__name", "raw").iterator():
        orders = order_answers(raw)
        if orders:
            answers.setdefault(name, []).append(orders)
    return answers


def _position_block(answers: list[dict[str, str]]) -> dict | None:
    """A judge's position bias: the share of the pairs asked in both orders whose answer survives the swap, and how
    often an order's answer named the response shown first; None for a judge that was never shown an order."""
    if not answers:
        return None
    outcomes = [TIE if answer == "tie" else FIRST if answer == FIRST_SHOWN[order] else SECOND
                for entry in answers for order, answer in entry.items()]
    both = [entry for entry in answers if len(entry) == len(ORDERS)]
    consistent = sum(len(set(entry.values())) == 1 for entry in both)
    return {"first": first_position_rate(outcomes),
            "consistency": {"n": len(both), "consistent": consistent, **share_with_interval(consistent, len(both)),
                            "method": f"share of the pairs asked in both orders whose two answers agree, {WILSON}"}}


def _judge_block(judge, humans, orders: list[dict[str, str]], scores: dict, order: dict) -> dict:
    items = sorted(item for item, label in judge.labels.items() if humans.item_label.get(item) and label in THREE)
    own = [THREE[judge.labels[item]] for item in items]
    human = [THREE[humans.item_label[item]] for item in items]
    topics = [humans.item_topic.get(item, item) for item in items]
    intervals = item_agreement_intervals(own, human, topics)
    decided = [(a, b) for a, b in zip(own, human, strict=True) if a in SIDES and b in SIDES]
    return {
        "family": judge.family,
        "item": {"n": len(items), "cohen_kappa": cohen_kappa(own, human) if items else None,
                 "cohen_kappa_ci95": intervals["cohen_kappa"], "cohen_kappa_ci_over": "prompts",
                 "accuracy": sum(a == b for a, b in zip(own, human, strict=True)) / len(items) if items else None,
                 "accuracy_ci95": intervals["accuracy"], "accuracy_ci_over": "prompts"},
        # On the pairs both call for a side: how often the same side.
        "decided": {"n": len(decided), **share_with_interval(sum(a == b for a, b in decided), len(decided))},
        # Verdicts whose two orders named different responses: left out of every comparison above.
        "inconsistent": sum(label == INCONSISTENT for label in judge.labels.values()),
        "position": _position_block(orders),
        "scores": scores,
        "order": order,
    }


def _scores(raters: list, systems: list) -> tuple[list[dict], list[dict]]:
    """The systems' scores under each of RATERS and each order after the first against the first's: one fit over
    every prompt (stats.preference.preference_scores), or one per prompt where each candidate was compared on one
    prompt only (pool_preference_scores)."""
    if pooled_by_prompt(raters):
        return pool_preference_scores(raters)
    return preference_scores(raters, systems=systems)


def preference_report_build(*, campaign) -> dict:
    humans = human_labels_get(campaign=campaign)
    judges = judge_labels_get(campaign=campaign)
    pairs = _pairs(campaign)
    systems = sorted({system for _, a, b in pairs.values() for system in (a, b)})
    # Every current human verdict, with the side it was shown on the left when it was made in Concord.
    votes = list(HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True)
                 .exclude(label="").values_list("unit__item_id", "label", "value"))
    positions = [TIE if THREE.get(label) == "tie" else (FIRST if label == (value or {}).get("left") else SECOND)
                 for _, label, value in votes if (value or {}).get("left") in SIDES]
    orders = _judge_orders(campaign)
    # The systems' scores under the humans and under each judge: one fit over every prompt, from one bootstrap over
    # the prompts; or, where each candidate was compared on one prompt only (passages in a topic's pool), one fit
    # per prompt, compared per prompt and averaged over the prompts.
    raters = [_comparisons([(item, label) for item, label, _ in votes], pairs),
              *(_comparisons(sorted(judge.labels.items()), pairs) for judge in judges)]
    scores, system_orders = _scores(raters, systems)
    on_part = {}
    for n, judge in enumerate(judges):
        if judge.part is not None:
            # Read on one part of a development split: its systems' order is compared with the humans' over the
            # pairs of that part only, both fitted on one bootstrap of that part's prompts, as in a campaign holding
            # that part alone.
            humans_here = _comparisons([(item, label) for item, label, _ in votes if item in judge.part], pairs)
            fits, part_orders = _scores([humans_here, raters[n + 1]], systems)
            scores[n + 1], system_orders[n], on_part[judge.name] = fits[1], part_orders[0], fits[0]
    humans_part = humans_block(humans)
    # May a judge replace an annotator, on a, b and tie (both bad as a tie; order-inconsistent verdicts left out): in
    # a thread beside the rest of the build (reports.beside).
    replacement = beside(replacement_block, humans=humans, judges=[(j.name, j.family, j.labels) for j in judges],
                         options=campaign.options or {}, label_map=THREE, selected=selected_annotators(humans_part))
    # Each system's win rate from the humans' verdicts and a judge's together (PPI++), or its check on a draw.
    ppi = preference_ppi(human=humans.item_label, judges=judges, pairs=pairs, three=THREE,
                         pooled=pooled_by_prompt(raters), options=campaign.options or {},
                         plan=label_plan_get(campaign=campaign))
    return {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "humans": humans_part,
        "position": {"humans": first_position_rate(positions)},
        "scores": {"humans": scores[0]},
        "judges": {judge.name: {**_judge_block(judge, humans, orders.get(judge.name, []), scores[n + 1],
                                               system_orders[n]),
                                # With a development split: the part it is read on, and the humans' scores there.
                                "part": None if judge.part is None else ("held_out" if judge.held_out
                                                                         else "development"),
                                "humans_on_part": on_part.get(judge.name)}
                   for n, judge in enumerate(judges)},
        "systems": [],
        "ppi": ppi,
        "method": f"Cohen's kappa and agreement against the humans' majority over a, b and tie (both bad as a tie), "
                  f"{bootstrap_method('prompts')}; agreement on the pairs both call for a side, {WILSON}",
        "adjudication": adjudication_items_block(humans=humans, judges=[(j.name, j.family, j.labels) for j in judges]),
        "replacement": replacement.result(),
    }
