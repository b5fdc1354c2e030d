"""The `llm` judge on graded relevance (passage_relevance): the prompt with the campaign's scale, the one answer form
`Grade: N`, the vote with its tie rule, and runs through the task layer on a passage campaign, beside bm25.

Unit tests drive judge_batch with the scripted backend of test_llm_family; the runs use the OpenAI-compatible test
server (tests/llm_server.py) and a tiny random-weight Llama (test_llm_hf's fixture) for the transformers backend.
"""

import json
import re

import pytest

from annotate.models import Item, Topic
from annotate.services.campaigns import campaign_get_or_create, campaign_options_set
from annotate.task_types.registry import task_type_get
from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get, family_prompt
from judges.llm.backend import MemorySampleStore
from judges.llm.voting import grade_parse, grade_vote
from judges.models import LLMSample, ModelJudgment, RunStatus
from judges.services import judge_run_start
from reports.selectors import judge_scores_get
from tasktypes.llm_prompts import grade as prompts
from tests.judges.test_llm_family import ScriptedBackend, ScriptedLLM
from tests.judges.test_llm_hf import tiny_llama  # noqa: F401 - fixture
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.llm_server import chat_server, raw

LLM = family_get("llm")
# The prompts the family judges with: a graded type's, and qa_correctness's (TaskTypeSpec.judge_prompt).
PROMPT = family_prompt("llm", "passage_relevance")
QA_PROMPT = family_prompt("llm", "qa_correctness")
DEFAULT = task_type_get("passage_relevance").judge_context(None)  # the task type's own 0-3 scale
SCALE = [{"grade": 0, "name": "Off topic", "definition": "Nothing about the query."},
         {"grade": 1, "name": "Partial", "definition": "Some of the answer."},
         {"grade": 2, "name": "Answer", "definition": ""}]
QUERY = "how long do tortoises live"
PASSAGES = {
    "d1": "Giant tortoises live long: more than 150 years; the oldest known tortoise reached 190.",
    "d2": "Tortoises are reptiles of the family Testudinidae and live on land.",
    "d3": "The stock market closed higher on Friday after a week of losses.",
}


def _config(**overrides):
    return LLM.validate_config(overrides, prompt=PROMPT)


def _passages(*ids: int, text: str = "a passage about {id}"):
    return [ItemInput(item_id=i, topic_text=QUERY, gold_answers=[], text=text.format(id=i)) for i in ids]


# --- the prompt ---

def test_the_prompt_shows_every_grade_of_the_scale_the_query_and_the_passage():
    messages = prompts.relevance_messages_build(query=f" {QUERY} ", passage=PASSAGES["d1"], scale=SCALE,
                                                config=_config())
    assert [m["role"] for m in messages] == ["system", "user"]
    system, item = messages[0]["content"], messages[1]["content"]
    assert system.startswith(prompts.RELEVANCE_INSTRUCTION)
    assert system.endswith("write the grade alone on the last line, in the form Grade: N, where N is 0, 1 or 2.")
    assert item == ("Grades:\n0 (Off topic): Nothing about the query.\n1 (Partial): Some of the answer.\n2 (Answer)"
                    f"\n\nQuery: {QUERY}\n\nPassage: {PASSAGES['d1']}\n\nWhich grade does the passage deserve for "
                    "this query?")
    # The task type's default scale: each grade with its name and definition, and the answer form over 0-3.
    default = prompts.relevance_messages_build(query="q", passage="p", scale=DEFAULT["scale"],
                                               config=_config(cot=False))
    assert default[0]["content"].endswith("Reply with one line only, in the form Grade: N, where N is 0, 1, 2 or 3.")
    for entry in DEFAULT["scale"]:
        assert f"{entry['grade']} ({entry['name']}): {entry['definition']}" in default[1]["content"]


def test_the_relevance_prompt_options_replace_the_defaults_and_are_checked():
    config = _config(relevance_instruction="Grade it.", relevance_template="Q={query} | P={passage} | S={scale}")
    messages = prompts.relevance_messages_build(query="q {x}", passage="p", scale=SCALE[:2], config=config)
    assert messages[0]["content"].startswith("Grade it.\n\n")
    assert messages[1]["content"] == ("Q=q {x} | P=p | S=0 (Off topic): Nothing about the query.\n"
                                      "1 (Partial): Some of the answer.")
    for overrides, message in [
        ({"relevance_template": "Q={query} S={scale}"}, "relevance_template lacks {passage}"),
        ({"relevance_template": "Q={query} P={passage} S={scale} {question}"},
         "relevance_template has unknown placeholder(s) {question}"),
        ({"relevance_template": "Q={query} P={passage} S={scale"}, "relevance_template has malformed braces"),
        ({"relevance_instruction": " "}, "relevance_instruction must not be empty"),
    ]:
        with pytest.raises(JudgeConfigError, match=re.escape(message)):
            LLM.validate_config(overrides, prompt=PROMPT)


# --- reading a grade and voting ---

@pytest.mark.parametrize(("text", "grade"), [
    ("The passage gives the answer.\nGrade: 2", 2),
    ("Reasoning\n\nGrade: 3\n\n", 3),
    ("grade:0", 0),
    ("Reasoning\n**Grade:** 1", 1),
    ("Reasoning\nGrade: 2.", 2),
    ("Reasoning\nGrade: 7", None),  # not a grade of the 0-3 scale
    ("Reasoning\nGrade: -1", None),
    ("The passage is highly relevant, so I would give it a 2.", None),  # prose without the line
    ("Grade: 2\nThe passage answers the question in part.", None),  # a grade on an earlier line only
    ("Reasoning\nGrade: 2 (highly relevant)", None),
    ("Reasoning\nGrade 2", None),
    ("Reasoning\n2", None),
    ("Reasoning\nGrade: two", None),
    ("Reasoning\nGrade: 1 or 2", None),
    ("", None),
])
def test_a_grade_is_read_only_from_the_answer_form_on_the_last_line(text, grade):
    assert grade_parse(text, {0, 1, 2, 3}) == grade


def test_the_most_frequent_grade_wins_with_its_share():
    result = grade_vote(["a\nGrade: 2", "b\nGrade: 3", "c\nGrade: 2", "no idea"], [0, 1, 2, 3])
    assert (result.label, result.votes, result.unparsed) == ("2", {"0": 0, "1": 0, "2": 2, "3": 1}, [3])
    assert result.confidence == pytest.approx(2 / 3) and result.tied == [] and not result.failed


def test_a_tie_goes_to_the_lowest_of_the_tied_grades():
    result = grade_vote(["a\nGrade: 3", "b\nGrade: 1", "c\nGrade: 0", "d\nGrade: 3", "e\nGrade: 1"], [0, 1, 2, 3])
    assert (result.label, result.tied, result.confidence) == ("1", ["1", "3"], pytest.approx(2 / 5))
    assert grade_vote(["Grade: 2", "Grade: 1"], [0, 1, 2, 3]).label == "1"


def test_no_grade_from_any_sample_is_a_failure_never_a_guess():
    result = grade_vote(["It is relevant.", "Grade: 9", "Grade: 2\nbut maybe 3"], [0, 1, 2, 3])
    assert result.failed and result.label == "" and result.unparsed == [0, 1, 2]
    assert result.reason == ("no grade: none of the 3 sample(s) ends with a line 'Grade: N' for a grade N of the "
                             "scale (0, 1, 2, 3)")


# --- judge_batch with a task context (scripted backend) ---

def test_a_graded_verdict_is_the_grade_as_a_digit_with_no_score():
    backend = ScriptedBackend({(1, 0): "x\nGrade: 3", (1, 1): "y\nGrade: 2", (1, 2): "z\nGrade: 3",
                               (2, 0): "x\nGrade: 0", (2, 1): "y\nGrade: 2", (2, 2): "z\nrambling",
                               (3, 0): "x\nGrade: 5", (3, 1): "no line", (3, 2): "Grade: 1\nthen prose"})
    store = MemorySampleStore()
    graded, tied, none = ScriptedLLM(backend).judge_batch(_passages(1, 2, 3), _config(n=3), samples=store,
                                                          task_context=DEFAULT, prompt=PROMPT)
    assert (graded.failed, graded.label, graded.score) == (False, "3", None)
    assert json.loads(graded.raw) == {"samples": ["x\nGrade: 3", "y\nGrade: 2", "z\nGrade: 3"],
                                      "votes": {"0": 0, "1": 0, "2": 1, "3": 2}, "confidence": pytest.approx(2 / 3),
                                      "unparsed": [], "errors": []}
    assert (tied.label, tied.score, json.loads(tied.raw)["tied"]) == ("0", None, ["0", "2"])
    body = json.loads(none.raw)
    assert none.failed and none.label == "" and body["unparsed"] == [0, 1, 2] and body["reason"].startswith("no grade")
    # The prompt each item was asked with carries the scale and the passage; the samples are cached.
    assert store.puts == 9
    again = ScriptedLLM(ScriptedBackend({}))
    assert again.judge_batch(_passages(1, 2, 3), _config(n=3), samples=store, task_context=DEFAULT,
                             prompt=PROMPT) == [graded, tied, none]
    assert again.scripted.asked == []


def test_a_passage_without_text_fails_without_asking_the_model():
    backend = ScriptedBackend({(2, 0): "Grade: 1"})
    empty, fine = ScriptedLLM(backend).judge_batch(_passages(1, text="  ") + _passages(2),
                                                   _config(n=1, decoding="greedy"), task_context=DEFAULT, prompt=PROMPT)
    assert backend.asked == [(2, (0,))]
    assert empty.failed and json.loads(empty.raw)["reason"] == ("the passage has no text (its collection is not "
                                                                "imported yet)")
    assert (fine.label, fine.score) == ("1", None)


def test_with_qa_correctness_prompt_the_same_family_judges_an_answer():
    backend = ScriptedBackend({(1, 0): "because\nyes"})
    items = [ItemInput(item_id=1, topic_text="capital of france", gold_answers=["Paris"], text="Paris")]
    config = LLM.validate_config({"n": 1, "decoding": "greedy"}, prompt=QA_PROMPT)
    verdict, = ScriptedLLM(backend).judge_batch(items, config, task_context={}, prompt=QA_PROMPT)
    assert (verdict.label, verdict.score) == ("yes", 1.0)


def test_the_transformers_backend_grades_through_the_same_path_and_never_guesses(tiny_llama):  # noqa: F811
    config = _config(model=tiny_llama, n=2, max_new_tokens=6, batch_size=2)
    store = MemorySampleStore()
    verdicts = LLM.judge_batch(_passages(1, 2), config, samples=store, task_context=DEFAULT, prompt=PROMPT)
    # A random-weight model writes noise: no sample ends with "Grade: N", so no item gets a grade.
    assert len(store.samples) == 2 and all(len(store.samples[i]) == 2 for i in (1, 2))
    for verdict in verdicts:
        body = json.loads(verdict.raw)
        assert verdict.failed and body["reason"].startswith("no grade") and len(body["samples"]) == 2


# --- runs through the task layer on a passage_relevance campaign ---

def said(content: str):
    return raw(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 200, "completion_tokens": 20}}))


@pytest.fixture
def passage_campaign(db):
    campaign = campaign_get_or_create(slug="dl", task_type="passage_relevance")
    topic = Topic.objects.create(campaign=campaign, external_id="q1", text=QUERY)
    for docid, text in PASSAGES.items():
        Item.objects.create(campaign=campaign, topic=topic, kind="passage", external_id=f"q1/{docid}",
                            data={"docid": docid}, text=text)
    return campaign


def _llm_run(campaign, server, capture, **extra):
    config = {"backend": "openai", "model": "judge-model", "base_url": server.base_url, "concurrency": 1,
              "timeout": 5.0, "max_retries": 0, **extra}
    with capture(execute=True):
        run = judge_run_start(campaign=campaign, name="llm-grader", family="llm", config=config)
    run.refresh_from_db()
    return run, {j.item.external_id: j for j in
                 ModelJudgment.objects.filter(judge__name="llm-grader").select_related("item")}


def test_an_llm_judge_grades_a_passage_campaign_and_the_report_reads_grades(
        passage_campaign, eager, django_capture_on_commit_callbacks):  # noqa: F811
    with chat_server() as server:
        server.script(said("It gives the lifespan.\nGrade: 3"), said("It does.\nGrade: 3"),
                      said("Partly.\nGrade: 2"), when="oldest known tortoise")
        server.script(said("About tortoises, no lifespan.\nGrade: 1"), said("Grade: 2"), said("Grade: 1"),
                      when="family Testudinidae")
        server.script(said("Nothing to do with it.\nGrade: 0"), said("I cannot tell."), said("Grade: 4"),
                      when="stock market")
        run, verdicts = _llm_run(passage_campaign, server, django_capture_on_commit_callbacks)
        bodies = server.bodies()
    assert run.status == RunStatus.SUCCEEDED and len(bodies) == 9
    assert {key: (j.label, j.score, j.failed) for key, j in verdicts.items()} == {
        "q1/d1": ("3", None, False), "q1/d2": ("1", None, False), "q1/d3": ("0", None, False)}
    assert json.loads(verdicts["q1/d3"].raw)["unparsed"] == [1, 2]
    assert LLMSample.objects.filter(judge__name="llm-grader").count() == 9
    # Every request showed the model the campaign's scale, the query and its passage.
    prompt = bodies[0]["messages"][-1]["content"]
    assert f"Query: {QUERY}" in prompt and "3 (Perfectly relevant): " in prompt and "Passage: " in prompt
    assert bodies[0]["messages"][0]["content"].endswith("in the form Grade: N, where N is 0, 1, 2 or 3.")
    # The report keeps the grades as they are: no scores to map.
    judge, = [j for j in judge_scores_get(campaign=passage_campaign) if j.name == "llm-grader"]
    items = {item.external_id: item.pk for item in Item.objects.filter(campaign=passage_campaign)}
    assert judge.grades == {items["q1/d1"]: 3, items["q1/d2"]: 1, items["q1/d3"]: 0}
    assert judge.scores == {} and judge.failed == set()


def test_the_campaigns_own_scale_is_the_one_the_judge_grades_on(passage_campaign, eager,  # noqa: F811
                                                                  django_capture_on_commit_callbacks):
    campaign_options_set(campaign=passage_campaign, values={"scale": SCALE, "relevant_from": 1})
    with chat_server() as server:
        server.script(said("Grade: 3"), when="oldest known tortoise")  # on a 0-3 scale it would be a grade
        server.script(said("Grade: 1"), when="family Testudinidae")
        server.script(said("Grade: 0"), when="stock market")
        run, verdicts = _llm_run(passage_campaign, server, django_capture_on_commit_callbacks, n=1,
                                 decoding="greedy")
        prompt = server.bodies()[0]["messages"]
    assert run.status == RunStatus.SUCCEEDED
    assert "2 (Answer)\n\nQuery: " in prompt[-1]["content"] and "(Perfectly relevant)" not in prompt[-1]["content"]
    assert prompt[0]["content"].endswith("where N is 0, 1 or 2.")
    assert verdicts["q1/d1"].failed and json.loads(verdicts["q1/d1"].raw)["reason"].endswith("scale (0, 1, 2)")
    assert (verdicts["q1/d2"].label, verdicts["q1/d3"].label) == ("1", "0")


def test_bm25_scores_every_passage_of_the_campaign(passage_campaign, eager,  # noqa: F811
                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=passage_campaign, name="bm25", family="bm25", config={})
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    scores = {j.item.external_id: j.score for j in ModelJudgment.objects.filter(judge=run.judge).select_related("item")}
    assert set(scores) == {"q1/d1", "q1/d2", "q1/d3"} and all(isinstance(s, float) for s in scores.values())
    # The passage that shares the query's rarer words ranks first; the one that shares none scores nothing.
    assert scores["q1/d1"] > scores["q1/d2"] > scores["q1/d3"] == 0.0
    judge, = judge_scores_get(campaign=passage_campaign)
    assert len(judge.scores) == 3 and judge.grades == {} and judge.failed == set()


# --- the identity of llm judges created before the relevance options ---

@pytest.mark.django_db
def test_an_older_llm_judge_keeps_its_identity_once_its_configuration_is_completed(qa_campaign):
    import importlib

    from django.apps import apps

    from judges.identity import config_hash, judge_get_or_create
    from judges.models import Judge

    asked = {"n": 1, "decoding": "greedy", "backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    complete = LLM.validate_config(asked, prompt=QA_PROMPT)
    older = {key: value for key, value in complete.items() if not key.startswith("relevance_")}
    judge = Judge.objects.create(campaign=qa_campaign, name="older", family="llm", config=older,
                                 config_hash=config_hash(family="llm", config=older))
    importlib.import_module("judges.migrations.0005_llm_relevance_options").forwards(apps, None)
    judge.refresh_from_db()
    assert judge.config == complete
    # The same options asked for again name the same judge, not "another configuration".
    assert judge_get_or_create(campaign=qa_campaign, name="older", family="llm", config=complete) \
        == judge
