"""Arena planning: an offset for every buffer so that buffers live at the same time never overlap,
except where a kernel lets its output share bytes with an input it reads for the last time
(Overlap in mote.ops.registry): a convolution that writes a row of outputs only over input rows it
has already read needs no room for both.

Placement is first fit (each buffer at the lowest offset clear of the buffers already placed
that share its lifetime), tried over several orders; the smallest arena wins. Size-descending is
TFLite Micro's greedy order; the other orders reach the lower bound where it misses (e.g. VWW).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

from mote.ints import round_up
from mote.memory.lifetimes import Buffer, lower_bound
from mote.ops.registry import Overlap

ALIGN = 8  # bytes; enough for int32 and float tensors and word loads on 32-bit cores
Shares = dict[tuple[Buffer, Buffer], Overlap]  # (output, input) buffers -> how their bytes may overlap


def align(n: int) -> int:
    return round_up(n, ALIGN)


@dataclass
class ArenaPlan:
    offsets: dict[Buffer, int]  # every buffer's offset, in placement order
    size: int  # arena bytes
    lower_bound: int  # bytes live at the busiest step

    def offset(self, buf: Buffer) -> int:
        return self.offsets[buf]


_ORDERS: dict[str, Callable[[Buffer], tuple[int, ...]]] = {
    "size": lambda b: (-b.size, b.start),
    "start": lambda b: (b.start, -b.size),
    "duration": lambda b: (-(b.end - b.start), -b.size),
    "area": lambda b: (-b.size * (b.end - b.start + 1), b.start),
}


def _forbidden(new: Buffer, placed: Buffer, at: int, shares: Shares) -> tuple[int, int]:
    """The open interval of offsets `new` may not take next to `placed` (at offset `at`)."""
    size, other = align(new.size), align(placed.size)
    share = shares.get((new, placed))
    if share is not None:  # new is the output: d = offset - at
        if share.at_most is not None:
            return at + max(share.at_most, -size), at + other
        if share.at_least is not None:
            return at - size, at + min(share.at_least, other)
    share = shares.get((placed, new))
    if share is not None:  # new is the input: d = at - offset
        if share.at_most is not None:
            return at - size, at + min(-share.at_most, other)
        if share.at_least is not None:
            return at + max(-share.at_least, -size), at + other
    return at - size, at + other


def _partner_offset(buf: Buffer, placed: list[tuple[int, Buffer]],
                    shares: Shares) -> int | None:
    """Where `buf` would sit on a placed buffer it may share bytes with: at the same offset, or as
    close to it as the Overlap allows (the caller checks that it is clear)."""
    for at, p in placed:
        for key, sign in (((buf, p), 1), ((p, buf), -1)):
            share = shares.get(key)
            if share is not None:
                d = min(0, share.at_most) if share.at_most is not None else max(0, share.at_least or 0)
                return max(0, (at + sign * d) // ALIGN * ALIGN)
    return None


def _first_fit(bufs: list[Buffer], shares: Shares,
               on_partners: bool) -> tuple[dict[Buffer, int], int]:
    """Each buffer at the lowest aligned offset clear of the placed buffers that share its lifetime
    (with on_partners: on the buffer it may share bytes with, where that is clear)."""
    placed: list[tuple[int, Buffer]] = []  # (offset, buffer)
    offsets: dict[Buffer, int] = {}
    end = 0
    for buf in bufs:
        intervals = [_forbidden(buf, p, at, shares) for at, p in placed if p.overlaps(buf)]
        partner = _partner_offset(buf, placed, shares) if on_partners else None
        if partner is not None and all(not lo < partner < hi for lo, hi in intervals):
            offset = partner
        else:
            offset, moved = 0, True
            while moved:  # the lowest aligned offset in none of the open intervals
                moved = False
                for lo, hi in intervals:
                    if lo < offset < hi:
                        offset, moved = align(hi), True
        offsets[buf] = offset
        placed.append((offset, buf))
        end = max(end, offset + align(buf.size))
    return offsets, end


def plan_arena(bufs: list[Buffer], shares: Shares | None = None) -> ArenaPlan:
    best: tuple[dict[Buffer, int], int] | None = None
    for key, on_partners in product(_ORDERS.values(), (False, True) if shares else (False,)):
        candidate = _first_fit(sorted(bufs, key=key), shares or {}, on_partners)
        if best is None or candidate[1] < best[1]:
            best = candidate
    assert best is not None
    return ArenaPlan(best[0], best[1], lower_bound(bufs))
