"""Convolutions whose weights have a zero point, which only legacy uint8 models have (mote.frontend.tflite_uint8):
TensorFlow Lite's uint8 Conv and DepthwiseConv took each tap as (w - w_zero_point) * (x - x_zero_point).

After the shift to int8, w - w_zero_point spans up to [-255, 255]: it does not fit int8 weights, and the
input-dependent term w_zero_point * sum(x - x_zero_point) over a window's in-bounds taps cannot be folded into
the bias. So every ordinary int8 kernel declines such a layer, and it runs on one of its own:
  mote_conv_offset_blocked_s8  an ungrouped convolution (any filter, stride, dilation, padding): each weight
                               split as v + s (v in [-127, 128], s per output channel), the products
                               (x - x_zp) * v of an ordinary convolution, register-blocked, plus s * S, S =
                               sum over a window of x - x_zp computed once per output pixel
                               (mote.ops.filter_offset_conv);
  mote_depthwise_conv_band_s8 (scalar cores, strides 1 and 2 across, mote.ops.depthwise_band) with the
                               weights w - w_zero_point as int16 (wide_weights; on rv32 a frame of at most 36
                               outputs a channel gets a straight-line routine of its own), else
  mote_depthwise_conv_offset_rows_s8   a 3x3 depthwise convolution with depth multiplier 1, undilated: the
                               rows kernel (mote_depthwise_conv_rows_s8), whose nine weights live in registers,
                               on the weights w - w_zero_point as int16 (mote.ops.depthwise_conv2d);
  mote_conv_offset_s8, mote_depthwise_conv_offset_s8   last in the op's table, any layer (others, or those
                               whose accumulator bounds the kernels above cannot take): the filter offset
                               applied in each product, the exact fallback.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mote.c_text import c_struct
from mote.ir import Node
from mote.ops.registry import CCall, Core, Emitter, Kernel

DECLINED = "weights with a zero point (legacy uint8)"


def _offset(p: Any) -> int:
    return int(getattr(p, "filter_offset", 0))


def _declining(kernel: Kernel) -> Kernel:
    if kernel.dtypes is not None:  # a record of another dtype (float32, 16x8): its params have no such weights
        return kernel

    def accepts(node: Node, p: Any) -> str | None:
        return DECLINED if _offset(p) else kernel.accepts(node, p)
    return replace(kernel, accepts=accepts)


def _offset_kernel(func: str, params_type: str, generic: Kernel) -> Kernel:
    """The record of `func`, whose params are those of the op's generic kernel (field `conv`) and the filter
    offset."""
    def pack(node: Node, p: Any, em: Emitter) -> CCall:
        call = generic.pack(node, p, em)
        return CCall(func, params_type, {"conv": c_struct(call.fields), "filter_offset": _offset(p)}, call.args)
    return Kernel(func, frozenset(Core), pack)


# (C function, params type) of each op's offset kernel
CONV = ("mote_conv_offset_s8", "mote_conv_offset_params")
DEPTHWISE = ("mote_depthwise_conv_offset_s8", "mote_depthwise_conv_offset_params")


def with_filter_offset(kernels: tuple[Kernel, ...], offset: tuple[str, str],
                       fast: tuple[Kernel, ...] = ()) -> tuple[Kernel, ...]:
    """An op's int8 table (its generic kernel last) with every record declining a layer whose weights have a
    zero point, then the records `fast` for those layers, then the offset kernel `offset`: it computes any
    layer of the op (with offset 0, as the generic kernel does) but is chosen only for those. A record of
    `fast` that is in `kernels` takes both kinds of layers where it stands (and is not listed again)."""
    return (*[k if k in fast else _declining(k) for k in kernels], *[k for k in fast if k not in kernels],
            _offset_kernel(*offset, kernels[-1]))
