"""Two checks every statistic makes of its input: a number that is finite (else None), and paired samples of one
length."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def finite(value) -> float | None:
    """A float, or None for NaN / infinity (what the libraries return for undefined statistics)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def check_paired(a: Sequence | np.ndarray, b: Sequence | np.ndarray) -> None:
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
