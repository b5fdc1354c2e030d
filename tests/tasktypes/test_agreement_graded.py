"""The graded report on a passage_relevance campaign (0-3, relevant from grade 2): quadratic kappa, Krippendorff's
alpha, kappa binarised at relevant_from, P@10 at that threshold, the pairs of runs the judge's qrels swap, the page
and the qrels per source. Every figure is checked against the library that defines it."""

import io

import ir_measures
import krippendorff
import pytest
from django.core.management import call_command
from sklearn.metrics import cohen_kappa_score

from agreement.report import agreement_report_build
from annotate.models import HumanJudgment, Item, Role, Unit
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.runs_pool import runs_pool_import
from judges.models import Judge, ModelJudgment
from reports.selectors import graded_items_get
from stats import interrater, retrieval
from tests.factories import MembershipFactory, TopicFactory, UserFactory
from tests.report_support import report_stored

LEVELS = [0, 1, 2, 3]
DOCS = ("a", "b", "c", "d")
HUMAN = {qid: {"a": 3, "b": 2, "c": 1, "d": 0} for qid in ("q1", "q2", "q3", "q4")}
# The judge (an LLM's grades, imported: kept as they are) swaps b and c on three topics and agrees on q3.
JUDGE = {"q1": {"a": 3, "b": 1, "c": 2, "d": 0}, "q2": {"a": 3, "b": 1, "c": 2, "d": 0},
         "q3": {"a": 3, "b": 2, "c": 1, "d": 0}, "q4": {"a": 3, "b": 1, "c": 2, "d": 1}}
SCORES = {"a": 0.9, "b": 0.4, "c": 0.6, "d": 0.1}  # a ranker's scores, the same on every topic
# r1 is the humans' ideal order and r2 the judge's on three topics: the two swap under NDCG@10 and MAP. r3 finds
# only c and d: last under both. P@10 ties r1 and r2 (both hold the two relevant passages): a tie is no swap.
RUNS = {"r1": ["a", "b", "c", "d"], "r2": ["a", "c", "b", "d"], "r3": ["c", "d"]}


def _vectors(grades: dict, topics=None):
    keys = [(qid, doc) for qid in sorted(HUMAN) if topics is None or qid in topics for doc in DOCS]
    return [HUMAN[q][d] for q, d in keys], [grades[q][d] for q, d in keys]


def _trec(qrels: dict, run: dict, measure: str) -> float:
    return next(iter(ir_measures.calc_aggregate([ir_measures.parse_measure(measure)], qrels, run).values()))


def _run_scores(name: str) -> dict:
    return {qid: {doc: float(10 - rank) for rank, doc in enumerate(RUNS[name])} for qid in HUMAN}


@pytest.fixture
def passage_campaign(db, researcher, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    campaign = campaign_get_or_create(slug="dl-passages", task_type="passage_relevance", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    nist = UserFactory(username="nist")
    grader = Judge.objects.create(campaign=campaign, name="grader", family="external", config_hash="g")
    ranker = Judge.objects.create(campaign=campaign, name="bm25", family="bm25", config_hash="b")
    for qid, grades in HUMAN.items():
        topic = TopicFactory(campaign=campaign, external_id=qid, text=f"query {qid}", data={})
        for doc, grade in grades.items():
            item = Item.objects.create(campaign=campaign, topic=topic, external_id=f"{qid}/{doc}", kind="passage",
                                       data={"docid": doc}, text=f"passage {doc} for {qid}")
            unit = Unit.objects.create(campaign=campaign, topic=topic, item=item, judgments_needed=1)
            HumanJudgment.objects.create(unit=unit, annotator=nist, value={"grade": grade}, label=str(grade))
            ModelJudgment.objects.create(judge=grader, item=item, label=str(JUDGE[qid][doc]))
            ModelJudgment.objects.create(judge=ranker, item=item, score=SCORES[doc], label="")
    runs = tmp_path / "runs.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {10 - rank} {run}\n" for run, docs in RUNS.items()
                            for qid in HUMAN for rank, doc in enumerate(docs, start=1)))
    runs_pool_import(campaign=campaign, paths=[runs], depth=10, tag=None)
    campaign.refresh_from_db()
    return campaign


def test_item_statistics_equal_the_libraries(passage_campaign):
    report = agreement_report_build(campaign=passage_campaign)
    assert report["item_noun"] == "passage" and report["relevant_from"] == 2
    block = report["judges"]["grader"]
    assert block["mapping"] == {"rule": "labels"}
    human, judge = _vectors(JUDGE)
    item = block["item"]
    assert item["n"] == 16
    assert item["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, judge))
    assert item["cohen_kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(human, judge, weights="quadratic", labels=LEVELS))
    for level in ("ordinal", "nominal"):
        expected = krippendorff.alpha(reliability_data=[human, judge], level_of_measurement=level, value_domain=LEVELS)
        assert item[f"krippendorff_alpha_{level}"] == pytest.approx(expected)
    assert item["krippendorff_alpha_ordinal"] != pytest.approx(item["krippendorff_alpha_nominal"])
    # Binarised at relevant_from = 2 (TREC's threshold on 0-3), not at 1.
    binary = cohen_kappa_score([h >= 2 for h in human], [m >= 2 for m in judge])
    assert item["cohen_kappa_binary"] == pytest.approx(binary)
    assert binary != pytest.approx(cohen_kappa_score([h >= 1 for h in human], [m >= 1 for m in judge]))
    # The replacement section: the paradox panel on the same grades (AC2 with linear weights, the indices at the
    # relevance cut); one assessor, so no replacement test, and it says why.
    replacement = report["replacement"]["judges"]["grader"]
    panel = replacement["paradox"]
    assert (panel["n"], panel["ac_name"]) == (16, "AC2 (linear weights)")
    assert panel["cohen_kappa"] == pytest.approx(cohen_kappa_score(human, judge))
    cells = [sum((h >= 2, m >= 2) == cell for h, m in zip(human, judge, strict=True))
             for cell in ((False, False), (False, True), (True, False), (True, True))]
    assert panel["prevalence_index"] == pytest.approx(abs(cells[0] - cells[3]) / 16)
    assert panel["bias_index"] == pytest.approx(abs(cells[1] - cells[2]) / 16)
    assert replacement["alt_test"]["missing"].endswith("this campaign has 1 annotator, 0 such items, and 0 "
                                                       "annotators with 30 or more of them")
    assert not replacement["human_likeness"]["ran"]
    assert item["confusion"] == [[sum(1 for h, m in zip(human, judge, strict=True) if (h, m) == (row, column))
                                  for column in LEVELS] for row in LEVELS]
    # Every statistic with a 95% interval from the bootstrap over the four topics.
    for key in ("cohen_kappa_quadratic", "krippendorff_alpha_ordinal", "krippendorff_alpha_nominal",
                "cohen_kappa_binary", "cohen_kappa_linear"):
        low, high = item[f"{key}_ci95"]
        assert -1 <= low <= high <= 1, key
    assert "passages of a topic together" in item["ci_method"] and "1000 resamples" in item["alpha_ci_method"]
    per_topic = {row["topic"]: row for row in block["per_topic"]}
    human_q1, judge_q1 = _vectors(JUDGE, topics={"q1"})
    assert per_topic["q1"]["n"] == 4
    assert per_topic["q1"]["cohen_kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(human_q1, judge_q1, weights="quadratic", labels=LEVELS))
    assert per_topic["q1"]["krippendorff_alpha_ordinal"] == pytest.approx(krippendorff.alpha(
        reliability_data=[human_q1, judge_q1], level_of_measurement="ordinal", value_domain=LEVELS))
    assert per_topic["q3"]["krippendorff_alpha_nominal"] == pytest.approx(1.0)


def test_the_command_prints_the_graded_report_and_its_methods(passage_campaign):
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "dl-passages", stdout=out)
    text = out.getvalue()
    human, judge = _vectors(JUDGE)
    assert "Assessors: 1 annotator, 16 passages with a human grade" in text
    assert f"  grader: n = 16, kappa {cohen_kappa_score(human, judge):.3f}" in text
    assert "    runs by NDCG@10 (n = 3 runs): tau-b" in text and "  r1: " in text
    assert "May a judge replace an annotator? (1 annotator; alt-test epsilon 0.2)" in text
    methods = io.StringIO()
    call_command("agreement_report", "--campaign", "dl-passages", "--methods", stdout=methods)
    assert methods.getvalue().startswith("Methods: agreement report of ") and "  grader: n = 16" in methods.getvalue()


def test_p_at_10_at_the_threshold_equals_ir_measures(passage_campaign):
    report = agreement_report_build(campaign=passage_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    judge_qrels = {qid: dict(grades) for qid, grades in JUDGE.items()}
    for name in RUNS:
        run = _run_scores(name)
        assert rows[name]["human"]["p_10"] == pytest.approx(_trec(HUMAN, run, "P(rel=2)@10"))
        assert rows[name]["judges"]["grader"]["p_10"] == pytest.approx(_trec(judge_qrels, run, "P(rel=2)@10"))
        assert rows[name]["human"]["map"] == pytest.approx(_trec(HUMAN, run, "AP(rel=2)"))
        assert rows[name]["human"]["ndcg_cut_10"] == pytest.approx(_trec(HUMAN, run, "nDCG@10"))
    assert rows["r1"]["human"]["p_10"] != pytest.approx(_trec(HUMAN, _run_scores("r1"), "P(rel=1)@10"))


def test_the_judges_qrels_swap_r1_and_r2(passage_campaign):
    report = agreement_report_build(campaign=passage_campaign)
    rows = {row["system"]: row for row in report["systems"]}
    system = report["judges"]["grader"]["system"]
    for measure in ("ndcg_cut_10", "map"):
        assert system[measure]["n_pairs"] == 3 and system[measure]["n_swaps"] == 1
        assert system[measure]["swaps"] == [{
            "runs": ["r1", "r2"],
            "human": [rows["r1"]["human"][measure], rows["r2"]["human"][measure]],
            "judge": [rows["r1"]["judges"]["grader"][measure], rows["r2"]["judges"]["grader"][measure]]}]
        swap = system[measure]["swaps"][0]
        assert swap["human"][0] > swap["human"][1] and swap["judge"][0] < swap["judge"][1]
    assert rows["r1"]["human"]["p_10"] == rows["r2"]["human"]["p_10"]
    assert system["p_10"]["swaps"] == [] and system["p_10"]["n_swaps"] == 0
    assert set(system) == {"n_systems", *retrieval.RUN_MEASURES, "relative_delta", "ci_method"}


def test_swapped_pairs_count_strict_reversals_only():
    human = {"x": 0.9, "y": 0.5, "z": 0.5, "w": 0.1, "gone": 0.3}
    judge = {"x": 0.2, "y": 0.8, "z": 0.1, "w": 0.4, "gone": None}
    swapped = retrieval.swapped_pairs(human, judge)
    # y/z tie under the humans: no swap; y/w keep their order; "gone" has no second score. The largest human gap
    # first, equal gaps by name.
    assert [swap["runs"] for swap in swapped["swaps"]] == [["x", "w"], ["x", "y"], ["z", "w"]]
    assert swapped["swaps"][1] == {"runs": ["x", "y"], "first": [0.9, 0.5], "second": [0.2, 0.8]}
    assert swapped["n_pairs"] == 6 and swapped["n_swaps"] == 3


def test_pair_alpha_intervals_resample_topics_like_kappa():
    human, judge = _vectors(JUDGE)
    topics = [qid for qid in sorted(HUMAN) for _ in DOCS]
    alphas = interrater.pair_alpha_intervals(human, judge, topics, levels=LEVELS, resamples=200)
    for level in ("ordinal", "nominal"):
        value = interrater.krippendorff_alpha_pair(human, judge, levels=LEVELS, level=level)
        low, high = alphas[f"krippendorff_alpha_{level}"]
        assert low <= value <= high
    assert interrater.krippendorff_alpha_pair([2, 2], [2, 2], levels=LEVELS) is None  # one grade throughout: 0/0


def test_graded_items_read_the_doc_id_from_the_task_types_key(passage_campaign):
    topic = passage_campaign.topics.get(external_id="q1")
    named = Item.objects.create(campaign=passage_campaign, topic=topic, external_id="q1/x", kind="passage",
                                data={"docid": "msmarco-7"})
    bare = Item.objects.create(campaign=passage_campaign, topic=topic, external_id="q1/y", kind="passage", data={})
    items = graded_items_get(campaign=passage_campaign)
    assert items[named.pk] == ("q1", "msmarco-7") and items[bare.pk] == ("q1", "y")
    assert len(items) == 18


def test_the_report_page_says_passages_and_the_qrels_download_per_source(passage_campaign, client, researcher,
                                                                          annotator):
    report_stored(passage_campaign)
    client.force_login(researcher)
    response = client.get("/campaigns/dl-passages/report/")
    assert response.status_code == 200
    page = response.content.decode()
    for text in ("16</b>passages with a human grade", "κ quadratic", "α ordinal", "α nominal", "κ binary (≥ 2)",
                 "P@10 humans", "P@10 grader", "Run orders: the human qrels against each judge's",
                 "grader: the pairs of runs the two orders swap", "MAP and P@10 count a passage relevant from grade 2",
                 "1 of 3"):
        assert text in page, text
    assert "images" not in page
    cdf = client.get("/campaigns/dl-passages/report/plots/cdf.svg")
    assert cdf.status_code == 200 and "share of passages at or below" in cdf.content.decode()
    consensus = client.get("/campaigns/dl-passages/report/qrels/consensus.qrels")
    assert consensus["Content-Disposition"].startswith("attachment")
    assert consensus.content.decode().splitlines()[:4] == ["q1 0 a 3", "q1 0 b 2", "q1 0 c 1", "q1 0 d 0"]
    assessor = client.get("/campaigns/dl-passages/report/qrels/assessor-nist.qrels").content.decode()
    assert assessor == consensus.content.decode()
    grader = client.get("/campaigns/dl-passages/report/qrels/judge-grader.qrels").content.decode().splitlines()
    assert grader == [f"{qid} 0 {doc} {JUDGE[qid][doc]}" for qid in sorted(JUDGE) for doc in DOCS]
    ranker = client.get("/campaigns/dl-passages/report/qrels/judge-bm25.qrels").content.decode().splitlines()
    assert {line.split()[3] for line in ranker} <= {"0", "1", "2", "3"} and len(ranker) == 16
    assert client.get("/campaigns/dl-passages/report/qrels/judge-nobody.qrels").status_code == 404
    runs_csv = client.get("/campaigns/dl-passages/report/systems.csv").content.decode().splitlines()
    assert runs_csv[0].startswith("system,tags,human_ndcg_cut_10,human_map,human_p_10,")
    judges_csv = client.get("/campaigns/dl-passages/report/judges.csv").content.decode().splitlines()
    header = judges_csv[0].split(",")
    grader_row = dict(zip(header, next(row for row in judges_csv if row.startswith("grader,")).split(","), strict=True))
    assert grader_row["ndcg_cut_10_n_swaps"] == "1" and grader_row["p_10_n_pairs"] == "3"
    assert float(grader_row["krippendorff_alpha_ordinal"]) == pytest.approx(
        agreement_report_build(campaign=passage_campaign)["judges"]["grader"]["item"]["krippendorff_alpha_ordinal"])
    client.force_login(annotator)
    assert client.get("/campaigns/dl-passages/report/qrels/consensus.qrels").status_code == 404


def _second_assessor(campaign, *, split: set[str]) -> None:
    """A second assessor grades every passage (k = 2), one grade lower on the passages in SPLIT: those tie."""
    other = UserFactory(username="nist2")
    for unit in Unit.objects.filter(campaign=campaign).select_related("item"):
        grade = HUMAN[unit.item.topic.external_id][unit.item.data["docid"]]
        grade = max(0, grade - 1) if unit.item.external_id in split else grade
        if unit.item.external_id in split and grade == HUMAN[unit.item.topic.external_id][unit.item.data["docid"]]:
            grade = 1
        HumanJudgment.objects.create(unit=unit, annotator=other, value={"grade": grade}, label=str(grade))
    Unit.objects.filter(campaign=campaign).update(judgments_needed=2)


SPLIT = {"q1/a", "q2/b", "q3/c", "q4/d", "q1/c"}


def test_every_number_has_its_n_and_an_interval_or_why_not(passage_campaign, client, researcher):
    _second_assessor(passage_campaign, split=SPLIT)
    report = agreement_report_build(campaign=passage_campaign)
    humans = report["humans"]
    # Fleiss' kappa and alpha between the two assessors: n (items, raters) and an interval over the 16 passages.
    assert (humans["fleiss_items"], humans["krippendorff_alpha_items"], humans["raters"]) == (16, 16, 2)
    for key in ("fleiss_kappa", "krippendorff_alpha"):
        low, high = humans[f"{key}_ci95"]
        assert low < humans[key] < high and humans[f"{key}_ci_note"] is None
    # The 5 passages the two split have no human grade: counted next to each judge's n, not silently gone.
    item = report["judges"]["grader"]["item"]
    assert item["n"] == 11 and item["dropped"] == {"ties": 5, "failed": 0}
    # Three runs over four topics: no interval for the run order, and why; the budget gives no estimate, and why.
    ndcg = report["judges"]["grader"]["system"]["ndcg_cut_10"]
    assert (ndcg["n"], ndcg["topics"], ndcg["kendall_tau_b_ci95"]) == (3, 4, None)
    assert ndcg["kendall_tau_b_ci_note"] == "too few runs to resample: 3 (an interval needs at least 4)"
    (tau_row,) = [row for row in report["budget"]["rows"]
                  if row["judge"] == "grader" and row["statistic"] == "system_kendall_tau_b"]
    assert tau_row["more_labels"] is None and tau_row["why"] == ndcg["kendall_tau_b_ci_note"]
    # The page shows the same: n beside Fleiss' kappa and alpha, their intervals, the tiles, the dropped, the notes.
    report_stored(passage_campaign)  # as the worker leaves it: a first open never builds
    client.force_login(researcher)
    page = client.get("/campaigns/dl-passages/report/").content.decode()
    fleiss = f"[{humans['fleiss_kappa_ci95'][0]:.3f}, {humans['fleiss_kappa_ci95'][1]:.3f}]"
    for text in ("n = 16 passages, 2 assessors", fleiss,
                 f"[{humans['krippendorff_alpha_ci95'][0]:.3f}, {humans['krippendorff_alpha_ci95'][1]:.3f}]",
                 "Fleiss' κ, n = 16 passages, 2 assessors", "n = 3 runs over 4 topics", "dropped: 5 tied",
                 "no interval: too few runs to resample: 3"):
        assert text in page, text
    assert "[1.000, 1.000]" not in page
    # Each interval names what it resampled: the humans' kappa and alpha the passages rated, the judge's kappa its
    # topics (a pool's passages together).
    assert f'{fleiss} <span class="ci-over">over items</span>' in page
    judges = page[page.index('<table id="judges">'):]
    low, high = item["cohen_kappa_ci95"]
    assert f'[{low:.3f}, {high:.3f}] <span class="ci-over">over topics</span>' in judges[:judges.index("</table>")]
    # Three runs: every run-order cell would say "no interval: too few runs to resample: 3"; the table says it once,
    # in its caption, and its cells only give their numbers.
    orders = page[page.index('<table id="run-orders">'):]
    orders = orders[:orders.index("</table>")]
    assert orders.count("too few runs to resample") == 1
    assert ('<caption class="ci-note">No interval: too few runs to resample: 3 (an interval needs at least 4)'
            '</caption>') in orders
    assert "ci-note" not in orders.split("</caption>", 1)[1]
