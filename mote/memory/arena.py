"""Arena planning: an offset for every buffer so that buffers live at the same time never overlap.

Placement is first fit (each buffer at the lowest offset clear of the buffers already placed
that share its lifetime), tried over several orders; the smallest arena wins. Size-descending is
TFLite Micro's greedy order; the other orders reach the lower bound where it misses (e.g. VWW).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mote.memory.lifetimes import Buffer, lower_bound

ALIGN = 8  # bytes; enough for int32 and float tensors and word loads on 32-bit cores


def align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


@dataclass
class ArenaPlan:
    offsets: dict[int, int]  # id(buffer) -> offset
    size: int  # arena bytes
    lower_bound: int  # bytes live at the busiest step

    def offset(self, buf: Buffer) -> int:
        return self.offsets[id(buf)]


_ORDERS: dict[str, Callable[[Buffer], tuple[int, ...]]] = {
    "size": lambda b: (-b.size, b.start),
    "start": lambda b: (b.start, -b.size),
    "duration": lambda b: (-(b.end - b.start), -b.size),
    "area": lambda b: (-b.size * (b.end - b.start + 1), b.start),
}


def _first_fit(bufs: list[Buffer]) -> tuple[dict[int, int], int]:
    placed: list[tuple[int, int, Buffer]] = []  # (offset, end offset, buffer)
    offsets: dict[int, int] = {}
    for buf in bufs:
        offset = 0
        for lo, hi, _ in sorted((p for p in placed if p[2].overlaps(buf)), key=lambda p: p[0]):
            if offset + align(buf.size) <= lo:
                break
            offset = max(offset, hi)
        offsets[id(buf)] = offset
        placed.append((offset, offset + align(buf.size), buf))
    return offsets, max((hi for _, hi, _ in placed), default=0)


def plan_arena(bufs: list[Buffer]) -> ArenaPlan:
    best: tuple[dict[int, int], int] | None = None
    for key in _ORDERS.values():
        candidate = _first_fit(sorted(bufs, key=key))
        if best is None or candidate[1] < best[1]:
            best = candidate
    assert best is not None
    return ArenaPlan(best[0], best[1], lower_bound(bufs))
