"""Partial (top-k) rankings: the answer_ranking option rank_depth (docs/answer_ranking.md).

With rank_depth k an annotator ranks at least the best min(k, n) of a topic's n candidates; the rest stay unranked
and count as tied below every ranked one, in the check, the report (tau-b computed by hand below), the imports and
the exports.
"""

import io
import json
import math

import pytest
from django.core.management import CommandError, call_command

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, Item, Role, Unit
from annotate.task_types.spec import JudgmentValueError
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored
from tests.tasktypes.test_ranking_services import check, pks, ranked, ranking_campaign


@pytest.fixture
def top2(db):
    campaign, _ = ranking_campaign(options={"rank_depth": 2, "ties": True})
    return Unit.objects.get(campaign=campaign)


def test_the_best_k_are_enough_and_more_are_allowed(top2):
    a, b, c, d = pks(top2)
    assert check(top2, ranked([c], [a])) == "ranked"
    assert check(top2, ranked([c, a])) == "ranked"  # a tie group filling the top 2
    assert check(top2, ranked([c], [a, d])) == "ranked"  # a tie group straddling place 2 is ranked whole
    assert check(top2, ranked([c], [a], [b])) == "ranked"  # more than k
    assert check(top2, ranked([c], [a], [b], [d])) == "ranked"  # a complete ranking is always one


@pytest.mark.parametrize(
    "make_value,message",
    [
        (
            lambda a, b, c, d: ranked([a]),
            "Rank the best 2 candidates: 1 is ranked, 1 more to place; the rest may stay unranked.",
        ),
        (
            lambda a, b, c, d: ranked(),
            "Rank the best 2 candidates: 0 are ranked, 2 more to place; the rest may stay unranked.",
        ),
        (lambda a, b, c, d: ranked([a], [a]), "Place each candidate once: 1 is placed twice."),
        (lambda a, b, c, d: ranked([a], [999999]), "1 ranked id is not a candidate of this topic."),
    ],
)
def test_too_few_or_wrong_candidates_are_refused_in_plain_words(top2, make_value, message):
    with pytest.raises(JudgmentValueError) as refused:
        check(top2, make_value(*pks(top2)))
    assert str(refused.value) == message


def test_a_topic_with_fewer_candidates_than_k_is_ranked_whole(db):
    campaign, _ = ranking_campaign(options={"rank_depth": 9})
    unit = Unit.objects.get(campaign=campaign)
    a, b, c, d = pks(unit)
    assert check(unit, ranked([b], [a], [d], [c])) == "ranked"
    with pytest.raises(JudgmentValueError) as refused:
        check(unit, ranked([b], [a], [d]))
    assert (
        str(refused.value) == "Rank the best 4 candidates: 3 are ranked, 1 more to place; the rest may stay unranked."
    )


def test_without_the_option_every_candidate_is_still_ranked(db):
    campaign, _ = ranking_campaign()
    unit = Unit.objects.get(campaign=campaign)
    a, b, c, d = pks(unit)
    with pytest.raises(JudgmentValueError) as refused:
        check(unit, ranked([a], [b]))
    assert str(refused.value) == "Place every candidate: 2 are missing."


# --- The report: tau-b with the unranked tied last, by hand ---
#
# Topic q1, candidates a b c d (a, b answers; c, d documents), rank_depth 2.
#   ann1 ranks a > b          -> a > b > c = d
#   ann2 ranks a > c          -> a > c > b = d
#   judge scores a 4, c 3, d 2, b 1: a > c > d > b
# judge vs ann1: pairs ab ac ad C, bc bd D, cd tied by ann1 only: (3 - 2) / sqrt(5 * 6) = 1 / sqrt(30)
# judge vs ann2: ab ac ad bc cd C, bd tied by ann2 only: 5 / sqrt(5 * 6); the topic's tau-b is their mean
# ann1 vs ann2: ab ac ad C, bc D, bd tied by ann2, cd tied by ann1: (3 - 1) / sqrt(5 * 5) = 0.4
# Answers only (a, b): both annotators and the judge put a above b: 1.
# Dropping the unranked instead would give judge vs ann1 = 1 (only a, b): the rule matters.
# Topic q2: ann1 ranks all four (a full ranking, not partial).


@pytest.fixture
def partial_campaign(db, researcher):
    campaign = CampaignFactory(slug="top2", task_type="answer_ranking", overlap=2, options={"rank_depth": 2})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    ann1, ann2 = UserFactory(username="ann1"), UserFactory(username="ann2")
    judge = Judge.objects.create(campaign=campaign, name="bm25", family="external", config_hash="h")
    for qid in ("q1", "q2"):
        topic = TopicFactory(campaign=campaign, external_id=qid, text=f"query {qid}", data={})
        pk = {name: ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/{name}", text=name,
                                kind="answer" if name in "ab" else "document").pk for name in "abcd"}
        unit = UnitFactory(campaign=campaign, topic=topic, item=None)
        orders = {ann1: "ab", ann2: "ac"} if qid == "q1" else {ann1: "abcd"}
        for user, order in orders.items():
            HumanJudgment.objects.create(unit=unit, annotator=user, kind="annotation", source="import", label="ranked",
                                         value={"rankings": {"overall": [[pk[name]] for name in order]}})
        for name, score in {"a": 4, "c": 3, "d": 2, "b": 1}.items():
            ModelJudgment.objects.create(judge=judge, item_id=pk[name], score=score, label="", raw="")
    return campaign


@pytest.fixture
def partial_report(partial_campaign):
    return agreement_report_build(campaign=Campaign.objects.get(slug="top2"))


def test_report_tau_b_ties_the_unranked_last(partial_report):
    rows = {row["topic"]: row for row in partial_report["judges"]["bm25"]["per_topic"]}
    assert rows["q1"]["kendall_tau_b"] == pytest.approx((1 / math.sqrt(30) + 5 / math.sqrt(30)) / 2)
    assert rows["q1"]["kendall_tau_b_answers_only"] == pytest.approx(1.0)
    assert rows["q1"]["n"] == 4  # every candidate counts, the unranked ones included
    assert rows["q1"]["human_orders"]["ann1"] == [["q1/a"], ["q1/b"], ["q1/c", "q1/d"]]
    humans = {row["topic"]: row for row in partial_report["humans"]["per_topic"]}
    assert humans["q1"]["kendall_tau_b"] == pytest.approx(0.4)
    assert humans["q1"]["kendall_tau_b_answers_only"] == pytest.approx(1.0)


def test_report_says_its_rule_and_how_many_rankings_were_partial(partial_report):
    partial = partial_report["humans"]["partial"]
    assert partial["rank_depth"] == 2
    assert partial["n"] == 2 and partial["rankings"] == 3  # q1's two rankings; q2's is complete
    assert "tied below every ranked one" in partial["rule"]


def test_report_page_states_the_rule(client, researcher, partial_campaign):
    client.force_login(researcher)
    report_stored(partial_campaign)
    html = client.get("/campaigns/top2/report/").content.decode()
    assert ("Partial rankings (rank depth 2): 2 of 3 rankings leave candidates unranked; unranked candidates are "
            "tied below every ranked one") in html


def test_report_of_a_campaign_without_the_option_has_no_partial_block(db):
    campaign, _ = ranking_campaign()
    assert agreement_report_build(campaign=campaign)["humans"]["partial"] is None


# --- Imports and exports ---

def jsonl_topic(ranking):
    return {"qid": "301", "query": "does honey soothe a cough",
            "candidates": [{"id": f"c{n}", "kind": "document", "text": f"text {n}", "docno": f"doc-{n}"}
                           for n in range(5)],
            "rankings": [{"annotator": "expert", "ranking": ranking}]}


def import_jsonl(path, slug):
    call_command("import_data", "--campaign", slug, "--task-type", "answer_ranking", "--format", "jsonl", str(path),
                 stdout=io.StringIO())


def orders(slug):
    source = {item.pk: item.data["source_id"] for item in Item.objects.filter(campaign__slug=slug)}
    return [[[source[pk] for pk in group] for group in j.value["rankings"]["overall"]]
            for j in HumanJudgment.objects.filter(unit__campaign__slug=slug)]


@pytest.mark.django_db
def test_partial_rankings_import_and_export_round_trip(tmp_path):
    for slug in ("src", "copy"):
        Campaign.objects.create(slug=slug, name=slug, task_type="answer_ranking", options={"rank_depth": 2})
    path = tmp_path / "top2.jsonl"
    path.write_text(json.dumps(jsonl_topic([["c3"], ["c1"]])) + "\n", encoding="utf-8")
    import_jsonl(path, "src")
    assert orders("src") == [[["c3"], ["c1"]]]
    out = io.StringIO()
    call_command("export_rankings", "--campaign", "src", "--format", "jsonl", stdout=out)
    exported = json.loads(out.getvalue())
    assert exported["rankings"] == [{"annotator": "expert", "dimension": "overall", "ranking": [["c3"], ["c1"]]}]
    again = tmp_path / "again.jsonl"
    again.write_text(out.getvalue(), encoding="utf-8")
    import_jsonl(again, "copy")
    assert orders("copy") == orders("src")


@pytest.mark.django_db
@pytest.mark.parametrize("options,ranking,message", [
    ({"rank_depth": 3}, [["c3"], ["c1"]],
     "overall: ranking places 2 of the topic's 5 candidates; this campaign's rank_depth asks for the best 3 at least"),
    ({}, [["c3"], ["c1"]], "overall: ranking misses 3 of the topic's 5 candidates: 'c0', 'c2', 'c4'"),
])
def test_partial_rankings_are_refused_where_the_option_does_not_allow_them(tmp_path, options, ranking, message):
    Campaign.objects.create(slug="strict", name="strict", task_type="answer_ranking", options=options)
    path = tmp_path / "short.jsonl"
    path.write_text(json.dumps(jsonl_topic(ranking)) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        import_jsonl(path, "strict")
    assert str(refused.value) == f"{path}:1: rankings[0].ranking: {message}"
    assert not Item.objects.filter(campaign__slug="strict").exists()  # all or nothing
