"""The report page, its downloads, the API endpoint and the `agreement_report` command."""

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.services import token_create
from agreement.stored import stored_report_rebuild
from annotate.models import Role
from annotate.services.data_version import campaign_data_changed
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (fixture)
from tests.factories import PASSWORD, MembershipFactory, UserFactory
from tests.report_support import report_stored

PAGES = ["/campaigns/small/report/", "/campaigns/small/report/report.json",
         "/campaigns/small/report/systems.csv", "/campaigns/small/report/judges.csv"]


def _client(client, username):
    client.login(username=username, password=PASSWORD)
    return client


@pytest.fixture
def outsiders(small_campaign, annotator):  # noqa: F811
    MembershipFactory(campaign=small_campaign, user=annotator, role=Role.ANNOTATOR)
    other_researcher = UserFactory(username="res2")
    MembershipFactory(user=other_researcher, role=Role.RESEARCHER)  # researcher of another campaign
    return {"ann": annotator, "res2": other_researcher}


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize("username,status", [("ann", 403), ("res2", 404)])
def test_annotators_get_403_and_other_researchers_404(client, outsiders, url, username, status):
    # The campaign's annotator is told the report is for its researchers; another campaign's researcher is not told
    # the campaign exists.
    assert _client(client, username).get(url).status_code == status


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_is_sent_to_login(client, small_campaign, url):  # noqa: F811
    response = client.get(url)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_page_shows_the_report(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    html = _client(client, "res").get("/campaigns/small/report/").content.decode()
    assert "Agreement report" in html
    assert "-0.500" in html  # judge-a's kappa, three decimals
    # Intervals under the numbers, each naming what it resampled or its method: Fleiss' kappa the items rated, an
    # annotator's agreement with the adjudicated label Wilson's; a judge's kappa over 2 questions says why it has none.
    assert re.search(r'<div class="ci-under muted" title="95% interval, resampling items">\[-?\d\.\d{3}, -?\d\.\d{3}\] '
                     r'<span class="ci-over">over items</span></div>', html)
    assert '<span class="ci-over">Wilson</span>' in html
    assert ">no interval: too few questions to resample: 2</div>" in html
    # judge-a's constant system accuracies: tau-b undefined, shown as a dash that says why
    assert 'title="every system has the same score under the judge">—</span>' in html
    assert "<svg" in html and "accuracy under human labels" in html  # the inline scatter plot
    for url in PAGES[1:]:
        assert f'href="{url}"' in html


def test_page_shows_the_system_orders_tests_and_counting_rule(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    html = _client(client, "res").get("/campaigns/small/report/").content.decode()
    assert 'id="system-orders"' in html and "each side over every output it decided" in html
    assert 'id="system-tests"' in html and 'class="pair-matrix"' in html and 'id="judge-pairs"' in html
    assert "S1 vs S2: n 2;" in html  # a matrix cell's title: the pair, its n, ...
    assert "Counting rule <strong>concord</strong>" in html and 'id="printed"' not in html
    small_campaign.options = {**small_campaign.options, "counting_rule": "qa-eval"}
    small_campaign.save(update_fields=["options"])
    campaign_data_changed(campaign_id=small_campaign.pk)  # as the options page does: the stored report is stale
    stored_report_rebuild(campaign_id=small_campaign.pk)  # the worker's rebuild
    html = _client(client, "res").get("/campaigns/small/report/").content.decode()
    assert "Counting rule <strong>qa-eval</strong>" in html and 'id="printed"' in html
    assert "<td>S1</td><td class=\"num\">100.0</td>" in html  # S1 as the study would print it, in %


def test_judges_csv_has_the_other_system_orders(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    text = _client(client, "res").get("/campaigns/small/report/judges.csv").content.decode()
    rows = {row["judge"]: row for row in csv.DictReader(io.StringIO(text))}
    assert rows["judge-b"]["all_n_systems"] != "" and rows["judge-b"]["mean_score_n_systems"] == ""


def test_page_for_a_campaign_without_judges_or_systems(client, researcher, db):
    campaign = MembershipFactory(user=researcher, role=Role.RESEARCHER).campaign
    report_stored(campaign)
    html = _client(client, "res").get(f"/campaigns/{campaign.slug}/report/").content.decode()
    assert "No judges yet" in html and "<svg" not in html


def test_json_download_is_the_report_document(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    response = _client(client, "res").get("/campaigns/small/report/report.json")
    assert response["Content-Disposition"] == 'attachment; filename="small-agreement.json"'
    document = json.loads(response.content)
    assert document["judges"]["judge-a"]["item"]["cohen_kappa"] == pytest.approx(-0.5)


def test_systems_csv(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    response = _client(client, "res").get("/campaigns/small/report/systems.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["system"] for row in rows] == ["S1", "S2", "S3"]
    assert list(rows[0]) == ["system", "n", "human", "judge-a", "judge-b", "judge-a_all", "judge-a_all_n",
                             "judge-a_mean_score", "judge-b_all", "judge-b_all_n", "judge-b_mean_score"]
    assert float(rows[0]["human"]) == 1.0 and float(rows[1]["judge-b"]) == 0.5
    # judge-b over every output it decided: S2's "Lyon" (yes) and its failed "5"; it scores nothing.
    assert rows[1]["judge-b_all_n"] == "2" and float(rows[1]["judge-b_all"]) == 0.5
    assert rows[1]["judge-b_mean_score"] == ""


def test_judges_csv_leaves_undefined_cells_empty(client, small_campaign):  # noqa: F811
    report_stored(small_campaign)
    text = _client(client, "res").get("/campaigns/small/report/judges.csv").content.decode()
    rows = {row["judge"]: row for row in csv.DictReader(io.StringIO(text))}
    assert float(rows["judge-a"]["cohen_kappa"]) == pytest.approx(-0.5)
    assert rows["judge-a"]["kendall_tau_b"] == ""
    assert rows["judge-b"]["failed"] == "1"


def test_api_serves_the_same_document_with_a_token(client, small_campaign, researcher):  # noqa: F811
    report_stored(small_campaign)
    _, token = token_create(user=researcher, name="report")
    response = client.get("/api/campaigns/small/agreement/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "small", "--json", stdout=out)
    assert response.json() == json.loads(out.getvalue())


def test_api_refuses_others(client, outsiders):
    assert client.get("/api/campaigns/small/agreement/").status_code in (401, 403)
    for username, status in (("ann", 403), ("res2", 404)):
        _, token = token_create(user=outsiders[username], name="report")
        response = client.get("/api/campaigns/small/agreement/", HTTP_AUTHORIZATION=f"Token {token}")
        assert response.status_code == status


def test_command_json_prints_only_the_document(small_campaign):  # noqa: F811
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "small", "--json", stdout=out)
    document = json.loads(out.getvalue())
    assert document["campaign"] == "small"
    assert [row["system"] for row in document["systems"]] == ["S1", "S2", "S3"]


def test_command_text_summary(small_campaign):  # noqa: F811
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "small", stdout=out)
    text = out.getvalue()
    assert "Cohen's kappa ann1 vs ann2: 0.000 (n = 4)" in text
    assert "judge-a" in text and "-0.500" in text and "—" in text


def test_command_unknown_campaign(db):
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("agreement_report", "--campaign", "nope", "--json")
