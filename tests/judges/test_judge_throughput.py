"""A run's throughput: what its metered forward passes cost, stored with its verdicts, on the judge page and in the API.

A tiny family stands in for a transformer: one metered pass per batch over rows as long as their words, on a clock
the test moves, so every count and rate is known exactly. EM makes no forward pass and shows nothing.
"""

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.models import Item
from annotate.task_types.registry import task_type_get
from judges.families import FAMILIES, Verdict, batching
from judges.families.base import JudgeFamily
from judges.models import JudgeRun, RunStatus
from judges.services import judge_run_retry_failed, judge_run_start
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db

PASS_SECONDS = 0.25
BATCH = 4


class _Clock:
    """What batching.pass_timed reads for time: it moves only when a pass runs."""

    def __init__(self):
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


class _MeteredFamily(JudgeFamily):
    """One forward pass per batch, its rows as many tokens as their words, taking PASS_SECONDS on the clock."""

    name = "metered-test"
    options = {}

    def __init__(self, clock: _Clock):
        self.clock = clock

    def judge_batch(self, items, config):
        lengths = [len(item.text.split()) for item in items]
        with batching.pass_timed(lengths):
            self.clock.now += PASS_SECONDS
        return [Verdict(score=float(n), label="yes", raw=f"{n} tokens") for n in lengths]


@pytest.fixture
def metered_family(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(batching, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    monkeypatch.setitem(FAMILIES, _MeteredFamily.name, _MeteredFamily(clock))
    qa = task_type_get("qa_correctness")  # the task type's spec says which families judge it
    monkeypatch.setattr(qa, "judge_families", (*qa.judge_families, _MeteredFamily.name))
    return _MeteredFamily.name


def _expected(campaign) -> dict:
    """The counts the passes must add up to: the run's batches are the items in id order, BATCH at a time."""
    texts = Item.objects.filter(campaign=campaign).order_by("id").values_list("text", flat=True)
    lengths = [len(text.split()) for text in texts]
    batches = [lengths[start:start + BATCH] for start in range(0, len(lengths), BATCH)]
    return {"pairs": len(lengths), "tokens": sum(lengths), "padded": sum(len(b) * max(b) for b in batches),
            "seconds": PASS_SECONDS * len(batches)}


def _run(campaign, researcher, family, callbacks) -> JudgeRun:
    with callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name=family, family=family, config={}, batch_size=BATCH,
                              created_by=researcher)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    return run


def _page_text(client, campaign) -> str:
    return client.get(reverse("judge-panel", kwargs={"slug": campaign.slug})).content.decode()


def _cell(html: str, run_id: int) -> str:
    """The words of run RUN_ID's throughput cell, tags dropped and spaces collapsed; '' when it has none."""
    row = re.search(rf'<tr id="run-{run_id}".*?</tr>', html, re.S).group(0)
    cell = re.search(r'<td class="throughput">(.*?)</td>', row, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", cell).replace("&nbsp;", " ").split())


def test_metered_run_stores_its_counts_and_shows_its_rates(qa_campaign, researcher, client, metered_family, eager,
                                                          django_capture_on_commit_callbacks):
    run = _run(qa_campaign, researcher, metered_family, django_capture_on_commit_callbacks)
    want = _expected(qa_campaign)
    assert want["padded"] > want["tokens"]  # the data has padding to show
    assert (run.pairs_metered, run.tokens, run.padded_tokens) == (want["pairs"], want["tokens"], want["padded"])
    assert run.model_seconds == pytest.approx(want["seconds"])

    # A known wall time, so that items/s is exact too.
    JudgeRun.objects.filter(pk=run.pk).update(started_at=run.finished_at - timedelta(seconds=4))
    pairs_per_second = want["pairs"] / want["seconds"]
    tokens_per_second = want["tokens"] / want["seconds"]
    padding = 1 - want["tokens"] / want["padded"]

    client.force_login(researcher)
    cell = _cell(_page_text(client, qa_campaign), run.id)
    assert f"{pairs_per_second:g} pairs/s" in cell
    assert f"{tokens_per_second:g} tokens/s" in cell
    assert f"padding {round(100 * padding)}%" in cell
    assert f"{want['pairs']} pairs · {want['tokens']} tokens of {want['padded']} computed" in cell
    assert f"{want['pairs'] / 4:g} items/s over the run's 4 s" in cell

    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(f"/api/judge-runs/{run.id}/").json()
    counts = (body["pairs_metered"], body["tokens"], body["padded_tokens"])
    assert counts == (want["pairs"], want["tokens"], want["padded"])
    assert body["model_seconds"] == pytest.approx(want["seconds"])
    assert body["pairs_per_second"] == pytest.approx(pairs_per_second)
    assert body["tokens_per_second"] == pytest.approx(tokens_per_second)
    assert body["padding_share"] == pytest.approx(padding)
    assert body["items_per_second"] == pytest.approx(want["pairs"] / 4)


def test_running_run_shows_its_rates_but_no_items_per_second_yet(qa_campaign, researcher, client, metered_family, eager,
                                                                 django_capture_on_commit_callbacks):
    run = _run(qa_campaign, researcher, metered_family, django_capture_on_commit_callbacks)
    JudgeRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, finished_at=None)
    client.force_login(researcher)
    row = client.get(reverse("judge-panel", kwargs={"slug": "qa"}), {"run": run.id}, HTTP_HX_REQUEST="true")
    cell = _cell(row.content.decode(), run.id)
    assert "pairs/s" in cell and "items/s" not in cell
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(f"/api/judge-runs/{run.id}/").json()
    assert body["pairs_per_second"] is not None and body["items_per_second"] is None


def test_batches_add_up_across_a_retry(qa_campaign, researcher, metered_family, eager,
                                        django_capture_on_commit_callbacks):
    """The counts are added per batch, never overwritten: a retried item's pass adds to the run's first two."""
    run = _run(qa_campaign, researcher, metered_family, django_capture_on_commit_callbacks)
    first = (run.pairs_metered, run.tokens, run.padded_tokens)
    run.judge.judgments.filter(item__external_id="1-0").update(failed=True)
    with django_capture_on_commit_callbacks(execute=True):
        judge_run_retry_failed(run=run, user=researcher)
    run.refresh_from_db()
    again = len(Item.objects.get(campaign=qa_campaign, external_id="1-0").text.split())
    assert (run.pairs_metered, run.tokens, run.padded_tokens) == (first[0] + 1, first[1] + again, first[2] + again)
    assert run.model_seconds == pytest.approx(PASS_SECONDS * 3)


def test_em_run_shows_no_throughput(qa_campaign, researcher, client, eager, django_capture_on_commit_callbacks):
    run = _run(qa_campaign, researcher, "em", django_capture_on_commit_callbacks)
    assert (run.pairs_metered, run.tokens, run.padded_tokens, run.model_seconds) == (0, 0, 0, 0.0)
    client.force_login(researcher)
    html = _page_text(client, qa_campaign)
    assert _cell(html, run.id) == ""
    assert f'id="throughput-{run.id}"' not in html
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(f"/api/judge-runs/{run.id}/").json()
    rates = ("pairs_per_second", "tokens_per_second", "padding_share", "items_per_second")
    assert [body[key] for key in rates] == [None] * 4
