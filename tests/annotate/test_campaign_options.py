"""campaign_options: researchers set the task-type options from the command line; bad values change nothing."""

import html
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign
from annotate.task_types.options import COMMON_OPTIONS
from annotate.task_types.registry import task_type_get
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


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            'grade_mapping={"clip": "median"}',
            'option grade_mapping: grade_mapping must map judge names to "quantile" or "fitted"',
        ),
        ("bias_tag=clip", "--set bias_tag: not JSON"),
        ("ties=true", "option ties: ties apply to answer_ranking campaigns"),
        ("colour=1", "option colour: unknown option"),
        ("min_system_outputs=0", "option min_system_outputs: min_system_outputs must be a whole number, at least 1"),
        ("min_system_coverage=1.5", "option min_system_coverage: min_system_coverage must be a share from 0 to 1"),
        ("small_sample=true", "option small_sample: small_sample must be a whole number, at least 1"),
        ("rbo_p=1", "option rbo_p: rbo_p must be a number strictly between 0 and 1, e.g. 0.9"),
        ("compat_p=0", "option compat_p: compat_p must be a number strictly between 0 and 1, e.g. 0.9"),
        ('compat_p="0.95"', "option compat_p: compat_p must be a number strictly between 0 and 1, e.g. 0.9"),
        ("top_k=0", "option top_k: top_k must be a whole number, at least 1"),
        (
            'arms=["blind", "shown"]',
            'option arms: \'shown\' is not an arm: an arm is "blind" or "assisted:" followed by',
        ),
        ('arms=["blind"]', "option arms: arms needs two arms or more to compare"),
        (
            'arm_assignment="coin"',
            "option arm_assignment: arm_assignment is one of random, balanced or researcher, not 'coin'",
        ),
        ('arm_per="topic"', "option arm_per: arm_per is one of annotator or unit, not 'topic'"),
        ("budget_width=0", "option budget_width: budget_width must be an interval width greater than 0 and at most 2"),
        ('queue_order="random"',
         "option queue_order: queue_order is one of position, informative or sample, not 'random'"),
    ],
)
def test_bad_values_are_refused(change, message):
    CampaignFactory(slug="imgs", task_type="image_relevance", options={})
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        options("--set", change)
    assert Campaign.objects.get(slug="imgs").options == {}


def test_the_reports_coverage_options_apply_to_every_task_type():
    CampaignFactory(slug="imgs", task_type="qa_correctness", options={})
    shown = options("--set", "min_system_outputs=20", "--set", "min_system_coverage=0.8", "--set", "small_sample=50")
    assert shown == {"min_system_outputs": 20, "min_system_coverage": 0.8, "small_sample": 50}


# --- The same options from the browser and the API (researchers only; tests/project/test_permissions_matrix.py) ---

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


def test_the_options_page_saves_its_fields_and_shows_what_is_wrong(client, researcher, imgs):
    client.force_login(researcher)
    url = "/campaigns/imgs/options/"
    page = client.get(url).content.decode()
    assert field_value(page, "bias_tag") == "clip-based" and 'name="runs"' not in page and "depth" not in page
    assert "<textarea" in page and 'name="options"' not in page  # real fields, no JSON text box
    saved = client.post(url, {"scale": "0 | No\n1 | Some\n2 | Much\n3 | All"}, follow=True)
    assert "Options saved: scale changed, bias_tag unset (the default applies)." in saved.content.decode()
    assert Campaign.objects.get(slug="imgs").options == {"runs": {"r": {"depth": 10}}, "scale": SCALE}
    wrong = client.post(url, {"scale": "0 | No\n1 | Some\n2 | Much\n3 | All", "relevant_from": "4"})
    assert wrong.status_code == 400 and "Nothing was saved" in wrong.content.decode()
    assert field_errors(wrong.content.decode(), "relevant_from") == ["4 is not a grade of the scale (0-3)"]
    assert Campaign.objects.get(slug="imgs").options == {"runs": {"r": {"depth": 10}}, "scale": SCALE}


# --- Each task type's form: options -> the form's fields -> a post -> the same options ---

DEFINED = [{"grade": 0, "name": "Off topic", "definition": "Nothing to do with the query."},
           {"grade": 1, "name": "On topic", "definition": "About the query | but no answer in it."},
           {"grade": 2, "name": "Answers it"}]
ROUND_TRIPS = {
    "qa_correctness": {"min_system_outputs": 20, "min_system_coverage": 0.8, "small_sample": 50,
                       "counting_rule": "qa-eval", "adjudication": ["humans", "judge"], "adjudication_judge": "em"},
    "ais": {"min_system_coverage": 1, "small_sample": 12, "judge_new_items": True, "adjudication": ["judges"]},
    "answer_ranking": {"dimensions": ["relevance", "readability"], "ties": False, "rank_depth": 2,
                       "min_system_outputs": 3, "budget_width": 0.2, "queue_order": "informative", "rbo_p": 0.8,
                       "top_k": 3},
    "image_relevance": {"scale": DEFINED, "relevant_from": 2, "grade_mapping": {"clip": "fitted", "vlm:b": "quantile"},
                        "bias_tag": "clip-based"},
    "passage_relevance": {"scale": SCALE, "relevant_from": 3, "small_sample": 40, "compat_p": 0.8},
}


def field_value(page: str, name: str) -> str | list[str]:
    """The value a field of the page shows (an input's value, a textarea's text, a select's chosen option; the ticked
    values of a group of checkboxes, "" when none is ticked)."""
    boxes = re.findall(rf'<input type="checkbox" name="{name}" value="([^"]*)"([^>]*)>', page)
    if boxes:
        return [html.unescape(value) for value, rest in boxes if "checked" in rest] or ""
    found = (re.search(rf'<input [^>]*name="{name}"[^>]*value="([^"]*)"', page)
             or re.search(rf'<textarea [^>]*name="{name}"[^>]*>\n?(.*?)</textarea>', page, re.DOTALL)
             or re.search(rf'<select [^>]*name="{name}".*?<option value="([^"]*)" selected>', page, re.DOTALL))
    return html.unescape(found.group(1)) if found else ""


def field_errors(page: str, name: str) -> list[str]:
    errors = re.search(rf'<ul class="errorlist" id="option-{name}-errors">(.*?)</ul>', page, re.DOTALL)
    return [html.unescape(error) for error in re.findall(r"<li>(.*?)</li>", errors.group(1))] if errors else []


def researcher_campaign(researcher, task_type, options):
    from annotate.models import Role
    from tests.factories import MembershipFactory

    campaign = CampaignFactory(slug="opts", task_type=task_type, options=options)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    return campaign


@pytest.mark.parametrize("task_type", list(ROUND_TRIPS))
def test_every_task_types_form_gives_back_the_options_it_shows(client, researcher, task_type):
    options = ROUND_TRIPS[task_type]
    researcher_campaign(researcher, task_type, {**options, "runs": {"r": {"depth": 5}}})
    client.force_login(researcher)
    page = client.get("/campaigns/opts/options/").content.decode()
    form = task_type_get(task_type).options_form(campaign=Campaign.objects.get(slug="opts"))
    shown = {field.name: field_value(page, field.name) for field in form}
    assert set(shown) == set(COMMON_OPTIONS) | set(task_type_get(task_type).options)
    assert all(shown[name] == "" for name in shown if name not in options)  # unset: empty, the default applies
    saved = client.post("/campaigns/opts/options/", shown, follow=True)
    assert "Options saved: nothing changed." in saved.content.decode()
    assert Campaign.objects.get(slug="opts").options == {**options, "runs": {"r": {"depth": 5}}}
    emptied = client.post("/campaigns/opts/options/", {name: "" for name in shown}, follow=True)
    assert "unset (the default applies)" in emptied.content.decode()
    assert Campaign.objects.get(slug="opts").options == {"runs": {"r": {"depth": 5}}}
    # The API takes back what it gives, through the same form.
    answer = client.put("/api/campaigns/opts/options/", {"options": options}, content_type="application/json")
    assert answer.status_code == 200 and answer.json() == {"options": options}
    assert client.get("/api/campaigns/opts/options/").json() == {"options": options}


def test_the_graded_form_reads_grade_lines_and_judge_lines(client, researcher):
    researcher_campaign(researcher, "passage_relevance", {})
    client.force_login(researcher)
    page = client.get("/campaigns/opts/options/").content.decode()
    assert "Empty: the default, 0 Not relevant, 1 Related, 2 Highly relevant, 3 Perfectly relevant." in page
    assert "Empty: 2." in page  # passages count grades 2 and up as relevant unless the campaign says otherwise
    client.post("/campaigns/opts/options/", {
        "scale": "0 | Off topic | Nothing to do with the query.\n\n 1|On topic| About the query | but no answer in it."
                 "\n2 | Answers it",
        "grade_mapping": "clip: fitted\nvlm:b : quantile\n", "ties": "yes"})
    assert Campaign.objects.get(slug="opts").options == {"scale": DEFINED,
                                                         "grade_mapping": {"clip": "fitted", "vlm:b": "quantile"}}


@pytest.mark.parametrize(("choice", "stored"), [("yes", {"ties": True}), ("no", {"ties": False}), ("", {})])
def test_ties_are_yes_no_or_unset(client, researcher, choice, stored):
    researcher_campaign(researcher, "answer_ranking", {"ties": not stored.get("ties", False)})
    client.force_login(researcher)
    client.post("/campaigns/opts/options/", {"ties": choice})
    assert Campaign.objects.get(slug="opts").options == stored
    assert field_value(client.get("/campaigns/opts/options/").content.decode(), "ties") == choice
    # The API's null is the empty field's unset.
    client.put("/api/campaigns/opts/options/", {"options": {"ties": None}}, content_type="application/json")
    assert Campaign.objects.get(slug="opts").options == {}


BAD = [
    ("passage_relevance", "scale", "1 | Related\n0 | Not relevant",
     "scale grades must be 0, 1, 2, ... in order; entry 1 has grade 1"),
    ("passage_relevance", "scale", "0 | Not relevant\n1 |", "scale grade 1: a name is required"),
    ("passage_relevance", "relevant_from", "4", "4 is not a grade of the scale (0-3)"),
    ("image_relevance", "relevant_from", "two", "relevant_from must be a grade, at least 1"),
    ("image_relevance", "grade_mapping", "clip: median",
     'grade_mapping must map judge names to "quantile" or "fitted"'),
    ("answer_ranking", "ties", "maybe", "ties must be true or false"),
    ("answer_ranking", "dimensions", "relevance\nrelevance", "dimensions must be a non-empty list of distinct names"),
    ("answer_ranking", "rank_depth", "0", "rank_depth must be a whole number, at least 1"),
    ("answer_ranking", "rank_depth", "2.5", "rank_depth must be a whole number, at least 1"),
    ("qa_correctness", "min_system_coverage", "1.5", "min_system_coverage must be a share from 0 to 1"),
    ("qa_correctness", "counting_rule", "study", "counting_rule is one of concord, qa-eval, not 'study'"),
    ("ais", "small_sample", "0", "small_sample must be a whole number, at least 1"),
    ("answer_ranking", "rbo_p", "0", "rbo_p must be a number strictly between 0 and 1, e.g. 0.9"),
    ("passage_relevance", "compat_p", "1", "compat_p must be a number strictly between 0 and 1, e.g. 0.9"),
    ("image_relevance", "compat_p", "-0.5", "compat_p must be a number strictly between 0 and 1, e.g. 0.9"),
    ("image_relevance", "compat_p", "high", "compat_p must be a number strictly between 0 and 1, e.g. 0.9"),
    ("image_relevance", "top_k", "2.5", "top_k must be a whole number, at least 1"),
    ("qa_correctness", "judge_new_items", "often", "judge_new_items must be true or false"),
    ("qa_correctness", "budget_width", "-0.1",
     "budget_width must be an interval width greater than 0 and at most 2 (e.g. 0.1)"),
    ("ais", "adjudication", ["humans", "colleagues"],
     "adjudication: 'colleagues' is no kind of disagreement; choose among humans, judge or judges"),
]


@pytest.mark.parametrize(("task_type", "name", "text", "message"), BAD)
def test_a_bad_value_shows_its_checks_message_on_its_field_and_saves_nothing(client, researcher, task_type, name,
                                                                           text, message):
    before = {"small_sample": 40}
    researcher_campaign(researcher, task_type, before)
    client.force_login(researcher)
    answer = client.post("/campaigns/opts/options/", {name: text, "min_system_outputs": "25"})
    page = answer.content.decode()
    assert answer.status_code == 400 and "Nothing was saved; see the fields marked below." in page
    assert field_errors(page, name) == [message]
    assert field_value(page, "min_system_outputs") == "25"  # what was posted is shown again
    if name not in (
        "ties",
        "counting_rule",
        "judge_new_items",
        "adjudication",
        "queue_order",
    ):  # a select shows only its choices
        assert field_value(page, name) == text.strip()
    assert Campaign.objects.get(slug="opts").options == before  # min_system_outputs, good, is not saved either
    # The API refuses the same value with the same words, naming the option.
    value = task_type_get(task_type).options_form.base_fields[name].clean(text)
    refused = client.put("/api/campaigns/opts/options/", {"options": {name: value}}, content_type="application/json")
    assert refused.status_code == 400 and refused.json() == {"detail": f"option {name}: {message}"}


def test_the_api_checks_its_json_as_it_is_and_names_every_problem(client, researcher):
    researcher_campaign(researcher, "image_relevance", {"bias_tag": "clip-based"})
    client.force_login(researcher)
    url = "/api/campaigns/opts/options/"

    def refused(options):
        answer = client.put(url, {"options": options}, content_type="application/json")
        assert answer.status_code == 400
        return answer.json()["detail"]

    assert refused({"relevant_from": "2"}) == "option relevant_from: relevant_from must be a grade, at least 1"
    assert refused({"small_sample": True}) == "option small_sample: small_sample must be a whole number, at least 1"
    assert refused({"ties": True, "colour": 1, "min_system_coverage": 2}) == (
        "option min_system_coverage: min_system_coverage must be a share from 0 to 1; "
        "option ties: ties apply to answer_ranking campaigns; option colour: unknown option (known: "
        "ablation_base, adjudication, adjudication_judge, alt_test_epsilon, arm_assignment, arm_per, arms, bias_tag, "
        "both_bad, budget_width, compat_p, counting_rule, creation_overlap, dimensions, grade_mapping, "
        "judge_new_items, "
        "min_system_coverage, min_system_outputs, "
        "nrp_rule, nrp_weights, pair_prompts, pair_seed, ppi_check_share, ppi_plan, queue_order, rank_depth, rbo_p, "
        "relevant_from, scale, small_sample, ties, top_k)"
    )
    assert refused({"scale": "0 | No\n1 | Yes"}).startswith("option scale: scale must be a list of")
    assert client.put(url, {"options": [1]}, content_type="application/json").status_code == 400
    assert Campaign.objects.get(slug="opts").options == {"bias_tag": "clip-based"}


def test_the_humans_and_judges_options_are_checked(db):
    """ppi_plan names a plan of stats.label_plans; ppi_check_share is a share strictly between 0 and 1."""
    from annotate.task_types.options import COMMON_OPTIONS, PPI_PLANS
    from stats.label_plans import PLANS

    assert set(PPI_PLANS) == set(PLANS)
    assert COMMON_OPTIONS["ppi_plan"]("ppi_plan", "active") is None
    assert COMMON_OPTIONS["ppi_plan"]("ppi_plan", "greedy") == \
        "ppi_plan is one of active, stratified or uniform, not 'greedy'"
    assert COMMON_OPTIONS["ppi_check_share"]("ppi_check_share", 0.2) is None
    for wrong in (0, 1, 1.5, "0.1", True):
        assert COMMON_OPTIONS["ppi_check_share"]("ppi_check_share", wrong) == \
            "ppi_check_share must be a share greater than 0 and less than 1 (e.g. 0.1)"
