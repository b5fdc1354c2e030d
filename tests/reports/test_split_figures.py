"""A judge read on one part of a development split (reports.selectors.judge_part_filter) has figures on that part
only, humans' side included: for each task type whose judges are read per part, the report after a split gives each
judge the figures the same report gives it on a campaign holding its part alone (the other part's items deleted, no
split). On NQ301 this is what the qa-eval rule broke: a gold match counted the held-out outputs GPT-4 would have got
right, and only those, so its accuracy per system rose by a tenth."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction

from agreement.report import agreement_report_build
from annotate.models import Campaign, Item
from interchange.importers.service import import_run
from judges.development import judge_mark_final, split_make
from judges.models import Judge, ModelJudgment
from tests.report_support import report_stored
from tests.tasktypes.test_agreement_ais import ais_report_campaign  # noqa: F401 (a fixture)
from tests.tasktypes.test_agreement_graded import passage_campaign  # noqa: F401 (a fixture)
from tests.tasktypes.test_agreement_ranking import ranking_campaign  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
NQ301 = Path(__file__).resolve().parents[2] / "fixtures" / "nq301"
# Keys of a judge's block that name its part, or give the humans' side on it: null on a campaign without a split.
PART_KEYS = ("part", "humans_on_part")


class _Undo(Exception):
    def __init__(self, report):
        self.report = report


def _alone(campaign: Campaign, keep: str) -> dict:
    """CAMPAIGN's report as it would be with the items of part KEEP only and no split (the rest deleted, then all of
    it rolled back): what a judge read on KEEP must get after the split."""
    try:
        with transaction.atomic():
            Item.objects.filter(campaign=campaign).exclude(split=keep).delete()
            Item.objects.filter(campaign=campaign).update(split="")
            Judge.objects.filter(campaign=campaign).update(final_at=None)
            Campaign.objects.filter(pk=campaign.pk).update(development_split=None)
            campaign.refresh_from_db()
            raise _Undo(agreement_report_build(campaign=campaign))
    except _Undo as undo:
        return undo.report
    finally:
        campaign.refresh_from_db()


def _judge_figures(report: dict, name: str) -> dict:
    """Everything REPORT says of judge NAME: its block, its columns of the systems table (the number it is compared
    on, not the system's outputs: that is every output, both ways), its budget rows and tests between systems."""
    figures = {"block": {key: value for key, value in report["judges"][name].items() if key not in PART_KEYS},
               "budget": [row for row in (report.get("budget") or {}).get("rows", []) if row.get("judge") == name],
               "tests": ((report.get("system_tests") or {}).get("judges") or {}).get(name)}
    rows = []
    for row in report["systems"]:
        if "coverage" in row:  # verdict reports
            rows.append((row["system"], row["judges"][name], row["human_by_judge"][name], row["coverage"][name][0],
                         row["judges_all"][name]))
        elif "judges_nrp" in row:  # answer_ranking: its NRP, and the humans' on its part beside it
            rows.append((row["system"], row["prompt"], row["judges_nrp"][name]))
        else:  # graded runs
            rows.append((row["system"], row["judges"][name], row["means"]["judges"][name]))
    figures["systems"] = rows
    return figures


@pytest.fixture(scope="module")
def nq301(django_db_setup, django_db_blocker):
    """The NQ301 campaign (the demo's data: GPT-4 and text-davinci-003 as external judges, the qa-eval rule) and its
    report before the split, after the split, and on its development part alone."""
    with django_db_blocker.unblock():
        call_command("import_data", "--campaign", "nq301-split", "--task-type", "qa_correctness", "--format", "nq301",
                     str(NQ301), stdout=io.StringIO())
        campaign = Campaign.objects.get(slug="nq301-split")
        try:
            before = agreement_report_build(campaign=campaign)
            split_make(campaign=campaign)  # the page's defaults: half held out, seed 0, within each question
            after = agreement_report_build(campaign=campaign)
            yield {"before": before, "after": after, "alone": _alone(campaign, "development")}
        finally:
            campaign.delete()


def test_nq301_gpt4_after_a_split_is_its_development_part_alone(nq301):
    before, after, alone = nq301["before"], nq301["after"], nq301["alone"]
    assert after["counting"]["rule"] == "qa-eval" and after["judges"]["gpt-4"]["part"] == "development"
    assert _judge_figures(after, "gpt-4") == _judge_figures(alone, "gpt-4")
    assert _judge_figures(after, "text-davinci-003") == _judge_figures(alone, "text-davinci-003")
    rows = {row["system"]: row for row in after["systems"]}
    # GPT-4 per system on the development part: its accuracy and the humans' over the same outputs, and how many.
    # Before the fix a gold match let in the held-out outputs it got right: ANCE-plus_FiD 0.734 over 222 of 301.
    figures = {system: (round(rows[system]["judges"]["gpt-4"], 3), round(rows[system]["human_by_judge"]["gpt-4"], 3),
                        rows[system]["coverage"]["gpt-4"]) for system in ("ANCE-plus_FiD", "DPR", "EviGen")}
    assert figures == {"ANCE-plus_FiD": (0.611, 0.667, [144, 301]), "DPR": (0.571, 0.599, [147, 301]),
                       "EviGen": (0.673, 0.687, [150, 301])}
    before_rows = {row["system"]: row for row in before["systems"]}
    assert round(before_rows["ANCE-plus_FiD"]["judges"]["gpt-4"], 3) == 0.625
    # The Human column stays the humans' own, over every output, as before the split.
    assert [(row["human"], row["human_coverage"]) for row in after["systems"]] == \
        [(row["human"], row["human_coverage"]) for row in before["systems"]]
def test_ais_after_a_split_and_the_page_names_the_part(ais_report_campaign, client, researcher):  # noqa: F811
    split_make(campaign=ais_report_campaign, seed=1)
    ais_report_campaign.refresh_from_db()
    after = agreement_report_build(campaign=ais_report_campaign)
    alone = _alone(ais_report_campaign, "development")
    assert after["judges"]["autoais-t5"]["part"] == "development"
    assert _judge_figures(after, "autoais-t5") == _judge_figures(alone, "autoais-t5")
    # The page says which part the judge is read on, and the humans' accuracy on the same outputs beside its own.
    report_stored(ais_report_campaign)
    client.force_login(researcher)
    html = client.get("/campaigns/ais/report/").content.decode()
    assert "read on the development part" in html
    row = next(row for row in after["systems"] if row["coverage"]["autoais-t5"][0])
    assert f"development part; humans {row['human_by_judge']['autoais-t5']:.3f}" in html


def test_graded_after_a_split_a_judge_on_each_part(passage_campaign, client, researcher):  # noqa: F811
    split_make(campaign=passage_campaign, seed=2)
    judge_mark_final(judge=Judge.objects.get(campaign=passage_campaign, name="bm25"))
    passage_campaign.refresh_from_db()
    after = agreement_report_build(campaign=passage_campaign)
    assert (after["judges"]["grader"]["part"], after["judges"]["bm25"]["part"]) == ("development", "held_out")
    development, held_out = _alone(passage_campaign, "development"), _alone(passage_campaign, "held_out")
    assert _judge_figures(after, "grader") == _judge_figures(development, "grader")
    assert _judge_figures(after, "bm25") == _judge_figures(held_out, "bm25")
    # Beside each judge in the runs table, the runs under the human qrels of its part: each part's own human figures.
    for name, alone in (("grader", development), ("bm25", held_out)):
        assert [row["human_by_judge"][name] for row in after["systems"]] == [row["human"] for row in alone["systems"]]
    report_stored(passage_campaign)
    client.force_login(researcher)
    html = client.get("/campaigns/dl-passages/report/").content.decode()
    assert "read on the held-out part" in html and "read on the development part" in html
    first = after["systems"][0]["human_by_judge"]["grader"]["ndcg_cut_10"]
    assert f"humans on its part {first:.3f}" in html


def test_answer_ranking_after_a_split(ranking_campaign):  # noqa: F811
    split_make(campaign=ranking_campaign, seed=0)
    ranking_campaign.refresh_from_db()
    after = agreement_report_build(campaign=ranking_campaign)
    alone = _alone(ranking_campaign, "development")
    for name in after["judges"]:
        assert _judge_figures(after, name) == _judge_figures(alone, name)
        # Beside the ranker's NRP on its part, the humans' on the same answers among the same documents.
        assert [row["human_by_judge"][name] for row in after["systems"]] == \
            [row["human_nrp"] for row in alone["systems"]]


def test_pairwise_preference_after_a_split(tmp_path):
    campaign = Campaign.objects.create(slug="prefs-split", name="prefs", task_type="pairwise_preference")
    systems = ("alpha", "beta", "gamma", "delta")
    lines = []
    for prompt in range(8):
        for first, a in enumerate(systems):
            for b in systems[first + 1:]:
                # The better system (earlier) wins, but gamma beats beta on even prompts: orders that differ by part.
                winner = "b" if (a, b) == ("beta", "gamma") and prompt % 2 == 0 else "a"
                lines.append(f'{{"prompt_id": "p{prompt}", "prompt": "Q{prompt}", "system_a": "{a}", '
                             f'"response_a": "x", "system_b": "{b}", "response_b": "y", "winner": "{winner}", '
                             f'"annotator": "ra"}}\n')
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(lines))
    import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[path])
    judge = Judge.objects.create(campaign=campaign, name="judge", family="external", config_hash="j")
    for n, item in enumerate(Item.objects.filter(campaign=campaign).order_by("external_id")):
        ModelJudgment.objects.create(judge=judge, item=item, label="b" if n % 3 == 0 else "a")
    split_make(campaign=campaign, seed=0)
    campaign.refresh_from_db()
    after = agreement_report_build(campaign=campaign)
    alone = _alone(campaign, "development")
    assert after["judges"]["judge"]["part"] == "development"
    assert _judge_figures(after, "judge") == _judge_figures(alone, "judge")
    # The humans' order it is compared with is the humans' on its part: the report on that part alone has it.
    assert after["judges"]["judge"]["humans_on_part"] == alone["scores"]["humans"]
