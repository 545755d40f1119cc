"""A layer tiled into the L1 (mote.memory.tiling) as C: its tiles' kernel calls on L1 buffers, with the DMA
jobs that fill and drain them double-buffered (mote_dma.h).

For tiles 0..n-1 the code is unrolled, each tile's kernel call taking its own params block (tiles of the
same shape share one): the input rows of tile 0 are started first; then for each tile i, the DMA of
tile i+1's input rows is started before tile i's input is waited for, tile i-2's output copy (which used
the same output buffer) is waited for, tile i computes, and its output rows are started back to L2. The
layer ends by waiting for its last output copies, so the next layer reads finished L2 data. Output-channel
tiles (a fully connected layer of one row) share one input, loaded and waited for once, before tile 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.ir import Node, Tensor
from mote.memory.tiling import TilePlan
from mote.ops import OPS, CCall
from mote.ops.registry import Core, choose_kernel


class TileEmitter:
    """The layer's emitter, except that its activations are the given L1 buffers (C expressions)."""

    def __init__(self, em: Any, buffers: dict[Tensor, str]) -> None:
        self.em = em
        self.buffers = buffers

    def const(self, data: np.ndarray, hint: str) -> str:
        return self.em.const(data, hint)

    def tensor(self, t: Tensor) -> str:
        return self.buffers[t] if t in self.buffers else self.em.tensor(t)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.em, name)


@dataclass
class TiledLayer:
    """What the code generator needs back: the params blocks, the body lines (between the layer's
    profiling hooks), and the kernels the tiles call (their records' twins, the first one's name)."""

    param_blocks: list[tuple[str, CCall]]
    lines: list[str]
    funcs: list[str]
    twins: tuple[str, ...]
    declined: tuple[tuple[str, str], ...]


def l1(offset: int) -> str:
    return f"L1({offset})"


def tiled_layer(i: int, node: Node, params: Any, plan: TilePlan, em: Any, core: Core, prefix: str) -> TiledLayer:
    """The C of layer `i` run as `plan`'s tiles (see the module docstring)."""
    op = OPS[node.op]
    ins = [t for t in node.inputs if t is not None and t.in_arena][:len(plan.inputs)]
    out = node.outputs[0]
    copies = len(plan.outputs)
    n = len(plan.tiles)
    blocks: dict[tuple[Any, ...], str] = {}
    param_blocks: list[tuple[str, CCall]] = []
    funcs: list[str] = []
    twins: list[str] = []
    declined: tuple[tuple[str, str], ...] = ()

    shared = plan.rows.kind == "channels"  # one input for every tile, loaded once

    def start_inputs(k: int) -> list[str]:
        t = plan.tiles[k]
        return [f"  dma_in{x}[{k % copies}] = MOTE_DMA_START({l1(plan.inputs[x][k % copies])}, "
                f"{em.tensor(src)} + {t.in0 * plan.rows.in_row[x]}, {plan.in_bytes(x, t)}u);"
                for x, src in enumerate(ins)]

    lines = [f"  uint32_t {', '.join(f'dma_in{x}[{copies}]' for x in range(len(ins)))}, dma_out[{copies}];",
             *start_inputs(0)]
    for k, tile in enumerate(plan.tiles):
        b = k % copies
        tile_params = plan.rows.params(params, tile)
        choice = choose_kernel(op, node, tile_params, core)
        buffers = {src: l1(plan.inputs[x][0 if shared else b]) for x, src in enumerate(ins)}
        buffers[out] = l1(plan.outputs[b])
        call = choice.kernel.call(node, tile_params, TileEmitter(em, buffers))
        key = (call.func, call.params_type, tuple(call.fields.items()))
        if key not in blocks:
            blocks[key] = f"{prefix}layer{i}_tile{len(blocks)}_params"
            param_blocks.append((blocks[key], call))
        if call.func not in funcs:
            funcs.append(call.func)
            twins += [t for t in choice.kernel.twins if t not in twins]
            declined = declined or choice.declined
        size = choice.kernel.scratch_bytes(node, tile_params)
        scratch = f"(mote_scratch){{{l1(plan.scratch_offset)}, {size}}}" if size else "MOTE_NO_SCRATCH"
        what = {"elements": "elements", "channels": "output channels"}.get(plan.rows.kind)
        lines.append(f"  /* tile {k}: {what} {tile.out0}..{tile.out1 - 1} */" if what else
                     f"  /* tile {k}: output rows {tile.out0}..{tile.out1 - 1} from input rows "
                     f"{tile.in0}..{tile.in1 - 1} */")
        if k + 1 < n and not shared:
            lines += start_inputs(k + 1)
        if k == 0 or not shared:
            lines += [f"  MOTE_DMA_WAIT(dma_in{x}[{b}]);" for x in range(len(ins))]
        if k >= copies:
            lines.append(f"  MOTE_DMA_WAIT(dma_out[{b}]);")
        lines += [f"  status = {call.func}({', '.join([f'&{blocks[key]}', *call.args, scratch])});",
                  "  if (status != MOTE_OK) return status;",
                  f"  dma_out[{b}] = MOTE_DMA_START({em.tensor(out)} + {tile.out0 * plan.rows.out_row}, "
                  f"{l1(plan.outputs[b])}, {plan.out_bytes(tile)}u);"]
    lines += [f"  MOTE_DMA_WAIT(dma_out[{k % copies}]);" for k in range(max(n - copies, 0), n)]
    return TiledLayer(param_blocks, ["  {", *["  " + line for line in lines], "  }"], funcs, tuple(twins), declined)
