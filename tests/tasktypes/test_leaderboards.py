"""TREC AutoJudge leaderboards out and in (graded relevance): each qrels source's leaderboard as `run measure topic
value` lines (page and API), the trec-leaderboard import of an automatic judge's leaderboard (stored, lines not used
counted by reason, bad values refused, a name imported again replaced), and the report's leaderboard block against
the human one; round trips: the consensus leaderboard imported back orders the runs as the humans do (tau 1, the
same figures), and a judge's qrels leaderboard imported back gives the judge's own system-level figures."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from agreement.report import agreement_report_build
from interchange.importers.runs_pool import runs_pool_import
from judges.models import Leaderboard, LeaderboardValue
from stats import retrieval
from tasktypes.graded.report import ONLY_MEANS_NOTE
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_graded import HUMAN, passage_campaign  # noqa: F401 (fixture)

MAIN = ("ndcg_cut_10", "map", "p_10")


@pytest.fixture
def board_campaign(passage_campaign, tmp_path):  # noqa: F811
    """The graded fixture (runs r1-r3 over q1-q4, the judge `grader`'s qrels) and a fourth run, so that the run
    orders have intervals (4 runs at least)."""
    runs = tmp_path / "r4.txt"
    runs.write_text("".join(f"{qid} Q0 {doc} {rank} {10 - rank} r4\n" for qid in HUMAN
                            for rank, doc in enumerate(["b", "a", "d"], start=1)))
    runs_pool_import(campaign=passage_campaign, paths=[runs], depth=10, tag=None)
    passage_campaign.refresh_from_db()
    return passage_campaign


def _import(campaign, path, *args) -> str:
    out = io.StringIO()
    call_command("import_data", "--campaign", campaign.slug, "--task-type", "passage_relevance",
                 "--format", "trec-leaderboard", *args, str(path), stdout=out)
    return out.getvalue()


def _fails(campaign, path, *args) -> str:
    with pytest.raises(CommandError) as caught:
        _import(campaign, path, *args)
    return str(caught.value)


def _download(client, researcher, campaign, source: str) -> str:
    client.force_login(researcher)
    response = client.get(reverse("agreement-leaderboard", args=[campaign.slug, source]))
    assert response.status_code == 200, response.content
    assert response["Content-Disposition"].endswith(f'{campaign.slug}-{source}-trec-leaderboard.txt"')
    return response.content.decode()


def test_measure_names_are_ir_measures_and_trec_eval_ones():
    names = retrieval.leaderboard_names(relevant_from=2, compat_p=0.95)
    assert names == {"ndcg_cut_10": "nDCG@10", "map": "AP(rel=2)", "p_10": "P(rel=2)@10", "ndcg_cut_20": "nDCG@20",
                     "ndcg_cut_100": "nDCG@100", "recall_100": "R(rel=2)@100", "recall_1000": "R(rel=2)@1000",
                     "judged_10": "Judged@10", "compat": "Compat"}
    assert retrieval.leaderboard_names(relevant_from=1, compat_p=0.8)["map"] == "AP"
    for name, key in [("nDCG@10", "ndcg_cut_10"), ("ndcg_cut_10", "ndcg_cut_10"), ("map", "map"), ("AP", "map"),
                      ("AP(rel=2)", "map"), ("P_10", "p_10"), ("recall_100", "recall_100"), ("R@1000", "recall_1000"),
                      ("judged@10", "judged_10"), ("Compat", "compat")]:
        assert retrieval.leaderboard_measure(name, relevant_from=2) == (key, ""), name
    assert retrieval.leaderboard_measure("AP(rel=1)", relevant_from=2)[1].startswith("naming a measure at relevance "
                                                                                   "level 1")
    assert retrieval.leaderboard_measure("Rprec", relevant_from=2) == (None,
                                                                      "naming a measure Concord does not compute")


def test_consensus_leaderboard_round_trip_orders_the_runs_as_the_humans(client, researcher, board_campaign,
                                                                        tmp_path):
    report_stored(board_campaign)
    text = _download(client, researcher, board_campaign, "consensus")
    lines = [line.split() for line in text.splitlines()]
    assert {len(fields) for fields in lines} == {4}
    assert {fields[0] for fields in lines} == {"r1", "r2", "r3", "r4"}
    assert {fields[1] for fields in lines} == set(retrieval.leaderboard_names(relevant_from=2).values())
    assert ["r1", "nDCG@10", "all", "1.0"] in lines and ["r1", "nDCG@10", "q1", "1.0"] in lines
    path = tmp_path / "humans.txt"
    path.write_text(text)
    out = _import(board_campaign, path, "--judge", "humans-again")
    assert f"leaderboard of humans-again: {len(lines)} values, 4 runs, 9 measures, 4 topics and the means" in out

    report = agreement_report_build(campaign=board_campaign)
    block = report["leaderboards"]["humans-again"]
    assert block["measures"] == list(retrieval.RUN_MEASURES) and block["topics"] == 4 and not block["only_means"]
    for row in report["systems"]:
        for key in retrieval.RUN_MEASURES:
            assert block["values"][row["system"]][key] == row["human"][key]  # the same figures, to the bit
    # tau-AP counts tied runs as broken every way (P@10 ties r1 and r2): 1 where no runs tie.
    assert block["system"]["ndcg_cut_10"]["tau_ap"] == pytest.approx(1.0)
    for key in MAIN:
        order = block["system"][key]
        assert order["kendall_tau_b"] == pytest.approx(1.0) and order["spearman"] == pytest.approx(1.0)
        assert order["n"] == 4 and order["topics"] == 4 and order["n_swaps"] == 0
        # Every resample orders the runs the same way on both sides: the interval says why there is none.
        assert order["kendall_tau_b_ci95"] is None and order["kendall_tau_b_ci_note"].startswith("all resamples equal")


def test_a_judges_qrels_leaderboard_imported_back_gives_its_system_figures(client, researcher, board_campaign,
                                                                          tmp_path):
    report_stored(board_campaign)
    path = tmp_path / "grader.txt"
    path.write_text(_download(client, researcher, board_campaign, "judge-grader"))
    _import(board_campaign, path, "--judge", "grader-board")
    report = agreement_report_build(campaign=board_campaign)
    board, judge = report["leaderboards"]["grader-board"], report["judges"]["grader"]
    for row in report["systems"]:
        assert board["values"][row["system"]] == row["judges"]["grader"]
    for key in retrieval.RUN_MEASURES:
        ours, theirs = board["system"][key], judge["system"][key]
        for stat in ("n", "topics", "kendall_tau_b", "spearman", "pearson", "tau_ap", "n_swaps",
                     "kendall_tau_b_ci95", "spearman_ci95", "tau_ap_ci95"):
            assert ours[stat] == theirs[stat], (key, stat)
    assert board["system"]["ndcg_cut_10"]["kendall_tau_b"] < 1  # the judge swaps r1 and r2: not a trivial case


def test_the_page_and_the_api_link_and_show_the_leaderboards(client, researcher, board_campaign, tmp_path):
    path = tmp_path / "means.txt"
    path.write_text("r1 nDCG@10 all 0.9\nr2 nDCG@10 all 0.8\nr3 nDCG@10 all 0.2\nr4 nDCG@10 all 0.5\n")
    _import(board_campaign, path, "--judge", "auto-j")
    report_stored(board_campaign)
    client.force_login(researcher)
    page = client.get(reverse("agreement-report", args=[board_campaign.slug])).content.decode()
    assert reverse("agreement-leaderboard", args=[board_campaign.slug, "judge-grader"]) in page
    assert "Imported leaderboards against the human one" in page and "auto-j" in page
    listing = client.get(reverse("api-agreement-qrels-list", args=[board_campaign.slug])).json()
    consensus = next(row for row in listing["sources"] if row["source"] == "consensus")
    api = client.get(consensus["leaderboard_url"])
    assert api.status_code == 200
    assert api.content.decode() == _download(client, researcher, board_campaign, "consensus")
    document = client.get(reverse("api-agreement-report", args=[board_campaign.slug])).json()
    block = document["leaderboards"]["auto-j"]
    assert block["measures"] == ["ndcg_cut_10"] and block["only_means"] and block["topics"] == 0
    order = block["system"]["ndcg_cut_10"]
    assert order["n"] == 4 and order["kendall_tau_b"] is not None
    assert order["kendall_tau_b_ci95"] is None and order["kendall_tau_b_ci_note"] == ONLY_MEANS_NOTE


def test_lines_not_used_are_counted_by_reason(board_campaign, tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text("# an AutoJudge leaderboard\n"
                    "r1 ndcg_cut_10 q1 0.5\n"  # used (trec_eval's name)
                    "r1 ndcg_cut_10 q1 0.5\n"  # the same again
                    "r1 Rprec q1 0.5\n"  # a measure Concord does not compute
                    "r1 AP(rel=1) q1 0.5\n"  # another relevance level than the campaign's (2)
                    "r9 map all 0.5\n"  # no such run
                    "r2 map q99 0.5\n"  # no such topic
                    "r2 map 0.5\n")  # three fields
    out = _import(board_campaign, path, "--judge", "mixed")
    assert "lines read and not used: 6" in out
    for reason in ("1 line repeating an earlier line (first: mixed.txt:3: value '0.5')",
                   "1 line naming a measure Concord does not compute (first: mixed.txt:4: measure 'Rprec')",
                   "1 line naming a measure at relevance level 1, not the campaign's relevant_from (2) (first: "
                   "mixed.txt:5: measure 'AP(rel=1)')",
                   "1 line naming no run of the campaign (import the runs first, as trec-run) (first: mixed.txt:6: "
                   "run 'r9')",
                   "1 line naming no topic of the campaign (first: mixed.txt:7: topic 'q99')",
                   "1 line not of the form `run measure topic value` (four fields) (first: mixed.txt:8: line "
                   "'r2 map 0.5')"):
        assert reason in out
    assert list(LeaderboardValue.objects.values_list("run", "measure", "topic", "value")) == [
        ("r1", "ndcg_cut_10", "q1", 0.5)]


def test_refusals_leave_nothing_and_a_name_imported_again_is_replaced(board_campaign, tmp_path):
    def write(name, text):
        (tmp_path / name).write_text(text)
        return tmp_path / name

    assert "bad.txt:2: value: expected a finite number, got 'nan'" in _fails(
        board_campaign, write("bad.txt", "r1 map all 0.5\nr2 map all nan\n"), "--judge", "j")
    assert "bad2.txt:1: value: expected a finite number, got 'high'" in _fails(
        board_campaign, write("bad2.txt", "r1 map all high\n"), "--judge", "j")
    assert "twice.txt:2: value: run 'r1' has map 0.5 on topic 'all' on line 1" in _fails(
        board_campaign, write("twice.txt", "r1 map all 0.5\nr1 map all 0.6\n"), "--judge", "j")
    assert "none of the 2 lines read is used, nothing was imported" in _fails(
        board_campaign, write("none.txt", "x1 map all 0.5\nr1 Rprec all 0.1\n"), "--judge", "j")
    assert "format trec-leaderboard needs a judge name" in _fails(board_campaign, write("ok.txt", "r1 map all 0.5\n"))
    assert not Leaderboard.objects.exists()

    _import(board_campaign, write("first.txt", "r1 map all 0.5\nr2 map all 0.4\n"), "--judge", "j")
    out = _import(board_campaign, write("second.txt", "r1 nDCG@10 all 0.7\n"), "--judge", "j")
    assert "the earlier leaderboard of j (2 values) was replaced" in out
    board = Leaderboard.objects.get()
    assert board.source == "second.txt"
    assert list(board.values.values_list("run", "measure", "value")) == [("r1", "ndcg_cut_10", 0.7)]


def test_the_import_page_and_the_api_take_a_leaderboard(client, researcher, board_campaign, imports_inline):
    from rest_framework.test import APIClient

    client.force_login(researcher)
    url = reverse("campaign-import", args=[board_campaign.slug])
    assert 'value="trec-leaderboard"' in client.get(url).content.decode()
    page = imports_inline(
        client.post,
        url,
        {
            "format": "trec-leaderboard",
            "judge": "page-j",
            "files": SimpleUploadedFile("board.txt", b"r1 nDCG@10 all 0.9\nr2 nDCG@10 all 0.8\nr7 nDCG@10 all 0.1\n"),
        },
        follow=True,
    ).content.decode()
    assert 'data-status="done"' in page and "leaderboard of page-j: 2 values, 2 runs, 1 measure, 0 topics" in page
    assert "1 line naming no run of the campaign" in page
    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, f"/api/campaigns/{board_campaign.slug}/import/", {
        "format": "trec-leaderboard", "judge": "api-j", "files": [SimpleUploadedFile("b.txt", b"r1 map all 0.5\n")]})
    assert job["status"] == "done" and job["summary"]["notes"] == [
        "leaderboard of api-j: 1 value, 1 run, 1 measure, 0 topics and the means (topic all)"]
    assert set(Leaderboard.objects.values_list("name", flat=True)) == {"page-j", "api-j"}
