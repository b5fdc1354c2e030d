"""The report's methods section (reports.methods, agreement.report.report_methods_text) and the per-rater label table
behind it: what they say of a small campaign, from the page's downloads and the command."""

import csv
import importlib.metadata
import io
import json

from django.core.management import call_command

from agreement.stored import report_for_open
from judges.models import LLMSample
from reports.methods import software_versions
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (a fixture)
from tests.report_support import report_stored


def _methods(report, found):
    for key, value in report.items() if isinstance(report, dict) else enumerate(report):
        if isinstance(value, str) and str(key).endswith("method") and value:
            found.add(value)
        elif isinstance(value, (dict, list)):
            _methods(value, found)
    return found


def test_the_methods_name_every_interval_method_the_judges_and_the_software(small_campaign, client,  # noqa: F811
                                                                           researcher):
    report_stored(small_campaign)
    judge = small_campaign.judges.get(name="judge-a")
    LLMSample.objects.create(judge=judge, item=judge.judgments.first().item, index=0, text="yes",
                             served_model="gpt-x-0613")  # the model id a server reported answering with
    client.force_login(researcher)
    page = client.get("/campaigns/small/report/").content.decode()
    assert 'id="methods-txt"' in page and 'id="labels-csv"' in page
    answer = client.get("/campaigns/small/report/methods.txt")
    assert answer["Content-Disposition"] == 'attachment; filename="small-methods.txt"'
    text = answer.content.decode()
    document = report_for_open(campaign=small_campaign).document
    assert text.startswith(f"Methods: agreement report of {small_campaign.name} (small, qa_correctness), built ")
    assert ("- judge-a: family external, configuration hash-judge-a (verdicts imported from outside Concord); the "
            "server reported gpt-x-0613 (1 sample).") in text
    methods = _methods(document, set())
    assert len(methods) >= 4 and all(f"- {method} [" in text for method in methods)
    assert "(1000 resamples, seed 0)" in text
    # The figures as the command prints them, with their n; the software that computed them.
    assert "Cohen's kappa ann1 vs ann2:" in text and "(n = 4)" in text
    assert document["software"] == software_versions()
    assert f"scipy {importlib.metadata.version('scipy')}" in text and "irrCAC 0.4.4" in text
    assert text.count("Software: Concord ") == 1
    assert "Random stream: every bootstrap draws from numpy.random.Generator (PCG64)" in text and "seed 0" in text
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "small", "--methods", stdout=out)
    assert out.getvalue().strip() == text.strip()
    api = client.get("/api/campaigns/small/agreement/methods/")
    assert api.status_code == 200 and api["Content-Type"].startswith("text/plain") and api.content.decode() == text


def test_the_labels_table_has_a_row_per_item_and_rater(small_campaign, client, researcher):  # noqa: F811
    client.force_login(researcher)
    rows = list(csv.DictReader(io.StringIO(client.get("/campaigns/small/report/labels.csv").content.decode())))
    annotators = {(row["item"], row["rater"]): row["label"] for row in rows if row["rater_kind"] == "annotator"}
    # The current annotations (the edited first version of ann1 on lyon is not one), never the adjudication.
    assert annotators == {("lyon", "ann1"): "no", ("lyon", "ann2"): "no", ("four", "ann1"): "yes",
                          ("four", "ann2"): "no", ("five", "ann1"): "no", ("five", "ann2"): "no",
                          ("paris_fr", "ann1"): "yes", ("paris_fr", "ann2"): "no"}
    human = {row["item"]: row["label"] for row in rows if row["rater_kind"] == "human_label"}
    assert human == {"lyon": "no", "four": "yes", "five": "no"}  # adjudicated, else the majority; the tie has none
    judge_a = {row["item"]: row["label"] for row in rows if row["rater"] == "judge-a"}
    assert judge_a == {"paris": "yes", "lyon": "no", "four": "no", "five": "yes", "paris_fr": "yes"}
    assert {row["topic"] for row in rows if row["item"] == "four"} == {"2"}
    assert json.dumps(rows)  # plain text throughout
