"""The report's block by item category (reports.categories): its figures against scikit-learn, statsmodels
and krippendorff on the same data, the reports that carry it, and its page."""

import csv
import io

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from agreement.report import agreement_report_build
from annotate.models import Campaign, Item
from interchange.archive import campaign_export, campaign_import
from reports.categories import WITHOUT, agreement_by_category
from tests.categories_support import CATEGORY, JUDGE, RATER_A, RATER_B, categories_campaign
from tests.factories import UserFactory
from tests.report_support import report_stored


def test_the_figures_are_the_libraries_figures():
    # The human label: rater A's where the raters agree; items where they split have none (left out of the judges').
    label = {item: a for item, (a, b) in enumerate(zip(RATER_A, RATER_B)) if a == b}
    rows = agreement_by_category(categories=dict(enumerate(CATEGORY)), item_label=label,
                                 ratings={item: {"a": a, "b": b} for item, (a, b) in enumerate(zip(RATER_A, RATER_B))},
                                 judges=[("llm", "llm", dict(enumerate(JUDGE)))])
    assert [row["category"] for row in rows] == ["semantic", "symbolic", WITHOUT]
    spans = {"semantic": range(0, 12), "symbolic": range(12, 20), WITHOUT: range(20, 24)}
    for row in rows:
        span = spans[row["category"]]
        both = [item for item in span if item in label]
        judge = row["judges"][0]
        assert row["items"] == len(span) and row["items_labelled"] == len(both) == judge["n"]
        agree = sum(JUDGE[item] == label[item] for item in both)
        assert judge["agree"] == agree and judge["share"] == pytest.approx(agree / len(both))
        assert judge["share_ci95"] == pytest.approx(list(proportion_confint(agree, len(both), method="wilson")))
        assert judge["kappa"] == pytest.approx(cohen_kappa_score([JUDGE[i] for i in both], [label[i] for i in both]))
        humans = row["humans"]
        codes = {"y": 1, "n": 0}
        reliability = np.array([[codes[RATER_A[i]] for i in span], [codes[RATER_B[i]] for i in span]], dtype=float)
        assert humans["krippendorff_alpha"] == pytest.approx(
            krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"))
        table, _ = aggregate_raters(np.array([[codes[RATER_A[i]], codes[RATER_B[i]]] for i in span]))
        assert humans["fleiss_kappa"] == pytest.approx(fleiss_kappa(table))
        assert humans["krippendorff_alpha_items"] == len(span) and humans["raters"] == 2
    semantic, symbolic, without = rows
    for row in (semantic, symbolic):  # enough items: intervals around the figures
        kappa = row["judges"][0]
        assert kappa["kappa_ci95"][0] <= kappa["kappa"] <= kappa["kappa_ci95"][1]
        alpha = row["humans"]
        assert alpha["krippendorff_alpha_ci95"][0] <= alpha["krippendorff_alpha"] <= alpha["krippendorff_alpha_ci95"][1]
    # Four items, three labelled: too few to resample, and said so.
    assert without["judges"][0]["kappa_ci95"] is None
    assert without["judges"][0]["kappa_ci_note"] == "too few items to resample: 3 (an interval needs at least 4)"


def test_no_category_no_block():
    assert agreement_by_category(categories={1: "", 2: ""}, item_label={1: "y"}, ratings={}, judges=[]) is None
    assert agreement_by_category(categories={}, item_label={}, ratings={}, judges=[]) is None


@pytest.fixture
def campaign(db, researcher):
    return categories_campaign(researcher=researcher)


def test_the_verdict_report_carries_the_block_and_the_page_shows_it(client, campaign, researcher):
    block = agreement_report_build(campaign=campaign)["categories"]
    assert [(row["category"], row["items"], row["items_labelled"]) for row in block["rows"]] == [
        ("semantic", 12, 10), ("symbolic", 8, 6), (None, 4, 3)]
    assert block["items_categorised"] == 20 and block["judges"] == ["llm"]
    semantic = block["rows"][0]["judges"][0]
    assert semantic["n"] == 10 and semantic["agree"] == 8
    report_stored(campaign)
    client.force_login(researcher)
    page = client.get("/campaigns/cats/report/").content.decode()
    assert 'id="categories"' in page and "without a category" in page
    assert "8 of 10" in page
    Item.objects.filter(campaign=campaign).update(category="")
    assert agreement_report_build(campaign=campaign)["categories"] is None


def test_the_items_csv_carries_the_category(client, campaign, researcher):
    client.force_login(researcher)
    response = client.get("/campaigns/cats/report/items.csv")
    assert response.status_code == 200 and response["Content-Disposition"] == 'attachment; filename="cats-items.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["topic", "item", "kind", "category", "human_label", "llm_label", "llm_score"]
    assert rows[1] == ["t0", "i0", "answer", "semantic", "yes", "yes", ""]
    assert rows[4] == ["t0", "i3", "answer", "semantic", "", "no", ""]  # the raters split: no human label
    assert rows[13][3] == "symbolic" and rows[21][3] == ""
    assert len(rows) == 25
    client.force_login(UserFactory(username="stranger"))
    assert client.get("/campaigns/cats/report/items.csv").status_code == 404


def test_the_archive_keeps_the_categories(campaign, researcher, tmp_path):
    path = tmp_path / "cats.zip"
    campaign_export(campaign, path)
    campaign_import(path, slug="cats-copy", owner=researcher)
    copied = dict(Item.objects.filter(campaign__slug="cats-copy").values_list("external_id", "category"))
    assert copied == dict(Item.objects.filter(campaign=campaign).values_list("external_id", "category"))
    assert copied["i0"] == "semantic" and copied["i12"] == "symbolic" and copied["i20"] == ""


def test_the_graded_report_carries_the_block_on_its_judges_grades(db, tmp_path):
    def run(fmt, name, text, *extra):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        call_command("import_data", "--campaign", "pr", "--task-type", "passage_relevance", "--format", fmt, *extra,
                     str(path), stdout=io.StringIO())

    # k = 1: one assessor's qrels, each grade a passage's human label for the judge to be compared with.
    run("trec-topics", "topics.tsv", "101\tis coffee healthy\n102\tbest tea\n", "--overlap", "1")
    docs = [f"d{n}" for n in range(8)]
    human = [3, 2, 0, 1, 3, 0, 2, 1]
    judge = [3, 2, 1, 1, 2, 0, 2, 0]
    run("trec-qrels", "human.qrels", "".join(f"{100 + 1 + n % 2} 0 {doc} {grade}\n"
                                             for n, (doc, grade) in enumerate(zip(docs, human))))
    run("judge-qrels", "judge.qrels", "".join(f"{100 + 1 + n % 2} 0 {doc} {grade}\n"
                                              for n, (doc, grade) in enumerate(zip(docs, judge))), "--judge", "umbrela")
    run("item-categories", "cats.tsv", "".join(f"{100 + 1 + n % 2}\t{doc}\t{'long' if n < 5 else 'short'}\n"
                                              for n, doc in enumerate(docs)))
    block = agreement_report_build(campaign=Campaign.objects.get(slug="pr"))["categories"]
    assert [(row["category"], row["items"]) for row in block["rows"]] == [("long", 5), ("short", 3)]
    long = block["rows"][0]["judges"][0]
    assert long["name"] == "umbrela" and long["n"] == 5 and long["agree"] == 3
    assert long["kappa"] == pytest.approx(cohen_kappa_score([str(g) for g in judge[:5]], [str(g) for g in human[:5]]))
    assert block["rows"][0]["humans"]["krippendorff_alpha"] is None  # one assessor: no item rated twice
