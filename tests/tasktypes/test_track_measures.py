"""The measures a TREC Deep Learning / RAG track reports, in the graded report: nDCG@20, nDCG@100, R@100, R@1000,
Judged@10 (each checked against ir_measures, called here with the measure written out) and compatibility (against
stats.compatibility, itself checked against its authors' script): per topic and as the mean, under the human
qrels and a judge's, the run orders under each with their intervals, the page's tables and the CSV columns."""

import csv
import io

import ir_measures
import pytest
from scipy.stats import kendalltau

from agreement.report import agreement_report_build
from interchange.importers.runs_pool import runs_pool_import
from stats import retrieval
from stats.compatibility import compatibility_per_topic
from tests.report_support import report_stored
from tests.stats.test_compatibility import REFERENCE, _qrels, _run
from tests.tasktypes.test_agreement_graded import HUMAN, JUDGE, RUNS, passage_campaign  # noqa: F401 (fixture)

# A topic whose relevant documents lie at ranks 1, 3, 15, 50 and 150 of a 300-document run (g is not retrieved),
# with unjudged fillers among the first 10: nDCG@10, @20 and @100 differ, R@100 and R@1000 differ, Judged@10 is
# below 1. t2 has nothing graded above 0 (ir_measures counts it, compatibility leaves it out); t3 has no qrels (left
# out by both).
FILLERS = [f"f{i}" for i in range(300)]
T1 = ["a", "f0", "b", "c", *FILLERS[1:11], "e", *FILLERS[11:45], "d", *FILLERS[45:144], "h", *FILLERS[144:]]
QRELS = {"t1": {"a": 3, "b": 2, "c": 0, "d": 1, "e": 2, "g": 3, "h": 2, "f5": 0}, "t2": {"x": 0, "y": 0}}
RUN = {"t1": {doc: float(len(T1) - rank) for rank, doc in enumerate(T1)},
       "t2": {"x": 2.0, "y": 1.0, "z": 0.5}, "t3": {"a": 1.0}}
# The measures as a TREC DL organiser writes them for ir_measures ({rel}: the lowest relevant grade).
WRITTEN = {"ndcg_cut_20": "nDCG@20", "ndcg_cut_100": "nDCG@100", "recall_100": "R(rel={rel})@100",
           "recall_1000": "R(rel={rel})@1000", "judged_10": "Judged@10"}
TRACK = [*WRITTEN, "compat"]


def _ir(measure: str, qrels: dict, run: dict, *, per_topic: bool = False):
    parsed = ir_measures.parse_measure(measure)
    if per_topic:
        return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}
    return ir_measures.calc_aggregate([parsed], qrels, run)[parsed]


@pytest.mark.parametrize("rel", [1, 2])
def test_each_track_measure_equals_ir_measures_or_compatibility_per_topic_and_as_the_mean(rel):
    per_topic = retrieval.run_measures_per_topic(QRELS, RUN, relevant_from=rel, measures=retrieval.RUN_MEASURES,
                                                 compat_p=0.8)
    means = retrieval.run_measures(QRELS, RUN, relevant_from=rel, measures=retrieval.RUN_MEASURES, compat_p=0.8)
    for key, measure in WRITTEN.items():
        written = measure.format(rel=rel)
        assert per_topic[key] == pytest.approx(_ir(written, QRELS, RUN, per_topic=True)), key
        assert set(per_topic[key]) == {"t1", "t2"}, key
        assert means[key] == pytest.approx(_ir(written, QRELS, RUN)), key
    assert per_topic["compat"] == pytest.approx(compatibility_per_topic(QRELS, RUN, p=0.8))
    assert set(per_topic["compat"]) == {"t1"} and means["compat"] == pytest.approx(per_topic["compat"]["t1"])
    assert per_topic["compat"]["t1"] != pytest.approx(compatibility_per_topic(QRELS, RUN)["t1"])  # p matters
    # The data tell the measures apart: deeper cuts, deeper recall, and unjudged fillers in the first 10.
    t1 = {key: values["t1"] for key, values in per_topic.items()}
    assert t1["ndcg_cut_10"] < t1["ndcg_cut_20"] < t1["ndcg_cut_100"]
    assert T1.index("d") == 49 and T1.index("h") == 149
    assert t1["recall_100"] < t1["recall_1000"] < 1  # g is relevant and never retrieved
    assert t1["judged_10"] == pytest.approx(4 / 10)  # a, b, c and f5 have a grade (f5's is 0); six fillers not


def test_compatibility_through_run_measures_is_the_reference_scripts_number():
    for p, expected in REFERENCE.items():
        value = retrieval.run_measures(_qrels(), _run(), measures=["compat"], compat_p=p)["compat"]
        assert value == pytest.approx(expected["average"], abs=1e-12)
    with pytest.raises(ValueError, match="no such run measure: Compat@10"):
        retrieval.run_measures(_qrels(), _run(), measures=["Compat@10"])


def _run_scores(docs: list[str]) -> dict:
    return {qid: {doc: float(10 - rank) for rank, doc in enumerate(docs)} for qid in HUMAN}


@pytest.fixture
def holed_campaign(passage_campaign, tmp_path):  # noqa: F811
    """The graded fixture plus a run that finds a passage nobody graded (a hole in both qrels), compat_p 0.8."""
    runs = tmp_path / "holed.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {10 - rank} r4\n" for qid in HUMAN
                            for rank, doc in enumerate(("e", "a", "b"), start=1)))
    runs_pool_import(campaign=passage_campaign, paths=[runs], depth=10, tag=None)
    passage_campaign.refresh_from_db()
    passage_campaign.options = {**passage_campaign.options, "compat_p": 0.8}
    passage_campaign.save(update_fields=["options"])
    return passage_campaign


ALL_RUNS = {**RUNS, "r4": ["e", "a", "b"]}


def test_the_report_scores_every_run_and_compares_the_run_orders_under_each_measure(holed_campaign):
    report = agreement_report_build(campaign=holed_campaign)
    assert [m["key"] for m in report["measures"]] == ["ndcg_cut_10", "map", "p_10", *TRACK]
    assert {m["key"]: m["label"] for m in report["measures"]}["compat"] == "Compat (p = 0.8)"
    assert report["compat_p"] == 0.8
    rows = {row["system"]: row for row in report["systems"]}
    for name, docs in ALL_RUNS.items():
        run = _run_scores(docs)
        for source, qrels in (("human", HUMAN), ("grader", JUDGE)):
            values = rows[name]["human"] if source == "human" else rows[name]["judges"]["grader"]
            means = rows[name]["means"]["human"] if source == "human" else rows[name]["means"]["judges"]["grader"]
            for key, measure in WRITTEN.items():  # the campaign counts from grade 2 (passage_relevance)
                assert values[key] == pytest.approx(_ir(measure.format(rel=2), qrels, run)), (name, source, key)
            compat = compatibility_per_topic(qrels, run, p=0.8)
            assert values["compat"] == pytest.approx(sum(compat.values()) / len(compat)), (name, source)
            # Each mean with its n (topics) and an interval over the four topics, or why there is none.
            for key in TRACK:
                block = means[key]
                assert block["mean"] == pytest.approx(values[key]) and block["n"] == 4
                assert (block["mean_ci95"] is None) != (block["mean_ci_note"] is None), (name, source, key)
                if block["mean_ci95"]:
                    assert block["mean_ci95"][0] <= block["mean"] <= block["mean_ci95"][1]
    # The unpooled passage e is a hole in both qrels: r4's first three hold one unjudged passage of three.
    assert rows["r4"]["human"]["judged_10"] == pytest.approx(2 / 3)
    assert rows["r4"]["judges"]["grader"]["judged_10"] == pytest.approx(2 / 3)
    assert rows["r1"]["human"]["judged_10"] == 1.0
    assert rows["r4"]["assessors"]["nist"]["judged_10"] == pytest.approx(2 / 3)
    # The run orders under every measure, each statistic with its interval from the topic resamples or why not.
    rows = report["systems"]
    system = report["judges"]["grader"]["system"]
    for key in TRACK:
        block = system[key]
        human = [row["human"][key] for row in rows]
        judge = [row["judges"]["grader"][key] for row in rows]
        assert (block["n"], block["topics"]) == (4, 4), key
        if len(set(human)) > 1 and len(set(judge)) > 1:
            assert block["kendall_tau_b"] == pytest.approx(kendalltau(human, judge).statistic), key
        for statistic in ("kendall_tau_b", "spearman", "pearson", "tau_ap"):
            if block[statistic] is not None:  # an interval from the topic resamples, or the note that says why not
                assert (block[f"{statistic}_ci95"] is None) != (block[f"{statistic}_ci_note"] is None), (key,
                                                                                                       statistic)
        assert block["n_pairs"] == 6
    # Under Judged@10 the humans' and the judge's qrels hold the same passages: the two orders agree.
    assert system["judged_10"]["n_swaps"] == 0


def test_the_page_shows_the_track_tables_and_the_csvs_carry_every_measure(holed_campaign, client, researcher):
    report_stored(holed_campaign)
    client.force_login(researcher)
    report = client.get(f"/campaigns/{holed_campaign.slug}/report/report.json").json()
    rows = {row["system"]: row for row in report["systems"]}
    page = client.get(f"/campaigns/{holed_campaign.slug}/report/").content.decode()
    for text in ("The track's measures", "NDCG@20 humans", "R@1000 grader", "Judged@10 bm25",
                 "Compat (p = 0.8): every run", "option <code>compat_p</code>", "0.667"):
        assert text in page, text
    # The run orders list every measure as a row: nine per judge.
    assert page.count("<td>Compat (p = 0.8)</td>") == 2 and page.count("<td>Judged@10</td>") == 2
    runs = list(csv.DictReader(io.StringIO(
        client.get(f"/campaigns/{holed_campaign.slug}/report/systems.csv").content.decode())))
    for key in TRACK:
        for row in runs:
            assert float(row[f"human_{key}"]) == pytest.approx(rows[row["system"]]["human"][key]), key
            assert float(row[f"grader_{key}"]) == pytest.approx(rows[row["system"]]["judges"]["grader"][key]), key
    judges = {row["judge"]: row for row in csv.DictReader(io.StringIO(
        client.get(f"/campaigns/{holed_campaign.slug}/report/judges.csv").content.decode()))}
    grader = report["judges"]["grader"]["system"]
    for key in TRACK:
        assert judges["grader"][f"{key}_n_pairs"] == "6"
        for statistic in ("kendall_tau_b", "tau_ap"):
            expected = grader[key][statistic]
            cell = judges["grader"][f"{key}_{statistic}"]
            assert (cell == "") if expected is None else float(cell) == pytest.approx(expected), (key, statistic)
        assert f"{key}_kendall_tau_b_ci95_low" in judges["grader"]
