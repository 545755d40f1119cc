"""Tiling a layer into an L1 scratchpad: which rows each tile computes, which input rows it needs (the
halo of a window), and where its buffers sit in the L1, all decided at compile time.

On a platform with an L1 fed by a DMA (mote.sim.platforms), every layer of a tiled op runs on L1 buffers:
its activations stay in L2 (the arena), the DMA brings each tile's input rows into L1 and takes its output
rows back. A layer whose working set fits the L1 is one tile; a larger one is split into row tiles, as
few as fit, with two buffers per input and per output so that the DMA of tile i+1 (and of tile i-1's
output) runs while tile i computes. The rows:

- conv2d, depthwise_conv2d, avg_pool2d, max_pool2d (one batch): output rows; a tile of output rows
  [o0, o1) reads input rows [o0*stride - pad_top, (o1-1)*stride - pad_top + extent) clipped to the input,
  its own top padding the rows of that range above the input (the first tile's), its bottom padding
  what lies past the input's last row (the last tile's);
- fully_connected: the batch rows (each row's output needs only its own input row); with one batch row,
  output channels in multiples of 16 (the scalar kernels' blocks), the input loaded once and each tile's
  weights, biases and multipliers the slices of the layer's for its channels (still in flash);
- add and sub of two same-shape tensors: elements, in tiles of a multiple of 8.

Weights and other constants stay in flash: the cores read them in place, the platform's DMA connects L2
and L1 only, and the L1 is left whole for activations. Every layer waits for all of its DMA jobs before
it ends, so all layers' tiles share one L1 area from offset 0; its size is the largest layer's need.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from mote.errors import MemoryFitError
from mote.ints import round_up
from mote.ir import DType, Node
from mote.ops.broadcast import Broadcast

ALIGN = 8  # every L1 buffer starts on an 8-byte boundary
WINDOW_OPS = ("conv2d", "depthwise_conv2d", "avg_pool2d", "max_pool2d")
ROW_OPS = ("fully_connected",)
ELEMENTWISE_OPS = ("add", "sub")


@dataclass(frozen=True)
class Tile:
    """Output rows [out0, out1) from input rows [in0, in1), with `pad_top` padding rows above them."""

    out0: int
    out1: int
    in0: int
    in1: int
    pad_top: int = 0


@dataclass(frozen=True)
class Rows:
    """How a layer splits into rows: `count` output rows of `out_row` bytes from `in_rows` input rows of
    `in_row[k]` bytes (one entry per activation input); a window's `stride`, `extent` (the filter's rows
    with dilation) and `pad_top`; tiles' rows rounded to a multiple of `unit`."""

    kind: str  # "window", "rows", "channels" or "elements"
    count: int
    in_rows: int
    in_row: tuple[int, ...]
    out_row: int
    stride: int = 1
    extent: int = 1
    pad_top: int = 0
    unit: int = 1

    def tile(self, out0: int, out1: int) -> Tile:
        if self.kind == "channels":  # every tile reads the one input row
            return Tile(out0, out1, 0, 1)
        first = out0 * self.stride - self.pad_top
        last = (out1 - 1) * self.stride - self.pad_top + self.extent
        in0, in1 = max(first, 0), min(last, self.in_rows)
        return Tile(out0, out1, in0, max(in1, in0), in0 - first)

    def params(self, params: Any, tile: Tile) -> Any:
        """The layer's params for one tile (mote.ops' frozen params dataclasses)."""
        n = tile.out1 - tile.out0
        if self.kind == "window":
            return replace(params, in_h=tile.in1 - tile.in0, out_h=n, pad_top=tile.pad_top)
        if self.kind == "rows":
            return replace(params, batches=n)
        if self.kind == "channels":  # every per-channel array of the params, sliced to the tile's channels
            sliced = {f.name: getattr(params, f.name)[tile.out0:tile.out1] for f in fields(params)
                      if isinstance(getattr(params, f.name), np.ndarray)
                      and getattr(params, f.name).shape[:1] == (params.out_depth,)}
            return replace(params, out_depth=n, **sliced)
        return replace(params, bcast=Broadcast((n,), (1,), (1,)))


def _int8(node: Node) -> bool:
    tensors = [t for t in (*node.inputs, *node.outputs) if t is not None and t.in_arena]
    return bool(tensors) and all(t.dtype is DType.INT8 for t in tensors)


def row_geometry(node: Node, params: Any) -> Rows | None:
    """How `node` splits into tiles, or None when its op is not tiled (it then runs on L2 directly)."""
    if not _int8(node) or node.inputs[0] is None or not node.inputs[0].in_arena:
        return None
    x, out = node.inputs[0], node.outputs[0]
    if node.op in WINDOW_OPS and getattr(params, "batches", 0) == 1 and hasattr(params, "pad_top"):
        extent = (params.filter_h - 1) * getattr(params, "dilation_h", 1) + 1
        return Rows("window", params.out_h, params.in_h, (x.nbytes // params.in_h,), out.nbytes // params.out_h,
                    params.stride_h, extent, params.pad_top)
    if node.op in ROW_OPS and getattr(params, "batches", 0) > 1 and len(node.outputs) == 1:
        return Rows("rows", params.batches, params.batches, (x.nbytes // params.batches,),
                    out.nbytes // params.batches)
    if node.op in ROW_OPS and getattr(params, "batches", 0) == 1 and len(node.outputs) == 1:
        return Rows("channels", params.out_depth, 1, (x.nbytes,), out.nbytes // params.out_depth, unit=16)
    b = node.inputs[1] if len(node.inputs) > 1 else None
    if node.op in ELEMENTWISE_OPS and b is not None and b.in_arena and x.shape == b.shape == out.shape \
            and hasattr(params, "bcast"):
        return Rows("elements", out.size, out.size, (1, 1), 1, unit=ALIGN)
    return None


@dataclass(frozen=True)
class TilePlan:
    """A layer's tiles and its L1 buffers: `inputs[k]` the offsets of input k's buffers (two when there
    are several tiles, else one), `outputs` the output's, then the kernel's scratch."""

    rows: Rows
    tiles: tuple[Tile, ...]
    inputs: tuple[tuple[int, ...], ...]
    outputs: tuple[int, ...]
    scratch_offset: int
    scratch_bytes: int

    @property
    def l1_bytes(self) -> int:
        return self.scratch_offset + self.scratch_bytes

    def in_bytes(self, k: int, tile: Tile) -> int:
        return (tile.in1 - tile.in0) * self.rows.in_row[k]

    def out_bytes(self, tile: Tile) -> int:
        return (tile.out1 - tile.out0) * self.rows.out_row


def split(rows: Rows, per_tile: int) -> tuple[Tile, ...]:
    return tuple(rows.tile(o, min(o + per_tile, rows.count)) for o in range(0, rows.count, per_tile))


def lay_out(rows: Rows, tiles: tuple[Tile, ...], scratch: int) -> TilePlan:
    """Offsets in L1 for the buffers of `tiles` and `scratch` bytes of kernel scratch."""
    copies = 2 if len(tiles) > 1 else 1
    at = 0
    inputs = []
    for k in range(len(rows.in_row)):
        size = round_up(max((t.in1 - t.in0) * rows.in_row[k] for t in tiles), ALIGN)
        shared = 1 if rows.kind == "channels" else copies  # channel tiles read one input, loaded once
        inputs.append(tuple(at + c * size for c in range(shared)))
        at += shared * size
    size = round_up(max((t.out1 - t.out0) * rows.out_row for t in tiles), ALIGN)
    outputs = tuple(at + c * size for c in range(copies))
    at += copies * size
    return TilePlan(rows, tiles, tuple(inputs), outputs, at, round_up(scratch, ALIGN))


def plan_tiles(node: Node, layer: int, rows: Rows, scratch: Callable[[Tile], int], budget: int) -> TilePlan:
    """The fewest tiles whose buffers (and the kernel's scratch, `scratch(tile)` bytes) fit `budget` bytes
    of L1, their rows balanced. Raises MemoryFitError when even tiles of one row (of `unit` elements) do not."""
    def plan(per_tile: int) -> TilePlan:
        tiles = split(rows, per_tile)
        return lay_out(rows, tiles, max(scratch(t) for t in tiles))

    whole = plan(rows.count)
    if whole.l1_bytes <= budget:
        return whole
    smallest = plan(min(rows.unit, rows.count))
    if smallest.l1_bytes > budget:
        what = f"tiles of {rows.unit} elements" if rows.kind == "elements" else "one output row per tile"
        raise MemoryFitError(f"layer {layer} ({node.op} {node.name!r}) does not fit the L1: with {what} it needs "
                             f"{smallest.l1_bytes} bytes of L1 buffers, the platform's L1 has {budget}; use a "
                             "platform with a larger l1 memory")
    low, high = rows.unit, rows.count  # plan(low) fits, plan(high) does not: the buffers grow with the rows
    while high - low > rows.unit:
        mid = round_up((low + high) // 2, rows.unit)
        mid = min(max(mid, low + rows.unit), high - 1)
        if plan(mid).l1_bytes <= budget:
            low = mid
        else:
            high = mid
    count = -(-rows.count // low)
    balanced = plan(round_up(-(-rows.count // count), rows.unit))  # as many tiles, rows shared evenly
    return balanced if balanced.l1_bytes <= budget else plan(low)
