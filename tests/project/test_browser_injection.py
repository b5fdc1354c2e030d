"""Script injection in imported text is inert: in Chromium no payload runs, and every page shows it as plain text.

Five campaigns, one per task type, are imported through the real importers (interchange.importers.service) from files
whose every text field carries the payloads below: questions and topics, answers and candidates, passages, source
titles and URLs, system names and run tags, judge names, gold answers, annotator names, the campaign's name. Human
judgments and imported judge scores make the report show its judges, systems, disagreements and SVG plots.
Then each page that shows those texts is opened (as the annotator or the researcher) and checked: no dialog, no
`window.__pwned`, no console message about it, and the payloads read back literally where they are shown.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from agreement.report import agreement_report_build
from annotate.models import Assignment, AssignmentStatus, Item, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import campaign_get_or_create, membership_add
from interchange.importers.service import import_run
from judges.models import Judge, JudgeRun, ModelJudgment, RunStatus
from tests.browser_keys import press
from tests.factories import UserFactory
from tests.image_synthetic import images_write
from tests.report_support import report_stored

PWNED = "window.__pwned=1"
# Each tries to break out of one context: element content, a quoted attribute, a raw-text element, a template,
# a link, a JavaScript string, and matplotlib's mathtext (which the report's SVG plots are drawn with).
PAYLOADS = {
    "script": f"<script>{PWNED};alert(1)</script>",  # a dialog as well as the flag
    "attribute": f'"><img src=x onerror="{PWNED}">',
    "raw_text": f"</textarea><svg onload={PWNED}>",
    "template": "{{ 7*7 }}",
    "js_url": f"javascript:{PWNED}",
    "js_string": f"'\";{PWNED};//",
    "mathtext": r"$\pwned{7*7}$",
}
# Fields read as whitespace-separated tokens (TREC runs and qrels, candidate ids) get these.
TOKEN_PAYLOADS = (f"<script>{PWNED}</script>", f'"><svg/onload={PWNED}>', f"'\";{PWNED};//", "{{7*7}}", "$\\pwned$")
# Topic ids end up inside item ids as "<topic>/<item>": no slash in them.
TOPIC_PAYLOAD = f"<svg>'\";{PWNED};{{{{7*7}}}}"
JS_URL = PAYLOADS["js_url"]
EVIL_URL = f'https://example.org/wiki/"><img src=x onerror="{PWNED}">?q=<script>{PWNED}</script>'


def loaded(label: str, *names: str) -> str:
    """LABEL followed by the payloads NAMES (default all), space-separated: a text field that tries them at once."""
    return " ".join((label, *(PAYLOADS[name] for name in names or PAYLOADS)))


def token(label: str) -> str:
    """LABEL with the token payloads glued on: a TREC run tag or document id (no whitespace)."""
    return label + "".join(TOKEN_PAYLOADS)


# Names are shorter than texts (a judge's name holds 100 characters, a campaign's 200): each takes some payloads.
CAMPAIGN_NAME = loaded("Campaign", "script", "attribute", "raw_text", "template")
JUDGE_NAMES = (loaded("judge-a", "script", "attribute"), loaded("judge-b", "raw_text", "template", "js_string"),
               loaded("judge-c", "js_url", "mathtext"))
UPLOADED_JUDGE = loaded("uploaded", "script", "attribute")
NOT_A_LINK = [name for name in PAYLOADS if name != "js_url"]  # for names that never become links
SYSTEMS = (loaded("sys-a", *NOT_A_LINK), loaded("sys-b", *NOT_A_LINK))
SLUGS = {"qa_correctness": "inj-qa", "answer_ranking": "inj-rank", "ais": "inj-ais",
         "image_relevance": "inj-img", "passage_relevance": "inj-pas"}
TASK_TYPES = list(SLUGS)
GRADED = ("image_relevance", "passage_relevance")  # runs pooled into items, graded on a scale
RATERS = ("rater2", "rater3")  # web annotators besides "ann", who judge everything first


# --- Campaigns, imported from files ---

def _campaign(task_type: str, *, overlap: int):
    researcher, annotator = UserFactory(username="res"), UserFactory(username="ann")
    campaign = campaign_get_or_create(slug=SLUGS[task_type], task_type=task_type, name=CAMPAIGN_NAME, overlap=overlap,
                                      owner=researcher)
    campaign.description = loaded("description")
    campaign.save(update_fields=["description"])
    for user in (annotator, *(UserFactory(username=name) for name in RATERS)):
        membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)
    return campaign


def _write(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _judge_scores(campaign, tmp_path, name: str, flip: int = 0):
    """Import a judge-scores TSV scoring every item of CAMPAIGN as judge NAME (labels yes/no, every FLIP-th flipped)."""
    rows = ["topic\titem\tscore\tlabel"]
    items = Item.objects.filter(campaign=campaign).select_related("topic").order_by("pk")
    for n, item in enumerate(items):
        score = (n * 37 % 100) / 100
        label = "yes" if (score >= 0.5) != (flip and n % flip == 0) else "no"
        source_id = item.data.get("source_id") or item.data.get("image_id") or item.external_id
        rows.append(f"{item.topic.external_id}\t{source_id}\t{score}\t{label}")
    import_run(campaign=campaign, fmt="judge-scores", paths=[_write(tmp_path / f"{name[:7]}.tsv", rows)], judge=name)


def _web_judgments(campaign, value_for):
    """Every rater in RATERS judges every unit open to them; VALUE_FOR(rater index, unit n) gives the value."""
    for r, username in enumerate(RATERS):
        rater = UserFactory(username=username)
        n = 0
        while (assignment := unit_lease_next(campaign=campaign, annotator=rater)) is not None:
            judgment_submit(assignment=assignment, annotator=rater, value=value_for(r, n))
            n += 1


def qa_build(tmp_path):
    campaign = _campaign("qa_correctness", overlap=3)
    for s, system in enumerate(SYSTEMS):
        lines = [json.dumps({"question": loaded(f"question {q}"), "answer": [loaded(f"gold {q}")],
                             "prediction": loaded(f"answer {q}{s}")}) for q in range(3)]
        import_run(campaign=campaign, fmt="qa-eval-jsonl", paths=[_write(tmp_path / f"sys{s}.jsonl", lines)],
                   system=system)
    _web_judgments(campaign, lambda r, n: {"correct": bool((n + r) % 3)})
    for flip, name in enumerate(JUDGE_NAMES, start=2):
        _judge_scores(campaign, tmp_path, name, flip=flip)
    return campaign


def ais_build(tmp_path):
    campaign = _campaign("ais", overlap=3)
    rows = []
    for q in range(3):
        for s, system in enumerate(SYSTEMS):
            rated = q > 0  # question 0's answers wait for the raters
            rows.append({
                "system_name": system, "question": loaded(f"ais question {q}"), "answer": loaded(f"ais answer {q}{s}"),
                # a URL with breakouts, a javascript: "URL", and a plain title
                "attribution": (EVIL_URL, JS_URL, loaded("attribution"))[(q + s) % 3],
                "passage": (f"« {loaded(f'title {q}{s}')} » « {loaded(f'section {q}{s}')} » {loaded('passage')}"
                            if s == 0 else loaded(f"bare passage {q}")),
                "human_rating": ("Y" if (q + s) % 2 else "N") if rated else "",
                "auto_ais": ("N" if (q + s) % 2 else "Y") if rated else "Y",
                "nli_score": "0.9" if (q + s) % 2 == 0 else "0.2",
            })
    path = tmp_path / "ratings.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import_run(campaign=campaign, fmt="attributed-qa", paths=[path], judge=JUDGE_NAMES[0])
    _web_judgments(campaign, lambda r, n: {"interpretable": True, "supported": bool((n + r) % 2)})
    for flip, name in enumerate(JUDGE_NAMES[1:], start=2):
        _judge_scores(campaign, tmp_path, name, flip=flip)
    return campaign


RANKERS = (loaded("expert-1", "script", "attribute"),
           loaded("expert-2", "raw_text", "template", "js_url", "js_string", "mathtext"))
PROMPTS = (loaded("prompt 0", "script", "attribute", "mathtext"), loaded("prompt 1", "raw_text", "js_string"))


def ranking_build(tmp_path):
    campaign = _campaign("answer_ranking", overlap=2)
    lines = []
    for q in range(4):
        candidates = [
            {"id": token(f"a{q}{s}"), "kind": "answer", "text": loaded(f"generated answer {q}{s}"), "system": system,
             "prompt": PROMPTS[s]} for s, system in enumerate(SYSTEMS)
        ] + [{"id": token(f"d{q}{d}"), "kind": "document", "text": loaded(f"document {q}{d}"),
              "docno": token(f"doc{q}{d}")} for d in range(2)]
        ids = [c["id"] for c in candidates]
        rankings = [{"annotator": name, "ranking": ids if r == 0 else [ids[-1], *ids[:-1]]}
                    for r, name in enumerate(RANKERS)] if q < 2 else []  # topics 2 and 3 wait for "ann"
        lines.append(json.dumps({"qid": f"q{q}{TOPIC_PAYLOAD}", "query": loaded(f"query {q}"),
                                 "candidates": candidates, "rankings": rankings}))
    import_run(campaign=campaign, fmt="jsonl", paths=[_write(tmp_path / "topics.jsonl", lines)])
    for flip, name in enumerate(JUDGE_NAMES, start=2):
        _judge_scores(campaign, tmp_path, name, flip=flip)
    return campaign


RUNS = (token("run-a"), token("run-b"), token("run-c"))
RUN_TAG = loaded("tag", "script", "js_string", "mathtext")


def image_build(tmp_path):
    campaign = _campaign("image_relevance", overlap=1)
    topics = [f"t{n}{TOPIC_PAYLOAD}" for n in range(2)]
    fields = ("page_title", "page_context", "section_title", "section_context")
    _write(tmp_path / "topics.jsonl", [json.dumps({"id": qid, **{f: loaded(f"{f} {n}") for f in fields}})
                                       for n, qid in enumerate(topics)])
    import_run(campaign=campaign, fmt="jsonl", paths=[tmp_path / "topics.jsonl"])
    image_ids = [f"img-{n}" for n in range(6)]
    images_write(tmp_path / "images", image_ids)
    import_run(campaign=campaign, fmt="images", paths=[tmp_path / "images"])
    for r, run in enumerate(RUNS):
        lines = [f"{qid} Q0 {image} {rank} {10 - rank - r * (rank % 2)} {run}"
                 for qid in topics for rank, image in enumerate(image_ids[r % 2:] + image_ids[:r % 2], start=1)]
        import_run(campaign=campaign, fmt="trec-run", paths=[_write(tmp_path / f"run{r}.txt", lines)],
                   tag=RUN_TAG if r == 0 else None)
    for a in range(2):  # two assessors grade the first topic's images; the second topic waits for "ann"
        _write(tmp_path / f"assessor{a}.qrels", [f"{topics[0]} 0 {image} {(n + a * (n % 2)) % 3}"
                                                  for n, image in enumerate(image_ids)])
        import_run(campaign=campaign, fmt="trec-qrels", paths=[tmp_path / f"assessor{a}.qrels"])
    for name in JUDGE_NAMES:
        _judge_scores(campaign, tmp_path, name)
    return campaign


def passage_build(tmp_path):
    campaign = _campaign("passage_relevance", overlap=1)
    topics = [f"q{n}{TOPIC_PAYLOAD}" for n in range(2)]
    _write(tmp_path / "topics.jsonl", [json.dumps({"qid": qid, "text": loaded(f"query {n}")})
                                       for n, qid in enumerate(topics)])
    import_run(campaign=campaign, fmt="trec-topics", paths=[tmp_path / "topics.jsonl"])
    docids = [token(f"doc-{n}") for n in range(6)]
    for r, run in enumerate(RUNS):
        lines = [f"{qid} Q0 {doc} {rank} {10 - rank - r * (rank % 2)} {run}"
                 for qid in topics for rank, doc in enumerate(docids[r % 2:] + docids[:r % 2], start=1)]
        import_run(campaign=campaign, fmt="trec-run", paths=[_write(tmp_path / f"run{r}.txt", lines)],
                   tag=RUN_TAG if r == 0 else None)
    _write(tmp_path / "collection.jsonl", [json.dumps({"docid": doc, "text": loaded(f"passage {n}")})
                                           for n, doc in enumerate(docids)])
    import_run(campaign=campaign, fmt="collection", paths=[tmp_path / "collection.jsonl"])
    for a in range(2):  # two assessors grade the first topic's passages; the second topic waits for "ann"
        _write(tmp_path / f"assessor{a}.qrels", [f"{topics[0]} 0 {doc} {(n + a * (n % 2)) % 4}"
                                                  for n, doc in enumerate(docids)])
        import_run(campaign=campaign, fmt="trec-qrels", paths=[tmp_path / f"assessor{a}.qrels"])
    for name in JUDGE_NAMES:
        _judge_scores(campaign, tmp_path, name)
    return campaign


FAILURE_REASON = loaded("unreadable verdict")
BUILDERS = {"qa_correctness": qa_build, "answer_ranking": ranking_build, "ais": ais_build,
            "image_relevance": image_build, "passage_relevance": passage_build}


@pytest.fixture
def injected(request, tmp_path, settings):
    """The campaign of the test's task type (its `task_type` parameter), imported with payloads everywhere."""
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = BUILDERS[request.node.callspec.params["task_type"]](tmp_path)
    failed = Judge.objects.create(campaign=campaign, name=loaded("failed-run", "raw_text", "template"), family="em",
                                  config={"note": loaded("config", "script", "attribute")}, config_hash="x" * 64)
    run = JudgeRun.objects.create(judge=failed, status=RunStatus.FAILED, total=3, error=loaded("worker said"))
    # a verdict the model gave in words that could not be read: its reason is listed on the judge panel
    ModelJudgment.objects.create(judge=failed, run=run, item=Item.objects.filter(campaign=campaign).first(),
                                 failed=True, raw=json.dumps({"reason": FAILURE_REASON}))
    return campaign


# --- What every page must (not) do ---

class Guard:
    """Records what a page does that a payload could cause: dialogs, and console messages or errors naming pwned."""

    def __init__(self, page):
        self.page, self.dialogs, self.messages = page, [], []
        page.on("dialog", self._dialog)
        page.on("console", lambda message: self.messages.append(message.text))
        page.on("pageerror", lambda error: self.messages.append(str(error)))

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def check(self):
        """Nothing ran: no dialog, no window.__pwned, no console word of it; no element a payload would make."""
        page = self.page
        page.wait_for_load_state("networkidle")  # an injected <img src=x> has had its 404, so onerror has fired
        assert self.dialogs == []
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert [m for m in self.messages if "pwned" in m] == []
        assert page.evaluate(INJECTED_DOM) == [], "markup from imported text reached the DOM"


# Event-handler attributes, javascript: links, inline scripts and the payloads' own tags: none belongs on a page.
INJECTED_DOM = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
    }
  }
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href');
    if (href.trim().toLowerCase().startsWith('javascript:')) found.push('a ' + href);
  }
  for (const s of document.querySelectorAll('script:not([src]):not([type="application/json"])')) {
    found.push('inline script ' + s.textContent);
  }
  for (const el of document.querySelectorAll('img[src=x], body svg:not(.plot svg):not(.plot svg *)')) {
    found.push(el.outerHTML.slice(0, 80));
  }
  return found;
}"""


def shown_text(page) -> str:
    """The page's visible text with every <details> opened (the report folds its per-topic tables)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return page.inner_text("body")


def assert_shown(text: str, expected) -> None:
    missing = [value for value in expected if value not in text]
    assert missing == [], f"not shown literally: {missing}"


@pytest.fixture
def visit(login_page, live_server):
    """visit(username, path) -> (page, guard): PATH opened on the live server by USERNAME, guarded from the start."""

    def open_page(username, path):
        page = login_page(username)
        guard = Guard(page)
        page.goto(f"{live_server.url}{path}")
        guard.check()
        return page, guard

    return open_page


def url(name: str, campaign) -> str:
    return reverse(name, args=[campaign.slug])


def judge_names(campaign) -> list[str]:
    return list(Judge.objects.filter(campaign=campaign).values_list("name", flat=True))


def browser(test):
    """A test run in Chromium once per task type, on a database the live server sees."""
    test = pytest.mark.parametrize("task_type", TASK_TYPES)(test)
    return pytest.mark.browser(pytest.mark.django_db(transaction=True)(test))


# --- The pages ---

def home_page_checked(injected, visit, task_type):
    for username in ("res", "ann"):
        page, _ = visit(username, reverse("home"))
        assert_shown(shown_text(page), [CAMPAIGN_NAME])


def campaign_page_checked(injected, visit, task_type):
    page, _ = visit("res", url("campaign-detail", injected))
    expected = [CAMPAIGN_NAME, injected.description]
    if task_type in GRADED:  # the pools: runs, their tag, topics and sections or queries
        topics = injected.topics.all()
        expected += [*RUNS, RUN_TAG, *(t.external_id for t in topics), *(t.text for t in topics)]
    assert_shown(shown_text(page), expected)


# A file name is shown back in error messages. (No '"': Chromium sends it as %22 in a multipart file name.)
BAD_UPLOAD = f"<img src=x onerror={PWNED}>.tsv"


def _upload(page, *, name: str, rows: list[str], judge: str) -> None:
    page.select_option("select[name=format]", "judge-scores")
    page.set_input_files("input[name=files]", files=[
        {"name": name, "mimeType": "text/tab-separated-values", "buffer": "\n".join(rows).encode()}])
    page.fill("input[name=judge]", judge)
    page.click("form.card button[type=submit]")
    page.wait_for_load_state("networkidle")


def import_page_checked(injected, visit, task_type):
    """Celery runs eagerly (the journey sets it): an upload's job has run when its page opens."""
    page, guard = visit("res", url("campaign-import", injected))
    assert_shown(shown_text(page), [CAMPAIGN_NAME])
    import_page = page.url
    # a refused file: the message quotes the file name and the unknown topic
    unknown = loaded("topic", "script", "attribute")
    _upload(page, name=BAD_UPLOAD, rows=["topic\titem\tscore", f"{unknown}\tx\t0.5"], judge=UPLOADED_JUDGE)
    guard.check()
    assert_shown(page.inner_text("#import-error"), [f"{BAD_UPLOAD}:2: topic: no topic '{unknown}' in this campaign"])
    page.goto(import_page)  # the campaign's recent imports list the file by its name
    guard.check()
    assert_shown(page.inner_text("#recent-imports"), [BAD_UPLOAD])
    # an accepted file: the summary names every judge of the campaign, the uploaded one too
    item = Item.objects.filter(campaign=injected).select_related("topic").first()
    item_id = item.data.get("source_id") or item.data.get("image_id") or item.external_id
    _upload(page, name="scores.tsv", rows=["topic\titem\tscore", f"{item.topic.external_id}\t{item_id}\t0.5"],
            judge=UPLOADED_JUDGE)
    guard.check()
    assert_shown(page.inner_text("#import-summary"), [UPLOADED_JUDGE, *JUDGE_NAMES])


def held(campaign) -> Assignment:
    """The unit leased to "ann" now."""
    return Assignment.objects.select_related("unit__topic", "unit__item").get(
        unit__campaign=campaign, annotator__username="ann", status=AssignmentStatus.ACTIVE)


def unit_texts(assignment) -> list[str]:
    """The imported texts of ASSIGNMENT's unit: what the annotation page must show, word for word."""
    topic, item = assignment.unit.topic, assignment.unit.item
    task_type = assignment.unit.campaign.task_type
    if task_type == "image_relevance":
        return [topic.data[key] for key in ("page_title", "page_context", "section_title", "section_context")]
    if task_type == "passage_relevance":
        return [topic.text, item.text, item.data["docid"]]
    if task_type == "answer_ranking":
        return [topic.text, *topic.items.values_list("text", flat=True)]
    texts = [topic.text, item.text]
    if task_type == "qa_correctness":
        return texts + topic.data["gold_answers"]
    return texts + [item.data["passage"], item.data["title"]] + ([item.data["section"]] if item.data["section"] else [])


def check_source_link(page, assignment) -> str:
    """ais: the evidence's source is a link to its http(s) URL, attribute intact, or plain text (no link) without one.

    Returns the URL ("" for none)."""
    data = assignment.unit.item.data
    link = page.locator("#source-link")
    if data["url"]:
        assert link.get_attribute("href") == data["url"] == EVIL_URL
        assert link.inner_text() == data["title"]
    else:
        assert link.count() == 0
        assert page.inner_text("#source-title") == data["title"]
    return data["url"]


NEXT_KEY = {"qa_correctness": "n", "ais": "n", "image_relevance": "0",
            "passage_relevance": "0", "answer_ranking": "c"}  # c: keep the order shown, submit


def annotate_page_checked(injected, visit, task_type):
    page, guard = visit("ann", url("annotate", injected))
    links = set()
    assignment = before = None
    for step in range(2):  # the first unit, then the next one, which comes through htmx (an innerHTML swap)
        if step:
            before = assignment.pk if assignment else None
            press(page, NEXT_KEY[task_type])
            page.wait_for_function("() => document.querySelector('#annotate-progress .progress-text')"
                                   ".textContent.trim().startsWith('1 of')")
            guard.check()
        assignment = held(injected)
        assert step == 0 or assignment.pk != before
        assert_shown(shown_text(page), [CAMPAIGN_NAME, *unit_texts(assignment)])
        if task_type == "ais":
            links.add(check_source_link(page, assignment))
    if task_type == "ais":  # one unit's source is EVIL_URL, the other's the javascript: "URL" (a title then)
        assert links == {EVIL_URL, ""}


def report_texts(campaign) -> list[str]:
    """The imported names and texts the report page must show for CAMPAIGN."""
    report = agreement_report_build(campaign=campaign)
    texts = [CAMPAIGN_NAME, *JUDGE_NAMES]
    if campaign.task_type == "answer_ranking":
        # systems and prompts (NRP), the imported experts (pairs), topics and candidate ids (orders per topic)
        items = Item.objects.filter(campaign=campaign)
        texts += [*SYSTEMS, *PROMPTS, *RANKERS,
                  *campaign.topics.values_list("external_id", flat=True), *(i.data["source_id"] for i in items)]
    elif campaign.task_type in GRADED:
        texts += [*RUNS, RUN_TAG, *{row["topic"] for block in report["judges"].values() for row in block["per_topic"]}]
    else:
        texts += SYSTEMS
    if campaign.task_type == "ais":  # the disagreements lists: system, question and answer of each row
        rows = [row for block in report["judges"].values() for row in block["disagreements"]]
        assert rows, "no disagreements to show"
        texts += [row[key] for row in rows for key in ("system", "question", "answer")]
    return texts


def plot_texts(campaign) -> list[str]:
    """The labels the report's SVG plots must carry: judge names, and for answer_ranking the systems and prompts."""
    if campaign.task_type == "answer_ranking":
        return [*JUDGE_NAMES, *(f"{system} · {prompt}" for system, prompt in zip(SYSTEMS, PROMPTS, strict=True))]
    if campaign.task_type in GRADED:
        return [*JUDGE_NAMES, *(f"{name}, {RUN_TAG}" for name in JUDGE_NAMES)]
    return list(JUDGE_NAMES)


def report_page_checked(injected, visit, task_type):
    page, _ = visit("res", url("agreement-report", injected))
    assert_shown(shown_text(page), report_texts(injected))
    # SVG built in Python (matplotlib) and inlined with |safe: its labels are text nodes, not markup
    plots = page.locator(".plot svg")
    assert plots.count() == (3 if task_type in GRADED else 1)  # graded: runs, score CDFs, confusion heatmaps
    assert_shown("\n".join(plots.all_text_contents()), plot_texts(injected))


def judge_panel_checked(injected, visit, task_type):
    page, _ = visit("res", url("judge-panel", injected))
    run = JudgeRun.objects.get(judge__campaign=injected)
    assert_shown(shown_text(page), [CAMPAIGN_NAME, *judge_names(injected), run.error, FAILURE_REASON])


def browsable_api_checked(injected, visit, task_type):
    """DRF's HTML view of the report API shows the JSON document, names JSON-escaped but not HTML-interpreted."""
    page, _ = visit("res", f"/api/campaigns/{injected.slug}/agreement/")
    assert_shown(shown_text(page), [json.dumps(name, ensure_ascii=False)[1:-1] for name in JUDGE_NAMES])


def downloads(campaign) -> list[tuple[str, str, list[str]]]:
    """(url, kind, names it must hold) of every download the report page offers for CAMPAIGN."""
    systems = list(RUNS if campaign.task_type in GRADED else SYSTEMS)
    topics = list(campaign.topics.filter(units__judgments__isnull=False).distinct().values_list("external_id",
                                                                                              flat=True))
    found = [(url("agreement-report-json", campaign), "json", [*JUDGE_NAMES, *systems]),
             (url("agreement-judges-csv", campaign), "csv", list(JUDGE_NAMES)),
             (url("agreement-labels-csv", campaign), "csv", list(JUDGE_NAMES))]
    if campaign.task_type == "answer_ranking":
        found.append((url("agreement-topics-csv", campaign), "csv", [*JUDGE_NAMES, *topics]))
    else:
        found.append((url("agreement-systems-csv", campaign), "csv", [*JUDGE_NAMES, *systems]))
    if campaign.task_type in GRADED:
        found.append((reverse("agreement-qrels", args=[campaign.slug, "consensus"]), "qrels", topics))
    return found


def cells(kind: str, body: str) -> str:
    """The values of a download, one per line: JSON keys and strings, CSV cells, qrels fields."""
    if kind == "json":
        def walk(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    yield key
                    yield from walk(value)
            elif isinstance(node, list):
                for value in node:
                    yield from walk(value)
            elif isinstance(node, str):
                yield node
        return "\n".join(walk(json.loads(body)))
    if kind == "csv":
        return "\n".join(cell for row in csv.reader(io.StringIO(body)) for cell in row)
    return "\n".join(field for line in body.splitlines() for field in line.split())


def downloads_checked(injected, visit, live_server, task_type):
    """The JSON and CSV downloads keep every name exactly, and no browser would render them as HTML."""
    page, _ = visit("res", url("agreement-report", injected))
    for path, kind, expected in downloads(injected):
        response = page.request.get(live_server.url + path)
        assert response.status == 200, path
        headers = response.headers
        assert "html" not in headers["content-type"]
        assert headers["content-disposition"].startswith("attachment;")
        assert headers["x-content-type-options"] == "nosniff"
        assert_shown(cells(kind, response.text()), expected)


def qrels_links_checked(injected, visit, live_server, task_type):
    """Graded: every judge and assessor gets a qrels link, names with "/" and markup included, and each link
    downloads."""
    page, _ = visit("res", url("agreement-report", injected))
    links = page.locator("a[href*='/report/qrels/']")
    hrefs = [links.nth(n).get_attribute("href") for n in range(links.count())]
    judge_links = [reverse("agreement-qrels", args=[injected.slug, f"judge-{name}"]) for name in JUDGE_NAMES]
    consensus = reverse("agreement-qrels", args=[injected.slug, "consensus"])
    assert {consensus, *judge_links} <= set(hrefs) and len(hrefs) == len(set(hrefs))
    for href in hrefs:
        assert page.request.get(live_server.url + href).status == 200, href
    assert "no link" not in page.inner_text("p:has(a[href$='consensus.qrels'])")


# --- The journey: every page, once per task type ---

@browser
def test_no_payload_runs_and_every_page_shows_it_as_text(injected, visit, live_server, task_type, monkeypatch):
    """One campaign per task type, built once, and every page that shows its texts opened in turn: the report and
    what reads it first (built once, as the worker leaves it: before, the API answers 202 with a status URL), then
    the pages that change the campaign last (a verdict given on the annotation page, a judge uploaded on the import
    page)."""
    from config.celery import app

    report_stored(injected)
    report_page_checked(injected, visit, task_type)
    browsable_api_checked(injected, visit, task_type)
    downloads_checked(injected, visit, live_server, task_type)
    if task_type in GRADED:
        qrels_links_checked(injected, visit, live_server, task_type)
    judge_panel_checked(injected, visit, task_type)
    home_page_checked(injected, visit, task_type)
    campaign_page_checked(injected, visit, task_type)
    annotate_page_checked(injected, visit, task_type)
    # The live server runs in this process: with Celery eager, an upload's job has run when its page opens.
    monkeypatch.setattr(app.conf, "task_always_eager", True)
    import_page_checked(injected, visit, task_type)


# --- Production settings: the headers and cookies a deployed response carries ---

# Run by `manage.py shell` under config.settings.production: a sign-in over HTTPS (as the proxy forwards it) and a
# plain-HTTP request, answered by the real middleware; prints what a browser would receive.
PRODUCTION_PROBE = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

call_command("migrate", verbosity=0)
get_user_model().objects.create_user("probe", password="probe-password-1")
client = Client(HTTP_HOST="concord.example.org")
signed_in = client.post("/accounts/login/", {"username": "probe", "password": "probe-password-1"},
                        HTTP_X_FORWARDED_PROTO="https")
plain = Client(HTTP_HOST="concord.example.org").get("/accounts/login/")
print(json.dumps({
    "status": signed_in.status_code,
    "headers": dict(signed_in.headers),
    "cookies": {name: {"secure": bool(c["secure"]), "httponly": bool(c["httponly"])}
                for name, c in signed_in.cookies.items()},
    "plain": [plain.status_code, plain.headers.get("Location")],
    "settings": {name: getattr(settings, name) for name in (
        "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_CONTENT_TYPE_NOSNIFF", "X_FRAME_OPTIONS",
        "SECURE_REFERRER_POLICY", "SECURE_HSTS_SECONDS")},
}))
"""


def test_production_responses_carry_security_headers_and_secure_cookies(tmp_path):
    """test_settings.py checks the production settings with check --deploy; this checks what a response carries."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "SECURE_COOKIES",
                        "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.production",
                "SECRET_KEY": "x" * 20 + "production-secret-with-enough-entropy-1234567890",
                "ALLOWED_HOSTS": "concord.example.org", "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
                "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CACHE_URL": f"filecache://{tmp_path / 'cache'}"})
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", PRODUCTION_PROBE], cwd=settings.BASE_DIR,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["settings"] == {"SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True,
                                "SECURE_CONTENT_TYPE_NOSNIFF": True, "X_FRAME_OPTIONS": "DENY",
                                "SECURE_REFERRER_POLICY": "same-origin", "SECURE_HSTS_SECONDS": 31536000}
    assert seen["status"] == 302  # signed in, sent on to the campaigns
    headers = seen["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    assert seen["cookies"]["sessionid"] == {"secure": True, "httponly": True}
    assert seen["cookies"]["csrftoken"]["secure"] is True
    assert seen["plain"] == [301, "https://concord.example.org/accounts/login/"]  # plain HTTP goes to HTTPS
