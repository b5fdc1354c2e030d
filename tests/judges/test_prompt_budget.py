"""Every rendered prompt has a budget (issue 48, item 1): a configuration whose prompt can exceed it is refused when
saved, with its worst case and the placeholder that makes it; filling refuses it again, measured before anything is
built; a batch of long prompts reaches the backend in parts."""

import json
import re
import tracemalloc

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotate.task_types.registry import task_types
from judges.errors import JudgeConfigError
from judges.families import (
    FAMILIES,
    ItemInput,
    family_config_validate,
    family_options,
    family_prompt,
)
from judges.families.llm import LLMJudge
from judges.llm.backend import Generation, Request, generate_in_parts, request_bytes
from judges.models import Judge
from judges.templates import PromptTooLarge, template_fill, template_names

# The finding: {query}{scale} and then {passage} 11,108 times, under the 100,000 characters of a text option.
# Every family on every task type that names it (a family's options include its task type's prompt's).
FAMILY_TYPES = sorted({(family, spec.name) for spec in task_types() for family in spec.judge_families})
# The task type whose campaigns the cases below configure each family for.
TASK_TYPES = {"autoais": "ais", "llm": "qa_correctness", "vlm": "image_relevance"}
# The prompt of the llm judges below: qa_correctness's.
PROMPT = family_prompt("llm", "qa_correctness")
ISSUE_TEMPLATE = "{query}{scale}" + "{passage}" * 11_108
# The same multiplication in qa_correctness's template.
REPEATED = "{question} {gold_answers}" + "{candidate}" * 8_000
WORST = ("llm: the prompt of an answer (template) can reach 3,20", "on the largest allowed fields: {candidate} is "
         "shown 40,000 times (template in the worked examples: 32,000 × up to 60 characters; template: 8,000 × up to "
         "100,000 characters); a prompt may take at most 2,000,000 bytes and 500,000 tokens on this installation "
         "(JUDGE_LIMITS prompt_bytes and prompt_tokens")


def _says_worst_case(message: str) -> bool:
    return message.startswith(WORST[0]) and WORST[1] in message


@pytest.mark.django_db
def test_a_repeated_placeholder_template_is_refused_when_saved_with_its_worst_case(qa_campaign, researcher, client,
                                                                                    password):
    """The API, the run_judge command and the judge panel's form all go through the family's check: the same refusal,
    with the worst case in bytes and the placeholder, and no judge is made."""
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.post(f"/api/campaigns/{qa_campaign.slug}/judge-runs/",
                        {"judge": "many", "family": "llm", "config": {"template": REPEATED}}, format="json")
    assert response.status_code == 400, response.content
    assert _says_worst_case(response.json()["detail"]), response.json()

    with pytest.raises(CommandError) as refused:
        call_command("run_judge", "--campaign", qa_campaign.slug, "--judge", "many", "--family", "llm",
                     "--config", json.dumps({"template": REPEATED}))
    assert _says_worst_case(str(refused.value)), str(refused.value)

    client.login(username=researcher.username, password=password)
    page = client.post(f"/campaigns/{qa_campaign.slug}/judges/", {
        "name": "many", "family": "llm", "config_json": json.dumps({"template": REPEATED})})
    assert page.status_code == 400
    text = re.sub(r"\s+", " ", page.content.decode()).replace("&#x27;", "'")
    assert "can reach 3,20" in text and "template: 8,000 × up to 100,000 characters" in text
    assert not Judge.objects.exists()


def test_the_issues_relevance_template_is_refused_and_each_family_names_its_multiplied_placeholder():
    cases = [
        ("llm", {"relevance_template": ISSUE_TEMPLATE},
         "{passage} is shown 11,108 times (relevance_template: 11,108 × up to 100,000 characters)"),
        ("autoais", {"template": "{question}" * 8 + "{answer}"},
         "{question} is shown 8 times (template: 8 × up to 100,000"),
        ("autoais", {"seq2seq_prompt": "{premise} {hypothesis}" * 3},
         "{hypothesis} is shown 3 times (seq2seq_prompt: 3 × up to 200,035"),
        # The vlm's fields are cut at field_max_chars: counted at that, across the prompt's three parts.
        ("vlm", {"field_max_chars": 100_000, "relevance_instruction": "About {page_title}."},
         "{page_title} is shown 2 times (context_template: 1 × up to 100,000 characters; relevance_instruction: 1 × "
         "up to 100,000 characters)"),
    ]
    for family, config, named in cases:
        with pytest.raises(JudgeConfigError) as refused:
            family_config_validate(family, config, task_type=TASK_TYPES[family])
        assert named in str(refused.value), (family, str(refused.value))
    # No "0 means no limit" any more.
    with pytest.raises(JudgeConfigError, match="field_max_chars must be at least 1 character"):
        FAMILIES["vlm"].validate_config({"field_max_chars": 0})


@pytest.mark.parametrize(("name", "task_type"), FAMILY_TYPES)
def test_every_template_of_every_family_counts_in_a_prompt_bound(name, task_type):
    """Walks the registry: every placeholder of every template option is counted in one of the family's prompt bounds,
    so a template added later cannot multiply unseen; every family's defaults fit the budget."""
    family, options, prompt = FAMILIES[name], family_options(name, task_type), family_prompt(name, task_type)
    config = family_config_validate(name, {}, task_type=task_type)
    bounds = (prompt.all_bounds(config) if prompt else []) + family.prompt_bounds(config, options, prompt)
    counted = {(option, placeholder) for bound in bounds for placeholder, shown in bound.fields.items()
               for option in shown}
    for key, option in options.items():
        if option.placeholders and isinstance(config[key], str):
            assert {(key, p) for p in template_names(config[key])} <= counted, (key, counted)
    for bound in bounds:
        bound.check()


def test_filling_refuses_a_prompt_over_the_budget_before_building_it():
    """The same bound at run time, for a template that reached a worker unchecked: measured from the values' sizes,
    refused before anything is joined (the issue's one 90,000-character passage made 999,710,372 bytes)."""
    passage = "x" * 90_000
    tracemalloc.start()
    try:
        with pytest.raises(PromptTooLarge, match="the prompt would take 999,"):
            template_fill(ISSUE_TEMPLATE, query="q", scale="0 (no)", passage=passage)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, f"refusing allocated {peak / 1e6:.1f} MB"
    # Non-ASCII text counts at its UTF-8 width: 600,000 characters of 4 bytes.
    with pytest.raises(PromptTooLarge, match="2,400,000 bytes"):
        template_fill("{a}", a="\U0001F600" * 600_000)
    assert template_fill("{a}{a}", a="é" * 10) == "é" * 20


class _Recording:
    """A backend that answers "yes" and records the size of each generate() call's prompts."""

    calls: list[list[int]] = []

    def __init__(self, config, counter=None, connection=None):
        pass

    def generate(self, requests, decoding, on_sample):
        type(self).calls.append([request.key for request in requests])
        for request in requests:
            for index in request.sample_indices:
                on_sample(request.key, index, Generation(text="It matches.\nyes"))


def _item(item_id: int, candidate: str) -> ItemInput:
    return ItemInput(item_id=item_id, topic_text="who wrote it", gold_answers=["someone"], text=candidate)


def test_an_item_whose_prompt_is_over_the_budget_fails_alone(monkeypatch, settings):
    """Data longer than the configuration was checked for (the budget lowered since, a list of gold answers): the
    item fails with the reason, before its prompt is built; the others are judged."""
    config = LLMJudge().validate_config({"n": 1, "decoding": "greedy", "examples": []}, prompt=PROMPT)
    monkeypatch.setattr(LLMJudge, "backend", staticmethod(_Recording))
    _Recording.calls = []
    settings.JUDGE_LIMITS = {"prompt_bytes": 20_000}
    verdicts = LLMJudge().judge_batch([_item(1, "short"), _item(2, "long " * 5_000)], config, prompt=PROMPT)
    assert verdicts[0].label == "yes"
    assert verdicts[1].failed and "the prompt would take 25,088 bytes" in json.loads(verdicts[1].raw)["reason"]
    assert _Recording.calls == [[1]]


def test_a_batch_of_long_prompts_reaches_the_backend_in_parts(monkeypatch):
    """Prompts are built as the backend's parts ask for them, each part at most held_bytes of prompt text."""
    built = []

    def requests():
        for key in range(10):
            built.append(key)
            yield Request(key=key, messages=[{"role": "user", "content": "x" * 1_000}], sample_indices=(0,))

    parts = []

    class Backend:
        def generate(self, part, decoding, on_sample):
            parts.append(([r.key for r in part], sum(request_bytes(r) for r in part), len(built)))

    generate_in_parts(Backend, requests(), None, None, held_bytes=3_000)
    assert [keys for keys, _, _ in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert all(size <= 3_000 for _, size, _ in parts)
    # Each part was sent before the next one's prompts were built (one request ahead, which closed the part).
    assert [seen for _, _, seen in parts] == [4, 7, 10, 10]
    generate_in_parts(lambda: pytest.fail("no part, no backend"), iter(()), None, None)


def test_long_prompts_over_http_hold_a_bounded_number_of_bodies_at_once(monkeypatch):
    """Up to `concurrency` requests are in flight while their bodies (estimated at 6 bytes of JSON a byte of prompt)
    fit IN_FLIGHT_BYTES: 8 prompts of 10,000 characters with room for two bodies are sent two at a time, every one
    answered; short prompts keep the whole concurrency."""
    from judges.llm import http_backend
    from judges.llm.backend import Connection, Decoding
    from tests.llm_server import answer, chat_server

    monkeypatch.setattr(http_backend, "IN_FLIGHT_BYTES", 2 * 6 * 10_100)
    with chat_server() as server:
        server.script(*[answer(delay=0.1) for _ in range(16)])
        backend = http_backend.HttpBackend({"model": "m", "concurrency": 8, "max_retries": 0},
                                           connection=Connection(base_url=server.base_url))
        got = []
        long = [Request(key=k, messages=[{"role": "user", "content": f"{k} " + "x" * 10_000}], sample_indices=(0,))
                for k in range(8)]
        backend.generate(long, Decoding(strategy="greedy"), lambda key, index, generation: got.append(key))
        assert sorted(got) == list(range(8)) and server.max_in_flight == 2
        server.max_in_flight = 0
        short = [Request(key=k, messages=[{"role": "user", "content": f"item {k}"}], sample_indices=(0,))
                 for k in range(8)]
        backend.generate(short, Decoding(strategy="greedy"), lambda key, index, generation: got.append(key))
        assert server.max_in_flight > 2


@pytest.fixture(scope="module")
def byte_level_llama(tmp_path_factory):
    """A tiny causal model (2,048 positions) with a byte-level BPE tokenizer, as GPT-2, Llama 3 and SmolLM2 have."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("byte-level-llama")
    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(["who wrote it? someone wrote it. yes no"] * 20, vocab_size=300,
                                special_tokens=["<pad>", "</s>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, pad_token="<pad>", eos_token="</s>")
    tokenizer.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                               "{% if add_generation_prompt %}assistant:{% endif %}")
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_a_local_prompt_past_the_context_is_refused_before_it_is_tokenized(byte_level_llama, monkeypatch):
    """A byte-level tokenizer's token stands for at most its longest entry's bytes: a prompt with more bytes than the
    context times that is refused without being tokenized (the tokenizer reads a text whole: 64 prompts of 400,000
    4-byte characters took a worker 496 MB more); a shorter one is tokenized as before."""
    from judges.llm import hf_backend

    config = LLMJudge().validate_config({"model": byte_level_llama, "n": 1, "decoding": "greedy", "examples": [],
                                         "max_new_tokens": 2}, prompt=PROMPT)
    tokenized = []
    length = hf_backend.HfBackend.prompt_length
    monkeypatch.setattr(hf_backend.HfBackend, "prompt_length",
                        lambda self, request, text: tokenized.append(request.key) or length(self, request, text))
    long, short = _item(2, "\U0001F600" * 50_000), _item(1, "someone")
    verdicts = LLMJudge().judge_batch([short, long], config, prompt=PROMPT)
    reason = json.loads(verdicts[1].raw)["reason"]
    assert "the prompt has at least" in reason and "exceeds the model's context of 2048 tokens" in reason, reason
    assert tokenized == [1]
    assert "context" not in verdicts[0].raw
