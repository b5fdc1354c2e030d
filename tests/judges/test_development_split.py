"""The development split (judges.development): a seeded, stratified split made once; judges not marked final read on
the development part only, final ones on the held-out part only, in every statistic; the page, the API, the report,
the methods text, items imported later, and the campaign archive."""

import pytest

from agreement.stored import report_for_open
from annotate.models import HumanJudgment, Item, JudgmentKind, Role
from interchange.archive import campaign_export, campaign_import
from judges.development import SplitError, judge_mark_final, split_make, split_new_items
from judges.models import Judge, ModelJudgment
from reports.development import development_view
from reports.judge_compare import judge_comparison
from reports.selectors import judge_labels_get
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db
TOPICS, PER_TOPIC = 6, 4
FLIP = {"yes": "no", "no": "yes"}


def _campaign(slug: str, researcher):
    """24 answers on 6 questions, each with one annotator's label (every third one "no"); judges come later."""
    campaign = CampaignFactory(slug=slug, task_type="qa_correctness", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    person = UserFactory(username=f"{slug}-ann")
    for q in range(TOPICS):
        topic = TopicFactory(campaign=campaign, external_id=f"q{q}", text=f"question {q}")
        for a in range(PER_TOPIC):
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"q{q}-a{a}", text=f"answer {a} to {q}")
            unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1, judgments_done=1)
            label = "no" if (q + a) % 3 == 0 else "yes"
            HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                         value={"correct": label == "yes"}, label=label)
    return campaign


def _overfit_judge(campaign, name: str) -> Judge:
    """A judge planted to be right on every development item and wrong on every held-out one: what tuning a prompt on
    the very items it is scored on would hide."""
    judge = Judge.objects.create(campaign=campaign, name=name, family="external", config_hash=name)
    for item in Item.objects.filter(campaign=campaign).prefetch_related("units__judgments"):
        human = item.units.first().judgments.first().label
        ModelJudgment.objects.create(
            judge=judge, item=item, label=human if item.split == "development" else FLIP[human]
        )
    return judge


def test_a_seeded_stratified_split_keeps_the_held_out_part_for_the_final_version(researcher):
    campaign = _campaign("dev", researcher)
    with pytest.raises(SplitError, match="between 0.1 and 0.9"):
        split_make(campaign=campaign, held_out=0.95)
    summary = split_make(campaign=campaign, held_out=0.5, seed=3, stratify="topic", user=researcher)
    assert (summary["development"], summary["held_out_items"], summary["unassigned"]) == (12, 12, 0)
    parts = dict(Item.objects.filter(campaign=campaign).values_list("external_id", "split"))
    for q in range(TOPICS):  # stratified: half of each topic's items
        assert sum(parts[f"q{q}-a{a}"] == "held_out" for a in range(PER_TOPIC)) == PER_TOPIC // 2
    # Seeded: the same items and seed split the same way in another campaign; another seed does not.
    twin = _campaign("dev-twin", researcher)
    split_make(campaign=twin, seed=3)
    assert dict(Item.objects.filter(campaign=twin).values_list("external_id", "split")) == parts
    other = _campaign("dev-other", researcher)
    split_make(campaign=other, seed=4)
    assert dict(Item.objects.filter(campaign=other).values_list("external_id", "split")) != parts
    with pytest.raises(SplitError, match="split already"):
        split_make(campaign=campaign, seed=5)

    # Three versions tuned on the development part: none is scored on a held-out item.
    versions = [_overfit_judge(campaign, f"v{n}") for n in (1, 2, 3)]
    campaign.refresh_from_db()
    held_out = {
        pk for pk, part in Item.objects.filter(campaign=campaign).values_list("pk", "split") if part == "held_out"
    }
    for judge in judge_labels_get(campaign=campaign):
        assert len(judge.labels) == 12 and not judge.labels.keys() & held_out
    view = development_view(campaign=campaign)
    assert [(row["name"], row["n"], row["accuracy"], row["n_wrong"]) for row in view["judges"]] == \
        [("v1", 12, 1.0, 0), ("v2", 12, 1.0, 0), ("v3", 12, 1.0, 0)]
    # Marking one final reads it on the held-out part only, where the plant shows: right on none.
    judge_mark_final(judge=versions[1])
    with pytest.raises(SplitError, match="final already"):
        judge_mark_final(judge=versions[1])
    rows = {row["name"]: row for row in development_view(campaign=campaign)["judges"]}
    assert (rows["v2"]["n"], rows["v2"]["accuracy"], rows["v2"]["final"]["before"]) == (12, 0.0, 0)
    assert rows["v1"]["accuracy"] == 1.0 and rows["v2"]["wrong"] == []  # held-out items are never listed
    labels = {judge.name: judge.labels for judge in judge_labels_get(campaign=campaign)}
    assert set(labels["v2"]) == held_out and not set(labels["v1"]) & held_out
    # Comparing versions: two not final on the development part; a final one with another shares no item, and says so.
    assert judge_comparison(campaign=campaign, first="v1", second="v3")["n_both"] == 12
    across = judge_comparison(campaign=campaign, first="v1", second="v2")
    assert across["parts_differ"] and across["n_both"] == 0
    judge_mark_final(judge=versions[2])
    report_stored(campaign)
    report = report_for_open(campaign=campaign).document
    split = report["development_split"]
    assert [(final["judge"], final["before"]) for final in split["final"]] == [("v2", 0), ("v3", 1)]
    verdicts = report["judges"]["v2"]["item"]  # the report's own figure: on the held-out part
    assert verdicts["n"] == 12 and verdicts["accuracy"] == 0.0
    assert report["judges"]["v1"]["item"]["accuracy"] == 1.0

    # Items imported later join a part, drawn among themselves the same way.
    topic = campaign.topics.get(external_id="q0")
    for a in range(PER_TOPIC, PER_TOPIC + 4):
        ItemFactory(campaign=campaign, topic=topic, external_id=f"q0-a{a}", text="late")
    assert split_new_items(campaign=campaign) == 4
    late = list(Item.objects.filter(campaign=campaign, text="late").values_list("split", flat=True))
    assert sorted(late) == ["development", "development", "held_out", "held_out"]


def test_the_api_makes_the_split_only_when_told_it_cannot_be_undone(researcher, client):
    campaign = _campaign("dev-api", researcher)
    client.force_login(researcher)
    for body in ({"seed": 1}, {"seed": 1, "confirm": False}):
        refused = client.post("/api/campaigns/dev-api/development/", body, content_type="application/json")
        assert refused.status_code == 400
        assert refused.json()["detail"] == ('confirm: the split is made once and cannot be undone: every judge is read '
                                            'on one part from then on; confirm it (the API: "confirm": true) to make '
                                            'it')
    campaign.refresh_from_db()
    assert campaign.development_split is None and not campaign.items.exclude(split="").exists()
    made = client.post("/api/campaigns/dev-api/development/", {"seed": 1, "confirm": True},
                       content_type="application/json")
    assert made.status_code == 201 and made.json()["development"] + made.json()["held_out_items"] == 24


def test_the_page_the_api_the_report_and_the_archive(researcher, client, tmp_path):
    campaign = _campaign("dev-page", researcher)
    client.force_login(researcher)
    page = client.get("/campaigns/dev-page/judges/development/").content.decode()
    assert (
        'id="split-form"' in page
        and 'id="judge-development"' in client.get("/campaigns/dev-page/judges/").content.decode()
    )
    # The split cannot be undone: the page asks first (a dialog whose acceptance sends confirm), and says so.
    assert "cannot be undone" in page and "if (!window.confirm('Split the items?" in page
    refused = client.post("/campaigns/dev-page/judges/development/",
                          {"held_out": "2", "seed": "0", "stratify": "topic", "confirm": "true"})
    assert refused.status_code == 400 and campaign.items.filter(split="").count() == TOPICS * PER_TOPIC
    unconfirmed = client.post("/campaigns/dev-page/judges/development/",
                              {"held_out": "0.25", "seed": "1", "stratify": "topic", "confirm": ""})
    assert unconfirmed.status_code == 400 and "cannot be undone" in unconfirmed.content.decode()
    assert campaign.items.filter(split="").count() == TOPICS * PER_TOPIC
    made = client.post("/campaigns/dev-page/judges/development/",
                       {"held_out": "0.25", "seed": "1", "stratify": "topic", "confirm": "true"})
    assert made.status_code == 302 and campaign.items.filter(split="held_out").count() == 6
    campaign.refresh_from_db()
    judge = _overfit_judge(campaign, "tuned")
    page = client.get("/campaigns/dev-page/judges/development/").content.decode()
    assert "<b>18</b> items to develop judges on, <b>6</b> held" in page and 'name="mark-final"' in page
    report = client.get("/campaigns/dev-page/report/")
    assert report.status_code in (200, 202)
    report_stored(campaign)
    html = client.get("/campaigns/dev-page/report/").content.decode()
    assert 'id="development-split"' in html and "No judge is marked final yet" in html

    api = client.get("/api/campaigns/dev-page/development/").json()
    assert api["split"]["held_out_items"] == 6 and api["judges"][0]["n"] == 18
    again = client.post("/api/campaigns/dev-page/development/", {"seed": 2, "confirm": True},
                        content_type="application/json")
    assert again.status_code == 400 and "split already" in again.json()["detail"]
    final = client.post(f"/api/campaigns/dev-page/judges/{judge.pk}/final/")
    assert final.status_code == 200 and final.json()["judge"] == "tuned"
    assert client.post(f"/api/campaigns/dev-page/judges/{judge.pk}/final/").status_code == 400
    report_stored(campaign)
    html = client.get("/campaigns/dev-page/report/").content.decode()
    assert "marked final" in html and "the first version scored there" in html
    methods = client.get("/campaigns/dev-page/report/methods.txt").content.decode()
    assert "Development split. The items were split once into a development part (18 items) and a held-out part " \
           "(6 items)" in methods and "tuned marked final" in methods

    # The archive keeps the split, each item's part and the judge's final mark.
    archive = tmp_path / "dev.zip"
    campaign_export(campaign, archive)
    campaign_import(archive, slug="dev-copy")
    copy = type(campaign).objects.get(slug="dev-copy")
    assert copy.development_split == campaign.development_split
    assert dict(copy.items.values_list("external_id", "split")) == dict(
        campaign.items.values_list("external_id", "split")
    )
    assert copy.judges.get(name="tuned").final_at == Judge.objects.get(pk=judge.pk).final_at
