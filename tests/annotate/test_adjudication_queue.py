"""The adjudication queue (annotate.selectors.adjudication) and the service that settles a unit
(annotate.services.adjudication): which units wait, in which order, for whom; what an adjudication changes."""

import math

import pytest

from annotate.models import Campaign, HumanJudgment, JudgmentKind, Role, Unit
from annotate.selectors.adjudication import adjudication_queue, judge_confidence
from annotate.selectors.annotation import units_open_to
from annotate.services.adjudication import adjudication_submit
from annotate.task_types.spec import JudgeVerdict, JudgmentError, JudgmentValueError
from reports.selectors import human_labels_get, ranking_data_get
from stats.disagreement import order_disagreement, rankings_disagreement, vote_entropy
from tests.adjudication_support import disagreement_campaign
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

H = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))  # the entropy of a 2-1 split, 0.918 bits


def waiting(campaign, person=None):
    return [(entry.label, entry.kinds) for entry in adjudication_queue(campaign=campaign, adjudicator=person).waiting]


def with_options(campaign, **options):
    Campaign.objects.filter(pk=campaign.pk).update(options=options)
    return Campaign.objects.get(pk=campaign.pk)


@pytest.fixture
def world():
    return disagreement_campaign()


def test_by_default_the_units_whose_humans_disagree_wait_most_disagreement_first(world):
    campaign, people, _ = world
    queue = adjudication_queue(campaign=campaign, adjudicator=people["adj"])
    # u4's two verdicts split evenly (1 bit); u1 and u3 split 2-1 (0.918 bits) and keep their queue order.
    assert [(e.label, e.kinds) for e in queue.waiting] == [("u4", ["humans"]), ("u1", ["humans"]),
                                                           ("u3", ["humans"])]
    assert [e.score for e in queue.waiting] == pytest.approx([1.0, H, H])
    assert queue.next.label == "u4" and queue.adjudicated == []


def test_the_judge_kind_adds_the_units_where_the_chosen_judge_contradicts_the_human_label(world):
    campaign = with_options(world[0], adjudication=["humans", "judge"], adjudication_judge="llm")
    queue = adjudication_queue(campaign=campaign, adjudicator=world[1]["adj"])
    assert [(e.label, e.kinds) for e in queue.waiting] == [
        ("u1", ["humans", "judge"]), ("u4", ["humans"]), ("u2", ["judge"]), ("u3", ["humans"])]
    # The judge's vote counts in the entropy: u1 = yes yes no + no; u2 = no no no + yes; u3 = yes no no + no.
    assert [e.score for e in queue.waiting] == pytest.approx([1.0, H, vote_entropy("nnny"), vote_entropy("ynnn")])
    # u2 and u3 tie on entropy: the judge's confidence ((0.9 - 0.5) / 0.5) puts u2, where it contradicts, first.
    assert queue.waiting[2].confidence == pytest.approx(0.8) and queue.waiting[3].confidence is None


def test_each_kind_alone(world):
    campaign, people, _ = world
    campaign = with_options(campaign, adjudication=["judge"], adjudication_judge="llm")
    assert waiting(campaign, people["adj"]) == [("u1", ["judge"]), ("u2", ["judge"])]
    campaign = with_options(campaign, adjudication=["judges"])
    # llm and em disagree on u1, u2 and u4; every judge's vote counts beside the humans'.
    queue = adjudication_queue(campaign=campaign, adjudicator=people["adj"])
    assert [(e.label, e.kinds) for e in queue.waiting] == [("u4", ["judges"]), ("u1", ["judges"]),
                                                           ("u2", ["judges"])]
    assert [e.score for e in queue.waiting] == pytest.approx([1.0, vote_entropy("yynny"), vote_entropy("nnnyn")])
    assert queue.waiting[1].confidence == pytest.approx((0.6 + 1.0) / 2)  # llm's 0.8 share, em's exact match
    campaign = with_options(campaign, adjudication=["humans"])
    assert [label for label, _ in waiting(campaign, people["adj"])] == ["u4", "u1", "u3"]


def test_a_judge_the_campaign_lacks_is_said_and_puts_nothing_in_the_queue(world):
    campaign = with_options(world[0], adjudication=["judge"], adjudication_judge="gone")
    queue = adjudication_queue(campaign=campaign, adjudicator=world[1]["adj"])
    assert queue.judge_missing and queue.waiting == []


def test_an_adjudication_leaves_the_queue_is_listed_apart_and_can_be_given_again(world):
    campaign, people, units = world
    before = list(HumanJudgment.objects.filter(unit=units[1]).values_list("pk", "value", "is_current", "version"))
    done = Unit.objects.get(pk=units[1].pk).judgments_done
    judgment = adjudication_submit(unit=units[1], adjudicator=people["adj"], value={"correct": False},
                                   note="The candidate names the wrong painter.")
    assert (judgment.kind, judgment.label, judgment.source, judgment.version) == ("adjudication", "no", "web", 1)
    queue = adjudication_queue(campaign=campaign, adjudicator=people["adj"])
    assert [e.label for e in queue.waiting] == ["u4", "u3"]
    assert [(e.label, e.adjudicated_by, e.note) for e in queue.adjudicated] == [
        ("u1", "adj", "The candidate names the wrong painter.")]
    # The originals are untouched, and the unit's count of annotations (its overlap) does not move.
    assert list(HumanJudgment.objects.filter(unit=units[1], kind=JudgmentKind.ANNOTATION).values_list(
        "pk", "value", "is_current", "version")) == before
    assert Unit.objects.get(pk=units[1].pk).judgments_done == done == 3
    # Adjudicating again adds a version; the first stays, not current; the same verdict again records nothing.
    again = adjudication_submit(unit=units[1], adjudicator=people["adj"], value={"correct": True}, note="")
    assert again.version == 2 and again.label == "yes"
    assert adjudication_submit(unit=units[1], adjudicator=people["adj"], value={"correct": True}).pk == again.pk
    assert list(HumanJudgment.objects.filter(unit=units[1], kind=JudgmentKind.ADJUDICATION).order_by(
        "version").values_list("version", "is_current")) == [(1, False), (2, True)]


def test_a_bad_value_is_refused_in_words_and_records_nothing(world):
    campaign, people, units = world
    with pytest.raises(JudgmentValueError, match=r'A QA verdict is \{"correct": true\} or \{"correct": false\}'):
        adjudication_submit(unit=units[1], adjudicator=people["adj"], value={"correct": "maybe"})
    assert not HumanJudgment.objects.filter(kind=JudgmentKind.ADJUDICATION).exists()


def test_the_most_recent_adjudication_is_the_label(world):
    campaign, people, units = world
    researcher = UserFactory(username="boss")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    adjudication_submit(unit=units[3], adjudicator=researcher, value={"correct": True})
    adjudication_submit(unit=units[3], adjudicator=people["adj"], value={"correct": False})
    humans = human_labels_get(campaign=campaign)
    assert humans.item_label[units[3].item_id] == "no" and humans.adjudicated == 1
    adjudication_submit(unit=units[3], adjudicator=researcher, value={"correct": True})
    assert human_labels_get(campaign=campaign).item_label[units[3].item_id] == "no"  # the same verdict: no new one
    adjudication_submit(unit=units[3], adjudicator=researcher, value={"correct": True}, note="on second thoughts")
    assert human_labels_get(campaign=campaign).item_label[units[3].item_id] == "yes"  # a new version: the latest


def test_an_annotator_who_adjudicates_is_never_shown_a_unit_still_open_to_them(world):
    campaign, people, units = world
    # u4 waits for a3's own annotation: left out of a3's queue (not of adj's), and refused to a3.
    queue = adjudication_queue(campaign=campaign, adjudicator=people["a3"])
    assert [e.label for e in queue.waiting] == ["u1", "u3"] and queue.held_back == 1
    assert [label for label, _ in waiting(campaign, people["adj"])] == ["u4", "u1", "u3"]
    with pytest.raises(JudgmentError, match="still open to you as an annotator"):
        adjudication_submit(unit=units[4], adjudicator=people["a3"], value={"correct": True})
    # A unit they adjudicated is never offered to them to annotate, even once k grows and it has room again.
    adjudication_submit(unit=units[1], adjudicator=people["a3"], value={"correct": True})
    Unit.objects.filter(campaign=campaign).update(judgments_needed=4)
    open_to_a3 = set(units_open_to(campaign=campaign, annotator=people["a3"]).values_list("pk", flat=True))
    assert units[1].pk not in open_to_a3 and units[0].pk not in open_to_a3  # u0: a3 annotated it
    open_to_a1 = set(units_open_to(campaign=campaign, annotator=UserFactory(username="new")).values_list("pk",
                                                                                                         flat=True))
    assert units[1].pk in open_to_a1  # everyone else may still take it


def test_the_judges_confidence_is_the_distance_from_the_threshold_over_the_room_on_its_side():
    assert judge_confidence(1.0, label="yes") == pytest.approx(1.0)  # a unanimous vote, an exact match
    assert judge_confidence(0.5, label="yes") == pytest.approx(0.0)  # an even split
    assert judge_confidence(0.8, label="no") == pytest.approx(0.6)
    assert judge_confidence(0.2, 0.3, label="no") == pytest.approx(0.1 / 0.3)
    assert judge_confidence(0.0, 0.3, label="no") == pytest.approx(1.0)
    assert judge_confidence(1.0, 1.0, label="yes") == 0.0  # on a threshold of 1: no room above it
    # A ranker's raw score says nothing, outside [0, 1] or in it: it gave no verdict (no label).
    assert judge_confidence(7.5, label="yes") is None and judge_confidence(None, label="yes") is None
    assert judge_confidence(0.9) is None


# --- answer_ranking: a topic's rankings disagree by 1 - their mean pairwise Kendall tau-b ---


@pytest.fixture
def ranking_world():
    campaign = CampaignFactory(slug="rank", task_type="answer_ranking", overlap=2, options={"dimensions": ["overall"]})
    a1, a2, adj = (UserFactory(username=name) for name in ("r1", "r2", "radj"))
    for user, role in ((a1, Role.ANNOTATOR), (a2, Role.ANNOTATOR), (adj, Role.ADJUDICATOR)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    units = []
    for t in range(2):
        topic = TopicFactory(campaign=campaign, external_id=f"t{t}", text=f"query {t}", data={})
        items = [ItemFactory(campaign=campaign, topic=topic, external_id=f"t{t}/c{n}", text=f"candidate {n}")
                 for n in range(4)]
        unit = Unit.objects.create(campaign=campaign, topic=topic, item=None, judgments_needed=2, judgments_done=2,
                                   position=t)
        units.append((unit, [item.pk for item in items]))
    (u0, c0), (u1, c1) = units
    # Topic t0: the two rankings agree; t1: r2 reverses r1's last three.
    for unit, pks, orders in ((u0, c0, ([0, 1, 2, 3], [0, 1, 2, 3])), (u1, c1, ([0, 1, 2, 3], [0, 3, 2, 1]))):
        for user, order in zip((a1, a2), orders):
            HumanJudgment.objects.create(unit=unit, annotator=user, value={"rankings": {
                "overall": [[pks[n]] for n in order]}}, label="ranked")
    return campaign, adj, units


def test_a_topic_whose_rankings_disagree_waits_with_one_minus_their_tau(ranking_world):
    campaign, adj, units = ranking_world
    queue = adjudication_queue(campaign=campaign, adjudicator=adj)
    assert [(e.label, e.kinds) for e in queue.waiting] == [("t1", ["humans"])]
    c1 = units[1][1]
    expected = order_disagreement([{c1[n]: -p for p, n in enumerate([0, 1, 2, 3])},
                                   {c1[n]: -p for p, n in enumerate([0, 3, 2, 1])}])
    assert queue.waiting[0].score == pytest.approx(expected) and expected == pytest.approx(1 - 0.0)  # tau = 0
    # Adjudicated, it leaves; the ranking report's reference is the most recent adjudicated ranking.
    unit = units[1][0]
    adjudication_submit(unit=unit, adjudicator=adj, value={"rankings": {"overall": [[c1[1]], [c1[0]], [c1[2]],
                                                                                    [c1[3]]]}})
    assert adjudication_queue(campaign=campaign, adjudicator=adj).waiting == []
    topic = next(t for t in ranking_data_get(campaign=campaign).topics if t.external_id == "t1")
    assert topic.adjudicated == {"overall": [[c1[1]], [c1[0]], [c1[2]], [c1[3]]]}


def test_a_judges_order_against_the_rankings():
    verdicts = {"bm25": {1: JudgeVerdict("", 3.0, None), 2: JudgeVerdict("", 2.0, None),
                         3: JudgeVerdict("", 1.0, None)}}
    humans = [("ranked", {"rankings": {"overall": [[1], [2], [3]]}})]
    args = {"humans": humans, "judge": "bm25", "needed": 1, "human_label": None}
    assert rankings_disagreement(judges=verdicts, kinds=["humans", "judge"], **args) is None  # the same order
    reversed_ = {"bm25": {pk: JudgeVerdict("", -v.score, None) for pk, v in verdicts["bm25"].items()}}
    found = rankings_disagreement(judges=reversed_, kinds=["judge"], **args)
    assert found["kinds"] == ["judge"] and found["score"] == pytest.approx(2.0)  # tau-b = -1
