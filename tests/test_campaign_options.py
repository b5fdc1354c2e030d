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
])
def test_bad_values_are_refused(change, message):
    CampaignFactory(slug="imgs", task_type="image_relevance", options={})
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        options("--set", change)
    assert Campaign.objects.get(slug="imgs").options == {}
