"""Issue 47: a TREC preference collection as published (passages in topics' pools, one to three assessors a pair whom
the file does not name, an LLM judge's file in the both-orders layout) imports unedited at 10,000 pairs, and its
report scores each passage within its topic's pool and opens with every statistic, its n and its interval."""

import numpy as np
import pytest
from scipy import stats as scipy_stats

from agreement.stored import report_for_open
from annotate.models import HumanJudgment, JudgmentKind, Membership, Role
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.service import import_run
from tests.factories import UserFactory
from tests.preferences_synthetic import collection_write
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    return collection_write(tmp_path_factory.mktemp("trec-prefs"), topics=50, passages=(20, 60), pairs=10_000, seed=4)


def test_ten_thousand_pairs_with_unnamed_repeats_import_as_published_and_report_per_topic(collection, client):
    campaign = campaign_get_or_create(slug="dl-prefs", task_type="pairwise_preference", overlap=1)
    humans = import_run(campaign=campaign, fmt="trec-preferences", paths=[collection.human], repeat_assessors=True)
    assert (humans.items_created, humans.human_judgments_created) == (collection.pairs, collection.human_lines)
    assert (f"pairs judged by assessors the files do not name: {collection.pairs}, of them judged more than once: "
            f"{collection.repeated_pairs}") in humans.notes[0]
    judge = import_run(campaign=campaign, fmt="trec-preferences", paths=[collection.judge], judge="llm")
    missing = {row["reason"]: row["lines"] for row in judge.lines_unused}["a judge's missing-text mark (?): no verdict"]
    assert missing == collection.judge_marks["?"]

    report_stored(campaign)
    document = report_for_open(campaign=campaign).document
    block = document["judges"]["llm"]
    order = block["order"]
    # Per topic's pool: every topic has its own fit, the judge's order is compared topic by topic, averaged.
    assert order["scope"] == "prompt" and order["n_prompts"] == 50 == len(order["per_prompt"])
    assert order["kendall_tau_b"] == pytest.approx(np.mean([row["kendall_tau_b"] for row in order["per_prompt"]]))
    low, high = order["kendall_tau_b_ci95"]
    assert low < order["kendall_tau_b"] < high
    assert order["swaps_count"] == sum(row["swaps_count"] for row in order["per_prompt"]) > len(order["swaps"]) == 20
    assert block["inconsistent"] > 0 and block["item"]["cohen_kappa_ci95"] and block["decided"]["share_ci95"]
    assert document["humans"]["fleiss_kappa_ci95"] and document["humans"]["krippendorff_alpha_ci95"]
    # One topic's tau-b checked by hand: the humans' and the judge's scores of its passages, scipy's tau-b.
    topic = order["per_prompt"][0]
    pools = document["scores"]["humans"]["pools"]
    passages = sorted(c for c, prompt in pools.items() if str(prompt) == str(topic["prompt"])
                      and c in block["scores"]["scores"])
    x = [document["scores"]["humans"]["scores"][c] for c in passages]
    y = [block["scores"]["scores"][c] for c in passages]
    assert topic["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(x, y).statistic)
    # The human label of a pair judged by three assessors is their majority.
    votes = HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION)
    assert votes.values("annotator").distinct().count() == 3

    researcher = UserFactory()
    Membership.objects.create(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    client.force_login(researcher)
    page = client.get("/campaigns/dl-prefs/report/").content.decode()
    assert "mean over n=50 prompts" in page and page.count("<tr><td>") >= 50  # a row per topic
    assert f"{order['swaps_count']}</b> pairs; the 20 largest by the humans' gap" in page
    systems = client.get("/campaigns/dl-prefs/report/systems.csv").content.decode().splitlines()
    assert systems[0].startswith("system,prompt,human_score") and len(systems) == 1 + len(pools)
