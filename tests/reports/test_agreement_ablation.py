"""The LLM judges' ablation table: configurations compared on the same items, as agreement and as cost."""

import pytest

from agreement.report import agreement_report_build
from judges.models import Judge, JudgeRun, LLMSample, ModelJudgment
from reports.ablation import ablation_build
from reports.selectors import HumanLabels, JudgeLabels, LlmJudgeCost
from tests.report_support import report_stored


def cost(name, **config):
    return LlmJudgeCost(name=name, config=config, samples=9, seconds=4.5, prompt_tokens=800, completion_tokens=100,
                        run_seconds=6.0)


def test_rows_cover_only_the_items_every_llm_judge_was_asked_about():
    humans = HumanLabels(item_label={1: "yes", 2: "no", 3: "yes", 4: "no", 5: "yes"})
    cot = JudgeLabels(name="cot", family="llm", labels={1: "yes", 2: "no", 3: "no"}, failed={4})
    direct = JudgeLabels(name="direct", family="llm", labels={1: "yes", 2: "yes", 3: "yes", 4: "no", 5: "yes"})
    em = JudgeLabels(name="em", family="em", labels={1: "no"})
    block = ablation_build(judges=[cot, direct, em], humans=humans,
                           costs=[cost("cot", cot=True, n=3, api_key="***", model="m"),
                                  cost("direct", cot=False, n=1, model="m")])
    assert block["items"] == 4  # item 5: the cot judge never saw it; em is not an LLM judge
    assert block["settings"] == ["cot", "n"]  # the settings that differ between the judges
    by_judge = {row["judge"]: row for row in block["rows"]}
    assert set(by_judge) == {"cot", "direct"}
    cot_row = by_judge["cot"]
    assert (cot_row["n"], cot_row["failed"], cot_row["accuracy"]) == (4, 1, 0.5)  # 2 of 4 agree; the failure counts
    assert cot_row["cohen_kappa"] == pytest.approx(0.4)  # over items 1-3: yes/no/yes vs yes/no/no
    assert cot_row["settings"] == {"model": "m", "cot": True, "n": 3}
    direct_row = by_judge["direct"]
    assert (direct_row["failed"], direct_row["accuracy"]) == (0, 0.75)
    # Cost per item asked: 9 samples, 4.5 s and 900 tokens over the judge's items (cot: 3 labels + 1 failure).
    assert cot_row["seconds_per_item"] == pytest.approx(4.5 / 4) and cot_row["tokens_per_item"] == pytest.approx(225)
    assert direct_row["items_per_second"] == pytest.approx(5 / 4.5)
    assert ablation_build(judges=[em], humans=humans, costs=[]) is None


def test_a_final_judge_read_on_the_held_out_part_is_listed_apart_from_the_versions_being_developed():
    humans = HumanLabels(item_label={1: "yes", 2: "no", 3: "yes", 4: "no"})
    v1 = JudgeLabels(name="v1", family="llm", labels={1: "yes", 2: "yes"})  # the development part: items 1 and 2
    v2 = JudgeLabels(name="v2", family="llm", labels={1: "yes", 2: "no"})
    final = JudgeLabels(name="v3", family="llm", labels={3: "yes", 4: "no"}, held_out=True)
    block = ablation_build(judges=[v1, v2, final], humans=humans,
                           costs=[cost("v1", n=1), cost("v2", n=3), cost("v3", n=5)])
    assert block["items"] == 2 and [row["judge"] for row in block["rows"]] == ["v1", "v2"]
    assert [row["judge"] for row in block["left_out"]] == ["v3"] and "held-out part" in block["left_out"][0]["why"]
    # Every version final: all read on the held-out part, compared there.
    both = ablation_build(judges=[JudgeLabels(name="v3", family="llm", labels={3: "yes"}, held_out=True)],
                          humans=humans, costs=[cost("v3", n=5)])
    assert both["items"] == 1 and both["left_out"] == []


@pytest.mark.django_db
def test_report_and_page_show_the_ablation(qa_campaign, researcher, client):
    from annotate.models import HumanJudgment, JudgmentKind, Unit

    items = list(qa_campaign.items.order_by("id"))
    for item, label in zip(items, ["yes", "no", "yes", "no", "yes", "no"]):
        unit = Unit.objects.get(item=item)
        HumanJudgment.objects.create(unit=unit, annotator=researcher, kind=JudgmentKind.ADJUDICATION, label=label,
                                     value={}, is_current=True)
    for name, config, labels in [("smol-cot", {"cot": True, "n": 3, "api_key": "sk-x"}, "yyyyyy"),
                                 ("smol-direct", {"cot": False, "n": 1}, "ynynyn")]:
        judge = Judge.objects.create(campaign=qa_campaign, name=name, family="llm", config=config, config_hash=name)
        for item, letter in zip(items, labels):
            ModelJudgment.objects.create(judge=judge, item=item, label={"y": "yes", "n": "no"}[letter], score=1.0)
            LLMSample.objects.create(judge=judge, item=item, index=0, text="…", prompt_tokens=100,
                                     completion_tokens=10, seconds=0.5)
    # A configuration whose only run failed before any verdict (a beam search past the task's time limit on a CPU):
    # left out and said, not an intersection of no items that empties every row.
    beam = Judge.objects.create(campaign=qa_campaign, name="smol-beam", family="llm", config={"num_beams": 4},
                                config_hash="smol-beam")
    JudgeRun.objects.create(judge=beam, batch_size=8, total=6, status="failed",
                            error="a batch of 6 items ran past the time limit; use smaller batches and resume")
    block = agreement_report_build(campaign=qa_campaign)["ablation"]
    rows = {row["judge"]: row for row in block["rows"]}
    assert block["items"] == 6 and rows["smol-direct"]["cohen_kappa"] == pytest.approx(1.0)
    assert [row["judge"] for row in block["left_out"]] == ["smol-beam"] and "smol-beam" not in rows
    assert block["left_out"][0]["why"] == (
        "asked about none of the 6 items with a human label (latest run failed: a batch of 6 items "
        "ran past the time limit; use smaller batches and resume)")
    assert rows["smol-cot"]["accuracy"] == pytest.approx(0.5) and rows["smol-cot"]["seconds_per_item"] == 0.5
    client.force_login(researcher)
    report_stored(qa_campaign)
    page = client.get("/campaigns/qa/report/").content.decode()
    assert 'id="ablation"' in page and "smol-direct" in page and "sk-x" not in page
    assert 'id="ablation-systems"' in page and "Agreement vs smol-cot, points" in page  # the first row is the base
    assert "Left out: asked about none of the 6 items" in page and "but the 1 left out" in page


def test_rows_carry_system_figures_over_the_sampled_items_and_compare_with_the_base():
    """Three systems of four answers; judge "exact" repeats the humans, "rough" does not, and was not asked about
    item 12: the rows' items are 11 of the 12 labelled ones, a sample, and the system figures are over them."""
    from reports.selectors import SystemOutputs

    human = "yyyn" + "yynn" + "ynnn"
    humans = HumanLabels(item_label={i + 1: {"y": "yes", "n": "no"}[c] for i, c in enumerate(human)})
    outputs = SystemOutputs(outputs={f"S{s}": [(t, s * 4 + t + 1) for t in range(4)] for s in range(3)})
    exact = JudgeLabels(name="exact", family="llm", labels=dict(humans.item_label))
    rough = JudgeLabels(name="rough", family="llm",
                        labels={i + 1: {"y": "yes", "n": "no"}[c] for i, c in enumerate("yyyy" + "nnnn" + "ynn")})
    block = ablation_build(judges=[exact, rough], humans=humans, outputs=outputs, base="exact",
                           costs=[cost("exact", cot=True), cost("rough", cot=False)])
    assert block["items"] == 11 and block["sample"] and block["labelled"] == 12 and block["base"] == "exact"
    rows = {row["judge"]: row for row in block["rows"]}
    assert rows["exact"]["mae"] == 0 and rows["exact"]["system"]["kendall_tau_b"] == pytest.approx(1.0)
    # rough: S0 1.0 vs 0.75, S1 0.0 vs 0.5, S2 1/3 vs 1/3 (item 12 left out): MAE 0.25; one pair of three swapped.
    assert rows["rough"]["mae"] == pytest.approx(0.25) and rows["rough"]["mae_systems"] == 3
    assert rows["rough"]["system"]["kendall_tau_b"] == pytest.approx(1 / 3)
    system = rows["rough"]["system"]
    assert system["n_systems"] == 3 and system["kendall_tau_b"] is not None
    assert system["kendall_tau_b_ci95"] is None and system["kendall_tau_b_ci_note"].startswith("too few systems")
    versus = rows["rough"]["vs_base"]
    assert rows["exact"]["vs_base"] is None and versus["base"] == "exact"
    assert versus["mae"] == pytest.approx(0.25) and versus["kendall_tau_b"] == pytest.approx(-2 / 3)
    # Agreement on the 11 items: exact 11, rough 8 (items 4, 5 and 6 differ).
    assert versus["accuracy"]["difference"] == pytest.approx(-3 / 11) and versus["accuracy"]["discordant"] == [0, 3]
    unknown = ablation_build(judges=[exact, rough], humans=humans, outputs=outputs, base="nobody",
                             costs=[cost("exact"), cost("rough")])
    assert unknown["base"] == "exact" and "'nobody' is not an LLM judge" in unknown["base_why"]
