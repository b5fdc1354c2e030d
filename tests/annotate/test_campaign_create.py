"""Making a campaign and changing its settings (annotate.services.campaigns, annotate.views_campaigns, the API):
the "Can add campaign" permission, the task type's options as real fields checked by its options form, versioned
guidelines rendered safely, the guidelines version every judgment records, and overlap k changed soundly."""

from html import unescape
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from annotate.guidelines import guidelines_html
from annotate.models import Campaign, CampaignGuidelines, HumanJudgment, Membership, Role, Unit
from annotate.selectors.campaigns import campaign_overview
from annotate.services.annotation import judgment_edit, judgment_submit, unit_lease_next
from annotate.services.campaigns import CampaignError, campaign_create, campaign_update
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HOSTILE = """# Read this first

<script>window.pwned = 1</script> Judge **carefully**.

[a trap](javascript:alert(1)) · [another](JaVaScRiPt:alert(2)) · [data](data:text/html,hi) · [relative](/admin/)
· [fine](https://example.org/guide) · [mail](mailto:lead@example.org)

<img src=x onerror=alert(3)> <a href="javascript:alert(4)">raw link</a>
"""


class _Tags(HTMLParser):
    """The elements of an HTML fragment, with their attributes: what a browser would build from it."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _harmless(html: str) -> list[str]:
    """The links of HTML, after checking that it holds no script, no image, no event handler and no link but to
    http(s) and mailto addresses."""
    tags = _Tags(html).tags
    assert not {tag for tag, _ in tags} & {"script", "img", "iframe", "object", "style"}
    assert not [name for _, attrs in tags for name in attrs if name.startswith("on") or name == "style"]
    hrefs = [attrs["href"] for tag, attrs in tags if "href" in attrs]
    assert all(href.startswith(("https://", "http://", "mailto:")) for href in hrefs), hrefs
    return hrefs


@pytest.fixture
def creator(db):
    user = UserFactory(username="maker")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign", content_type__app_label="annotate"))
    return user


def _posted(task_type="passage_relevance", **extra) -> dict:
    data = {"task_type": task_type, "options_for": task_type, "name": "Passages 2026", "slug": "",
            "overlap": "", "guidelines": "Grade **each** passage."}
    data.update(extra)
    return data


# --- The page ---

def test_the_home_page_offers_a_new_campaign_to_those_with_the_permission(client, creator, researcher):
    client.force_login(creator)
    assert 'id="campaign-new"' in client.get("/").content.decode()
    client.force_login(researcher)
    assert 'id="campaign-new"' not in client.get("/").content.decode()


def test_without_the_permission_the_page_says_what_it_takes(client, researcher):
    client.force_login(researcher)
    response = client.get("/campaigns/new/")
    assert response.status_code == 403
    assert "This page makes new campaigns, which takes the permission “Can add campaign”" in response.content.decode()
    assert client.post("/campaigns/new/", _posted()).status_code == 403
    assert not Campaign.objects.exists()


def test_the_task_types_options_are_fields_and_htmx_swaps_them(client, creator):
    client.force_login(creator)
    page = client.get("/campaigns/new/").content.decode()
    assert "Choose a task type to see its overlap and options." in page and 'name="option-scale"' not in page
    page = client.get("/campaigns/new/?task_type=passage_relevance").content.decode()
    assert 'name="option-scale"' in page and 'name="option-relevant_from"' in page
    assert 'name="option-dimensions"' not in page
    fragment = client.get("/campaigns/new/", {"task_type": "answer_ranking"}, HTTP_HX_REQUEST="true")
    text = fragment.content.decode()
    assert "<html" not in text and 'id="type-fields"' in text
    assert 'name="option-dimensions"' in text and 'name="option-scale"' not in text
    # k's default, 2, and what k does to the report's human agreement.
    assert 'placeholder="2"' in text and "Empty: 2, this task type's default." in text
    assert "With 1, every unit is judged once, so the report can say nothing of how well the annotators agree" in text


def test_a_campaign_is_made_with_its_options_guidelines_and_researcher(client, creator):
    client.force_login(creator)
    response = client.post("/campaigns/new/", _posted(**{"option-relevant_from": "2", "option-bias_tag": "clip"}))
    assert response.status_code == 302 and response["Location"] == "/campaigns/passages-2026/"
    campaign = Campaign.objects.get(slug="passages-2026")
    assert (campaign.name, campaign.task_type, campaign.created_by) == ("Passages 2026", "passage_relevance", creator)
    assert campaign.overlap == 2  # the default k: two assessors per passage, so the report has their agreement
    assert campaign.options == {"relevant_from": 2, "bias_tag": "clip"}
    assert list(Membership.objects.filter(campaign=campaign).values_list("user__username", "role")) == [
        ("maker", "researcher")]
    guidelines = CampaignGuidelines.objects.get(campaign=campaign)
    assert (guidelines.version, guidelines.text, guidelines.created_by) == (1, "Grade **each** passage.", creator)
    page = client.get(response["Location"]).content.decode()
    assert "Campaign “Passages 2026” made; you are its researcher." in page and 'id="settings-link"' in page


def test_a_bad_option_is_refused_on_its_field_and_nothing_is_made(client, creator):
    client.force_login(creator)
    response = client.post("/campaigns/new/", _posted(**{"option-relevant_from": "7", "overlap": "0"}))
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was made" in page
    assert "7 is not a grade of the scale (0-3)" in page
    assert "Ensure this value is greater than or equal to 1." in page
    assert not Campaign.objects.exists() and not CampaignGuidelines.objects.exists()


def test_options_shown_for_another_task_type_are_not_taken_for_this_one(client, creator):
    client.force_login(creator)
    response = client.post("/campaigns/new/", _posted(task_type="answer_ranking", options_for="passage_relevance"))
    assert response.status_code == 400
    assert "The options below are now those of Answer ranking: check them and press Create again." in \
        response.content.decode()
    assert 'name="option-dimensions"' in response.content.decode() and not Campaign.objects.exists()


@pytest.mark.parametrize("slug,words", [("new", "'new' is the name of a page; choose another slug"),
                                         ("qa", "a campaign called 'qa' exists already; choose another slug"),
                                         ("two words", "'two words' is not a slug")])
def test_a_slug_that_cannot_be_a_campaigns_is_refused(client, creator, qa_campaign, slug, words):
    client.force_login(creator)
    response = client.post("/campaigns/new/", _posted(slug=slug))
    assert response.status_code == 400 and words[0].upper() + words[1:] in unescape(response.content.decode())
    with pytest.raises(CampaignError, match=words):
        campaign_create(creator=creator, name="x", slug=slug, task_type="qa_correctness")
    assert Campaign.objects.count() == 1


# --- Settings and guidelines ---

def test_editing_the_guidelines_keeps_the_earlier_version(client, qa_campaign, researcher):
    client.force_login(researcher)
    for text in ("Version one.", "Version one.", "Version *two*."):  # the same text twice: no new version
        response = client.post("/campaigns/qa/settings/", {"name": "QA round 2", "overlap": "1", "guidelines": text})
        assert response.status_code == 302
    versions = list(CampaignGuidelines.objects.filter(campaign=qa_campaign).order_by("version")
                    .values_list("version", "text", "created_by__username"))
    assert versions == [(1, "Version one.", "res"), (2, "Version *two*.", "res")]
    assert Campaign.objects.get(pk=qa_campaign.pk).name == "QA round 2"
    page = client.get("/campaigns/qa/settings/").content.decode()
    assert "Version 2</b> <span class=\"tag\">current</span>" in page and "Version 1</b>" in page
    assert "<p>Version <em>two</em>.</p>" in page
    assert 'id="id_guidelines"' in page and "Version *two*.</textarea>" in page


def test_an_even_overlap_warns_that_it_invites_ties_and_what_ties_do(client, qa_campaign, researcher):
    client.force_login(researcher)
    assert 'id="even-k-warning"' not in client.get("/campaigns/qa/settings/").content.decode()  # k = 1
    client.post("/campaigns/qa/settings/", {"name": qa_campaign.name, "overlap": "2", "guidelines": ""})
    page = client.get("/campaigns/qa/settings/").content.decode()
    assert "Overlap k = 2 is even: it invites ties." in page
    assert "drops out of every judge comparison" in " ".join(page.split())
    assert "An odd k, such as 3, cannot tie between two labels." in page


def test_each_judgment_records_the_guidelines_it_was_made_under(qa_campaign, researcher, annotator):
    first = judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator),
                            annotator=annotator, value={"correct": True})
    assert first.guidelines is None  # no guidelines yet
    campaign_update(campaign=qa_campaign, editor=researcher, guidelines="Be strict.")
    second = judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator),
                             annotator=annotator, value={"correct": True})
    campaign_update(campaign=qa_campaign, editor=researcher, guidelines="Be lenient.")
    edited = judgment_edit(judgment=second, annotator=annotator, value={"correct": False})
    v1, v2 = CampaignGuidelines.objects.filter(campaign=qa_campaign).order_by("version")
    assert (second.guidelines, edited.guidelines) == (v1, v2)
    assert HumanJudgment.objects.get(pk=second.pk).guidelines_id == v1.pk  # the earlier version stays as it was


def test_raising_overlap_reopens_units_and_lowering_it_keeps_every_judgment(qa_campaign, researcher, annotator):
    for _ in range(2):
        judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                        value={"correct": True})
    assert campaign_overview(campaign=qa_campaign)["judgments_left"] == 4
    campaign_update(campaign=qa_campaign, editor=researcher, overlap=3)
    assert set(Unit.objects.filter(campaign=qa_campaign).values_list("judgments_needed", flat=True)) == {3}
    overview = campaign_overview(campaign=Campaign.objects.get(pk=qa_campaign.pk))
    assert (overview["units_complete"], overview["judgments_left"]) == (0, 6 * 3 - 2)
    campaign_update(campaign=qa_campaign, editor=researcher, overlap=1)
    overview = campaign_overview(campaign=Campaign.objects.get(pk=qa_campaign.pk))
    assert (overview["units_complete"], overview["judgments_left"], overview["human_judgments"]) == (2, 4, 2)
    with pytest.raises(CampaignError, match="overlap k must be a whole number from 1 to 100"):
        campaign_update(campaign=qa_campaign, editor=researcher, overlap=0)


def test_an_annotator_is_told_the_settings_page_is_for_researchers(client, qa_campaign, annotator):
    client.force_login(annotator)
    response = client.get("/campaigns/qa/settings/")
    assert response.status_code == 403
    assert "This page is for the researchers of campaign “Campaign qa”; you are an annotator here." in \
        response.content.decode()
    assert "Traceback" not in response.content.decode()


# --- Guidelines are harmless HTML ---

def test_guidelines_markdown_cannot_carry_script_or_javascript_links():
    html = guidelines_html(HOSTILE)
    assert "<h1>Read this first</h1>" in html and "<strong>carefully</strong>" in html
    assert _harmless(html) == ["https://example.org/guide", "mailto:lead@example.org"]
    # What was markup in the text is shown as text: the reader sees what the researcher wrote.
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html and "[a trap](javascript:alert(1))" in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_the_annotation_page_shows_the_guidelines_behind_the_help_key(client, qa_campaign, researcher, annotator):
    campaign_update(campaign=qa_campaign, editor=researcher, guidelines=HOSTILE)
    client.force_login(annotator)
    page = client.get("/campaigns/qa/annotate/").content.decode()
    dialog = page[page.index('<dialog id="help"'):page.index("</dialog>")]
    assert 'id="campaign-guidelines" data-version="1"' in dialog and "<strong>carefully</strong>" in dialog
    guidelines = dialog[dialog.index('<div class="guidelines-text">'):dialog.index('id="shortcuts-help-title"')]
    assert _harmless(guidelines) == ["https://example.org/guide", "mailto:lead@example.org"]


# --- The API ---

def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_makes_a_campaign_with_options_checked_by_the_same_form(creator):
    api = _api(creator)
    refused = api.post("/api/campaigns/", {"task_type": "answer_ranking", "name": "Rank",
                                           "options": {"dimensions": [], "ties": "maybe"}}, format="json")
    assert refused.status_code == 400
    assert refused.json()["options"] == ["option dimensions: dimensions must be a non-empty list of distinct names",
                                         "option ties: ties must be true or false"]
    made = api.post("/api/campaigns/", {"task_type": "answer_ranking", "name": "Rank", "overlap": 2,
                                        "guidelines": "Best *first*.",
                                        "options": {"dimensions": ["relevance", "readability"], "ties": True}},
                    format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert (body["slug"], body["overlap"], body["is_researcher"], body["counts"]["judgments_left"]) == \
        ("rank", 2, True, 0)
    campaign = Campaign.objects.get(slug="rank")
    assert campaign.options == {"dimensions": ["relevance", "readability"], "ties": True}
    assert Membership.objects.filter(campaign=campaign, user=creator, role=Role.RESEARCHER).exists()
    assert api.post("/api/campaigns/", {"task_type": "answer_ranking", "name": "Rank"},
                    format="json").json() == {"detail": "a campaign called 'rank' exists already; choose another slug"}


def test_the_api_refuses_a_campaign_to_whoever_lacks_the_permission(researcher):
    response = _api(researcher).post("/api/campaigns/", {"task_type": "ais", "name": "x"}, format="json")
    assert response.status_code == 403 and "Can add campaign" in response.json()["detail"]
    assert not Campaign.objects.exists()


def test_the_api_edits_a_campaign_and_lists_its_guidelines(qa_campaign, researcher, annotator):
    api = _api(researcher)
    response = api.patch("/api/campaigns/qa/", {"guidelines": "First."}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "Campaign qa"
    response = api.patch("/api/campaigns/qa/", {"name": "QA", "overlap": 2, "guidelines": "Second [ok](https://x.org)."},
                         format="json")
    assert (response.json()["name"], response.json()["overlap"]) == ("QA", 2)
    assert api.patch("/api/campaigns/qa/", {"overlap": 0}, format="json").status_code == 400
    versions = _api(annotator).get("/api/campaigns/qa/guidelines/").json()  # annotators read them too
    assert [(v["version"], v["text"], v["created_by"], v["judgments"]) for v in versions] == [
        (2, "Second [ok](https://x.org).", "res", None), (1, "First.", "res", None)]
    assert [v["judgments"] for v in api.get("/api/campaigns/qa/guidelines/").json()] == [0, 0]
    assert versions[0]["html"] == '<p>Second <a href="https://x.org" rel="noopener noreferrer nofollow">ok</a>.</p>\n'
    refused = _api(annotator).patch("/api/campaigns/qa/", {"name": "mine"}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == (
        "This page is for the researchers of campaign “QA”; you are an annotator here.")
    assert UserFactory(username="stranger") and _api(UserFactory(username="stranger")).get(
        "/api/campaigns/qa/guidelines/").status_code == 404


def test_the_new_endpoints_are_in_the_openapi_schema(researcher):
    schema = _api(researcher).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/campaigns/"]) and "patch" in paths["/api/campaigns/{slug}/"]
    assert "get" in paths["/api/campaigns/{slug}/guidelines/"]
    assert {"get", "post"} <= set(paths["/api/campaigns/{slug}/members/"])
    assert "delete" in paths["/api/campaigns/{slug}/members/{username}/"]
    assert "post" in paths["/api/campaigns/{slug}/members/{username}/invitation/"]
    assert "invite_url" in schema["components"]["schemas"]["MemberAdded"]["properties"]


def test_no_path_makes_a_campaign_called_new(researcher):
    """campaigns/new/ is the New campaign page: neither an import nor the API may take the slug."""
    from annotate.services.campaigns import campaign_get_or_create

    with pytest.raises(CampaignError, match="'new' is the name of a page"):
        campaign_get_or_create(slug="new", task_type="qa_correctness", owner=researcher)
    assert not Campaign.objects.filter(slug="new").exists()


def test_a_campaign_whose_judgments_name_its_guidelines_can_still_be_deleted(qa_campaign, researcher, annotator):
    """A version with judgments made under it cannot go on its own (RESTRICT), but goes with its campaign."""
    from django.db.models import RestrictedError

    campaign_update(campaign=qa_campaign, editor=researcher, guidelines="Be strict.")
    judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                    value={"correct": True})
    with pytest.raises(RestrictedError):
        CampaignGuidelines.objects.get(campaign=qa_campaign).delete()
    qa_campaign.delete()
    assert not CampaignGuidelines.objects.exists() and not HumanJudgment.objects.exists()
