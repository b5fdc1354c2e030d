"""Two judges of a campaign side by side (the report's "Compare two judges" page): typically two versions of one
judge, a prompt changed or a model swapped. On the items both labelled: the items whose verdict changed, with their
texts and human label; each judge's Cohen's kappa and agreement with the human label on the items that have one, the
change in each with a 95% interval (stats.interrater.paired_agreement_difference: a bootstrap over topics, both
judges on the same draw); and the paired test of the two judges' correctness against the human label
(stats.system_tests.paired_test: McNemar's exact test). What tells the two versions apart comes first: the settings
whose values differ (a prompt text, the model, decoding) and the model ids the server reported answering with."""

from __future__ import annotations

from annotate.models import Campaign
from judges.identity import config_changes
from judges.selectors import judges_served_models
from reports.selectors import human_labels_get, items_brief_get, judge_labels_get
from stats import interrater, system_tests
from stats.uncertainty import bootstrap_method, put_interval

# The changed items the page lists (all are counted; the items CSV holds every verdict).
CHANGED_SHOWN = 200


def agreement_with_human(human: list, labels: list, topics: list) -> dict:
    """A judge's LABELS against the HUMAN labels of the same items: Cohen's kappa and agreement, each with its 95%
    interval from a bootstrap over TOPICS (the items' topics), and n."""
    block = {"n": len(human), "cohen_kappa": interrater.cohen_kappa(human, labels),
             "accuracy": interrater.agreement_rate(human, labels) if labels else None}
    intervals = interrater.item_agreement_intervals(human, labels, topics)
    for key in ("cohen_kappa", "accuracy"):
        put_interval(block, key, intervals[key], units=len(set(topics)), noun="topics")
    return block


class CompareError(ValueError):
    """The two judges cannot be compared (one does not exist, or both are the same)."""


def judge_comparison(*, campaign: Campaign, first: str, second: str) -> dict:
    """FIRST and SECOND (judge names of CAMPAIGN) compared (see the module's docstring); CompareError when either is
    not a judge of the campaign or they are the same judge."""
    judges = {judge.name: judge for judge in judge_labels_get(campaign=campaign)}
    for name in (first, second):
        if name not in judges:
            raise CompareError(f"this campaign has no judge called {name!r}; its judges: "
                               f"{', '.join(sorted(judges)) or 'none yet'}")
    if first == second:
        raise CompareError("choose two different judges")
    a, b = judges[first], judges[second]
    humans = human_labels_get(campaign=campaign)
    both = sorted(a.labels.keys() & b.labels.keys())
    changed = [item for item in both if a.labels[item] != b.labels[item]]
    labelled = [item for item in both if item in humans.item_label]
    human = [humans.item_label[item] for item in labelled]
    before, after = [a.labels[item] for item in labelled], [b.labels[item] for item in labelled]
    topics = [humans.item_topic.get(item, item) for item in labelled]
    sides = [{"side": side, "name": name, **agreement_with_human(human, labels, topics)}
             for side, name, labels in (("a", first, before), ("b", second, after))]
    difference = {key: (None if sides[1][key] is None or sides[0][key] is None else sides[1][key] - sides[0][key])
                  for key in ("cohen_kappa", "accuracy")}
    intervals = interrater.paired_agreement_difference(human, before, after, topics)
    for key in ("cohen_kappa", "accuracy"):
        put_interval(difference, key, intervals[key], units=len(set(topics)), noun="topics")
    correct = system_tests.paired_test([float(x == h) for x, h in zip(after, human, strict=True)],
                                       [float(x == h) for x, h in zip(before, human, strict=True)])
    brief = items_brief_get(item_ids=set(changed[:CHANGED_SHOWN]))
    served = judges_served_models(campaign=campaign)

    def version(side: str, name: str, judge) -> dict:
        models = served.get(judge.id)
        # Marked final only where there is a split (judges.development), where it is read on the held-out part.
        return {"side": side, "name": name, "family": judge.family, "imported": judge.imported,
                "labelled": len(judge.labels),
                "failed": len(judge.failed), "config_hash": judge.config_hash, "final": judge.held_out,
                "served_models": models.samples if models else {}, "served_text": models.text() if models else "",
                "served_changed": bool(models and models.changed)}

    shown = [version("a", first, a), version("b", second, b)]
    return {
        "first": shown[0], "second": shown[1], "versions": shown,
        # With a development split a final judge is read on the held-out part, any other on the development part
        # (reports.selectors.judge_part_filter): two such judges share no item.
        "parts_differ": shown[0]["final"] != shown[1]["final"],
        "config_changes": [] if a.family != b.family else config_changes(a.config, b.config),
        "n_both": len(both), "n_changed": len(changed), "n_labelled": len(labelled), "n_topics": len(set(topics)),
        "agreement": sides, "difference": difference, "correct_test": correct,
        "ci_method": bootstrap_method("topics, both judges on the same draw"),
        "changed": [{"item": item, **brief.get(item, {}), "first": a.labels[item], "second": b.labels[item],
                     "human": humans.item_label.get(item)} for item in changed[:CHANGED_SHOWN]],
    }
