"""The judge development page (judges.development): each judge's agreement with the human label on the part of the
development split it is read on, and, for a judge not marked final, the development items it gets wrong, to tune its
prompt on. Nothing here reads a held-out item for a judge that is not final (reports.selectors.judge_part_filter)."""

from __future__ import annotations

from typing import Any

from annotate.models import Campaign
from judges.development import split_summary
from reports.judge_compare import agreement_with_human
from reports.selectors import human_labels_get, items_brief_get, judge_labels_get

# The disagreements listed per judge (all are counted).
DISAGREEMENTS_SHOWN = 50


def development_view(*, campaign: Campaign) -> dict:
    """{"split": judges.development.split_summary, "judges": [...]}: per judge its part, n, Cohen's kappa and agreement
    with the human label with intervals, and (not final) its development items whose verdict differs from the human
    label, the first DISAGREEMENTS_SHOWN with their texts. Without a split, only {"split": None}."""
    split = split_summary(campaign=campaign)
    if split is None:
        return {"split": None, "judges": []}
    humans = human_labels_get(campaign=campaign)
    finals = {final["judge"]: final for final in split["final"]}
    judges: list[dict[str, Any]] = []
    wrong_shown: set[int] = set()
    for judge in judge_labels_get(campaign=campaign):
        items = sorted(item for item in judge.labels if item in humans.item_label)
        human = [humans.item_label[item] for item in items]
        labels = [judge.labels[item] for item in items]
        topics = [humans.item_topic.get(item, item) for item in items]
        row = {"id": judge.id, "name": judge.name, "family": judge.family, "final": finals.get(judge.name),
               "labelled": len(judge.labels), "failed": len(judge.failed),
               **agreement_with_human(human, labels, topics)}
        if row["final"] is None:
            wrong = [(item, label, h) for item, h, label in zip(items, human, labels, strict=True) if h != label]
            row["n_wrong"], row["wrong"] = len(wrong), wrong[:DISAGREEMENTS_SHOWN]
            wrong_shown.update(item for item, _, _ in row["wrong"])
        judges.append(row)
    brief = items_brief_get(item_ids=wrong_shown) if wrong_shown else {}
    for row in judges:
        row["wrong"] = [{"item": item, **brief.get(item, {}), "judge": label, "human": h}
                        for item, label, h in row.get("wrong", [])]
    return {"split": split, "judges": judges}
