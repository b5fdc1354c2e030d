"""campaign_options: researchers set the task-type options from the command line; bad values change nothing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


def options(*args):
    out = io.StringIO()
    call_command("campaign_options", "--campaign", "imgs", *args, stdout=out)
    return json.loads(out.getvalue())


def test_set_show_and_unset():
    CampaignFactory(slug="imgs", task_type="image_relevance", options={"runs": {"r": {"depth": 10}}})
    shown = options("--set", 'grade_mapping={"clip": "fitted"}', "--set", 'bias_tag="clip-based"')
    assert shown == {"bias_tag": "clip-based", "grade_mapping": {"clip": "fitted"}}  # runs are not printed
    stored = Campaign.objects.get(slug="imgs").options
    assert stored["runs"] == {"r": {"depth": 10}} and stored["bias_tag"] == "clip-based"
    assert options("--unset", "bias_tag") == {"grade_mapping": {"clip": "fitted"}}


@pytest.mark.parametrize(("change", "message"), [
    ('grade_mapping={"clip": "median"}', 'option grade_mapping: grade_mapping must map judge names to "quantile" or "fitted"'),
    ("bias_tag=clip", "--set bias_tag: not JSON"),
    ("ties=true", "option ties: ties apply to answer_ranking campaigns"),
    ("colour=1", "option colour: unknown option"),
    ("min_system_outputs=0", "option min_system_outputs: min_system_outputs must be a whole number, at least 1"),
    ("min_system_coverage=1.5", "option min_system_coverage: min_system_coverage must be a share from 0 to 1"),
    ("small_sample=true", "option small_sample: small_sample must be a whole number, at least 1"),
])
def test_bad_values_are_refused(change, message):
    CampaignFactory(slug="imgs", task_type="image_relevance", options={})
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        options("--set", change)
    assert Campaign.objects.get(slug="imgs").options == {}


def test_the_reports_coverage_options_apply_to_every_task_type():
    CampaignFactory(slug="imgs", task_type="qa_correctness", options={})
    shown = options("--set", "min_system_outputs=20", "--set", "min_system_coverage=0.8", "--set", "small_sample=50")
    assert shown == {"min_system_outputs": 20, "min_system_coverage": 0.8, "small_sample": 50}


# --- The same options from the browser and the API (researchers only; tests/test_permissions_matrix.py) ---

SCALE = [{"grade": 0, "name": "No"}, {"grade": 1, "name": "Some"}, {"grade": 2, "name": "Much"},
         {"grade": 3, "name": "All"}]


@pytest.fixture
def imgs(researcher):
    from annotate.models import Role
    from tests.factories import MembershipFactory

    campaign = CampaignFactory(slug="imgs", task_type="image_relevance", options={"runs": {"r": {"depth": 10}},
                                                                                   "bias_tag": "clip-based"})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    return campaign


def test_the_api_shows_and_replaces_the_options(client, researcher, imgs):
    client.force_login(researcher)
    url = "/api/campaigns/imgs/options/"
    assert client.get(url).json() == {"options": {"bias_tag": "clip-based"}}  # the imports' runs are not shown
    answer = client.put(url, {"options": {"scale": SCALE, "relevant_from": 2}}, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["options"] == {
        "scale": SCALE, "relevant_from": 2}  # bias_tag, left out, is unset
    assert Campaign.objects.get(slug="imgs").options["runs"] == {"r": {"depth": 10}}  # kept
    refused = client.put(url, {"options": {"scale": SCALE, "relevant_from": 4}}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["detail"] == (
        "option relevant_from: 4 is not a grade of the scale (0-3)")
    internal = client.put(url, {"options": {"runs": {}}}, content_type="application/json")
    assert internal.status_code == 400 and "kept by the imports" in internal.json()["detail"]
    assert Campaign.objects.get(slug="imgs").options["relevant_from"] == 2


def test_the_options_page_saves_json_and_shows_what_is_wrong(client, researcher, imgs):
    client.force_login(researcher)
    url = "/campaigns/imgs/options/"
    page = client.get(url).content.decode()
    assert "&quot;bias_tag&quot;: &quot;clip-based&quot;" in page and "runs" not in page.split("<textarea")[1]
    saved = client.post(url, {"options": json.dumps({"scale": SCALE})}, follow=True)
    assert "Options saved." in saved.content.decode()
    assert Campaign.objects.get(slug="imgs").options == {"runs": {"r": {"depth": 10}}, "scale": SCALE}
    broken = client.post(url, {"options": '{"scale": '})
    assert broken.status_code == 400 and "Not JSON" in broken.content.decode()
    wrong = client.post(url, {"options": json.dumps({"ties": True})})
    assert wrong.status_code == 400
    assert "option ties: ties apply to answer_ranking campaigns. Nothing was saved." in wrong.content.decode()
    assert Campaign.objects.get(slug="imgs").options["scale"] == SCALE
