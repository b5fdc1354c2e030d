"""answer_ranking, the human side: checking a ranking, drafts, overlap k on whole topics (docs/answer_ranking.md)."""

import pytest

from annotate.models import Assignment, AssignmentStatus, HumanJudgment, Item, Role, Unit
from annotate.selectors.annotation import annotation_progress, ranking_candidates, ranking_display
from annotate.services.annotation import (
    JudgmentError,
    JudgmentValueError,
    assignment_draft_save,
    judgment_edit,
    judgment_submit,
    judgment_value_check,
    unit_lease_next,
)
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

CANDIDATES = [
    ("answer", "Drink plenty of fluids and rest; see a doctor if the fever lasts more than three days.",
     {"system": "SECRET-SYSTEM-llama", "prompt": "expert", "sample": 1}),
    ("answer", "Fever is the body's response to infection.",
     {"system": "SECRET-SYSTEM-gpt", "prompt": "plain", "sample": 2}),
    ("document", "Clinic page: when to worry about a fever in adults.", {"docno": "SECRET-DOCNO-clef-0042"}),
    ("document", "Forum post about fevers.", {"docno": "SECRET-DOCNO-clef-0077"}),
]


def ranking_campaign(*, topics=1, overlap=1, annotators=1, options=None, slug=None):
    """An answer_ranking campaign: TOPICS queries of four candidates (two answers, two documents) each."""
    extra = {"slug": slug} if slug else {}
    campaign = CampaignFactory(task_type="answer_ranking", overlap=overlap, options=options or {}, **extra)
    for t in range(topics):
        topic = TopicFactory(campaign=campaign, external_id=f"q{t + 1}", text=f"what should I do about a fever {t + 1}",
                             data={})
        for n, (kind, text, data) in enumerate(CANDIDATES):
            ItemFactory(campaign=campaign, topic=topic, kind=kind, external_id=f"q{t + 1}/c{n}",
                        text=f"{text} [{t + 1}]", data=data)
        UnitFactory(campaign=campaign, topic=topic, item=None, judgments_needed=overlap, position=t)
    people = [UserFactory() for _ in range(annotators)]
    for person in people:
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
    return campaign, people


def pks(unit):
    return list(Item.objects.filter(topic=unit.topic).order_by("pk").values_list("pk", flat=True))


def ranked(*groups, dimension="overall"):
    return {"rankings": {dimension: [list(group) for group in groups]}}


def check(unit, value):
    return judgment_value_check(task_type="answer_ranking", value=value, unit=unit)


@pytest.fixture
def unit(db):
    campaign, _ = ranking_campaign()
    return Unit.objects.get(campaign=campaign)


def test_a_full_ranking_is_accepted_and_labelled_ranked(unit):
    a, b, c, d = pks(unit)
    assert check(unit, ranked([c], [a], [d], [b])) == "ranked"


@pytest.mark.parametrize("make_value,message", [
    (lambda a, b, c, d: ranked([a], [b]), "Place every candidate: 2 are missing."),
    (lambda a, b, c, d: ranked([a], [b], [c]), "Place every candidate: 1 is missing."),
    (lambda a, b, c, d: ranked([a], [b], [c], [d], [a]), "Place each candidate once: 1 is placed twice."),
    (lambda a, b, c, d: ranked([a], [b], [c], [d], [999999]), "1 ranked id is not a candidate of this topic."),
    (lambda a, b, c, d: ranked([a], [b], [c], [True], ["x"]), "2 ranked ids are not candidates of this topic."),
    (lambda a, b, c, d: ranked([a], [b], [c, d]),
     "Ties are not allowed in this campaign: give each candidate its own place."),
    (lambda a, b, c, d: ranked([a], [], [b], [c], [d]),
     "A ranking is a list of non-empty groups of candidates, best first."),
    (lambda a, b, c, d: {"rankings": [[a], [b], [c], [d]]},
     'A ranking is {"rankings": {dimension: [[candidate, ...], ...]}}.'),
    (lambda a, b, c, d: ranked([a], [b], [c], [d], dimension="relevance"),
     "This campaign does not rank by relevance; it ranks by overall."),
])
def test_malformed_rankings_are_refused_with_a_message_the_annotator_can_act_on(unit, make_value, message):
    with pytest.raises(JudgmentValueError) as refused:
        check(unit, make_value(*pks(unit)))
    assert str(refused.value) == message


def test_a_candidate_of_another_topic_is_unknown(db):
    campaign, _ = ranking_campaign(topics=2)
    first, second = Unit.objects.filter(campaign=campaign).order_by("position")
    a, b, c, _ = pks(first)
    stranger = pks(second)[0]
    with pytest.raises(JudgmentValueError, match="1 ranked id is not a candidate of this topic"):
        check(first, ranked([a], [b], [c], [stranger]))


def test_ties_are_accepted_when_the_campaign_allows_them(db):
    campaign, _ = ranking_campaign(options={"ties": True})
    unit = Unit.objects.get(campaign=campaign)
    a, b, c, d = pks(unit)
    assert check(unit, ranked([a, b], [c], [d])) == "ranked"
    assert check(unit, ranked([a, b, c, d])) == "ranked"


def test_every_dimension_of_the_campaign_must_be_ranked(db):
    campaign, _ = ranking_campaign(options={"dimensions": ["relevance", "readability"]})
    unit = Unit.objects.get(campaign=campaign)
    a, b, c, d = pks(unit)
    both = {"rankings": {"relevance": [[a], [b], [c], [d]], "readability": [[d], [c], [b], [a]]}}
    assert check(unit, both) == "ranked"
    with pytest.raises(JudgmentValueError) as refused:
        check(unit, ranked([a], [b], [c], [d], dimension="relevance"))
    assert str(refused.value) == "Rank by every dimension: readability is missing."
    with pytest.raises(JudgmentValueError) as refused:
        check(unit, {"rankings": {"relevance": [[a], [b], [c], [d]], "readability": [[d], [c]]}})
    assert str(refused.value) == "Readability — place every candidate: 2 are missing."
    with pytest.raises(JudgmentValueError, match="does not rank by overall"):
        check(unit, {"rankings": {**both["rankings"], "overall": [[a], [b], [c], [d]]}})


def test_submit_stores_the_ranking_and_an_edit_keeps_the_earlier_version(db):
    campaign, (ann,) = ranking_campaign(topics=2)
    assignment = unit_lease_next(campaign=campaign, annotator=ann)
    assert assignment.unit.item_id is None and assignment.unit.position == 0
    a, b, c, d = pks(assignment.unit)
    with pytest.raises(JudgmentValueError):
        judgment_submit(assignment=assignment, annotator=ann, value=ranked([a], [b]))
    assert not HumanJudgment.objects.exists()
    first = judgment_submit(assignment=assignment, annotator=ann, value=ranked([d], [c], [b], [a]))
    assert (first.label, first.version) == ("ranked", 1)
    assert annotation_progress(campaign=campaign, annotator=ann)["done"] == 1
    second = judgment_edit(judgment=first, annotator=ann, value=ranked([a], [b], [c], [d]))
    history = list(HumanJudgment.objects.order_by("version").values_list("value", "is_current"))
    assert history == [(ranked([d], [c], [b], [a]), False), (ranked([a], [b], [c], [d]), True)]
    assert second.version == 2
    assert Unit.objects.get(pk=assignment.unit_id).judgments_done == 1


def test_overlap_k_gives_each_topic_to_exactly_k_annotators(db):
    campaign, (ann1, ann2, ann3) = ranking_campaign(topics=1, overlap=2, annotators=3)
    first = unit_lease_next(campaign=campaign, annotator=ann1)
    second = unit_lease_next(campaign=campaign, annotator=ann2)
    assert first.unit_id == second.unit_id
    assert unit_lease_next(campaign=campaign, annotator=ann3) is None  # both slots taken by leases
    order = [[pk] for pk in pks(first.unit)]
    judgment_submit(assignment=first, annotator=ann1, value={"rankings": {"overall": order}})
    judgment_submit(assignment=second, annotator=ann2, value={"rankings": {"overall": order[::-1]}})
    assert unit_lease_next(campaign=campaign, annotator=ann3) is None
    assert unit_lease_next(campaign=campaign, annotator=ann1) is None  # nobody ranks a topic twice
    assert Unit.objects.get(campaign=campaign).judgments_done == 2
    assert HumanJudgment.objects.filter(unit__campaign=campaign).count() == 2


def test_a_draft_is_kept_restored_and_cleared_by_the_submit(db):
    campaign, (ann,) = ranking_campaign()
    assignment = unit_lease_next(campaign=campaign, annotator=ann)
    a, b, c, d = pks(assignment.unit)
    assignment_draft_save(assignment=assignment, annotator=ann, draft=ranked([c], [a]))
    assignment.refresh_from_db()
    assert assignment.draft == ranked([c], [a])
    # The page starts from the draft; candidates the draft had not placed yet follow in the shuffled order.
    shown = ranking_display(assignment=assignment, dimensions=["overall"], ties=False)
    keys = {item.pk: label for label, item in ranking_candidates(assignment=assignment)}
    order = [entry["key"] for entry in shown["dimensions"][0]["entries"]]
    assert order[:2] == [keys[c], keys[a]]
    assert sorted(order) == sorted(keys.values())
    assert shown["has_draft"] is True
    # A reload keeps the same lease and so the same draft.
    assert unit_lease_next(campaign=campaign, annotator=ann).draft == ranked([c], [a])

    judgment_submit(assignment=assignment, annotator=ann, value=ranked([c], [a], [b], [d]))
    assignment.refresh_from_db()
    assert assignment.draft is None and assignment.status == AssignmentStatus.SUBMITTED
    with pytest.raises(JudgmentError, match="already submitted"):
        assignment_draft_save(assignment=assignment, annotator=ann, draft=ranked([a]))


def test_nobody_saves_a_draft_on_someone_elses_assignment(db):
    campaign, (ann1, ann2) = ranking_campaign(annotators=2)
    assignment = unit_lease_next(campaign=campaign, annotator=ann1)
    with pytest.raises(JudgmentError, match="leased to another annotator"):
        assignment_draft_save(assignment=assignment, annotator=ann2, draft=ranked([1]))
    with pytest.raises(JudgmentValueError, match="too large"):
        assignment_draft_save(assignment=assignment, annotator=ann1, draft={"x": "y" * 70000})
    assert Assignment.objects.get(pk=assignment.pk).draft is None


def test_the_shuffled_order_is_stable_per_person_and_not_the_import_order(db):
    campaign, (ann1, ann2) = ranking_campaign(topics=8, annotators=2)
    orders1, orders2 = [], []
    for unit in Unit.objects.filter(campaign=campaign).order_by("position"):
        mine = Assignment(unit=unit, annotator=ann1)
        theirs = Assignment(unit=unit, annotator=ann2)
        order = [item.pk for _, item in ranking_candidates(assignment=mine)]
        assert order == [item.pk for _, item in ranking_candidates(assignment=mine)]  # stable
        assert [label for label, _ in ranking_candidates(assignment=mine)] == ["A", "B", "C", "D"]
        orders1.append(order)
        orders2.append([item.pk for _, item in ranking_candidates(assignment=theirs)])
    # Over 8 topics the shuffle must not simply be the import (pk) order, nor the same for both people.
    assert any(order != sorted(order) for order in orders1)
    assert orders1 != orders2
