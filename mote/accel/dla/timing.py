"""The virtual platform's DLA timing: a command-by-command simulation of one job.

The cost model (mote.accel.dla.cost) is a closed form the compiler and `mote explore` can evaluate
in microseconds: it trusts the compiler's tile groups for the double-buffered schedule and charges
every DMA row as if it started on a bus boundary. This simulation is what the virtual platform
charges in timed mode, and what `mote explore --verify` measures the cost model against. It keeps
the PE array's work per instruction (cost.instruction_cost) and derives everything else itself:

- Dependencies from SRAM addresses, not tile groups: a command waits for every earlier command
  whose SRAM bytes it reads and the other writes, or that it writes and the other reads or writes.
- Three in-order queues: compute (configuration writes and layer instructions, each plus
  COMMAND_OVERHEAD for fetch and decode), DMA reads and DMA writes; both DMA queues share one bus
  port. At every step the queue head that can start earliest starts (reads first on a tie).
- DMA beats on the real system addresses the driver passed: a row of d bytes at address a takes
  ceil((a mod B + d) / B) beats of B = dma_bytes_per_cycle bytes, split into bursts of at most
  MAX_BURST beats, each burst after a row's first costing one more cycle; DMA_SETUP per command.
- Each layer instruction drains its PE pipeline (PIPELINE_DEPTH cycles) before its result is
  complete.

The job takes until its last command completes.
"""

from __future__ import annotations

from dataclasses import dataclass

from mote.accel.dla import isa
from mote.accel.dla.config import DlaConfig
from mote.accel.dla.cost import COMMAND_OVERHEAD, DMA_SETUP, instruction_cost
from mote.accel.packing import row_bytes
from mote.ints import ceil_div

MAX_BURST = 256
PIPELINE_DEPTH = 4

_CFG = isa.CFG
_TWO_INPUTS = (isa.OP_C_MIN, isa.OP_C_MAX, isa.OP_E_ADD, isa.OP_E32_ADD)
_COMPUTE, _READ, _WRITE = 0, 1, 2


@dataclass(frozen=True)
class _Access:
    reads: tuple[tuple[int, int], ...]  # SRAM [start, end) ranges
    writes: tuple[tuple[int, int], ...]


def _span(address: int, pixels: int, stride: int, channels: int, size: int = 1) -> tuple[int, int]:
    return address, address + ((pixels - 1) * stride + channels) * size if pixels and channels else address


def _access(c: isa.Command, r: list[int]) -> _Access:
    """The SRAM bytes command `c` reads and writes, with configuration registers `r` in effect."""
    if c.op == isa.OP_CFG:
        return _Access((), ())
    if c.op in (isa.OP_DMA_READ, isa.OP_DMA_WRITE):
        moved = ((c.c, c.c + c.d * c.e),)
        return _Access((), moved) if c.op == isa.OP_DMA_READ else _Access(moved, ())

    def g(name: str) -> int:
        return isa.s32(r[_CFG[name]])

    src, dst = g("SRC_PIXEL_STRIDE"), g("DST_PIXEL_STRIDE")
    if c.op in (isa.OP_CONV, isa.OP_CONV_RELU, isa.OP_DEPTH_CONV, isa.OP_MAT_MUL):
        oc, ic, taps = g("OUT_C"), g("IN_C"), g("K_H") * g("K_W")
        wide = 1 if c.op == isa.OP_CONV_RELU or c.flags & isa.FLAG_REQUANT else 4
        bits = isa.weight_bits(c.flags)  # packed rows (isa): the bytes the weights take
        if c.op == isa.OP_MAT_MUL:
            pixels_in = pixels_out = g("ROWS")
            weights = oc * row_bytes(ic, bits)
        else:
            pixels_in, pixels_out = g("IN_H") * g("IN_W"), g("OUT_H") * g("OUT_W")
            weights = taps * row_bytes(oc, bits) if c.op == isa.OP_DEPTH_CONV else oc * row_bytes(taps * ic, bits)
        return _Access((_span(c.a, pixels_in, src, ic), (c.b, c.b + weights), (c.d, c.d + 12 * oc)),
                       (_span(c.c, pixels_out, dst, oc, wide),))
    if c.op == isa.OP_POOL:
        ic = g("IN_C")
        return _Access((_span(c.a, g("IN_H") * g("IN_W"), src, ic),), (_span(c.c, g("OUT_H") * g("OUT_W"), dst, ic),))
    size = 4 if c.op == isa.OP_E32_ADD else 1
    inputs = ((c.a, c.a + c.e * size), (c.b, c.b + c.e * size)) if c.op in _TWO_INPUTS else ((c.a, c.a + c.e * size),)
    return _Access(inputs, ((c.c, c.c + c.e * size),))


def _overlaps(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    return any(s0 < e1 and s1 < e0 for s0, e0 in a for s1, e1 in b)


def dma_cycles(c: isa.Command, bases: list[int], config: DlaConfig) -> int:
    """One DMA command on the bus, row by row at its real system addresses."""
    width = config.dma_bytes_per_cycle
    cycles = DMA_SETUP
    address = bases[c.a] + c.b
    for _ in range(c.e):
        beats = ceil_div(address % width + c.d, width) if c.d else 0
        cycles += beats + max(ceil_div(beats, MAX_BURST) - 1, 0)
        address += c.f
    return cycles


def simulate(commands: list[isa.Command], bases: list[int], config: DlaConfig) -> int:
    """Cycles from the job's start until its last command completes."""
    regs = [0] * len(isa.CFG_NAMES)
    queues: tuple[list[int], list[int], list[int]] = ([], [], [])
    cost: list[int] = []
    deps: list[list[int]] = []
    accesses: list[_Access] = []
    for i, c in enumerate(commands):
        if c.op == isa.OP_CFG:
            regs[c.a] = c.b
        access = _access(c, regs)
        deps.append([j for j, earlier in enumerate(accesses)
                     if _overlaps(earlier.writes, access.reads + access.writes) or
                     _overlaps(earlier.reads, access.writes)])
        accesses.append(access)
        if c.op == isa.OP_DMA_READ:
            queues[_READ].append(i)
            cost.append(dma_cycles(c, bases, config))
        elif c.op == isa.OP_DMA_WRITE:
            queues[_WRITE].append(i)
            cost.append(dma_cycles(c, bases, config))
        else:
            queues[_COMPUTE].append(i)
            ic = instruction_cost(c, regs, config)
            drain = PIPELINE_DEPTH if c.op != isa.OP_CFG else 0
            cost.append(ic.cycles + ic.requant + COMMAND_OVERHEAD + drain)
    finish: list[int | None] = [None] * len(commands)
    heads = [0, 0, 0]
    free = [0, 0]  # the compute engine and the DMA port
    while any(heads[q] < len(queues[q]) for q in range(3)):
        best: tuple[int, int] | None = None
        for q in (_COMPUTE, _READ, _WRITE):
            if heads[q] == len(queues[q]):
                continue
            i = queues[q][heads[q]]
            ready = [finish[j] for j in deps[i]]
            if any(t is None for t in ready):
                continue
            start = max([free[q != _COMPUTE], *ready])  # type: ignore[list-item]
            if best is None or start < best[0]:
                best = (start, q)
        assert best is not None, "a queue head always has its dependencies done"
        start, q = best
        i = queues[q][heads[q]]
        heads[q] += 1
        finish[i] = start + cost[i]
        free[q != _COMPUTE] = start + cost[i]
    return max((t for t in finish if t is not None), default=0)
