"""Compiling one node into a DLA job: configuration-register writes, DMA and compute commands.

The job's constants (weights and the int32 bias/multiplier/shift triples of every output channel)
form one blob in flash, packed per channel tile so that each tile's weights and parameters arrive
with one contiguous DMA. Tiles follow mote.accel.dla.tiling; SRAM holds the tile buffers at fixed
slots (two of each when double-buffered, alternating by tile).

Residency (decided per graph by the accelerator's plan): a job may keep its whole output in SRAM
instead of writing it back, for the next job, its only reader, which then reads its tiles there
(at the tensor's own pixel stride) instead of through DMA. Likewise consecutive jobs that read one
input: the first reads it whole into SRAM and leaves it there, the others read it in place. The tile
buffers live below the resident tensors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mote.accel.dla import isa
from mote.accel.dla.config import DlaConfig
from mote.accel.dla.tiling import Layer, Tiling, channels_of, choose, sizes
from mote.accel.packing import pack_rows, row_bytes
from mote.errors import MoteError
from mote.ops import OPS

CFG = isa.CFG


@dataclass
class Compiled:
    commands: list[isa.Command]
    consts: np.ndarray  # uint8 blob for the consts base register
    layer: Layer
    tiling: Tiling
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Residency:
    """SRAM addresses of a job's whole input (left there by the previous job) and of its whole output
    (kept there for the next one); None: through DMA from and to system memory. `load_input`: the job
    itself reads its whole input to `input_at` with one DMA first and leaves it there for the next jobs,
    which read the same tensor (e.g. the query, key and value projections of one normalized row)."""

    input_at: int | None = None
    output_at: int | None = None
    load_input: bool = False

    def budget(self, sram: int) -> int:
        """The SRAM below the resident tensors, for tile buffers."""
        return min((a for a in (self.input_at, self.output_at) if a is not None), default=sram)


_PREPARED: dict[int, tuple[object, object]] = {}  # per process: each node's params, by the node itself
_PREPARED_MAX = 4096


def _prepared(node):  # noqa: ANN001, ANN202 - Node and the op's params
    """The op's params of `node`, computed once per node object: an exploration plans and compiles the
    same graph's nodes for every configuration, and preparing them (the accumulator range check) costs
    as much as the rest. Nodes are not changed once compiled; the cache holds them so ids stay unique."""
    hit = _PREPARED.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    params = OPS[node.op].prepare(node)
    if len(_PREPARED) >= _PREPARED_MAX:
        _PREPARED.clear()
    _PREPARED[id(node)] = (node, params)
    return params


def layer_of(node, kind: str) -> tuple[Layer, object]:  # noqa: ANN001 - Node and the op's params
    params = _prepared(node)
    x, out = node.inputs[0], node.outputs[0]
    name = node.name
    weights = node.inputs[1] if kind in ("conv", "depth", "emulated", "matmul") else None
    bits = weights.bits if weights is not None else 8
    if kind in ("conv", "depth", "emulated"):
        p = params
        out_c = p.out_ch
        in_c = p.in_ch
        return Layer(kind, name, p.in_h, p.in_w, in_c, p.out_h, p.out_w, out_c, p.filter_h, p.filter_w, p.stride_h,
                     p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left,
                     getattr(p, "depth_multiplier", 1), weight_bits=bits), p
    if kind == "matmul":
        p = params
        return Layer(kind, name, p.batches, 1, p.accum_depth, p.batches, 1, p.out_depth, weight_bits=bits), p
    if kind == "pool":
        p = params
        return Layer(kind, name, p.in_h, p.in_w, p.channels, p.out_h, p.out_w, p.channels, p.filter_h, p.filter_w,
                     p.stride_h, p.stride_w, 1, 1, p.pad_top, p.pad_left, maximum=node.op == "max_pool2d"), p
    c = x.shape[-1]
    rows = x.size // c
    assert out.size == x.size
    return Layer("add", name, rows, 1, c, rows, 1, c), params


def _triples(p, channels: int) -> np.ndarray:  # noqa: ANN001
    bias = np.zeros(channels, np.int64) if p.bias is None else np.asarray(p.bias, np.int64)
    return np.stack([bias, np.asarray(p.multiplier, np.int64), np.asarray(p.shift, np.int64)], 1).astype("<i4")


def _pad(blob: bytes) -> bytes:
    return blob + bytes(-len(blob) % 16)


def _const_tiles(layer: Layer, p, tiling: Tiling) -> tuple[np.ndarray, list[tuple[int, int, int]], int]:  # noqa: ANN001
    """The blob, per channel tile (offset, weights bytes, total bytes) in it, and the packed weights' bytes.
    Weights narrower than 8 bits are packed rows (mote.accel.dla.isa, W_BITS)."""
    if layer.kind in ("pool", "add"):
        return np.zeros(0, np.uint8), [], 0
    blob = bytearray()
    tiles = []
    channels = layer.in_c if layer.channel_tiled_input else layer.out_c
    m, bits = layer.multiplier, layer.weight_bits
    triples = _triples(p, layer.out_c)
    weight_bytes = 0
    for c0 in range(0, channels, tiling.channels):
        c1 = min(c0 + tiling.channels, channels)
        if layer.kind == "depth":  # [K_H*K_W] rows of the tile's channels
            o0, o1 = c0 * m, c1 * m
            rows = np.asarray(p.weights[:, :, o0:o1]).reshape(layer.kh * layer.kw, o1 - o0)
        elif layer.kind == "emulated":  # one [K_H, K_W, 1] filter after another
            o0, o1 = c0 * m, c1 * m
            rows = np.transpose(p.weights[:, :, o0:o1], (2, 0, 1)).reshape(o1 - o0, -1)
        else:  # [OUT_C] rows of K_H*K_W*IN_C (matmul: IN_C)
            o0, o1 = c0, c1
            rows = np.asarray(p.weights[o0:o1]).reshape(o1 - o0, -1)
        packed = pack_rows(np.ascontiguousarray(rows).astype(np.int8), bits).tobytes()
        weight_bytes += len(packed)
        w = _pad(packed)
        t = _pad(triples[o0:o1].tobytes())
        tiles.append((len(blob), len(w), len(w) + len(t)))
        blob += w + t
    return np.frombuffer(bytes(blob), np.uint8).copy(), tiles, weight_bytes


class _Emitter:
    """Appends commands, writing configuration registers only when their value changes."""

    def __init__(self, regs: dict[int, int]) -> None:
        self.commands: list[isa.Command] = []
        self.regs = regs
        self.group = 0
        self.second_input = 0  # offset of add's second input in its input slot

    def cfg(self, **values: int) -> None:
        for name, value in values.items():
            index = CFG[name]
            if self.regs.get(index) != value:
                self.commands.append(isa.Command(isa.OP_CFG, 0, self.group, index, value & 0xFFFFFFFF))
                self.regs[index] = value

    def add(self, op: int, flags: int = 0, **operands: int) -> None:
        self.commands.append(isa.Command(op, flags, self.group, **operands))


def compile_node(node, kind: str, config: DlaConfig, residency: Residency = Residency(),  # noqa: ANN001
                 regs: dict[int, int] | None = None) -> Compiled:
    layer, p = layer_of(node, kind)
    resident_in, kept_out = residency.input_at is not None, residency.output_at is not None
    tiling = choose(layer, config, residency.budget(config.sram), resident_in, kept_out)
    inp, w, out = (int(a[0]) for a in sizes(layer, np.array([tiling.channels]), np.array([tiling.rows])))
    n_ct, n_rt = tiling.counts(layer)
    whole_input = n_rt == 1 and (n_ct == 1 or not layer.channel_tiled_input) and layer.kind != "add"
    em = _Emitter({} if regs is None else regs)
    consts, tiles, weight_bytes = _const_tiles(layer, p, tiling)
    in_copies = 1 if (whole_input and not layer.channel_tiled_input) or n_ct * n_rt == 1 or not tiling.double else 2
    w_copies = 1 if n_ct == 1 or not tiling.double else 2
    out_copies = 1 if n_ct * n_rt == 1 or not tiling.double else 2
    in_slots = [i * inp for i in range(in_copies)] if not resident_in else []
    base = len(in_slots) * inp
    w_slots = [base + i * w for i in range(w_copies)]
    base += w_copies * w
    out_slots = [base + i * out for i in range(out_copies)] if not kept_out else []
    em.second_input = inp // 2
    _configure(em, layer, p)
    if residency.load_input and residency.input_at is not None:  # the whole input, once, for this job and the next
        n = layer.in_h * layer.in_w * layer.in_c
        em.add(isa.OP_DMA_READ, a=isa.BASE_IN0, b=0, c=residency.input_at, d=n, e=1, f=n)
    serial = 0 if tiling.double else 0x8000
    channels = channels_of(layer)
    m = layer.multiplier if layer.channel_tiled_input else 1
    g = 0
    for ci, c0 in enumerate(range(0, channels, tiling.channels)):
        c1 = min(c0 + tiling.channels, channels)
        for r0 in range(0, layer.out_h, tiling.rows):
            r1 = min(r0 + tiling.rows, layer.out_h)
            em.group = (g & 0x7FFF) | (serial if g else 0)
            y0, y1, pad_top = _input_rows(layer, r0, r1)
            w_slot = w_slots[ci % len(w_slots)] if w_slots else 0
            if residency.input_at is not None:  # the tile, in place in the whole tensor
                src = _Operand(residency.input_at + y0 * layer.in_w * layer.in_c +
                               (c0 if layer.channel_tiled_input else 0), layer.in_c)
            else:
                src = _Operand(in_slots[g % len(in_slots)], layer.in_c if not layer.channel_tiled_input else c1 - c0)
                if len(in_slots) == 2 or g == 0 or not whole_input:
                    _read_input(em, layer, src.address, inp, c0, c1, y0, y1)
            if residency.output_at is not None:
                o0 = 0 if layer.kind == "add" else c0 * m
                dst = _Operand(residency.output_at + r0 * layer.out_w * layer.out_c + o0, layer.out_c)
            else:
                dst = _Operand(out_slots[g % len(out_slots)], layer.out_c if layer.kind == "add" else (c1 - c0) * m)
            if tiles and r0 == 0:
                offset, _, total = tiles[ci]
                em.add(isa.OP_DMA_READ, a=isa.BASE_CONSTS, b=offset, c=w_slot, d=total, e=1, f=total)
            _compute(em, layer, p, src, w_slot, tiles[ci][1] if tiles else 0, dst, c0, c1, r0, r1, y1 - y0, pad_top)
            if residency.output_at is None:
                _write_output(em, layer, dst.address, c0, c1, r0, r1)
            g += 1
    return Compiled(em.commands, consts, layer, tiling,
                    {"tiles": n_ct * n_rt, "channel_tile": tiling.channels, "row_tile": tiling.rows,
                     "double_buffered": tiling.double, "sram_bytes": tiling.sram,
                     "input_resident": resident_in and not residency.load_input,
                     "input_loaded": residency.load_input, "output_kept": kept_out,
                     "dma_bytes": dma_bytes(em.commands), "weight_bits": layer.weight_bits,
                     "weight_bytes": weight_bytes})


def dma_bytes(commands: list[isa.Command]) -> int:
    """The bytes a job's DMA commands move between system memory and SRAM (both directions)."""
    return sum(c.d * c.e for c in commands if c.op in (isa.OP_DMA_READ, isa.OP_DMA_WRITE))


@dataclass(frozen=True)
class _Operand:
    """Where a tile's pixels are in SRAM and how many elements apart."""

    address: int
    pixel_stride: int


def estimate(node, kind: str, config: DlaConfig, residency: Residency) -> int | None:  # noqa: ANN001
    """The tiling's estimated cycles for `node` with this residency, or None if it does not fit."""
    layer, _ = layer_of(node, kind)
    try:
        return choose(layer, config, residency.budget(config.sram), residency.input_at is not None,
                      residency.output_at is not None).estimate
    except MoteError:
        return None


def _input_rows(layer: Layer, r0: int, r1: int) -> tuple[int, int, int]:
    """The input rows [y0, y1) output rows [r0, r1) read, and how many padding rows precede y0."""
    first = r0 * layer.sh - layer.pad_top
    last = (r1 - 1) * layer.sh - layer.pad_top + (layer.kh - 1) * layer.dh
    y0, y1 = max(first, 0), min(last, layer.in_h - 1) + 1
    return y0, y1, y0 - first


def _configure(em: _Emitter, layer: Layer, p) -> None:  # noqa: ANN001
    """The layer's constant configuration registers (tile-dependent ones are set per tile)."""
    em.cfg(IN_W=layer.in_w, OUT_W=layer.out_w, K_H=layer.kh, K_W=layer.kw, STRIDE_H=layer.sh, STRIDE_W=layer.sw,
           DIL_H=layer.dh, DIL_W=layer.dw, PAD_LEFT=layer.pad_left)
    if layer.kind in ("conv", "depth", "emulated"):
        em.cfg(IN_OFFSET=p.input_offset, OUT_OFFSET=p.output_offset, ACT_MIN=p.act_min, ACT_MAX=p.act_max,
               DEPTH_MULT=layer.multiplier)
    elif layer.kind == "matmul":
        em.cfg(IN_OFFSET=p.input_offset, OUT_OFFSET=p.output_offset, ACT_MIN=p.act_min, ACT_MAX=p.act_max,
               FILTER_OFFSET=p.filter_offset, IN_C=layer.in_c)
    elif layer.kind == "pool":
        em.cfg(ACT_MIN=p.act_min, ACT_MAX=p.act_max)
    else:
        em.cfg(A_OFFSET=p.a_offset, A_MULT=p.a_multiplier, A_SHIFT=p.a_shift, B_OFFSET=p.b_offset,
               B_MULT=p.b_multiplier, B_SHIFT=p.b_shift, LEFT_SHIFT=p.left_shift, OUT_MULT=p.out_multiplier,
               OUT_SHIFT=p.out_shift, OUT_OFFSET=p.out_offset, ACT_MIN=p.act_min, ACT_MAX=p.act_max)


def _read_input(em: _Emitter, layer: Layer, slot: int, size: int, c0: int, c1: int, y0: int, y1: int) -> None:
    row_bytes = layer.in_w * layer.in_c
    if layer.kind == "add":
        n = (y1 - y0) * layer.in_c
        for base, offset in ((isa.BASE_IN0, 0), (isa.BASE_IN1, size // 2)):
            em.add(isa.OP_DMA_READ, a=base, b=y0 * row_bytes, c=slot + offset, d=n, e=1, f=n)
        return
    if layer.channel_tiled_input and c1 - c0 < layer.in_c:
        em.add(isa.OP_DMA_READ, a=isa.BASE_IN0, b=y0 * row_bytes + c0, c=slot, d=c1 - c0,
               e=(y1 - y0) * layer.in_w, f=layer.in_c)
    else:
        n = (y1 - y0) * row_bytes
        em.add(isa.OP_DMA_READ, a=isa.BASE_IN0, b=y0 * row_bytes, c=slot, d=n, e=1, f=n)


def _write_output(em: _Emitter, layer: Layer, slot: int, c0: int, c1: int, r0: int, r1: int) -> None:
    m = layer.multiplier if layer.channel_tiled_input else 1
    o0, o1 = c0 * m, c1 * m
    if layer.kind == "add":
        o0, o1 = 0, layer.out_c
    pixels = (r1 - r0) * layer.out_w
    offset = r0 * layer.out_w * layer.out_c + o0
    if o1 - o0 == layer.out_c:
        em.add(isa.OP_DMA_WRITE, a=isa.BASE_OUT, b=offset, c=slot, d=pixels * layer.out_c, e=1,
               f=pixels * layer.out_c)
    else:
        em.add(isa.OP_DMA_WRITE, a=isa.BASE_OUT, b=offset, c=slot, d=o1 - o0, e=pixels, f=layer.out_c)


def _relu(p) -> bool:  # noqa: ANN001
    """The clamp starts at the output zero point: a fused ReLU, run as OP_CONV_RELU."""
    return p.act_min == max(p.output_offset, -128)


def _compute(em: _Emitter, layer: Layer, p, src: _Operand, w_slot: int, w_bytes: int,  # noqa: ANN001
             dst: _Operand, c0: int, c1: int, r0: int, r1: int, in_rows: int, pad_top: int) -> None:
    tc = c1 - c0
    rows = r1 - r0
    a, c = src.address, dst.address
    requant = isa.FLAG_REQUANT | isa.weight_flags(layer.weight_bits)  # the layer instructions' flags
    strides = {"SRC_PIXEL_STRIDE": src.pixel_stride, "DST_PIXEL_STRIDE": dst.pixel_stride}
    if layer.kind == "conv":
        em.cfg(IN_H=in_rows, IN_C=layer.in_c, OUT_H=rows, OUT_C=tc, PAD_TOP=pad_top, **strides)
        op = isa.OP_CONV_RELU if _relu(p) else isa.OP_CONV
        em.add(op, requant, a=a, b=w_slot, c=c, d=w_slot + w_bytes)
    elif layer.kind == "depth":
        em.cfg(IN_H=in_rows, IN_C=tc, OUT_H=rows, OUT_C=tc * layer.multiplier, PAD_TOP=pad_top, **strides)
        em.add(isa.OP_DEPTH_CONV, requant, a=a, b=w_slot, c=c, d=w_slot + w_bytes)
    elif layer.kind == "emulated":
        m, filter_bytes = layer.multiplier, row_bytes(layer.kh * layer.kw, layer.weight_bits)
        em.cfg(IN_H=in_rows, IN_C=1, OUT_H=rows, OUT_C=1, PAD_TOP=pad_top, **strides)
        op = isa.OP_CONV_RELU if _relu(p) else isa.OP_CONV
        for o in range(tc * m):  # one filter at a time: the standard convolution on one channel
            em.add(op, requant, a=a + o // m, b=w_slot + o * filter_bytes, c=c + o,
                   d=w_slot + w_bytes + 12 * o)
    elif layer.kind == "matmul":
        em.cfg(ROWS=rows, OUT_C=tc, **strides)
        em.add(isa.OP_MAT_MUL, requant, a=a, b=w_slot, c=c, d=w_slot + w_bytes)
    elif layer.kind == "pool":
        em.cfg(IN_H=in_rows, IN_C=tc, OUT_H=rows, PAD_TOP=pad_top, **strides)
        em.add(isa.OP_POOL, isa.FLAG_MAX if layer.maximum else 0, a=a, c=c)
    else:
        em.add(isa.OP_E_ADD, a=a, b=a + em.second_input, c=c, e=rows * layer.in_c)
