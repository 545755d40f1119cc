"""`--flash-budget BYTES`: kernels chosen per layer so that the weights fit a flash budget.

The fast kernels of the MCU cores take their weights in the layout their inner loops want, and several of those
layouts are larger than the int8 weights: the 16-bit pair words of the blocked FC and conv kernels, the int16
weights of the DSP kernels, twice the bytes of the int8 weights each. Every op's kernel table (mote.ops.registry)
ends with a compact kernel that reads the int8 weights as they are, so a layer can always give up speed for flash.

The choice starts from the fastest kernels (the table's first that accepts each layer) and, while the weights
exceed the budget, moves one layer to the next kernel of its table that takes fewer constant bytes: the layer that
loses the fewest estimated instructions per flash byte saved. The estimate is coarse and documented
(docs/library.md): a layer's kernel costs its MACs times 1 + STEP x its rank among the records of its table that
serve the core (the first 0, the next 1, ...), so a move costs STEP x MACs x the ranks it goes down; a layer without
MACs moves for free. Flash saved is exact: the constants the kernel's packing writes, counted before and after.
After the moves the estimate says fit, the model is compiled again and measured; a budget below what the most
compact kernels need is refused in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.codegen.compile import CompiledModel
from mote.errors import MoteError
from mote.ir import Node, Tensor
from mote.ops import OPS
from mote.ops.registry import Core, Kernel, choose_kernel

STEP = 0.25  # the estimated extra instructions per MAC of each rank down a kernel table


class FlashBudgetError(MoteError):
    """The weights do not fit the flash budget even with every layer on its most compact kernel."""


class _Probe:
    """An emitter that only counts the constant bytes a kernel's packing places."""

    def __init__(self) -> None:
        self.nbytes = 0

    def const(self, data: np.ndarray, hint: str) -> str:
        self.nbytes += np.asarray(data).nbytes
        return "probe"

    def tensor(self, t: Tensor) -> str:
        return "probe"


def _flash(kernel: Kernel, node: Node, params: Any) -> int | None:
    """The constant bytes `kernel` places for the layer, or None when its packing needs more than a probe offers."""
    probe = _Probe()
    try:
        kernel.call(node, params, probe)
    except (AttributeError, TypeError):
        return None
    return probe.nbytes


@dataclass(frozen=True)
class Move:
    """A layer moved from its kernel to a more compact one."""

    layer: str
    skip: frozenset[str]  # the kernels it then does not take
    saved: int  # flash bytes
    lost: float  # estimated instructions

    @property
    def price(self) -> float:
        return self.lost / self.saved


def compact_move(node: Node, core: Core, skip: frozenset[str]) -> Move | None:
    """The layer's next kernel down its table that takes fewer constant bytes than its kernel now, or None."""
    op = OPS.get(node.op)
    if op is None or not op.kernels:
        return None
    params = op.prepare(node)
    serving = [k for k in op.table() if core in k.cores and k.computes(node)]
    now = choose_kernel(op, node, params, core, skip).kernel
    now_bytes = _flash(now, node, params)
    if now_bytes is None:
        return None
    tried = set(skip)
    kernel = now
    while kernel is not op.table()[-1]:
        tried.add(kernel.func)
        kernel = choose_kernel(op, node, params, core, frozenset(tried)).kernel
        after = _flash(kernel, node, params)
        if after is not None and after < now_bytes:
            ranks = serving.index(kernel) - serving.index(now)
            return Move(node.name, frozenset(tried), now_bytes - after, STEP * ranks * op.macs(node))
    return None


def fit_flash(build: Callable[[dict[str, frozenset[str]]], CompiledModel], budget: int) -> CompiledModel:
    """The model `build` compiles (given {layer name: kernels it does not take}) with its weights within `budget`
    bytes; `build({})` is the fastest choice."""
    compact: dict[str, frozenset[str]] = {}
    compiled = build(compact)
    while compiled.weights_bytes > budget:
        nodes = {n.name: n for n in compiled.graph.nodes}
        moves = {name: compact_move(n, compiled.core, compact.get(name, frozenset())) for name, n in nodes.items()}
        estimate = compiled.weights_bytes
        moved = False
        while estimate > budget:
            best = min((m for m in moves.values() if m is not None), key=lambda m: (m.price, m.layer), default=None)
            if best is None:
                break
            compact[best.layer] = best.skip
            estimate -= best.saved
            moves[best.layer] = compact_move(nodes[best.layer], compiled.core, best.skip)
            moved = True
        if not moved:
            raise FlashBudgetError(f"model {compiled.graph.name!r}: its weights take {compiled.weights_bytes} bytes "
                                   f"with every layer on its most compact kernel, over the flash budget of {budget}; "
                                   "give a larger --flash-budget")
        compiled = build(dict(compact))
    return compiled
