"""Building blocks of the ops' `check` functions: what a kernel accepts, stated once per op.

Every failure is an UnsupportedError whose one-line message names the node, its op and the input,
output or attribute at fault. After an op's check passes, its shape rule and `prepare` must not fail
with anything but a MoteError.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops.registry import attr

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
PADDINGS = ("SAME", "VALID")
# Strides, dilations and filter sizes beyond this are no real model; refusing them keeps every index
# the C kernels compute from them far inside int32.
MAX_WINDOW = 1 << 16
MAX_WINDOW_ELEMENTS = 1 << 26  # the reference's window array, in taps


def fail(node: Node, what: str) -> UnsupportedError:
    return UnsupportedError(f"node {node.name!r} ({node.op}): {what}")


def input_count(node: Node, low: int, high: int | None = None) -> None:
    """Between `low` and `high` inputs (absent optional inputs count); exactly one output."""
    high = low if high is None else high
    if not low <= len(node.inputs) <= high:
        wanted = f"{low}" if low == high else f"{low} to {high}"
        raise fail(node, f"has {len(node.inputs)} inputs, the op takes {wanted}")
    if len(node.outputs) != 1:
        raise fail(node, f"has {len(node.outputs)} outputs, the op produces 1")


def present(node: Node, index: int, role: str) -> Tensor:
    t = node.inputs[index] if index < len(node.inputs) else None
    if t is None:
        raise fail(node, f"the {role} (input {index}) is missing")
    return t


def dtype(node: Node, t: Tensor, role: str, *allowed: DType) -> None:
    if t.dtype not in allowed:
        names = " or ".join(d.value for d in allowed)
        raise fail(node, f"the {role} {t.name!r} is {t.dtype.value}; the kernel takes {names} (it is never narrowed)")


def rank(node: Node, t: Tensor, role: str, *ranks: int) -> None:
    if len(t.shape) not in ranks:
        names = " or ".join(f"{r}-D" for r in ranks)
        raise fail(node, f"the {role} {t.name!r} is {len(t.shape)}-D {list(t.shape)}; the op needs {names}")


def quantized(node: Node, t: Tensor, role: str, per_channel_axis: int | None = None) -> None:
    """`t` carries quantization: per tensor, or (if `per_channel_axis` is given) per channel along it."""
    if t.quant is None:
        raise fail(node, f"the {role} {t.name!r} has no quantization (scale and zero point); the int8 kernel "
                         "needs one: quantize the model fully to int8")
    if len(t.quant.scale) > 1 and (per_channel_axis is None or t.quant.axis != per_channel_axis):
        where = "is not supported" if per_channel_axis is None else f"must be along axis {per_channel_axis}"
        raise fail(node, f"the {role} {t.name!r} is quantized per channel along axis {t.quant.axis}; that {where}")


def int8_activation(node: Node, t: Tensor | None, role: str) -> Tensor:
    """A per-tensor quantized int8 activation."""
    if t is None:
        raise fail(node, f"the {role} is missing")
    dtype(node, t, role, DType.INT8)
    quantized(node, t, role)
    return t


def constant(node: Node, t: Tensor, role: str) -> None:
    if not t.is_const:
        raise fail(node, f"the {role} {t.name!r} must be a constant tensor")


def activation(node: Node) -> None:
    value = attr(node, "activation")
    if value not in ACTIVATIONS:
        raise fail(node, f"fused activation {value!r} is not supported (supported: {', '.join(ACTIVATIONS)})")


def padding(node: Node) -> None:
    value = attr(node, "padding")
    if value not in PADDINGS:
        raise fail(node, f"padding {value!r} is not supported (use SAME or VALID)")


def window_pair(node: Node, name: str) -> tuple[int, int]:
    """An attribute of two sizes (stride, dilation, filter): whole numbers in [1, MAX_WINDOW]."""
    value = attr(node, name)
    if not _is_int_pair(value) or not all(1 <= v <= MAX_WINDOW for v in value):
        raise fail(node, f"{name} {_show(value)} must be two whole numbers from 1 to {MAX_WINDOW}")
    return int(value[0]), int(value[1])


def spatial_output(node: Node, x: Tensor, w_hw: Sequence[int]) -> tuple[int, int]:
    """The output (height, width) of a SAME/VALID window op, checked to be at least 1 (VALID with a
    window larger than the input has none)."""
    from mote.ops.common import out_size_and_pad  # common imports nothing from here

    padding(node)
    (sh, sw), (dh, dw) = window_pair(node, "stride"), window_pair(node, "dilation")
    sizes = []
    for size, filt, stride, dilation, axis in ((x.shape[1], w_hw[0], sh, dh, "height"),
                                               (x.shape[2], w_hw[1], sw, dw, "width")):
        if (filt - 1) * dilation + 1 > MAX_WINDOW:
            raise fail(node, f"the window's {axis} ({filt} taps, dilation {dilation}) spans more than {MAX_WINDOW}")
        out, _ = out_size_and_pad(size, filt, stride, dilation, attr(node, "padding"))
        if out < 1:
            raise fail(node, f"the window ({filt} taps, dilation {dilation}) is larger than the input {axis} {size}; "
                             "the output would be empty")
        sizes.append(out)
    return sizes[0], sizes[1]


def _is_int_pair(value: object) -> bool:
    return (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, Integral) and not isinstance(v, bool) for v in value))


def _show(value: object) -> str:
    return str(tuple(value)) if isinstance(value, (tuple, list)) else repr(value)


def window_budget(node: Node, elements: int) -> None:
    """The reference interpreter gathers a window op's taps in one array: keep it to a sane size."""
    if elements > MAX_WINDOW_ELEMENTS:
        raise fail(node, f"the windows span {elements} taps, more than mote's limit of {MAX_WINDOW_ELEMENTS}; "
                         "the model is damaged or far too large for a microcontroller")


def int8_with_byte_table(node: Node, table_dtype: DType) -> Tensor:
    """An int8 input and output and, as input 1, a constant table of one `table_dtype` value per input byte (256);
    returns the input."""
    input_count(node, 2)
    x = int8_activation(node, node.inputs[0], "input")
    int8_activation(node, node.outputs[0], "output")
    table = present(node, 1, "table")
    dtype(node, table, "table", table_dtype)
    constant(node, table, "table")
    if table.size != 256:
        raise fail(node, f"the table holds {table.size} values; it needs 256")
    return x


def unary_int8(node: Node) -> None:
    """One quantized int8 input, one quantized int8 output (elementwise and activation ops)."""
    input_count(node, 1)
    int8_activation(node, node.inputs[0], "input")
    int8_activation(node, node.outputs[0], "output")


def unary_int16(node: Node, zero_points: bool = True) -> None:
    """One quantized int16 input, one quantized int16 output; with `zero_points`, both zero points 0 (what
    TFLite Micro's int16 kernels mostly insist on)."""
    input_count(node, 1)
    for t, role in ((present(node, 0, "input"), "input"), (node.outputs[0], "output")):
        dtype(node, t, role, DType.INT16)
        quantized(node, t, role)
        if zero_points and t.zero_point != 0:
            raise fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro requires 0")


def binary_int8(node: Node) -> None:
    """Two quantized int8 inputs (numpy broadcasting), one quantized int8 output, a fused activation."""
    input_count(node, 2)
    int8_activation(node, node.inputs[0], "first input")
    int8_activation(node, node.inputs[1], "second input")
    int8_activation(node, node.outputs[0], "output")
    activation(node)


def int8_with_int32_constant(node: Node, role: str) -> None:
    """An int8 input and output, and a constant int32 second input (PAD's paddings, MEAN's axes)."""
    input_count(node, 2)
    int8_activation(node, node.inputs[0], "input")
    second = present(node, 1, role)
    dtype(node, second, role, DType.INT32)
    constant(node, second, role)
    int8_activation(node, node.outputs[0], "output")
