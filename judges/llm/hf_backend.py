"""The `llm` family's transformers backend: a local checkpoint, batched `generate()` on CPU or GPU.

Models load by name (local Hugging Face cache only) or local folder, never downloaded (docs/design.md §2),
once per worker process (judges.families.hf.model_cached). A `gguf_file` inside the folder loads a GGUF
checkpoint through transformers, dequantised to float32 (needs the gguf and accelerate packages).

Two kinds of model: seq2seq (FLAN-T5 and the like), which read the chat flattened to one text; and
causal chat models, which read it through their tokenizer's chat template (flattened too when they have
none). `architecture` "auto" tells them apart by the checkpoint's `is_encoder_decoder`.

Decoding: greedy (one sample); beam (sample i is the i-th best of `num_beams` beams); sample (sample i
is drawn after `torch.manual_seed(seed + i)`, one generate() call per sample index over a batch of
prompts). With batch_size 1 a sampled sample i depends only on its prompt and seed + i; in larger
batches it also depends on the other prompts of the batch, since the rows share one random stream.

Batches (judges.families.batching): each prompt is tokenized once, and the prompts of one generate() call are
taken longest first, at most `batch_size` of them and at most `max_batch_tokens` tokens, counted as rows x (the
longest prompt + max_new_tokens), what the call holds at its end; a prompt over that budget goes alone. Prompts
of similar length share a call, so little is padded; which prompts share one depends only on the prompts, the
two options and max_new_tokens, so a sampled run is as reproducible as before.
"""

import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.boundary import model_location
from judges.errors import JudgeConfigError
from judges.families.batching import DEFAULT_MAX_TOKENS, length_batches, pad_batch, pass_timed
from judges.families.hf import model_cached, torch_device
from judges.llm.backend import Decoding, Generation, OnSample, Request, TokenCount
from judges.llm.packaged import PACKAGED_SMOLLM2, model_path
from judges.llm.prompts import message_text, messages_flatten

FAMILY = "llm"
ARCHITECTURES = ("auto", "seq2seq", "causal")


@dataclass(frozen=True)
class _Model:
    tokenizer: Any
    network: Any
    seq2seq: bool
    chat: bool  # a causal model whose tokenizer has a chat template
    eos_ids: frozenset[int]
    context: int | None  # prompt + new tokens the model can attend to; None when unbounded (T5)


def _load(model: str, device: str, *, gguf_file: str, architecture: str) -> _Model:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    kwargs: dict[str, Any] = {"local_files_only": True}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    try:
        config = AutoConfig.from_pretrained(model, **kwargs)
        seq2seq = bool(config.is_encoder_decoder) if architecture == "auto" else architecture == "seq2seq"
        tokenizer = AutoTokenizer.from_pretrained(model, **kwargs)
        auto = AutoModelForSeq2SeqLM if seq2seq else AutoModelForCausalLM
        network = auto.from_pretrained(model, config=config, **kwargs).to(device).eval()
    except ImportError as exc:
        raise JudgeConfigError(f"{FAMILY}: loading {model!r} needs a package this worker lacks: {exc}") from exc
    except NotImplementedError as exc:  # transformers cannot read this GGUF architecture
        raise JudgeConfigError(f"{FAMILY}: transformers cannot load {model!r} ({gguf_file}): {exc}") from exc
    if not seq2seq:
        tokenizer.padding_side = "left"  # batched generation continues every row from its last real token
    eos_ids = eos_ids_prepare(FAMILY, model, tokenizer, network)
    context = None if seq2seq else getattr(network.config, "max_position_embeddings", None)
    chat = not seq2seq and bool(getattr(tokenizer, "chat_template", None))
    return _Model(tokenizer=tokenizer, network=network, seq2seq=seq2seq, chat=chat, eos_ids=eos_ids, context=context)


# id(tokenizer) -> the most UTF-8 bytes one of its tokens stands for, 0 where no such bound holds (tokens_at_least).
_MOST_BYTES: dict[int, int] = {}


def tokens_at_least(tokenizer: Any, text: str) -> tuple[int, int, int]:
    """(a floor of the tokens TEXT takes, its UTF-8 bytes, the most bytes a token stands for), without tokenizing it:
    for a byte-level BPE tokenizer with no normalizer, every token stands for at most as many bytes of the text as its
    longest vocabulary entry has; for any other tokenizer (an unknown-word token, a normalizer that may shorten the
    text) no floor holds and it is 0."""
    key = id(tokenizer)
    if key not in _MOST_BYTES:
        _MOST_BYTES[key] = _most_bytes_per_token(tokenizer)
    most = _MOST_BYTES[key]
    if not most:
        return 0, 0, 0
    size = len(text.encode("utf-8"))
    return -(-size // most), size, most


def _most_bytes_per_token(tokenizer: Any) -> int:
    import json

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return 0
    try:
        spec = json.loads(backend.to_str())
    except (ValueError, TypeError, AttributeError):
        return 0
    model = spec.get("model") or {}
    byte_level = bool(model.get("byte_fallback")) or "ByteLevel" in json.dumps(spec.get("pre_tokenizer"))
    if model.get("type") != "BPE" or not byte_level or spec.get("normalizer") is not None:
        return 0
    # A byte-level entry writes each byte as one character of at most 2 UTF-8 bytes; a fallback entry as <0xNN>: the
    # entry's own UTF-8 length is at least the bytes it stands for.
    return max((len(token.encode("utf-8")) for token in tokenizer.get_vocab()), default=0)


def eos_ids_prepare(family: str, model: str, tokenizer: Any, network: Any) -> frozenset[int]:
    """The end-of-sequence token ids of NETWORK; gives TOKENIZER its end-of-sequence token as padding
    when it has no pad token (padding is masked out, so which token pads does not matter)."""
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise JudgeConfigError(f"{family}: the tokenizer of {model!r} has no pad and no end-of-sequence token")
        tokenizer.pad_token = tokenizer.eos_token
    eos = network.generation_config.eos_token_id
    if eos is None:
        eos = tokenizer.eos_token_id
    return frozenset([eos] if isinstance(eos, int) else (eos or []))


def gguf_only(model: str) -> str:
    """The name of the one .gguf file in folder MODEL when it has no config.json (a GGUF-only folder); else ""."""
    folder = Path(model)
    if not folder.is_dir() or (folder / "config.json").exists():
        return ""
    found = sorted(p.name for p in folder.glob("*.gguf"))
    return found[0] if len(found) == 1 else ""


def model_load(config: dict) -> _Model:
    """The judge's model, loaded once per process for each (model, gguf_file, architecture, device)."""
    device = torch_device(FAMILY, config.get("device", "cpu"))
    name = config["model"]
    # The packaged GGUF's folder lies in site-packages; any other model loads where judges.boundary allows.
    model = model_path(name) if name == PACKAGED_SMOLLM2 else model_location(FAMILY, name)
    gguf_file = config.get("gguf_file", "") or gguf_only(model)
    architecture = config.get("architecture", "auto")
    if architecture not in ARCHITECTURES:
        raise JudgeConfigError(
            f"{FAMILY}: architecture must be one of {', '.join(ARCHITECTURES)}, not {architecture!r}"
        )
    # The cache key holds the loading options too: one folder may hold several GGUF files.
    extras = [f"gguf_file {gguf_file}"] * bool(gguf_file) + [f"architecture {architecture}"] * (architecture != "auto")
    tag = f"{FAMILY} ({', '.join(extras)})" if extras else FAMILY
    load = functools.partial(_load, gguf_file=gguf_file, architecture=architecture)
    return model_cached(tag, model, device, load, located=True)


class HfBackend:
    """Backend (judges.llm.backend) over a transformers model. CONFIG is the llm judge's validated config;
    COUNTER, when given, receives the prompt and completion tokens of every sample.

    Subclasses for other kinds of model (judges.llm.hf_vision_backend) set `family` (the prefix of their
    messages) and override `prompt`, `prompt_length` and `encode`; batching, decoding and counting are shared.
    """

    family = FAMILY
    # Tokens per generate() call (judges.families.batching); None: rows are cut by batch_size alone.
    max_batch_tokens: int | None = None

    def __init__(self, config: dict, counter: TokenCount | None = None) -> None:
        self.batch_size = int(config.get("batch_size", 8))
        self.max_batch_tokens = int(config.get("max_batch_tokens", DEFAULT_MAX_TOKENS))
        self.counter = counter
        self.model = model_load(config)
        self._ids: dict[int, list[int]] = {}  # request key -> its prompt's token ids, during one generate()

    def prompt(self, request: Request) -> str:
        """The text the model reads for REQUEST: chat template applied, or the chat flattened."""
        messages = [{"role": m["role"], "content": message_text(m)} for m in request.messages]
        if not self.model.chat:
            return messages_flatten(messages)
        tokenizer = self.model.tokenizer
        try:
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except Exception as exc:  # noqa: BLE001 - jinja raises its own errors for templates that refuse a role
            if messages[0]["role"] != "system" or len(messages) < 2:
                raise JudgeConfigError(f"{self.family}: the model's chat template refused the prompt: {exc}") from exc
        # Some templates (Gemma's) have no system role: the instruction opens the first user turn instead.
        merged = [{"role": "user", "content": f"{messages[0]['content']}\n\n{messages[1]['content']}"}, *messages[2:]]
        try:
            return tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)
        except Exception as exc:  # noqa: BLE001
            raise JudgeConfigError(f"{self.family}: the model's chat template refused the prompt: {exc}") from exc

    def prompt_length(self, request: Request, text: str) -> int:
        """How many tokens the model reads for REQUEST, whose prompt is TEXT (its ids are kept for encode)."""
        ids = self._tokens(text)
        self._ids[request.key] = ids
        return len(ids)

    def _tokens(self, text: str) -> list[int]:
        # A chat template writes its own special tokens.
        return self.model.tokenizer(text, add_special_tokens=not self.model.chat).input_ids

    def encode(self, rows: list[Request], texts: list[str]) -> dict:
        """The model inputs of one batch (input_ids and attention_mask at least), padded on the tokenizer's side:
        the ids prompt_length tokenized, padded here, not tokenized again."""
        ids = [self._ids[row.key] if row.key in self._ids else self._tokens(text) for row, text in zip(rows, texts)]
        # Only these two: some tokenizers add token_type_ids, which causal models' generate() refuses.
        return pad_batch(self.model.tokenizer, {"input_ids": ids}, range(len(ids)))

    def generate(self, requests: list[Request], decoding: Decoding, on_sample: OnSample) -> None:
        if decoding.strategy not in ("greedy", "beam", "sample"):
            raise JudgeConfigError(f"{self.family}: unknown decoding strategy {decoding.strategy!r}")
        try:
            self._generate(requests, decoding, on_sample)
        finally:
            self._ids = {}

    def _generate(self, requests: list[Request], decoding: Decoding, on_sample: OnSample) -> None:
        prompts: dict[int, str] = {}
        lengths: dict[int, int] = {}
        runnable: list[Request] = []
        for request in requests:
            text = self.prompt(request)
            context = self.model.context
            floor, size, most = tokens_at_least(self.model.tokenizer, text)
            if context is not None and floor + decoding.max_new_tokens > context:
                # Past the context whatever the tokenizer makes of it: not tokenized (the tokenizer reads a text whole,
                # and 64 prompts of 400,000 4-byte characters took a worker 496 MB more).
                error = (f"the prompt has at least {floor} tokens ({size:,} bytes, at most {most} a token); with "
                         f"max_new_tokens {decoding.max_new_tokens} it exceeds the model's context of {context} tokens")
                for index in request.sample_indices:
                    self._deliver(on_sample, request.key, index, Generation(text="", error=error))
                continue
            length = self.prompt_length(request, text)
            if context is not None and length + decoding.max_new_tokens > context:
                error = (f"the prompt has {length} tokens; with max_new_tokens {decoding.max_new_tokens} it "
                         f"exceeds the model's context of {context} tokens")
                for index in request.sample_indices:
                    self._deliver(on_sample, request.key, index, Generation(text="", prompt_tokens=length, error=error))
                continue
            prompts[request.key], lengths[request.key] = text, length
            runnable.append(request)
        for rows, indices, count, seed in self._jobs(runnable, decoding, lengths):
            self._batch(rows, [prompts[r.key] for r in rows], indices, count, seed, decoding, on_sample)

    def _jobs(self, requests: list[Request], decoding: Decoding, lengths: dict[int, int]):
        """(requests, the sample index each of count outputs per request stands for, count, seed) per generate().

        Prompts of similar length share a call (less padding to compute), cut by batch_size and the token budget.
        """
        def cut(rows: list[Request]) -> list[list[Request]]:
            sizes = [lengths[r.key] + decoding.max_new_tokens for r in rows]
            budget = self.max_batch_tokens or max(1, self.batch_size * max(sizes, default=1))
            return [[rows[i] for i in batch] for batch in length_batches(sizes, max_items=self.batch_size,
                                                                          max_tokens=budget)]

        if decoding.strategy == "sample":
            for index in sorted({i for r in requests for i in r.sample_indices}):
                for batch in cut([r for r in requests if index in r.sample_indices]):
                    yield batch, (index,), 1, decoding.seed + index
            return
        # greedy: index 0 only; beam: the best `count` beams, where output k is sample index k, and only the
        # missing indices are delivered. Requests asking for as many beams share a batch.
        by_count: dict[int, list[Request]] = {}
        for request in requests:
            by_count.setdefault(max(request.sample_indices) + 1, []).append(request)
        for count, rows in sorted(by_count.items()):
            for batch in cut(rows):
                yield batch, tuple(range(count)), count, None

    def _batch(self, rows: list[Request], texts: list[str], indices: tuple[int, ...], count: int, seed: int | None,
               decoding: Decoding, on_sample: OnSample) -> None:
        import torch

        model = self.model
        encoded = self.encode(rows, texts)
        prompt_tokens = encoded["attention_mask"].sum(dim=1).tolist()
        inputs = {name: value.to(model.network.device) for name, value in encoded.items()}
        input_ids = inputs["input_ids"]
        kwargs: dict[str, Any] = {"max_new_tokens": decoding.max_new_tokens, "num_return_sequences": count,
                                  "pad_token_id": model.tokenizer.pad_token_id}
        if decoding.strategy == "sample":
            kwargs.update(do_sample=True, num_beams=1, temperature=decoding.temperature, top_k=decoding.top_k,
                          top_p=decoding.top_p)
        elif decoding.strategy == "beam":
            kwargs.update(do_sample=False, num_beams=decoding.num_beams)
        else:
            kwargs.update(do_sample=False, num_beams=1)
        started = time.perf_counter()
        try:
            if seed is not None:
                torch.manual_seed(seed)
            with pass_timed(prompt_tokens), torch.inference_mode():
                output = model.network.generate(**inputs, **kwargs)
        except torch.OutOfMemoryError as exc:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            options = "batch_size or max_batch_tokens" if self.max_batch_tokens else "batch_size"
            error = f"out of memory generating a batch of {len(rows)} prompt(s); lower {options} ({str(exc)[:200]})"
            for request in rows:
                for index in indices:
                    if index in request.sample_indices:
                        self._deliver(on_sample, request.key, index, Generation(text="", error=error))
            return
        seconds = (time.perf_counter() - started) / (len(rows) * count)
        # Causal output repeats the (left-padded) prompt; seq2seq output starts with the decoder start token.
        new = output[:, 1:] if model.seq2seq else output[:, input_ids.shape[1]:]
        new = new.cpu().tolist()
        for row, request in enumerate(rows):
            for k, index in enumerate(indices):
                if index not in request.sample_indices:
                    continue  # a beam kept by an earlier run
                tokens = self._completion(new[row * count + k])
                generation = Generation(
                    text=model.tokenizer.decode(tokens, skip_special_tokens=True).strip(),
                    prompt_tokens=int(prompt_tokens[row]), completion_tokens=len(tokens), seconds=seconds,
                )
                self._deliver(on_sample, request.key, index, generation)

    def _completion(self, tokens: list[int]) -> list[int]:
        """The generated tokens up to and including the first end-of-sequence token.

        generate() pads a row only after its end-of-sequence token, so what follows that token is padding;
        a row without one ran to max_new_tokens and every token of it was generated.
        """
        for position, token in enumerate(tokens):
            if token in self.model.eos_ids:
                return tokens[:position + 1]
        return tokens

    def _deliver(self, on_sample: OnSample, key: int, index: int, generation: Generation) -> None:
        if self.counter is not None:
            self.counter.requests += 1
            if generation.error:
                self.counter.errors.append(generation.error)  # nothing was generated: no tokens spent
            else:
                self.counter.prompt_tokens += generation.prompt_tokens or 0
                self.counter.completion_tokens += generation.completion_tokens or 0
        on_sample(key, index, generation)
