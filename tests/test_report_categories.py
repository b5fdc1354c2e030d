"""The report's block by item category (agreement.report_categories): its figures against scikit-learn, statsmodels
and krippendorff on the same data, the reports that carry it, and its page."""

import csv
import io

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from agreement.report import agreement_report_build
from agreement.report_categories import WITHOUT, agreement_by_category
from annotate.models import Item
from tasktypes.archive import campaign_export, campaign_import
from tests.categories_support import CATEGORY, JUDGE, RATER_A, RATER_B, categories_campaign
from tests.factories import UserFactory
from tests.reports import report_stored



def test_the_figures_are_the_libraries_figures():
    # The human label: rater A's where the raters agree; items where they split have none (left out of the judges').
    label = {item: a for item, (a, b) in enumerate(zip(RATER_A, RATER_B)) if a == b}
    rows = agreement_by_category(categories=dict(enumerate(CATEGORY)), item_label=label,
                                 ratings={item: [a, b] for item, (a, b) in enumerate(zip(RATER_A, RATER_B))},
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
        assert humans["krippendorff_alpha_items"] == len(span)
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
