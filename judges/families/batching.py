"""Batches that pad little: items sorted by token length, cut by a token budget, results back in arrival order.

A transformer pads every row of a batch to the batch's longest row. Real pairs range from a three-word answer to a
500-token passage, so batches formed in arrival order spend most of their compute on padding. Every transformer
family (dense, monoT5, cross-encoder, AutoAIS, CLIPScore's text side, the transformers LLM backend) forms its forward
passes with `length_batches` and puts the results back with `in_arrival_order`.

A batch holds at most `max_items` rows and at most `max_tokens` padded tokens (rows x its longest row): short pairs
go many to a pass, long ones few, so memory per pass stays level whatever the lengths. One row longer than the
budget still gets a batch of its own.

`BatchMeter` counts what the passes cost (pairs, real tokens, padded tokens, seconds) for the judge page.
"""

from __future__ import annotations

import contextvars
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence, TypeVar

from judges.families.base import Option

T = TypeVar("T")

DEFAULT_MAX_TOKENS = 16_384  # 32 rows of 512 tokens


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
