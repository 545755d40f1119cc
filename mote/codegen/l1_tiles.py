"""A layer tiled into the L1 (mote.memory.tiling) as C: its tiles' kernel calls on L1 buffers, with the DMA
jobs that fill and drain them double-buffered (mote_dma.h).

For tiles 0..n-1 the code is unrolled, each tile's kernel call taking its own params block (tiles of the
same shape share one): the input rows of tile 0 are started first; then for each tile i, the DMA of
tile i+1's input rows is started before tile i's input is waited for, tile i-2's output copy (which used
the same output buffer) is waited for, tile i computes, and its output rows are started back to L2. The
layer ends by waiting for its last output copies, so the next layer reads finished L2 data. Output-channel
tiles (a fully connected layer of one row) share one input, loaded and waited for once, before tile 0.

On a cluster (`cores` > 1) core 0 alone programs the DMA, exactly as above, and each tile's compute is a
fork: every core computes its part of the tile (mote.codegen.parallel's split of the tile's params, over
the L1 buffers; each core's scratch its own slice of the tile's scratch area). mote_fork's barriers order
the DMA: tile i+1's input is started before tile i's fork, waited for after its join, so the copies run
while all the cores compute. Tiles whose parts are the same (every interior tile of a given buffer) share
one task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mote.codegen import parallel
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
    tasks: list[str] = field(default_factory=list)  # on a cluster: the tiles' tasks and their params blocks (C)
    parts: tuple[Any, ...] = ()  # on a cluster: every part's params, of every tile split across the cores


def l1(offset: int) -> str:
    return f"L1({offset})"


def tiled_layer(i: int, node: Node, params: Any, plan: TilePlan, em: Any, core: Core, prefix: str,
                cores: int = 1, header: str = "") -> TiledLayer:
    """The C of layer `i` run as `plan`'s tiles, their compute split across `cores` cores (see the module
    docstring); `header` heads its params blocks."""
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

    tasks: dict[str, str] = {}  # a task's text (its name blanked) -> its name
    task_blocks: list[str] = []
    parts: list[Any] = []

    def fork(k: int, chosen: list[parallel.ChosenPart], tile_em: TileEmitter) -> str:
        """Tile k's task (one already written if the same), returning its name."""
        name = f"{prefix}tile{k}_"
        blocks: list[str] = []
        func, choices = parallel.task(i, node, chosen, tile_em, l1(plan.scratch_offset), name, blocks, header)
        key = "\n".join(blocks).replace(name, "@")
        if key not in tasks:
            tasks[key] = func
            task_blocks.extend(blocks)
            parts.extend(c.params for c in chosen)
        nonlocal declined
        for c in choices:
            if c.kernel.func not in funcs:
                funcs.append(c.kernel.func)
            twins.extend(t for t in c.kernel.twins if t not in twins)
            declined = declined or c.declined
        return tasks[key]

    lines = [f"  uint32_t {', '.join(f'dma_in{x}[{copies}]' for x in range(len(ins)))}, dma_out[{copies}];",
             *start_inputs(0)]
    for k, tile in enumerate(plan.tiles):
        b = k % copies
        tile_params = plan.rows.params(params, tile)
        choice = choose_kernel(op, node, tile_params, core)
        buffers = {src: l1(plan.inputs[x][0 if shared else b]) for x, src in enumerate(ins)}
        buffers[out] = l1(plan.outputs[b])
        chosen = parallel.chosen_parts(node, tile_params, core, cores)
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
        if chosen is not None:  # every core its part of the tile
            lines += [f"  status = mote_fork({fork(k, chosen, TileEmitter(em, buffers))});"]
        else:
            lines += _call(node, tile_params, choice, TileEmitter(em, buffers), plan, blocks, param_blocks,
                           funcs, twins, prefix, i)
            declined = declined or choice.declined
        lines += ["  if (status != MOTE_OK) return status;",
                  f"  dma_out[{b}] = MOTE_DMA_START({em.tensor(out)} + {tile.out0 * plan.rows.out_row}, "
                  f"{l1(plan.outputs[b])}, {plan.out_bytes(tile)}u);"]
    lines += [f"  MOTE_DMA_WAIT(dma_out[{k % copies}]);" for k in range(max(n - copies, 0), n)]
    return TiledLayer(param_blocks, ["  {", *["  " + line for line in lines], "  }"], funcs, tuple(twins), declined,
                      task_blocks, tuple(parts))


def _call(node: Node, tile_params: Any, choice: Any, tile_em: TileEmitter, plan: TilePlan,
          blocks: dict[tuple[Any, ...], str], param_blocks: list[tuple[str, CCall]], funcs: list[str],
          twins: list[str], prefix: str, i: int) -> list[str]:
    """A tile's kernel call on core 0 (its params block shared with the tiles of the same shape)."""
    call = choice.kernel.call(node, tile_params, tile_em)
    key = (call.func, call.params_type, tuple(call.fields.items()))
    if key not in blocks:
        blocks[key] = f"{prefix}layer{i}_tile{len(blocks)}_params"
        param_blocks.append((blocks[key], call))
    if call.func not in funcs:
        funcs.append(call.func)
        twins += [t for t in choice.kernel.twins if t not in twins]
    size = choice.kernel.scratch_bytes(node, tile_params)
    scratch = f"(mote_scratch){{{l1(plan.scratch_offset)}, {size}}}" if size else "MOTE_NO_SCRATCH"
    return [f"  status = {call.func}({', '.join([f'&{blocks[key]}', *call.args, scratch])});"]
