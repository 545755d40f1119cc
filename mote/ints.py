"""Integer helpers used across layers (shapes, tiling, packing)."""

from __future__ import annotations


def ceil_div(a: int, b: int) -> int:
    """a / b rounded up, for non-negative a and positive b."""
    return -(-a // b)


def round_up(a: int, multiple: int) -> int:
    """The smallest multiple of `multiple` that is at least a."""
    return ceil_div(a, multiple) * multiple
