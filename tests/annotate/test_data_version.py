"""The campaign's data version (annotate.services.data_version): every write of what the agreement report reads makes
a new one, in the writing transaction; what only reads (the report, the items, a lease) makes none.

Each test takes the version before and after one write path and asks for strictly more; a write that is refused or
rolled back leaves it where it was; first changes racing on their own connections end with one row counting both."""

import importlib.util
import sys
from functools import partial
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.models import Assignment, Campaign, CampaignDataVersion, HumanJudgment, Membership, Role, Unit
from annotate.selectors.campaigns import campaign_data_version
from annotate.services.adjudication import adjudication_submit
from annotate.services.annotation import assignment_draft_save, judgment_edit, judgment_submit, unit_lease_next
from annotate.services.arms import member_arm_set
from annotate.services.campaigns import campaign_options_set, campaign_update, member_remove
from annotate.services.data_version import campaign_data_changed
from interchange.archive import campaign_export, campaign_import
from judges.models import Judge, JudgeRun, ModelJudgment
from judges.services import judge_run_cancel, judge_run_resume, judge_run_retry_failed, judge_run_start
from tests.annotate.test_annotation_services import make_campaign
from tests.factories import MembershipFactory, UserFactory
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)
from tests.judges_support import eager  # noqa: F401 (a fixture)
from tests.report_support import report_stored
from tests.threads import run_at_once

HTMX = {"HTTP_HX_REQUEST": "true"}


def version(campaign) -> int:
    return campaign_data_version(campaign_id=campaign.pk)


class Bumps:
    """The campaign's version around a block: `with Bumps(campaign) as v: ...; v.more()` asks for a new version."""

    def __init__(self, campaign):
        self.campaign = campaign

    def __enter__(self):
        self.before = version(self.campaign)
        return self

    def __exit__(self, *exc):
        self.after = version(self.campaign)
        return False

    def more(self) -> bool:
        return self.after > self.before


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- Human judgments ---

@pytest.mark.django_db
def test_a_verdict_a_resend_a_stale_tab_and_its_replacement_through_the_annotation_page(client, qa_campaign,
                                                                                       annotator):
    client.force_login(annotator)
    with Bumps(qa_campaign) as page:  # opening the page leases a unit: nothing the report reads
        client.get(reverse("annotate", args=[qa_campaign.slug]))
    assert not page.more() and version(qa_campaign) == 0
    submit = reverse("annotate-submit", args=[qa_campaign.slug])
    assignment = Assignment.objects.get(annotator=annotator)
    sent = {"assignment": assignment.pk, "shown_version": "", "verdict": "yes", "submission": "tab-one-0001"}
    with Bumps(qa_campaign) as first:
        assert client.post(submit, sent, **HTMX).status_code == 200
    assert first.more()
    with Bumps(qa_campaign) as resend:  # the same verdict sent again after its answer was lost: nothing recorded
        assert client.post(submit, sent, **HTMX).status_code == 200
    assert not resend.more()
    with Bumps(qa_campaign) as stale:  # another tab's verdict on the unit as it was shown unjudged: refused
        assert client.post(submit, {**sent, "verdict": "no", "submission": "tab-two-0001"}, **HTMX).status_code == 409
    assert not stale.more()
    with Bumps(qa_campaign) as replaced:  # "Replace": that tab's verdict, naming the version it replaces
        response = client.post(submit, {"assignment": assignment.pk, "shown_version": "1", "verdict": "no"}, **HTMX)
        assert response.status_code == 200
    assert replaced.more()
    assert list(HumanJudgment.objects.filter(assignment=assignment).order_by("version")
                .values_list("label", "is_current")) == [("yes", False), ("no", True)]


@pytest.mark.django_db
def test_an_edit_makes_a_version_and_the_same_value_again_does_not(qa_campaign, annotator):
    assignment = unit_lease_next(campaign=qa_campaign, annotator=annotator)
    judgment = judgment_submit(assignment=assignment, annotator=annotator, value={"correct": True})
    with Bumps(qa_campaign) as edit:
        judgment = judgment_edit(judgment=judgment, annotator=annotator, value={"correct": False})
    assert edit.more() and judgment.version == 2
    with Bumps(qa_campaign) as same:
        judgment_edit(judgment=judgment, annotator=annotator, value={"correct": False})
    assert not same.more()


@pytest.mark.django_db
def test_an_adjudication_makes_a_version_and_the_same_verdict_and_note_again_does_not(qa_campaign):
    adjudicator = UserFactory(username="adj")
    MembershipFactory(campaign=qa_campaign, user=adjudicator, role=Role.ADJUDICATOR)
    unit = Unit.objects.filter(campaign=qa_campaign).order_by("position").first()
    with Bumps(qa_campaign) as settled:
        adjudication_submit(unit=unit, adjudicator=adjudicator, value={"correct": True}, note="gold says so")
    assert settled.more()
    with Bumps(qa_campaign) as again:
        adjudication_submit(unit=unit, adjudicator=adjudicator, value={"correct": True}, note="gold says so")
    assert not again.more()
    with Bumps(qa_campaign) as changed:
        adjudication_submit(unit=unit, adjudicator=adjudicator, value={"correct": False}, note="on second look")
    assert changed.more()


@pytest.mark.django_db
def test_reading_the_report_the_items_and_leasing_or_drafting_make_no_version(client, qa_campaign, researcher,
                                                                             annotator):
    # One verdict first, so the report has something to read.
    judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                    value={"correct": True})
    api = APIClient()
    api.force_authenticate(researcher)
    client.force_login(researcher)
    report_stored(qa_campaign)
    with Bumps(qa_campaign) as read:
        assert client.get(reverse("agreement-report", args=[qa_campaign.slug])).status_code == 200
        assert api.get(f"/api/campaigns/{qa_campaign.slug}/agreement/").status_code == 200
        assert api.get(f"/api/campaigns/{qa_campaign.slug}/items/").status_code == 200
        assignment = unit_lease_next(campaign=qa_campaign, annotator=annotator)
        assert unit_lease_next(campaign=qa_campaign, annotator=annotator).pk == assignment.pk
        assignment_draft_save(assignment=assignment, annotator=annotator, draft={"note": "thinking"})
    assert read.after == read.before == 1


# --- Imports ---

TOPICS = "q1\twhat is the boiling point of water\nq2\twho wrote the odyssey\n"
RUNS = "".join(f"{qid} Q0 {doc} {rank} {10 - rank} run-a\n"
               for qid, order in (("q1", ["d1", "d2"]), ("q2", ["e1", "e2"])) for rank, doc in enumerate(order, 1))


@pytest.mark.django_db
def test_every_import_makes_a_version_and_a_refused_one_none(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")

    def imp(*args):
        call_command("import_data", "--campaign", "pas", "--task-type", "passage_relevance", *map(str, args))
        return Campaign.objects.get(slug="pas")

    campaign = imp("--format", "trec-topics", write(tmp_path, "topics.tsv", TOPICS))  # topics
    assert version(campaign) == 1
    steps = [("--format", "trec-run", "--depth", "2", write(tmp_path, "runs.txt", RUNS)),  # items, system outputs
             ("--format", "collection", write(tmp_path, "c.tsv", "d1\tWater boils at 100 C.\ne1\tHomer.\n")),
             ("--format", "trec-qrels", write(tmp_path, "nist.qrels", "q1 0 d1 3\nq2 0 e1 2\n")),  # human judgments
             ("--format", "judge-qrels", "--judge", "llm-x", write(tmp_path, "llm.qrels", "q1 0 d1 2\n"))]  # a judge's
    for args in steps:
        with Bumps(campaign) as step:
            imp(*args)
        assert step.more(), args
    with Bumps(campaign) as refused:  # all or nothing: a bad line after a good one leaves the version too
        with pytest.raises(CommandError, match="no topic 'q9'"):
            imp("--format", "judge-qrels", "--judge", "llm-y", write(tmp_path, "bad.qrels", "q1 0 d2 1\nq9 0 d1 1\n"))
    assert not refused.more()
    assert not Judge.objects.filter(name="llm-y").exists()


@pytest.mark.django_db
def test_an_import_job_makes_a_version_when_it_is_done_and_none_when_it_failed(qa_campaign, researcher,
                                                                              imports_inline):
    client = APIClient()
    client.force_authenticate(researcher)
    url = f"/api/campaigns/{qa_campaign.slug}/import/"
    with Bumps(qa_campaign) as failed:
        job = api_import(imports_inline, client, url, {
            "format": "judge-scores", "judge": "ext", "files": [SimpleUploadedFile("s.tsv", b"topic\titem\tscore\n"
                                                                                    b"1\t1-0\t0.5\n9\t9-9\t1\n")]})
    assert job["status"] == "failed" and not failed.more()
    with Bumps(qa_campaign) as done:
        job = api_import(imports_inline, client, url, {
            "format": "judge-scores", "judge": "ext", "files": [SimpleUploadedFile("s.tsv", b"topic\titem\tscore\n"
                                                                                    b"1\t1-0\t0.5\n")]})
    assert job["status"] == "done" and done.more()


@pytest.mark.django_db
def test_a_restored_archive_starts_with_a_version_of_its_own(qa_campaign, annotator, tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                    value={"correct": True})
    campaign_export(qa_campaign, tmp_path / "qa.zip")
    campaign_import(tmp_path / "qa.zip", slug="qa-copy")
    copy = Campaign.objects.get(slug="qa-copy")
    assert version(copy) == 1  # not the exporting database's count: this database's first
    assert version(qa_campaign) == 1


@pytest.mark.django_db
def test_the_load_test_seed_gives_each_campaign_its_version(monkeypatch, tmp_path, settings):
    """bench/load/seed.py writes by COPY around the services, then bumps each campaign once (a tiny seed here)."""
    spec = importlib.util.spec_from_file_location("load_seed", Path(__file__).resolve().parents[2] / "bench" / "load"
                                                  / "seed.py")
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(sys, "argv", ["seed.py", "--items", "800", "--report-items", "30", "--users", "2"])
    seed.main()
    versions = dict(CampaignDataVersion.objects.values_list("campaign__slug", "version"))
    assert versions == dict.fromkeys(seed.SEEDED, 1)


# --- Model judges ---

@pytest.mark.django_db
def test_a_judge_run_makes_a_version_at_its_start_and_with_each_batch_of_verdicts(
        qa_campaign, researcher, eager, django_capture_on_commit_callbacks):
    with Bumps(qa_campaign) as run:
        with django_capture_on_commit_callbacks(execute=True):
            started = judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=2,
                                      created_by=researcher)
    started.refresh_from_db()
    assert started.status == "succeeded" and ModelJudgment.objects.filter(run=started).count() == 6
    # One for the new judge, one for each of the three batches' verdicts (stored with the run's end for the last).
    assert run.after == run.before + 1 + 3


@pytest.mark.django_db
def test_cancelling_resuming_and_retrying_failed_items_make_versions(qa_campaign, researcher, eager,
                                                                     django_capture_on_commit_callbacks):
    judge = Judge.objects.create(campaign=qa_campaign, name="em", family="em", config={}, config_hash="em-test")
    run = JudgeRun.objects.create(judge=judge, total=6, created_by=researcher)
    with Bumps(qa_campaign) as cancel:
        judge_run_cancel(run=run)
    assert cancel.more()
    with Bumps(qa_campaign) as resume:
        with django_capture_on_commit_callbacks(execute=True):
            judge_run_resume(run=run, user=researcher)
    assert resume.more() and ModelJudgment.objects.filter(judge=judge).count() == 6
    ModelJudgment.objects.filter(judge=judge, item__external_id="1-0").update(failed=True, label="", raw="timeout")
    with Bumps(qa_campaign) as retry:
        with django_capture_on_commit_callbacks(execute=True):
            _, removed = judge_run_retry_failed(run=run, user=researcher)
    assert removed == 1 and retry.more()
    assert not ModelJudgment.objects.filter(judge=judge, failed=True).exists()


@pytest.mark.django_db
def test_a_run_whose_batches_cannot_be_queued_ends_failed_in_a_version_of_its_own(
        qa_campaign, researcher, monkeypatch, django_capture_on_commit_callbacks):
    from kombu.exceptions import OperationalError as BrokerDown

    from judges import services
    from judges.errors import JudgeQueueError

    def unreachable(*args, **kwargs):
        raise BrokerDown("connection refused")

    monkeypatch.setattr(services.judge_batch, "apply_async", unreachable)
    with Bumps(qa_campaign) as run:
        with pytest.raises(JudgeQueueError), django_capture_on_commit_callbacks(execute=True):
            judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, created_by=researcher)
    assert JudgeRun.objects.get().status == "failed"
    assert run.after == run.before + 2  # the judge's start, then the run's failure (its end is in the report's costs)


@pytest.mark.django_db
def test_a_run_that_fails_in_a_batch_ends_in_a_version_of_its_own(qa_campaign, researcher):
    """A stored configuration the family refuses fails the run on the worker (judges.tasks._run_fail)."""
    from judges.tasks import judge_batch

    judge = Judge.objects.create(campaign=qa_campaign, name="f1", family="f1", config={"threshold": "high"},
                                 config_hash="f1-bad")
    run = JudgeRun.objects.create(judge=judge, total=6, created_by=researcher)
    item_ids = list(qa_campaign.items.values_list("id", flat=True))
    with Bumps(qa_campaign) as failed:
        judge_batch(run.pk, item_ids)
    run.refresh_from_db()
    assert run.status == "failed" and "threshold" in run.error
    assert failed.after == failed.before + 1
    with Bumps(qa_campaign) as again:  # a second delivery finds the run ended: nothing changes
        judge_batch(run.pk, item_ids)
    assert again.after == again.before


# --- Options, k and arms ---

@pytest.mark.django_db
def test_an_option_change_makes_a_version_and_setting_the_same_options_again_does_not(qa_campaign, researcher):
    with Bumps(qa_campaign) as changed:
        campaign_options_set(campaign=qa_campaign, values={"small_sample": 10})
    assert changed.more()
    with Bumps(qa_campaign) as same:
        campaign_options_set(campaign=qa_campaign, values={"small_sample": 10})
    assert not same.more()
    api = APIClient()
    api.force_authenticate(researcher)
    with Bumps(qa_campaign) as through_api:  # the options page and the API replace them whole
        response = api.put(f"/api/campaigns/{qa_campaign.slug}/options/", {"options": {"queue_order": "informative"}},
                           format="json")
        assert response.status_code == 200, response.content
    assert through_api.more()


@pytest.mark.django_db
def test_a_new_k_makes_a_version_and_a_new_name_or_guidelines_do_not(qa_campaign, researcher):
    with Bumps(qa_campaign) as k:
        campaign_update(campaign=qa_campaign, editor=researcher, overlap=2)
    assert k.more() and set(Unit.objects.filter(campaign=qa_campaign).values_list("judgments_needed", flat=True)) == {2}
    with Bumps(qa_campaign) as words:  # the report reads neither
        campaign_update(
            campaign=qa_campaign, editor=researcher, name="Renamed", guidelines="Judge by the gold answers."
        )
    assert not words.more()


@pytest.mark.django_db
def test_arms_given_at_a_first_lease_by_the_researcher_or_taken_away_make_versions():
    campaign, (first, second, third) = make_campaign(units=6, annotators=3)
    campaign.options = {"arms": ["blind", "assisted:gpt"], "arm_per": "annotator"}
    campaign.save(update_fields=["options"])
    with Bumps(campaign) as given:  # the report lists the annotators' arms
        unit_lease_next(campaign=campaign, annotator=first)
    assert given.more() and Membership.objects.get(campaign=campaign, user=first).arm
    judgment_submit(assignment=Assignment.objects.get(annotator=first), annotator=first, value={"correct": True})
    with Bumps(campaign) as later:  # a later lease keeps the arm it has
        unit_lease_next(campaign=campaign, annotator=first)
    assert not later.more()
    with Bumps(campaign) as researcher_set:
        member_arm_set(campaign=campaign, user=second, arm="blind")
    assert researcher_set.more()
    researcher = UserFactory(username="lead")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    with Bumps(campaign) as unarmed:  # an annotator who has no arm yet is not in the report
        member_remove(campaign=campaign, user=third)
    assert not unarmed.more()
    with Bumps(campaign) as removed:
        member_remove(campaign=campaign, user=second)
    assert removed.more()


# --- Transactions and races ---

@pytest.mark.django_db
def test_a_write_that_rolls_back_leaves_the_version_as_it_was(qa_campaign, annotator):
    assignment = unit_lease_next(campaign=qa_campaign, annotator=annotator)
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            judgment_submit(assignment=assignment, annotator=annotator, value={"correct": True})
            assert version(qa_campaign) == 1  # inside: the new version is there with the judgment
            raise RuntimeError("the request failed after the verdict")
    assert version(qa_campaign) == 0 and not HumanJudgment.objects.exists()
    assert not CampaignDataVersion.objects.filter(campaign=qa_campaign).exists()


@pytest.mark.django_db(transaction=True)
def test_racing_first_changes_on_their_own_connections_end_with_one_row_counting_each():
    """Four annotators submit their first verdicts of a fresh campaign at once, two more bumps race beside them: no
    change is lost. (SQLite serialises the writers; on PostgreSQL the second insert of the row waits for the first
    and then adds one to it.)"""
    campaign, people = make_campaign(units=4, annotators=4)
    leased = {person.pk: unit_lease_next(campaign=campaign, annotator=person) for person in people}

    def bump():
        with transaction.atomic():
            campaign_data_changed(campaign_id=campaign.pk)

    submits = [partial(judgment_submit, assignment=leased[person.pk], annotator=person, value={"correct": True})
               for person in people]
    assert run_at_once(submits + [bump, bump], timeout=60) == []
    assert CampaignDataVersion.objects.filter(campaign=campaign).count() == 1
    assert version(campaign) == len(people) + 2
    assert HumanJudgment.objects.filter(unit__campaign=campaign).count() == len(people)


@pytest.mark.django_db
def test_the_version_row_says_when_it_last_changed(qa_campaign):
    with transaction.atomic():
        campaign_data_changed(campaign_id=qa_campaign.pk)
    first = CampaignDataVersion.objects.get(campaign=qa_campaign).changed_at
    with transaction.atomic():
        campaign_data_changed(campaign_id=qa_campaign.pk)
    row = CampaignDataVersion.objects.get(campaign=qa_campaign)
    assert row.version == 2 and row.changed_at > first
