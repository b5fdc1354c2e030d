"""The sentiment task type's report, made with the report kit: the humans' agreement, each judge against the human
label (Cohen's kappa and agreement, each with n and an interval), and the adjudication block."""

from reports.adjudication import adjudication_items_block
from reports.humans import humans_block
from reports.selectors import human_labels_get, judge_labels_get
from stats.interrater import cohen_kappa, item_agreement_intervals


def sentiment_report_build(*, campaign) -> dict:
    humans = human_labels_get(campaign=campaign)
    judges = judge_labels_get(campaign=campaign)
    blocks = {}
    for judge in judges:
        items = sorted(item for item, label in judge.labels.items() if humans.item_label.get(item))
        own = [judge.labels[item] for item in items]
        human = [humans.item_label[item] for item in items]
        intervals = item_agreement_intervals(own, human, [humans.item_topic.get(item, item) for item in items])
        blocks[judge.name] = {"family": judge.family, "item": {
            "n": len(items), "cohen_kappa": cohen_kappa(own, human) if items else None,
            "cohen_kappa_ci95": intervals["cohen_kappa"],
            "accuracy": sum(a == b for a, b in zip(own, human, strict=True)) / len(items) if items else None,
            "accuracy_ci95": intervals["accuracy"]}}
    return {
        "campaign": campaign.slug, "task_type": campaign.task_type, "humans": humans_block(humans), "judges": blocks,
        "systems": [],
        "adjudication": adjudication_items_block(humans=humans, judges=[(j.name, j.family, j.labels) for j in judges]),
    }
