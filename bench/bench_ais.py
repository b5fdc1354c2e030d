"""Benchmark of the ais task type: the Attributed QA import, the report on it, and AutoAIS throughput.

1. Import: a synthetic ratings.csv of the public file's shape (23 systems x 3,610 questions = 83,030 rows,
   about 28 % rated; passages of about 90 words, ~70 MB) through `import_data --format attributed-qa`, in a
   child process so its peak memory (ru_maxrss) is the import's own. Then the agreement report on it.
   SQLite in a temp folder unless DATABASE_URL is set.
2. AutoAIS pairs per second, seq2seq NLI (P of force-decoding "1") at t5-small's and t5-base's sizes (random
   weights, built here: no checkpoint can be downloaded), batched and one pair at a time; passages of ~90
   words; cpu unless --device cuda.

    .venv/bin/python bench/bench_ais.py [--questions N] [--pairs N] [--device cuda] [--skip-import]
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

SYSTEMS = 23


def _child_import(csv_path: str) -> None:
    """In the child: migrate, import, build the report; print one JSON line of figures."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from agreement.report import agreement_report_build
    from annotate.models import Campaign
    from interchange.importers.service import import_data_run

    started = time.perf_counter()
    summary = import_data_run(slug="aqa-bench", task_type="ais", fmt="attributed-qa", paths=[Path(csv_path)])
    import_s = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    report = agreement_report_build(campaign=Campaign.objects.get(slug="aqa-bench"))
    report_s = time.perf_counter() - started
    judge = report["judges"]["auto-ais"]
    print(json.dumps({"rows": summary.count("rows_read"), "rated": summary.count("rated_rows"),
                      "items": summary.items_created,
                      "import_s": import_s, "peak_mib": peak_kib / 1024, "report_s": report_s,
                      "kappa": judge["item"]["cohen_kappa"], "pearson": judge["system"]["pearson"]}))


def bench_import(questions: int) -> None:
    from tests.ais_synthetic import ais_csv_stream

    with tempfile.TemporaryDirectory() as tmp:
        csv_path = ais_csv_stream(Path(tmp) / "ratings.csv", systems=SYSTEMS, questions=questions)
        size_mb = csv_path.stat().st_size / 1e6
        env = dict(os.environ)
        env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        env["CONCORD_TEST_DB"] = f"{tmp}/bench.sqlite3"
        database = env["DATABASE_URL"].split(":", 1)[0]
        baseline = subprocess.run([sys.executable, "-c", "import django, os; os.environ.setdefault("
                                   "'DJANGO_SETTINGS_MODULE', 'config.settings.test'); django.setup(); "
                                   "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                                  cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        out = subprocess.run([sys.executable, __file__, "--child-import", str(csv_path)], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True)
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        base_mib = int(baseline.stdout.strip()) / 1024
        print(f"== Attributed QA import ({database}): {figures['rows']:,} rows, {size_mb:.1f} MB, "
              f"{figures['rated']:,} rated")
        print(f"import {figures['import_s']:.1f} s ({figures['rows'] / figures['import_s']:,.0f} rows/s); "
              f"peak memory {figures['peak_mib']:.0f} MiB (Django alone {base_mib:.0f} MiB)")
        print(f"report on {figures['items']:,} items: {figures['report_s']:.2f} s "
              f"(auto-ais kappa {figures['kappa']:.3f}, system pearson {figures['pearson']:.3f})")


def _t5_nli(folder: Path, *, size: str, words: list[str]) -> str:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    from tests.tiny_models import word_tokenizer

    tokenizer, vocab = word_tokenizer(words, pair_template="t5")
    dims = {"t5-small": dict(d_model=512, d_ff=2048, d_kv=64, num_layers=6, num_heads=8),
            "t5-base": dict(d_model=768, d_ff=3072, d_kv=64, num_layers=12, num_heads=12)}[size]
    torch.manual_seed(0)
    config = T5Config(vocab_size=32128, pad_token_id=vocab["[PAD]"], eos_token_id=vocab["</s>"],
                      decoder_start_token_id=vocab["[PAD]"], **dims)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def _bare(model: str, items: list, config: dict, family_seconds: float) -> None:
    """The same pairs through the bare forward pass, tokenised beforehand: what the family adds on top."""
    import torch

    from judges.families.hf import model_cached
    from judges.templates import template_fill

    tokenizer, network, _ = model_cached("autoais", model, config["device"], None)
    size = config["batch_size"]
    texts = [template_fill(config["seq2seq_prompt"], premise=item.data["passage"], hypothesis=template_fill(
        config["template"], question=item.topic_text, answer=item.text)) for item in items]
    batches = [tokenizer(texts[s:s + size], padding=True, truncation=True, max_length=config["max_length"],
                         return_tensors="pt").to(network.device) for s in range(0, len(texts), size)]
    tokens = sum(int(b["attention_mask"].sum()) for b in batches) / len(texts)
    if config["device"].startswith("cuda"):
        torch.cuda.synchronize()
    started = time.perf_counter()
    with torch.inference_mode():
        for enc in batches:
            network(**enc, decoder_input_ids=torch.zeros((enc["input_ids"].shape[0], 1), dtype=torch.long,
                                                         device=network.device))
    if config["device"].startswith("cuda"):
        torch.cuda.synchronize()
    bare = time.perf_counter() - started
    print(f"{'':<9} bare forward pass: {len(texts) / bare:7.1f} pairs/s ({tokens:.0f} tokens per pair); "
          f"the family adds {100 * (family_seconds - bare) / bare:+.1f} %")


def bench_autoais(pairs: int, device: str) -> None:
    import torch

    from judges.families import ItemInput, family_get, family_prompt
    from tests.ais_synthetic import ais_rows

    rows = ais_rows(systems=1, questions=pairs, seed=3)
    words = sorted({w for row in rows for w in (row["question"] + " " + row["answer"] + " " + row["passage"]).split()}
                   | set("the answer to question is ' premise : hypothesis 1 0".split()))
    items = [ItemInput(item_id=n, topic_text=row["question"], gold_answers=[], text=row["answer"],
                       data={"passage": row["passage"]}) for n, row in enumerate(rows)]
    where = (
        torch.cuda.get_device_name(device) if device.startswith("cuda") else f"CPU, {torch.get_num_threads()} threads"
    )
    print(f"== AutoAIS (seq2seq NLI, random weights) on {where}, torch {torch.__version__}; "
          f"passages ~{len(rows[0]['passage'].split())} words")
    family = family_get("autoais")
    prompt = family_prompt("autoais", "ais")  # ais's premise and hypothesis
    for size, n in (("t5-small", pairs), ("t5-base", max(8, pairs // 2))):
        with tempfile.TemporaryDirectory() as tmp:
            model = _t5_nli(Path(tmp), size=size, words=words)
            for batch_size in (16, 1):
                config = family.validate_config({"model": model, "batch_size": batch_size, "device": device},
                                                prompt=prompt)
                family.judge_batch(items[:2], config, prompt=prompt)  # load, warm up
                subset = items[:n] if batch_size > 1 else items[:max(4, n // 4)]
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                started = time.perf_counter()
                if batch_size > 1:
                    family.judge_batch(subset, config, prompt=prompt)
                else:
                    for item in subset:
                        family.judge_batch([item], config, prompt=prompt)
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                seconds = time.perf_counter() - started
                print(f"{size:<9} batch {batch_size:>2}: {len(subset) / seconds:7.1f} pairs/s "
                      f"({len(subset)} pairs in {seconds:.2f} s)")
                if batch_size > 1:
                    _bare(model, items[:n], config, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=3610, help="questions (x 23 systems = rows)")
    parser.add_argument("--pairs", type=int, default=64, help="pairs per AutoAIS measurement")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--child-import", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_import:
        _child_import(args.child_import)
        return
    if not args.skip_import:
        bench_import(args.questions)
    import django

    django.setup()
    random.seed(0)
    bench_autoais(args.pairs, args.device)


if __name__ == "__main__":
    main()
