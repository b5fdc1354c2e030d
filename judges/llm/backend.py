"""The contract between the `llm` judge family and a generation backend.

A backend turns chat requests into generated texts. It knows nothing of items, verdicts or caching:
the family asks only for the samples it does not have yet, and stores each one as it arrives, so a run
that crashed continues where it stopped and a (judge, item, sample index) is never asked twice.

Sample index i of an item is reproducible on its own where the backend allows it: with sampling, its
seed is `decoding.seed + i`.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from judges.templates import text_size

# One chat message: {"role": "system" | "user" | "assistant", "content": str}. The vlm family's "content" is
# a list of OpenAI-style parts, {"type": "text", "text": ...} and {"type": "image_url", "image_url": {"url":
# "data:image/png;base64,..."}}: the HTTP and vision backends read them, text-only backends refuse them.
Message = dict


@dataclass(frozen=True)
class Decoding:
    """How to decode. strategy: "greedy" (one sample), "beam" (the n best of num_beams beams), "sample"."""

    strategy: str = "sample"
    temperature: float = 0.7
    top_k: int = 0  # 0 = off
    top_p: float = 1.0
    num_beams: int = 4
    max_new_tokens: int = 256
    seed: int = 0


@dataclass(frozen=True)
class Connection:
    """Where the openai backend sends its requests, and the key it sends with them.

    Built by the task layer (judges.endpoints), never from a researcher's text alone: from a model endpoint
    that staff registered (its URL, its key, its concurrency limit), or from a free-form base_url whose host
    JUDGE_ALLOWED_HOSTS lists, which never carries a key. The key stays out of repr.

    Failures name the status code, content type and size of a response, never its body: a worker reaches
    hosts the researcher who reads the failure cannot. SHOW_BODIES (a registered endpoint's staff-only switch,
    never a free-form URL's) adds the start of the body, for debugging.
    """

    base_url: str
    api_key: str = field(default="", repr=False)
    max_concurrency: int | None = None  # the endpoint's limit on requests in flight per batch
    endpoint: str = ""  # the registered endpoint's name; "" for a free-form URL
    show_bodies: bool = False


@dataclass(frozen=True)
class Request:
    """One item's prompt and the sample indices still missing for it (0-based, ascending)."""

    key: int  # the item id; the backend hands it back untouched
    messages: list[Message]
    sample_indices: tuple[int, ...]


@dataclass(frozen=True)
class Generation:
    """One sample: its text, the tokens it cost (None when the backend cannot tell), seconds spent, and the model id
    the server reported in its response (the HTTP backend; "" where nothing reports one).

    `error` is set, and `text` empty, when the backend gave up on this sample (retries exhausted, a
    malformed response, a timeout): the family records the item as failed with that reason, and a later
    run asks again (failed samples are not cached).
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    error: str = ""
    model: str = ""


# Called once per finished sample, as soon as it exists: (request key, sample index, generation).
OnSample = Callable[[int, int, Generation], None]


class Backend(Protocol):
    def generate(self, requests: list[Request], decoding: Decoding, on_sample: OnSample) -> None:
        """Generate every missing sample of every request, calling ON_SAMPLE for each.

        Raises judges.errors.JudgeConfigError for what no retry can fix (model not found, bad URL,
        authentication refused, image input to a text-only model); per-sample trouble is a Generation
        with `error` set. Never puts an API key in a message, a log line or an exception.
        """
        ...


@dataclass
class TokenCount:
    """Running totals a backend or the family can add to (the run's cost/token counter)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    errors: list[str] = field(default_factory=list)


class SampleStore(Protocol):
    """Where samples persist between batches and runs: the cache of (judge, item, sample index).

    The task layer passes a database-backed store (judges.models.LLMSample); tests use MemorySampleStore.
    """

    def samples_get(self, item_ids: list[int]) -> dict[int, dict[int, Generation]]:
        """The stored samples of these items: item id -> sample index -> generation."""
        ...

    def sample_put(self, item_id: int, index: int, generation: Generation) -> None:
        """Store one sample (a successful one: generations with `error` are never stored)."""
        ...


class MemorySampleStore:
    """A SampleStore in a dict: for tests, benchmarks and callers without a database."""

    def __init__(self) -> None:
        self.samples: dict[int, dict[int, Generation]] = {}
        self.puts = 0

    def samples_get(self, item_ids: list[int]) -> dict[int, dict[int, Generation]]:
        return {item_id: dict(self.samples[item_id]) for item_id in item_ids if item_id in self.samples}

    def sample_put(self, item_id: int, index: int, generation: Generation) -> None:
        self.samples.setdefault(item_id, {})[index] = generation
        self.puts += 1


# The most prompt text one generate() call holds (bytes of UTF-8, at most): a batch whose prompts take more is given
# to the backend in parts, each part's prompts built only when it is next, so that a batch of many long prompts (each
# within JUDGE_LIMITS prompt_bytes) is never held whole in a worker's memory.
PROMPTS_HELD_BYTES = 16_000_000


def request_bytes(request: Request) -> int:
    """An upper bound of the UTF-8 bytes of REQUEST's messages (text parts, and an image part's URL)."""
    total = 0
    for message in request.messages:
        content = message["content"]
        parts = [content] if isinstance(content, str) else [
            part.get("text") or (part.get("image_url") or {}).get("url") or "" for part in content]
        total += sum(text_size(part)[1] for part in parts if isinstance(part, str))
    return total


def generate_in_parts(backend: Callable[[], Backend], requests: Iterable[Request], decoding: Decoding,
                      on_sample: OnSample, *, held_bytes: int = PROMPTS_HELD_BYTES) -> None:
    """BACKEND().generate over REQUESTS (an iterable that builds each request as it is asked for), in parts of at most
    HELD_BYTES of prompts (a part holds at least one request). The backend is made once, when the first part is
    ready; no part, no backend."""
    made: Backend | None = None
    part: list[Request] = []
    held = 0

    def flush() -> None:
        nonlocal made, part, held
        if part:
            made = made or backend()
            made.generate(part, decoding, on_sample)
        part, held = [], 0

    for request in requests:
        size = request_bytes(request)
        if part and held + size > held_bytes:
            flush()
        part.append(request)
        held += size
    flush()
