"""nugget_evaluation's model judges: the llm writes a topic's nuggets (one `vital:` / `okay:` line each) and marks an
answer against its round's frozen list in batches (`<number>: support|partial|not`), a nugget it does not settle
failed, never guessed; the autoais family marks each (answer, nugget) pair by P(entailment) at the thresholds; and a
campaign through the task layer: the judge's lists frozen, then its marks on every answer."""

import json

import pytest

from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_config_validate, family_get, family_options
from judges.families.autoais import AutoAIS
from judges.families.base import Verdict
from judges.families.llm import LLMJudge
from judges.llm.backend import Generation, MemorySampleStore
from judges.models import LLMSample, ModelJudgment, RunStatus
from judges.services import judge_run_retry_failed, judge_run_start
from tasktypes.nugget_evaluation import judging, llm_prompt
from tasktypes.nugget_evaluation.freeze import nuggets_checked
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, NUGGETS_KIND, marks_label, topic_list
from tasktypes.nugget_evaluation.lists import campaign_lists, lists_freeze
from tests.judges.test_judges_autoais import tiny_bert_nli  # noqa: F401 - fixture
from tests.judges.test_llm_family import ScriptedBackend, ScriptedLLM
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.tasktypes.nugget_campaign import nugget_campaign_build

TYPE = "nugget_evaluation"
PASSAGES = [{"id": "s1", "title": "Bridge", "text": "The river bridge opened in 1932 and is built of local stone."},
            {"id": "s2", "title": "", "text": "It was repaired after the flood of 1954."}]
QUERY = "What is known of the river bridge?"


def _config(family="llm", **overrides):
    return family_config_validate(family, {"n": 1, "decoding": "greedy", **overrides} if family == "llm" else
                                  overrides, task_type=TYPE)


def _nuggets(count: int) -> list[dict]:
    return [{"id": f"n{i}", "text": f"fact number {i}", "importance": "vital" if i % 2 else "okay"}
            for i in range(1, count + 1)]


def _topic(nuggets: list[dict] | None, *, version=1, earlier=()) -> dict:
    data = {"passages": PASSAGES}
    if nuggets is not None:
        data["nuggets"] = {"version": version, "source": "import:x", "nuggets": nuggets}
        data["nugget_versions"] = list(earlier)
    return data


def _creation(item_id=1, topic=None) -> ItemInput:
    return ItemInput(item_id=item_id, topic_text=QUERY, gold_answers=[], text="", data={},
                     topic_data=_topic(None) if topic is None else topic)


def _answer(item_id=2, nuggets=None, text="The bridge opened in 1932.", round_=1, topic=None) -> ItemInput:
    data = {"run": "r1", "round": round_, "sentences": [{"text": text, "citations": ["s1"]}], "segments": {}}
    return ItemInput(item_id=item_id, topic_text=QUERY, gold_answers=[], text=text, data=data,
                     topic_data=topic if topic is not None else _topic(nuggets if nuggets is not None else _nuggets(2)))


def test_the_task_type_adds_its_options_to_each_family_and_checks_them():
    config = _config()
    assert (config["max_nuggets"], config["nugget_batch"]) == (30, 10)
    assert config["creation_instruction"] == llm_prompt.CREATION_INSTRUCTION
    nli = _config("autoais")
    assert (nli["support_at"], nli["partial_at"]) == (0.5, 0.0)
    assert {"max_nuggets", "nugget_batch", "creation_instruction", "assignment_instruction"} <= set(
        family_options("llm", TYPE))
    assert "support_at" not in family_options("llm", TYPE) and "max_nuggets" not in family_options("autoais", TYPE)
    for family, overrides, message in [
        ("llm", {"max_nuggets": 0}, "max_nuggets must be 1 to 200, not 0"),
        ("llm", {"nugget_batch": 0}, "nugget_batch must be 1 to 100, not 0"),
        ("llm", {"assignment_instruction": " "}, "assignment_instruction must not be empty"),
        ("llm", {"support_at": 0.5}, r"unknown configuration key\(s\) support_at"),
        ("autoais", {"support_at": 0}, "support_at must be above 0 and at most 1, not 0"),
        ("autoais", {"partial_at": 0.6}, r"partial_at must be 0 \(off\) or above 0 and below support_at \(0.5\)"),
        ("autoais", {"max_nuggets": 3}, r"unknown configuration key\(s\) max_nuggets"),
    ]:
        with pytest.raises(JudgeConfigError, match=message):
            _config(family, **overrides)
    assert _config("autoais", support_at=0.8, partial_at=0.4)["partial_at"] == 0.4
    # The options belong to nugget_evaluation's judges only.
    with pytest.raises(JudgeConfigError, match=r"unknown configuration key\(s\) nugget_batch"):
        family_config_validate("llm", {"nugget_batch": 5}, task_type="qa_correctness")


# --- creation ---

def test_a_creation_reply_is_read_through_bullets_numbers_and_markup():
    reply = ("The passages give the opening year, the stone and a repair.\n"
             "1. **Vital:** The bridge opened in 1932\n"
             "- okay - Built of local stone.\n"
             "* `vital`: Repaired after the 1954 flood\n"
             "vital: The bridge opened in 1932.\n"  # given twice: kept once
             "Some closing remark: not a nugget\n")
    assert llm_prompt.creation_parse(reply, 30) == [
        {"id": "n1", "text": "The bridge opened in 1932", "importance": "vital"},
        {"id": "n2", "text": "Built of local stone.", "importance": "okay"},
        {"id": "n3", "text": "Repaired after the 1954 flood", "importance": "vital"}]
    assert [n["id"] for n in llm_prompt.creation_parse(reply, 2)] == ["n1", "n2"]
    assert llm_prompt.creation_parse("The bridge is old.\nIt is stone.", 30) == []


def test_the_llm_writes_a_topics_nuggets_and_a_reply_without_a_nugget_line_fails():
    backend = ScriptedBackend({(0, 0): "Notes first.\nvital: The bridge opened in 1932\nokay: It is built of stone",
                               (1, 0): "The bridge is old and made of stone."})
    got = judging.nuggets_judge(ScriptedLLM(backend), [_creation(1), _creation(2)], _config())
    made, unread = got
    assert (made.failed, made.label, made.score) == (False, "nuggets", None)
    body = json.loads(made.raw)
    assert body["nuggets"] == [{"id": "n1", "text": "The bridge opened in 1932", "importance": "vital"},
                               {"id": "n2", "text": "It is built of stone", "importance": "okay"}]
    assert nuggets_checked(body["nuggets"]) == body["nuggets"]  # a list that may be frozen as it is
    assert unread.failed and "none of the 1 sample(s) has a line in the form vital: <fact>" in json.loads(
        unread.raw)["reason"]


class ScriptedBackendChats(ScriptedBackend):
    """A ScriptedBackend that keeps the chats it was asked."""

    def generate(self, requests, decoding, on_sample):
        self.chats = [request.messages for request in requests]
        super().generate(requests, decoding, on_sample)


def test_the_creation_chat_shows_the_query_and_the_passages():
    backend = ScriptedBackendChats({(0, 0): "vital: x"})
    judging.nuggets_judge(ScriptedLLM(backend), [_creation(1)], _config(cot=False, max_nuggets=12))
    [chat] = backend.chats
    assert "at most 12 nuggets" in chat[0]["content"] and chat[0]["content"].startswith(
        llm_prompt.CREATION_INSTRUCTION)
    assert chat[2]["content"].startswith("vital: Cats purr when content")  # the example's reply, no thought (cot off)
    last = chat[-1]["content"]
    assert last.startswith(f"Query: {QUERY}") and "[1] Bridge\nThe river bridge opened" in last
    assert "[2] It was repaired after the flood of 1954." in last


def test_with_several_samples_the_first_that_lists_a_nugget_is_kept():
    backend = ScriptedBackend({(0, 0): "I cannot tell.", (0, 1): "okay: second sample's fact",
                               (0, 2): "vital: third sample's fact"})
    store = MemorySampleStore()
    [verdict] = judging.nuggets_judge(ScriptedLLM(backend), [_creation(7)], _config(n=3, decoding="sample"),
                                      samples=store)
    body = json.loads(verdict.raw)
    assert body == {"nuggets": [{"id": "n1", "text": "second sample's fact", "importance": "okay"}], "sample": 1}
    assert sorted(store.samples[7]) == [0, 1, 2]


def test_a_reply_cut_at_max_new_tokens_loses_its_last_line_and_a_topic_without_passages_is_not_asked():
    class Cut(ScriptedBackend):
        def generate(self, requests, decoding, on_sample):
            for request in requests:
                on_sample(request.key, 0, Generation(text="vital: whole fact\nokay: a fact cut sh",
                                                     completion_tokens=decoding.max_new_tokens))

    [verdict] = judging.nuggets_judge(ScriptedLLM(Cut({})), [_creation(1)], _config())
    assert [n["text"] for n in json.loads(verdict.raw)["nuggets"]] == ["whole fact"]
    backend = ScriptedBackend({})
    [bare] = judging.nuggets_judge(ScriptedLLM(backend), [_creation(1, topic={"passages": []})], _config())
    assert bare.failed and json.loads(bare.raw)["reason"] == "the topic has no passages to write nuggets from"
    assert backend.asked == []


# --- assignment ---

def test_an_answer_is_marked_in_batches_and_a_nugget_without_a_line_is_failed():
    nuggets = _nuggets(23)
    # Batch 0 (n1-n10): lines for 1-9, the 10th missing; batch 1 (n11-n20): every line, in several word forms;
    # batch 2 (n21-n23): 1 and 3 only, with reasoning before.
    first = "\n".join(f"{i}: {'support' if i % 2 else 'not'}" for i in range(1, 10))
    second = "\n".join(f"{i}. {word}" for i, word in zip(range(1, 11), [
        "supported", "partial", "Partial_Support", "**no**", "not_support", "Not supported.", "support", "partially "
        "supported", "unsupported", "support (the answer says so)"], strict=True))
    third = "1: the answer gives the year.\nnugget 3 - partial\n1: support"
    backend = ScriptedBackendChats({(0, 0): first, (1, 0): second, (2, 0): third})
    store = MemorySampleStore()
    [verdict] = judging.nuggets_judge(ScriptedLLM(backend), [_answer(5, nuggets)], _config(), samples=store)
    shown = [chat[-1]["content"].split("Nuggets:\n")[1].split("\n\n")[0].splitlines() for chat in backend.chats]
    assert [len(batch) for batch in shown] == [10, 10, 3]
    assert shown[2] == ["1. fact number 21", "2. fact number 22", "3. fact number 23"]
    assert sorted(store.samples[5]) == [0, 1, 2]  # batch b at index b x n

    body = json.loads(verdict.raw)
    assert set(body) == {"version", "marks", "failed", "votes"} and body["version"] == 1
    marks = body["marks"]
    assert [marks[f"n{i}"] for i in range(1, 10)] == ["support" if i % 2 else "not_support" for i in range(1, 10)]
    assert [marks[f"n{i}"] for i in range(11, 21)] == [
        "support", "partial_support", "partial_support", "not_support", "not_support", "not_support", "support",
        "partial_support", "not_support", "support"]
    assert (marks["n21"], marks["n23"]) == ("support", "partial_support")
    assert body["failed"] == {"n10": "no readable line for it in 1 sample(s)",
                              "n22": "no readable line for it in 1 sample(s)"}
    assert verdict.label == marks_label(marks, [n["id"] for n in nuggets]) == "snsnsnsns-" "sppnnnspns" "s-p"
    assert (verdict.failed, verdict.score) == (False, None)


def test_the_majority_of_the_samples_marks_a_nugget_and_a_tie_fails_it():
    backend = ScriptedBackend({(0, 0): "1: support\n2: not\n3: partial", (0, 1): "1: support\n2: support\n3: not",
                               (0, 2): "1: not\n2: nonsense\n3: support"})
    [verdict] = judging.nuggets_judge(ScriptedLLM(backend), [_answer(2, _nuggets(3))],
                                      _config(n=3, decoding="sample"))
    body = json.loads(verdict.raw)
    assert body["marks"] == {"n1": "support"}
    assert body["failed"] == {"n2": "tie: support 1, not_support 1",
                              "n3": "tie: support 1, partial_support 1, not_support 1"}
    assert body["votes"]["n1"] == {"support": 2, "not_support": 1}
    assert verdict.label == "s--"


def test_an_answer_with_no_nugget_settled_fails_and_keeps_its_body():
    backend = ScriptedBackend({(0, 0): "The answer is fine."})
    [verdict] = judging.nuggets_judge(ScriptedLLM(backend), [_answer(2, _nuggets(2))], _config())
    assert verdict.failed and verdict.label == ""
    body = json.loads(verdict.raw)
    assert (body["version"], body["marks"]) == (1, {})
    assert body["failed"] == {"n1": "no readable line for it in 1 sample(s)",
                              "n2": "no readable line for it in 1 sample(s)"}
    assert body["reason"] == "no nugget was marked: no readable line for it in 1 sample(s)"
    # A batch whose samples the backend could not give fails its nuggets with the backend's reason.
    errored = ScriptedBackend({(0, 0): "ERROR timed out"})
    [lost] = judging.nuggets_judge(ScriptedLLM(errored), [_answer(2, _nuggets(1))], _config())
    assert json.loads(lost.raw)["failed"] == {"n1": "its batch's 1 sample(s) failed: sample 0: timed out"}


def test_an_answer_is_marked_against_its_rounds_list_and_waits_for_one():
    old = {"version": 1, "source": "import:x", "nuggets": _nuggets(2)}
    topic = _topic(_nuggets(3), version=2, earlier=[old])
    backend = ScriptedBackendChats({(0, 0): "1: support\n2: support", (1, 0): "1: not\n2: not\n3: not"})
    first, second, waiting = judging.nuggets_judge(
        ScriptedLLM(backend), [_answer(1, round_=1, topic=topic), _answer(2, round_=2, topic=topic),
                               _answer(3, round_=3, topic=topic)], _config())
    assert (json.loads(first.raw)["version"], first.label) == (1, "ss")
    assert (json.loads(second.raw)["version"], second.label) == (2, "nnn")
    assert waiting.failed and json.loads(waiting.raw)["reason"].startswith(
        "the topic has no frozen nugget list for round 3 yet")
    assert len(backend.chats) == 2


@pytest.mark.parametrize(("line", "read"), [
    ("3: support", (3, "support")), ("- **3.** partial", (3, "partial_support")),
    ("Nugget 3 - not supported.", (3, "not_support")), ("3) `not` (the answer omits it)", (3, "not_support")),
    ("3: The answer supports it", None), ("3: maybe", None), ("support", None)])
def test_a_mark_line_is_read_in_its_tolerated_forms_only(line, read):
    assert llm_prompt.mark_read(line) == read


# --- autoais ---

class ScoredNLI(AutoAIS):
    """The autoais family with P(entailment) read from a table by (premise, hypothesis), through the task type's
    prompt as the real family reads it."""

    def __init__(self, table):
        self.table, self.seen = table, []

    def judge_batch(self, items, config, prompt=None):
        verdicts = []
        for item in items:
            why = prompt.unjudgeable(item)
            pair = (prompt.premise(item, config), prompt.hypothesis(item, config))
            self.seen.append(pair)
            score = self.table.get(pair[1])
            verdicts.append(Verdict.failure(why or "no score") if why or score is None else
                            Verdict(score=score, label="yes", raw=f"P(entailment) {score:.4f}; passage 9 tokens, "
                                                                  f"whole"))
        return verdicts


def test_autoais_marks_each_nugget_by_its_entailment_probability_at_the_thresholds():
    nuggets = _nuggets(4)
    table = {"fact number 1": 0.9, "fact number 2": 0.5, "fact number 3": 0.3, "fact number 4": 0.1}
    family = ScoredNLI(table)
    prompt = judging.judge_prompt("autoais")
    items = [_answer(1, nuggets, text="An answer."), _creation(2)]
    answer, creation = judging.nuggets_judge(family, items, _config("autoais"), prompt=prompt)
    assert family.seen[0] == ("An answer.", "fact number 1") and len(family.seen) == 4
    body = json.loads(answer.raw)
    assert body["marks"] == {"n1": "support", "n2": "support", "n3": "not_support", "n4": "not_support"}
    assert body["p"] == {"n1": 0.9, "n2": 0.5, "n3": 0.3, "n4": 0.1} and body["failed"] == {}
    assert answer.label == "ssnn"
    assert creation.failed and json.loads(creation.raw)["reason"].startswith(
        "the autoais family cannot write nuggets")

    [partial] = judging.nuggets_judge(family, [_answer(1, nuggets)], _config("autoais", support_at=0.8,
                                                                             partial_at=0.25), prompt=prompt)
    assert json.loads(partial.raw)["marks"] == {"n1": "support", "n2": "partial_support", "n3": "partial_support",
                                                "n4": "not_support"}
    [some] = judging.nuggets_judge(ScoredNLI({"fact number 1": 0.7}), [_answer(1, _nuggets(2))],
                                   _config("autoais"), prompt=prompt)
    assert (some.label, json.loads(some.raw)["failed"]) == ("s-", {"n2": "no score"})


def test_the_real_autoais_family_reads_the_answer_as_premise_and_the_nugget_as_hypothesis(
        tiny_bert_nli):  # noqa: F811
    family, prompt = family_get("autoais"), judging.judge_prompt("autoais")
    config = _config("autoais", model=tiny_bert_nli)
    nuggets = [{"id": "a", "text": "jane austen", "importance": "vital"},
               {"id": "b", "text": "charles dickens", "importance": "okay"}]
    [verdict] = judging.nuggets_judge(family, [_answer(1, nuggets, text="pride and prejudice is a novel by jane "
                                                                         "austen")], config, prompt=prompt)
    alone = family.judge_batch([ItemInput(item_id=9, topic_text="", gold_answers=[], text="pride and prejudice is a "
                                          "novel by jane austen", data={"nugget": "charles dickens"})], config,
                               prompt=prompt)
    body = json.loads(verdict.raw)
    assert body["p"]["b"] == round(alone[0].score, 6)
    assert all(body["marks"][k] == ("support" if body["p"][k] >= 0.5 else "not_support") for k in "ab")


# --- through the task layer ---

class NuggetBackend:
    """Writes two nuggets for any topic and marks an answer's first nugget support and the other not."""

    def generate(self, requests, decoding, on_sample):
        for request in requests:
            text = request.messages[-1]["content"]
            if "Passages:" in text:
                reply = "vital: The bridge opened in 1932\nokay: Stone was used"
            else:
                listed = text.split("Nuggets:\n", 1)[1].split("\n\n", 1)[0].splitlines()
                reply = "\n".join(f"{n}: {'support' if n == 1 else 'not'}" for n in range(1, len(listed) + 1))
            for index in request.sample_indices:
                on_sample(request.key, index, Generation(text=reply, prompt_tokens=30, completion_tokens=10))


def test_a_judge_writes_the_lists_that_are_frozen_then_marks_every_answer(
        researcher, annotator, eager, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=3)
    monkeypatch.setattr(LLMJudge, "backend", staticmethod(lambda config, counter=None, connection=None:
                                                          NuggetBackend()))
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="writer", family="llm", config={"n": 1, "decoding": "greedy"})
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    verdicts = ModelJudgment.objects.filter(judge=run.judge)
    created = verdicts.filter(item__kind=NUGGETS_KIND)
    assert sorted(created.values_list("label", "failed")) == [("nuggets", False)] * 2
    # The answers wait for a frozen list: failed, with why.
    waiting = verdicts.filter(item__kind=ANSWER_KIND)
    assert waiting.count() == 6 and all(v.failed and "no frozen nugget list" in v.raw for v in waiting)

    # The judge's lists are candidates on the Nuggets page, and freezing them opens the answers.
    assert all("judge:writer" in lists.candidates for lists in campaign_lists(campaign=campaign))
    assert lists_freeze(campaign=campaign, source="judge:writer")["frozen"] == 2
    with django_capture_on_commit_callbacks(execute=True):
        run, removed = judge_run_retry_failed(run=run)
    assert removed == 6
    marked = ModelJudgment.objects.filter(judge=run.judge, item__kind=ANSWER_KIND)
    assert sorted(marked.values_list("label", "failed")) == [("sn", False)] * 6
    one = marked.select_related("item__topic").first()
    assert json.loads(one.raw) == {"version": 1, "marks": {"n1": "support", "n2": "not_support"}, "failed": {},
                                   "votes": {"n1": {"support": 1}, "n2": {"not_support": 1}}}
    frozen = topic_list(one.item.topic.data)
    assert (frozen["source"], [n["id"] for n in frozen["nuggets"]]) == ("judge:writer", ["n1", "n2"])
    # One sample per creation item, one per answer's single batch: stored with the judge.
    assert LLMSample.objects.filter(judge=run.judge).count() == 2 + 6


# --- marking against a judge's list (nuggets_from "judge:<name>") ---

def test_nuggets_from_is_an_option_of_both_families_and_part_of_the_judges_identity():
    from judges.identity import config_hash

    assert _config()["nuggets_from"] == _config("autoais")["nuggets_from"] == "frozen"
    assert "nuggets_from" in family_options("llm", TYPE) and "nuggets_from" in family_options("autoais", TYPE)
    assert _config(nuggets_from="judge:writer")["nuggets_from"] == "judge:writer"
    assert _config("autoais", nuggets_from="judge:writer", support_at=0.7)["support_at"] == 0.7
    for family in ("llm", "autoais"):
        for bad in ("judge:", "writer", "judge: writer", "judge:" + "w" * 101, "Frozen"):
            with pytest.raises(JudgeConfigError, match=rf"{family}: nuggets_from must be \"frozen\" or \"judge:"):
                _config(family, nuggets_from=bad)
        with pytest.raises(JudgeConfigError, match="nuggets_from must be a string"):
            _config(family, nuggets_from=1)
    assert config_hash(family="llm", config=_config()) != config_hash(family="llm",
                                                                      config=_config(nuggets_from="judge:writer"))
    with pytest.raises(JudgeConfigError, match=r"unknown configuration key\(s\) nuggets_from"):
        family_config_validate("llm", {"nuggets_from": "frozen"}, task_type="qa_correctness")


WRITTEN = [{"id": "n1", "text": "The bridge opened in 1932", "importance": "vital"},
           {"id": "n2", "text": "Stone was used", "importance": "okay"},
           {"id": "n3", "text": "It was repaired in 1954", "importance": "vital"}]


def _writer_campaign(researcher, annotator):
    """Two topics without a frozen list, two runs; judge "writer" wrote t0's nuggets and failed on t1's."""
    from judges.models import Judge

    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=2)
    writer = Judge.objects.create(campaign=campaign, name="writer", family="llm", config_hash="w")
    nuggets = {item.topic.external_id: item for item in campaign.items.filter(kind=NUGGETS_KIND).select_related(
        "topic")}
    ModelJudgment.objects.create(judge=writer, item=nuggets["t0"], label="nuggets",
                                 raw=json.dumps({"nuggets": WRITTEN, "sample": 0}))
    ModelJudgment.objects.create(judge=writer, item=nuggets["t1"], failed=True, raw='{"reason": "no nugget"}')
    answers = list(campaign.items.filter(kind=ANSWER_KIND).select_related("topic").order_by("topic__external_id",
                                                                                         "id"))
    inputs = [ItemInput(item_id=item.pk, topic_text=item.topic.text, gold_answers=[], text=item.text,
                        data=item.data, topic_data=item.topic.data) for item in answers]
    return campaign, inputs


@pytest.mark.django_db
def test_an_answer_is_marked_against_the_list_a_judge_wrote_for_its_topic(
        researcher, annotator, django_assert_num_queries):
    campaign, inputs = _writer_campaign(researcher, annotator)
    first, second, third, fourth = inputs  # t0's two answers, then t1's
    backend = ScriptedBackendChats({(0, 0): "1: support\n2: partial\n3: not", (1, 0): "1: not\n3: support"})
    with django_assert_num_queries(1):  # the lists of the whole batch
        verdicts = judging.nuggets_judge(ScriptedLLM(backend), inputs, _config(nuggets_from="judge:writer"))
    marked, partly, failed, _ = verdicts
    # The chats list the judge's nuggets, not a frozen list (the topics have none).
    assert backend.chats[0][-1]["content"].split("Nuggets:\n")[1].startswith("1. The bridge opened in 1932\n2. Stone")
    body = json.loads(marked.raw)
    assert set(body) == {"list", "marks", "failed", "votes"} and body["list"] == "judge:writer"
    assert body["marks"] == {"n1": "support", "n2": "partial_support", "n3": "not_support"}
    assert (marked.failed, marked.label) == (False, "spn")
    assert json.loads(partly.raw)["failed"] == {"n2": "no readable line for it in 1 sample(s)"}
    assert partly.label == "n-s"
    # t1's list failed: its answers fail with why, and are not asked.
    assert failed.failed and json.loads(failed.raw)["reason"] == (
        "judge writer's nuggets for this topic failed (retry them, then retry the failed items)")
    assert len(backend.chats) == 2
    # Frozen (the default) they wait for a frozen list; a judge that is not there, or wrote nothing, says so.
    [waiting] = judging.nuggets_judge(ScriptedLLM(ScriptedBackend({})), [first], _config())
    assert "no frozen nugget list for round 1" in json.loads(waiting.raw)["reason"]
    [nobody] = judging.nuggets_judge(ScriptedLLM(ScriptedBackend({})), [first], _config(nuggets_from="judge:nobody"))
    assert json.loads(nobody.raw)["reason"] == "no judge named 'nobody' in this campaign (nuggets_from judge:nobody)"
    ModelJudgment.objects.filter(judge__name="writer", failed=True).delete()
    [unwritten] = judging.nuggets_judge(ScriptedLLM(ScriptedBackend({})), [third],
                                        _config(nuggets_from="judge:writer"))
    assert json.loads(unwritten.raw)["reason"].startswith("judge writer has written no nuggets for this topic yet")
    assert campaign.judges.count() == 1


@pytest.mark.django_db
def test_autoais_marks_against_a_judges_list(researcher, annotator):
    _, inputs = _writer_campaign(researcher, annotator)
    family = ScoredNLI({"The bridge opened in 1932": 0.9, "Stone was used": 0.2, "It was repaired in 1954": 0.6})
    verdicts = judging.nuggets_judge(family, inputs[:1] + inputs[2:3], _config("autoais", nuggets_from="judge:writer"),
                                     prompt=judging.judge_prompt("autoais"))
    body = json.loads(verdicts[0].raw)
    assert (body["list"], body["marks"], verdicts[0].label) == (
        "judge:writer", {"n1": "support", "n2": "not_support", "n3": "support"}, "sns")
    assert "version" not in body and body["p"] == {"n1": 0.9, "n2": 0.2, "n3": 0.6}
    assert verdicts[1].failed and len(family.seen) == 3


def test_one_judge_writes_the_lists_and_marks_against_them_and_a_second_marks_against_them_too(
        researcher, annotator, eager, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    """The fully automatic condition: no list frozen; judge auto writes each topic's nuggets and, once they are
    written (retry failed items), marks every answer against them; judge marker (another configuration) marks
    against auto's lists as well."""
    campaign = nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=2, runs=3)
    monkeypatch.setattr(LLMJudge, "backend", staticmethod(lambda config, counter=None, connection=None:
                                                          NuggetBackend()))
    config = {"n": 1, "decoding": "greedy", "nuggets_from": "judge:auto"}
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="auto", family="llm", config=config, batch_size=4)
    created = ModelJudgment.objects.filter(judge=run.judge, item__kind=NUGGETS_KIND)
    assert sorted(created.values_list("label", "failed")) == [("nuggets", False)] * 2
    # Answers judged before their topic's list was written wait for it, with why.
    waiting = ModelJudgment.objects.filter(judge=run.judge, item__kind=ANSWER_KIND, failed=True)
    assert waiting.count() == 6 and all("judge auto has written no nuggets for this topic yet" in v.raw
                                        for v in waiting)
    with django_capture_on_commit_callbacks(execute=True):
        run, _ = judge_run_retry_failed(run=run)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    marked = ModelJudgment.objects.filter(judge=run.judge, item__kind=ANSWER_KIND)
    assert sorted(marked.values_list("label", "failed")) == [("sn", False)] * 6
    assert json.loads(marked.first().raw) == {"list": "judge:auto", "marks": {"n1": "support", "n2": "not_support"},
                                              "failed": {}, "votes": {"n1": {"support": 1}, "n2": {"not_support": 1}}}
    assert all(topic_list(topic.data) is None for topic in campaign.topics.all())  # nothing was frozen

    with django_capture_on_commit_callbacks(execute=True):
        second = judge_run_start(campaign=campaign, name="marker", family="llm",
                                 config={**config, "nugget_batch": 5})
    second.refresh_from_db()
    assert second.status == RunStatus.SUCCEEDED
    assert sorted(ModelJudgment.objects.filter(judge=second.judge).values_list("item__kind", "label", "failed")) == (
        [("answer", "sn", False)] * 6 + [("nuggets", "nuggets", False)] * 2)
