"""The whole judge development journey in Chromium, as issue 34 asks: split the items, tune an LLM judge's prompt over
three versions started from the judge page (each scored on the development part only), mark the best one final, run it
on robustness probes, and read its held-out figures in the report with the replacement tests, the kappa paradox panel
and the probes' flip rate. The model is a scripted OpenAI-compatible server whose accuracy each prompt version
plants."""

import hashlib
import json
import os
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment, JudgmentKind, Role
from annotate.task_types.registry import task_type_get
from judges.endpoints import endpoint_register
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.llm_server import chat_server, raw
from tests.report_support import report_stored

ITEMS = 120
# The share of the items each prompt version gets right (planted), by a hash of the item: 0.6, 0.75 and 0.9.
RIGHT = {1: 60, 2: 75, 3: 90}


def _truth(n: int) -> bool:
    return n % 3 != 0  # two answers in three are correct


def _right(version: int, n: int) -> bool:
    return hashlib.sha256(f"item {n}".encode()).digest()[0] * 100 // 256 < RIGHT[version]


def _campaign(researcher):
    """120 answers on 30 questions, each judged by three annotators who are each right nine times in ten (seeded)."""
    rng = np.random.default_rng(0)
    campaign = CampaignFactory(slug="journey", task_type="qa_correctness", overlap=3)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    people = [UserFactory(username=f"journey-ann{k}") for k in range(3)]
    for q in range(ITEMS // 4):
        topic = TopicFactory(campaign=campaign, external_id=f"q{q}", text=f"question {q}")
        for a in range(4):
            n = q * 4 + a
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"a{n}", text=f"candidate #{n}#")
            unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3, judgments_done=3)
            for person in people:
                correct = _truth(n) if rng.random() < 0.9 else not _truth(n)
                HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                             value={"correct": correct}, label="yes" if correct else "no")
    return campaign


def _model(claim: str):
    """The scripted model: version k of the prompt (VERSION-k in its instruction) is right on its planted share of the
    items; version 3 believes a claim appended to an answer."""
    def reply(prompt: str):
        version, item = re.search(r"VERSION-(\d)", prompt), re.search(r"candidate #(\d+)#", prompt)
        if version is None or item is None:
            return None
        k, n = int(version.group(1)), int(item.group(1))
        correct = True if (k == 3 and claim in prompt) else (_truth(n) if _right(k, n) else not _truth(n))
        content = f"Read it.\n{'yes' if correct else 'no'}"
        return raw(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                               "usage": {"prompt_tokens": 40, "completion_tokens": 3}, "model": "judge-model"}))
    return reply


def _shot(page, name: str) -> None:
    if os.environ.get("CONCORD_SHOTS"):
        page.screenshot(path=f"{os.environ['CONCORD_SHOTS']}/{name}.png", full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_tune_three_prompts_mark_one_final_and_read_it_with_replacement_tests_and_probes(
        researcher, login_page, live_server, eager):  # noqa: F811
    campaign = _campaign(researcher)
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/journey/judges/development/")
    page.once("dialog", lambda dialog: dialog.accept())  # the split cannot be undone: asked first
    page.click("button[name=make-split]")
    expect(page.locator("#split-summary")).to_contain_text("60 items to develop judges on, 60 held out")
    with chat_server() as server:
        server.answer_by(_model(task_type_get("qa_correctness").probe_claim))
        endpoint_register(name="journey-llm", base_url=server.base_url, model_ids=["judge-model"], all_campaigns=True)
        for version in (1, 2, 3):  # three prompts, started from the judge page
            page.goto(f"{live_server.url}/campaigns/journey/judges/")
            page.fill("#start-judge input[name=name]", f"prompt-v{version}")
            page.select_option("#start-judge select[name=family]", "llm")
            page.select_option("#start-judge select[name=endpoint]", "journey-llm")
            page.fill("#start-judge textarea[name=config_json]", json.dumps({
                "model": "judge-model", "n": 1, "decoding": "greedy", "timeout": 5.0, "max_retries": 0,
                "instruction": f"VERSION-{version}. Say whether the answer to the question is correct."}))
            page.click("#start-judge button[type=submit]")
            expect(page.locator(".messages")).to_contain_text(f"prompt-v{version}")
        expect(page.locator("#versions-llm tbody tr")).to_have_count(3)
        expect(page.locator("#versions-llm tbody tr").nth(2)).to_contain_text("instruction")
        _shot(page, "journey-judges")

        page.goto(f"{live_server.url}/campaigns/journey/judges/development/")
        rows = page.locator("#development-judges tbody tr")
        expect(rows).to_have_count(3)
        accuracy = [float(rows.nth(k).locator("td").nth(3).inner_text().split()[0]) for k in range(3)]
        assert accuracy[0] < accuracy[1] < accuracy[2]  # each version better on the development part
        page.once("dialog", lambda dialog: dialog.accept())
        rows.nth(2).locator("button[name=mark-final]").click()
        expect(page.locator("#development-3 td").nth(0)).to_contain_text("held-out part")
        _shot(page, "journey-development")

        page.goto(f"{live_server.url}/campaigns/journey/judges/probes/")
        page.click("button[name=make]")
        expect(page.locator("#kind-instruction td").nth(1)).not_to_have_text("0")
        page.locator("#probe-judges tr", has_text="prompt-v3").locator("button[name=run]").click()
        expect(page.locator("#probe-rates")).to_contain_text("1.000")  # version 3 believes every claim
    report_stored(campaign)
    page.goto(f"{live_server.url}/campaigns/journey/report/")
    expect(page.locator("#split-final")).to_contain_text("prompt-v3: marked final")
    expect(page.locator("#replacement-tests")).to_contain_text("prompt-v3")
    expect(page.locator("#paradox-panel")).to_contain_text("prompt-v3")
    expect(page.locator("#probe-rates")).to_contain_text("prompt-v3")
    # The configurations side by side compare the versions on the development part; the final one is listed apart.
    expect(page.locator("#ablation tr.left-out")).to_contain_text("marked final")
    _shot(page, "journey-report")
