"""The labels as columns (stats.ratings) give the tables the per-unit dicts gave: the same pairs of raters, the
same Fleiss and Krippendorff tables, the same selected-sample counts, and (reports.selectors.human_labels_get) the
same human label per item as asking the task type's rule item by item."""

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import hypergeom

from annotate.models import HumanJudgment, JudgmentKind
from annotate.task_types.spec import OPEN, TIE, majority_label
from reports.selectors import human_labels_get
from stats import interrater
from stats.ratings import Ratings, coded, preference_order, rater_pairs
from stats.selection import SELECTED_P, SELECTED_RATIO, annotator_samples, annotator_samples_columns
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory

RATERS = ["ann", "bo", "cy", "di", "ed", "flo"]


def _random_units(seed: int, units: int = 300) -> dict[int, dict[str, str]]:
    """{unit id: {rater: label}}: 1 to 4 raters a unit, labels a/b/c, unit ids not consecutive."""
    rng = random.Random(seed)
    return {10 + 3 * n: {name: rng.choice("aab" if n % 2 else "abc") for name in rng.sample(RATERS, rng.randint(1, 4))}
            for n in range(units)}


def _columns(by_unit: dict[int, dict[str, str]]) -> Ratings:
    """BY_UNIT as reports.selectors builds the columns: rows sorted by unit, raters and labels coded in order."""
    rows = [(unit, name, label) for unit, labels in sorted(by_unit.items()) for name, label in labels.items()]
    rater, raters = coded([name for _, name, _ in rows])
    label, labels = coded([label for _, _, label in rows])
    unit = np.array([unit for unit, _, _ in rows])
    return Ratings(unit=unit, item=unit + 1, rater=rater, label=label, raters=raters, labels=labels)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_columns_give_the_pairs_and_tables_of_the_dicts(seed):
    by_unit = _random_units(seed)
    ratings = _columns(by_unit)
    assert ratings.by_unit() == by_unit

    first, second = rater_pairs(ratings)
    got = [(ratings.raters[ratings.rater[i]], ratings.raters[ratings.rater[j]], int(ratings.unit[i]),
            ratings.labels[ratings.label[i]], ratings.labels[ratings.label[j]]) for i, j in zip(first, second)]
    expected = [(a, b, unit, by_unit[unit][a], by_unit[unit][b]) for a, b in combinations(RATERS, 2)
                for unit in sorted(by_unit) if a in by_unit[unit] and b in by_unit[unit]]
    assert got == expected

    # Fleiss reads each unit's first m ratings, the most prolific raters first; alpha every unit rated twice.
    rated = Counter(name for labels in by_unit.values() for name in labels)
    rank = {name: position for position, name in enumerate(sorted(rated, key=lambda name: (-rated[name], name)))}
    lists = [[labels[name] for name in sorted(labels, key=rank.get)] for _, labels in sorted(by_unit.items())]
    preferred = preference_order(ratings)
    columns = interrater.rater_agreement_columns(ratings.groups[0][preferred], ratings.label[preferred],
                                                 labels=len(ratings.labels), raters=len(rated))
    assert columns == interrater.rater_agreement(lists, raters=len(rated))
    assert columns["fleiss_kappa"] == pytest.approx(interrater.fleiss_kappa(lists))
    assert columns["krippendorff_alpha"] == pytest.approx(interrater.krippendorff_alpha_units(lists))
    assert columns["krippendorff_alpha_items"] == sum(len(labels) >= 2 for labels in by_unit.values())


@pytest.mark.parametrize("seed", [4, 5])
def test_selected_samples_from_columns_follow_the_definition(seed):
    by_unit = _random_units(seed)
    ratings = _columns(by_unit)
    rows = annotator_samples_columns(ratings.groups[0], ratings.rater, ratings.label, raters=ratings.raters,
                                     labels=len(ratings.labels))
    assert rows == annotator_samples(by_unit[unit] for unit in sorted(by_unit))
    for row in rows:  # the module's definition, unit by unit
        name = row["annotator"]
        pool = [labels for labels in by_unit.values() if len([n for n in labels if n != name]) >= 2]
        split = [labels for labels in pool if len({label for n, label in labels.items() if n != name}) > 1]
        mine = [labels for labels in pool if name in labels]
        mine_split = [labels for labels in split if name in labels]
        assert (row["pool"], row["pool_split"], row["items"], row["split"]) == (
            len(pool), len(split), len(mine), len(mine_split))
        if mine:
            p = hypergeom.sf(len(mine_split) - 1, len(pool), len(split), len(mine))
            assert row["p_value"] == pytest.approx(p)
            assert row["selected"] == (len(mine) < len(pool) and p < SELECTED_P and
                                       len(mine_split) / len(mine) >= SELECTED_RATIO * len(split) / len(pool))


def test_each_item_gets_the_label_its_votes_give(db):
    """k = 3 wanted: items with all three in, with two (decided or open), ties of two, and an adjudicated one."""
    campaign = CampaignFactory(slug="tallies", overlap=3)
    topic = TopicFactory(campaign=campaign, external_id="t", text="q", data={})
    people = [UserFactory(username=name) for name in ("zed", "amy", "kim", "lee")]
    rng = random.Random(7)
    votes = {}
    for n in range(60):
        item = ItemFactory(campaign=campaign, topic=topic, external_id=str(n), text=f"a{n}")
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3 if n % 5 else 2)
        labels = [rng.choice(["yes", "no"]) for _ in range(rng.randint(1, 3))]
        for person, label in zip(people, labels):
            HumanJudgment.objects.create(unit=unit, annotator=person, value={"correct": label == "yes"}, label=label,
                                         source="import")
        votes[item.pk] = (labels, unit.judgments_needed)
    settled = next(iter(votes))
    HumanJudgment.objects.create(unit=campaign.units.get(item_id=settled), annotator=people[3], label="maybe",
                                 kind=JudgmentKind.ADJUDICATION, value={}, source="web")

    humans = human_labels_get(campaign=campaign)
    rule = {item: majority_label(labels, needed=needed) for item, (labels, needed) in votes.items()}
    assert humans.item_label == {**{item: label for item, label in rule.items()
                                    if label not in (TIE, OPEN) and item != settled}, settled: "maybe"}
    assert humans.ties == {item for item, label in rule.items() if label is TIE and item != settled}
    assert humans.open == {item for item, label in rule.items() if label == OPEN and item != settled}
    assert humans.ties and humans.open  # the data has both kinds
    assert humans.annotators == ["amy", "kim", "zed"]  # by name, not by id; the adjudicator is no rater
    assert humans.item_votes == {item: (labels.count("yes"), len(labels)) for item, (labels, _) in votes.items()}
    assert humans.adjudicated_items == {settled} and humans.item_topic == dict.fromkeys(votes, topic.pk)
