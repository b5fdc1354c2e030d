"""Batches that pad little: items sorted by token length, cut by a token budget, results back in arrival order.

A transformer pads every row of a batch to the batch's longest row. Real pairs range from a three-word answer to a
500-token passage, so batches formed in arrival order spend most of their compute on padding. Every transformer
family (dense, monoT5, cross-encoder, AutoAIS, CLIPScore's text side, the transformers LLM backend) forms its forward
passes with `length_batches` and puts the results back with `in_arrival_order`.

A batch holds at most `max_items` rows and at most `max_tokens` padded tokens (rows x its longest row): short pairs
go many to a pass, long ones few, so memory per pass stays level whatever the lengths. One row longer than the
budget still gets a batch of its own.

Each item is tokenized once, without padding (`tokenizer(texts, truncation=True, max_length=...)`); its token
count is its length, and `pad_batch` pads only the rows of one pass, to that pass's longest row. `by_length` does
the whole round: cut, pad, run one forward pass per batch (timed by `pass_timed`), put the results back.

`BatchMeter` counts what the passes cost (pairs, real tokens, padded tokens, seconds) for the judge page.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from judges.families.base import Option

T = TypeVar("T")

DEFAULT_MAX_TOKENS = 16_384  # 32 rows of 512 tokens
# Items per Celery task of a length-batched family (JudgeFamily.items_per_task): a task sorts only what it holds.
ITEMS_PER_TASK = 256


def batch_options(*, max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Option]:
    """The option every length-batched family has beside batch_size (rows per pass)."""
    return {
        "max_batch_tokens": Option((int,), max_tokens,
                                   "Padded tokens per forward pass (rows x the longest row); short pairs share a "
                                   "pass, long ones get fewer rows."),
    }


def length_batches(lengths: Sequence[int], *, max_items: int, max_tokens: int) -> list[list[int]]:
    """Indices into LENGTHS, longest first, cut into batches of at most MAX_ITEMS rows and MAX_TOKENS padded tokens.

    Longest first: a pass that does not fit in memory fails on the first batch, not after an hour of short ones.
    Equal lengths keep their arrival order, so the batches of a given input are always the same.
    """
    if max_items < 1 or max_tokens < 1:
        raise ValueError(f"max_items and max_tokens must be at least 1, not {max_items} and {max_tokens}")
    order = sorted(range(len(lengths)), key=lambda index: -lengths[index])
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for index in order:
        length = max(1, lengths[index])
        widest = max(longest, length)
        if current and (len(current) == max_items or widest * (len(current) + 1) > max_tokens):
            batches.append(current)
            current, widest = [], length
        current.append(index)
        longest = widest
    if current:
        batches.append(current)
    return batches


def pad_batch(tokenizer, encoding: Mapping[str, Sequence[Sequence[int]]], indices: Sequence[int], *,
              device: Any = None) -> dict:
    """The rows INDICES of ENCODING (a tokenizer's output, unpadded) padded to their longest row, as tensors.

    input_ids are padded with the tokenizer's pad token, on its padding side (left for batched generation);
    token_type_ids, when the tokenizer gives them, with its pad_token_type_id; attention_mask marks the real tokens.
    Padding is filled into numpy arrays: tokenizer.pad walks the rows in Python and costs several times more.
    """
    import numpy as np
    import torch

    rows = [encoding["input_ids"][index] for index in indices]
    width = max((len(row) for row in rows), default=0)
    left = getattr(tokenizer, "padding_side", "right") == "left"
    # A tokenizer without a pad token pads with 0: the attention mask hides those positions whatever they hold.
    fills = {"input_ids": tokenizer.pad_token_id or 0, "attention_mask": 0,
             "token_type_ids": getattr(tokenizer, "pad_token_type_id", 0) or 0}
    batch = {}
    for key, fill in fills.items():
        if key != "attention_mask" and key not in encoding:
            continue
        array = np.full((len(rows), width), fill, dtype=np.int64)
        for n, index in enumerate(indices):
            size = len(rows[n])
            values = 1 if key == "attention_mask" else encoding[key][index]
            if size:
                if left:
                    array[n, width - size:] = values
                else:
                    array[n, :size] = values
        batch[key] = torch.from_numpy(array)
    if device is not None:
        batch = {key: value.to(device) for key, value in batch.items()}
    return batch


def by_length(tokenizer, encoding: Mapping[str, Sequence[Sequence[int]]], *, max_items: int, max_tokens: int,
              forward: Callable[[dict], list[T]], device: Any = None) -> list[T]:
    """FORWARD(padded batch) over ENCODING's rows in length batches, one result per row, in arrival order.

    FORWARD runs one pass and returns its rows' results as a list copied to the CPU: the copy waits for the
    device, so the time `pass_timed` records is the whole pass, not its launch.
    """
    lengths = [len(ids) for ids in encoding["input_ids"]]
    batches = length_batches(lengths, max_items=max_items, max_tokens=max_tokens)
    results = []
    for indices in batches:
        inputs = pad_batch(tokenizer, encoding, indices, device=device)
        with pass_timed([lengths[index] for index in indices]):
            results.append(forward(inputs))
    return in_arrival_order(batches, results)


def in_arrival_order(batches: list[list[int]], results: list[list[T]]) -> list[T]:
    """The results of each batch (one per index, in the batch's order) put back at their indices."""
    placed: dict[int, T] = {}
    for indices, values in zip(batches, results, strict=True):
        if len(indices) != len(values):
            raise ValueError(f"a batch of {len(indices)} rows gave {len(values)} results")
        placed.update(zip(indices, values))
    return [placed[index] for index in range(len(placed))]


@dataclass
class BatchMeter:
    """What the forward passes of one judge batch cost: pairs scored, real and padded tokens, seconds in passes."""

    pairs: int = 0
    tokens: int = 0
    padded_tokens: int = 0
    seconds: float = 0.0

    def add(self, *, lengths: Sequence[int], seconds: float) -> None:
        """One forward pass over rows of these real LENGTHS, padded to the longest."""
        self.pairs += len(lengths)
        self.tokens += sum(lengths)
        self.padded_tokens += len(lengths) * max(lengths, default=0)
        self.seconds += seconds


_meter: contextvars.ContextVar[BatchMeter | None] = contextvars.ContextVar("judge_batch_meter", default=None)


@contextmanager
def metered() -> Iterator[BatchMeter]:
    """Count the passes made inside the block (the task layer wraps each judge_batch call in one)."""
    meter = BatchMeter()
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


@contextmanager
def pass_timed(lengths: Sequence[int]) -> Iterator[None]:
    """Time one forward pass over rows of these real LENGTHS and add it to the current meter, if any."""
    started = time.perf_counter()
    yield
    meter = _meter.get()
    if meter is not None:
        meter.add(lengths=lengths, seconds=time.perf_counter() - started)
