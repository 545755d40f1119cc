"""Layers split across the cores of a cluster: each core runs the layer's kernel on its own part.

A part is the same op on a sub-range of the output, described to the kernel by the same params
struct: output rows for windowed layers (convolution, depthwise, pooling: the input rows it needs and
its own top padding follow), pixels for pointwise convolutions (1x1, stride 1, no padding: any range of
pixels is one), output channels for a fully connected layer of one row (its weight rows, bias and
output stage sliced), rows otherwise; rows for softmax and the norms, batches (else rows) for a batch
matrix product, the outermost extent of an elementwise add, sub or mul, ranges of elements for requantization and
activations (whole pixels for a RequantShift, whose channels repeat). Every output element is computed by
exactly the arithmetic of the whole layer, so the parts together are bit-exact with one core. Each part's
kernel is chosen for its own params (the same table, the first record that accepts). Ranges are as equal as
possible, in granules the kernels block by. A convolution, depthwise convolution or pooling layer splits its
output channels instead when that balances better (a small image with many channels; a global pooling):
each part's channels are computed into a buffer of its own, then copied into place, since the kernels write
whole pixels (a depthwise or pooling part, which reads only its own channels, first copies them packed).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.codegen.emitter import Emitter
from mote.codegen.params import params_block
from mote.ints import round_up
from mote.ir import Graph, Node
from mote.ops import OPS
from mote.ops.broadcast import Broadcast
from mote.ops.conv2d_params import ConvParams
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import Choice, Core, choose_kernel


@dataclass(frozen=True)
class Columns:
    """Some channels of every pixel of a tensor: `pixels` rows of `width` bytes from `first`, in rows `stride`
    bytes apart. A part that computes some output channels has its kernel write them packed into a buffer
    of its own, then copies them into place; one whose kernel reads only the same channels of its input
    (depthwise, pooling) first copies them, packed, into another."""

    first: int
    width: int
    stride: int
    pixels: int


@dataclass(frozen=True)
class Part:
    """One core's part of a layer: its params and, per kernel pointer argument, the offset in elements;
    `columns` when it computes output channels (its output pointer is then the staging buffer)."""

    params: Any
    offsets: tuple[int, ...]
    columns: Columns | None = None
    gathered: Columns | None = None  # its input channels, copied into a buffer of its own first


def ranges(n: int, cores: int, granule: int = 1) -> list[tuple[int, int]]:
    """[start, end) of up to `cores` contiguous, non-empty ranges covering 0..n, in whole granules but the
    last, as equal as possible."""
    units = -(-n // granule)
    parts = min(cores, units)
    out, start = [], 0
    for k in range(parts):
        take = units // parts + (1 if k < units % parts else 0)
        end = min(n, start + take * granule)
        out.append((start, end))
        start = end
    return out


def _out_channels(p: Any) -> int:
    if hasattr(p, "out_ch"):
        return int(p.out_ch)
    if hasattr(p, "depth_multiplier"):
        return int(p.in_ch * p.depth_multiplier)
    return int(p.channels)


def _in_channels(p: Any) -> int:
    return int(p.in_ch if hasattr(p, "in_ch") else p.channels)


def _pointwise(p: Any) -> bool:
    return (hasattr(p, "out_ch") and p.filter_h == p.filter_w == 1 and p.stride_h == p.stride_w == 1
            and p.pad_top == p.pad_left == 0)


def _blocks(pixels: int) -> int:
    return -(-pixels // 4)  # the scalar convolution kernels compute blocks of four pixels


def _largest(parts: list[Part]) -> int:
    """The largest part's work: its blocks of pixels times its blocks of channels (the whole layer's is the
    same for every split, so comparing the largest parts compares their shares)."""
    return max(_blocks(part.params.out_h * part.params.out_w) * _blocks(_out_channels(part.params))
               for part in parts)


def _sliced(p: Any, channels: int, c0: int, c1: int) -> dict[str, np.ndarray]:
    """The per-channel arrays of `p` (first axis `channels` long), sliced to channels c0..c1."""
    return {f.name: getattr(p, f.name)[c0:c1] for f in dataclasses.fields(p)
            if isinstance(getattr(p, f.name), np.ndarray) and getattr(p, f.name).shape[:1] == (channels,)}


def _channel_part(p: Any, c0: int, c1: int) -> Part:
    """Channels c0..c1 of a convolution (its weights' rows), a depthwise convolution of multiplier 1 (its
    weights' last axis; its input's channels gathered) or a pooling layer (its input's channels gathered)."""
    width, pixels = c1 - c0, p.out_h * p.out_w
    if isinstance(p, ConvParams):
        part = dataclasses.replace(p, out_ch=width, **_sliced(p, p.out_ch, c0, c1))
        return Part(part, (0, 0), Columns(c0, width, p.out_ch, pixels))
    gathered = Columns(c0, width, _in_channels(p), p.in_h * p.in_w)
    if isinstance(p, DepthwiseParams):
        part = dataclasses.replace(p, in_ch=width, **{**_sliced(p, p.in_ch, c0, c1), "weights": p.weights[..., c0:c1]})
    else:
        part = dataclasses.replace(p, channels=width)
    return Part(part, (0, 0), Columns(c0, width, _out_channels(p), pixels), gathered)


def _channels(p: Any, cores: int) -> list[Part] | None:
    """The output channels in sets of four, each part's outputs staged and copied into place (Columns)."""
    if isinstance(p, ConvParams) and p.groups != 1 or isinstance(p, DepthwiseParams) and p.depth_multiplier != 1:
        return None
    return [_channel_part(p, c0, c1) for c0, c1 in ranges(_out_channels(p), cores, 4)]


def _windowed(p: Any, cores: int) -> list[Part] | None:
    """Rows of the output (pixels of a pointwise convolution), or a convolution's output channels when they
    balance better (a small image with many channels)."""
    if p.batches != 1:
        return None
    spatial = _spatial(p, cores)
    by_channel = _channels(p, cores) if _out_channels(p) >= 8 else None
    if by_channel and len(by_channel) > 1 and (len(spatial) < 2 or _by_channels_wins(p, by_channel, spatial)):
        return by_channel
    return spatial


def _by_channels_wins(p: Any, by_channel: list[Part], spatial: list[Part]) -> bool:
    """Whether the channel split balances better: its largest part's load under 0.8 of the row split's (the
    staging copies cost the rest). A padded depthwise layer takes the channels at a tie too: its row split's
    first and last parts also run the kernel's padded edge rows, which the load leaves out (on KWS's 25-row
    layers on 8 cores, one part of four rows and the padded edges cost core 0 ~45% more than the others)."""
    by_channel_5, spatial_4 = 5 * _largest(by_channel), 4 * _largest(spatial)  # the 0.8, in integers
    padded_depthwise = isinstance(p, DepthwiseParams) and (p.pad_top > 0 or p.pad_left > 0)
    return by_channel_5 < spatial_4 or padded_depthwise and by_channel_5 == spatial_4


def _spatial(p: Any, cores: int) -> list[Part]:
    cin, cout = _in_channels(p), _out_channels(p)
    if _pointwise(p):  # one row of pixels: any range of them is a pointwise convolution too
        pixels = p.in_h * p.in_w
        return [Part(dataclasses.replace(p, in_h=1, in_w=b - a, out_h=1, out_w=b - a), (a * cin, a * cout))
                for a, b in ranges(pixels, cores, 4)]
    parts = []
    for r0, r1 in ranges(p.out_h, cores):
        first = r0 * p.stride_h - p.pad_top  # the first input row the part's windows reach, maybe padding
        skip = max(first, 0)
        part = dataclasses.replace(p, in_h=p.in_h - skip, out_h=r1 - r0, pad_top=max(-first, 0))
        parts.append(Part(part, (skip * p.in_w * cin, r0 * p.out_w * cout)))
    return parts


_CHANNEL_ARRAYS = ("weights", "bias", "multiplier", "shift", "folded_bias")


def _fully_connected(p: Any, cores: int) -> list[Part] | None:
    if p.batches > 1:  # rows of the input: the channels of one row are contiguous, of several not
        return [Part(dataclasses.replace(p, batches=b - a), (a * p.accum_depth, a * p.out_depth))
                for a, b in ranges(p.batches, cores)]
    granule = 16 if p.out_depth % 16 == 0 else 4
    parts = []
    for c0, c1 in ranges(p.out_depth, cores, granule):
        sliced = {name: getattr(p, name)[c0:c1] for name in _CHANNEL_ARRAYS
                  if isinstance(getattr(p, name, None), np.ndarray)}
        parts.append(Part(dataclasses.replace(p, out_depth=c1 - c0, **sliced), (0, c0)))
    return parts


def _softmax(p: Any, cores: int) -> list[Part]:
    return [Part(dataclasses.replace(p, rows=b - a), (a * p.depth, a * p.depth)) for a, b in ranges(p.rows, cores)]


def _add(p: Any, cores: int) -> list[Part] | None:
    b = p.bcast
    if not b.shape:
        return None
    inner = int(np.prod(b.shape[1:], dtype=np.int64))
    return [Part(dataclasses.replace(p, bcast=Broadcast((e - s, *b.shape[1:]), b.a_strides, b.b_strides)),
                 (s * b.a_strides[0], s * b.b_strides[0], s * inner)) for s, e in ranges(b.shape[0], cores)]


def _rows(p: Any, cores: int) -> list[Part]:
    """Ops over the rows of a matrix, each row on its own (norms, softmax variants): `rows` and a row length."""
    length = int(getattr(p, "depth", getattr(p, "length", 0)))
    return [Part(dataclasses.replace(p, rows=b - a), (a * length, a * length)) for a, b in ranges(p.rows, cores)]


def _flat(p: Any, cores: int) -> list[Part] | None:
    """Elementwise ops of one input (requantization, activations): any range of elements, in words."""
    if not hasattr(p, "size"):
        return None
    return [Part(dataclasses.replace(p, size=b - a), (a, a)) for a, b in ranges(p.size, cores, 4)]


def _requant_shift(p: Any, cores: int) -> list[Part] | None:
    """A RequantShift's channels repeat innermost: whole pixels, so each part starts at channel 0."""
    if p.size % p.channels:
        return None
    return [Part(dataclasses.replace(p, size=(b - a) * p.channels), (a * p.channels, a * p.channels))
            for a, b in ranges(p.size // p.channels, cores)]


def _batch_matmul(p: Any, cores: int) -> list[Part]:
    """Batches (their operands' offsets sliced; each batch's output follows the last), else rows of A."""
    batches, block = int(p.a_offsets.size), p.rows * p.cols
    if batches > 1:
        return [Part(dataclasses.replace(p, a_offsets=p.a_offsets[a:b], b_offsets=p.b_offsets[a:b]),
                     (0, 0, a * block)) for a, b in ranges(batches, cores)]
    return [Part(dataclasses.replace(p, rows=b - a), (a * p.a_row_step, 0, a * p.cols))
            for a, b in ranges(p.rows, cores)]


_RULES = {"conv2d": _windowed, "conv2d_rqs": _windowed, "depthwise_conv2d": _windowed, "avg_pool2d": _windowed,
          "max_pool2d": _windowed, "fully_connected": _fully_connected, "softmax": _softmax, "add": _add,
          "sub": _add, "mul": _add, "layer_norm": _rows, "ilayernorm": _rows, "irmsnorm": _rows, "isoftmax": _rows,
          "log_softmax": _rows, "l2_normalization": _rows, "quantize": _flat, "relu": _flat, "relu6": _flat,
          "leaky_relu": _flat, "logistic": _flat, "tanh": _flat, "requant_shift": _requant_shift,
          "batch_matmul": _batch_matmul}


def split(node: Node, params: Any, cores: int) -> list[Part] | None:
    """The parts of a layer on `cores` cores, or None when it runs on core 0 alone (an op without a rule,
    another dtype than int8, or a layer too small for two parts)."""
    rule = _RULES.get(node.op)
    x = node.inputs[0] if node.inputs else None
    if cores < 2 or rule is None or x is None or x.dtype.np != np.int8 or node.outputs[0].dtype.np != np.int8:
        return None
    parts = rule(params, cores)
    return parts if parts is not None and len(parts) > 1 else None


@dataclass(frozen=True)
class ChosenPart:
    """A part with the kernel chosen for its params."""

    params: Any
    offsets: tuple[int, ...]
    choice: Choice
    columns: Columns | None = None
    gathered: Columns | None = None


def chosen_parts(node: Node, params: Any, core: Core, cores: int) -> list[ChosenPart] | None:
    """The parts of a layer (or of one L1 tile of it: its params) on `cores` cores, each with its kernel;
    None when it runs on core 0 alone."""
    parts = split(node, params, cores)
    if parts is None:
        return None
    chosen = [ChosenPart(part.params, part.offsets, choose_kernel(OPS[node.op], node, part.params, core),
                         part.columns, part.gathered) for part in parts]
    return chosen if all(c.choice.kernel.computes(node) for c in chosen) else None


def parallel_parts(graph: Graph, params: list[Any], core: Core, cores: int) -> dict[int, list[ChosenPart]]:
    """The layers of `graph` split across `cores` cores: {layer index: its parts, each with its kernel}."""
    out = {}
    for i, (node, p) in enumerate(zip(graph.nodes, params)):
        chosen = chosen_parts(node, p, core, cores)
        if chosen is not None:
            out[i] = chosen
    return out


def _bytes(columns: Columns | None) -> int:
    return round_up(columns.width * columns.pixels, 8) if columns else 0


def _staged(part: ChosenPart) -> int:
    return _bytes(part.columns) + _bytes(part.gathered)


def scratch_share(node: Node, part: ChosenPart) -> int:
    """The arena bytes a part's scratch takes (each core its own, 8-byte aligned): the staging buffers of its
    output and input channels, if any, then its kernel's scratch."""
    return _staged(part) + round_up(part.choice.kernel.scratch_bytes(node, part.params), 8)


def _plus(pointer: str | None, elements: int) -> str:
    """A C pointer expression `elements` further on."""
    return f"{pointer} + {elements}" if elements else str(pointer)


def task(index: int, node: Node, parts: list[ChosenPart], em: Emitter, scratch: str | None, prefix: str,
         param_blocks: list[str], header: str) -> tuple[str, list[Choice]]:
    """Appends each part's params block and the layer's task (each core calls its part's kernel) to
    `param_blocks`; returns the task's name and the parts' kernel choices."""
    cases, offset = [], 0
    for k, part in enumerate(parts):
        call = part.choice.kernel.call(node, part.params, em)
        assert len(call.args) == len(part.offsets), f"{call.func}: {len(call.args)} pointer arguments"
        name = f"{prefix}layer{index}_params_c{k}"
        param_blocks.append(f"{header}\n{params_block(name, call)}")
        args = [_plus(a, o) for a, o in zip(call.args, part.offsets)]
        size = part.choice.kernel.scratch_bytes(node, part.params)
        at = offset + _staged(part)
        args.append(f"(mote_scratch){{{_plus(scratch, at)}, {size}}}" if size and scratch else "MOTE_NO_SCRATCH")
        if part.columns is None:
            cases.append(f"  case {k}: return {call.func}(&{name}, {', '.join(args)});")
        else:  # its channels into a staging buffer, then into place
            c, g, source, output = part.columns, part.gathered, args[0], args[1]
            staged = args[1] = _plus(scratch, offset)
            gather = []
            if g is not None:  # its input's channels first, packed
                args[0] = _plus(scratch, offset + _bytes(c))
                gather = [f"    mote_columns_s8({args[0]}, {g.width}, {_plus(source, g.first)}, {g.stride}, {g.width}, "
                          f"{g.pixels});"]
            cases += [f"  case {k}: {{", *gather,
                      f"    const int status = {call.func}(&{name}, {', '.join(args)});",
                      f"    mote_columns_s8({_plus(output, c.first)}, {c.stride}, {staged}, {c.width}, {c.width}, "
                      f"{c.pixels});", "    return status;", "  }"]
        offset += scratch_share(node, part)
    func = f"{prefix}layer{index}_task"
    param_blocks.append("\n".join([
        f"/* layer {index} on {len(parts)} cores, each its part of the output: core k runs case k */",
        f"static int {func}(uint32_t core) {{", "  switch (core) {", *cases, "  default: return MOTE_OK;", "  }",
        "}", ""]))
    return func, [part.choice for part in parts]
