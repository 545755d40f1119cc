"""Legacy uint8 models (what TOCO and old converters wrote): uint8 activations and weights, per-tensor
asymmetric, zero points in 0..255, int32 biases. TFLite Micro no longer runs them; mote imports them exactly
as int8.

Every quantized uint8 tensor becomes int8 with its values and zero points shifted by -128 (x ^ 0x80): the old
uint8 kernels compute on differences x - zero_point, which the shift keeps, and clamp to ranges the shift
moves along. Where an old kernel differs from its int8 successor, the node carries the attribute
`legacy_uint8` and the op computes as the old kernel did: convolutions take the weights' zero point
(mote.ops.filter_offset), average pooling rounds halves up, MUL takes its multiplier from float arithmetic.
The model's uint8 inputs and outputs stay uint8: a QUANTIZE between uint8 and int8 at each (the same scale,
zero points 128 apart) converts at the boundary.

Only the ops below are imported in a legacy model, each checked exact against TensorFlow Lite's uint8
reference kernels (tests/frontend/test_tflite_uint8.py); any other is refused with one line naming the layer.
Left out: LOGISTIC, whose uint8 result differs between TensorFlow Lite's reference kernel (fixed point) and
its default optimized one (a table computed in float), so that there is no one uint8 result to be exact with.
"""

from __future__ import annotations

from mote.errors import UnsupportedError
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops import registry

# Ops whose old uint8 kernel is the int8 one on shifted values, and those that need `legacy_uint8`.
SHIFT_EXACT = {"fully_connected", "max_pool2d", "add", "concatenation", "reshape", "squeeze", "pad", "softmax",
               "quantize", "dequantize"}
LEGACY_SEMANTICS = {"conv2d", "depthwise_conv2d", "avg_pool2d", "mul"}
NOTE = "a legacy uint8 model: computed in int8 on its values shifted by -128 (exact), uint8 at its inputs and outputs"


def _legacy_tensor(t: Tensor | None) -> bool:
    return t is not None and t.dtype is DType.UINT8 and t.quant is not None


def is_legacy_uint8(graph: Graph) -> bool:
    """Whether some op computes on quantized uint8 tensors that it takes only as int8 (a conversion to or from
    uint8 alone, or an op that moves uint8 bytes, is something TFLite Micro runs as it is)."""
    return any(node.op not in ("quantize", "dequantize") and DType.UINT8 not in registry.OPS[node.op].dtypes
               and any(_legacy_tensor(t) for t in [*node.inputs, *node.outputs]) for node in graph.nodes)


def _shifted(t: Tensor) -> Tensor:
    assert t.quant is not None
    quant = Quant(t.quant.scale, tuple(z - 128 for z in t.quant.zero_point), t.quant.axis)
    data = None if t.data is None else (t.data.astype("int16") - 128).astype("int8")
    return Tensor(t.name, t.shape, DType.INT8, quant, data, t.variable)


def convert_legacy_uint8(graph: Graph) -> None:
    """Rewrite a legacy uint8 graph in place into int8 (see the module docstring)."""
    for node in graph.nodes:
        if node.op not in SHIFT_EXACT | LEGACY_SEMANTICS:
            raise UnsupportedError(f"{graph.name}: node {node.name!r} ({node.op}): a legacy uint8 model may hold "
                                   f"only {', '.join(sorted(SHIFT_EXACT | LEGACY_SEMANTICS))}, whose old uint8 "
                                   "kernels mote reproduces; convert the model to int8")
    shifted = {t: _shifted(t) for t in graph.tensors if _legacy_tensor(t)}
    for node in graph.nodes:
        node.inputs = [shifted.get(t, t) if t is not None else None for t in node.inputs]
        node.outputs = [shifted.get(t, t) for t in node.outputs]
        if node.op in LEGACY_SEMANTICS:
            node.attrs["legacy_uint8"] = True
    if set(graph.inputs) & set(graph.outputs):
        raise UnsupportedError(f"{graph.name}: an input of the legacy uint8 model is also its output; mote compiles "
                               "models whose outputs are computed")
    entry = [_boundary(t, shifted[t], to_int8=True) for t in graph.inputs if t in shifted]
    exit_ = [_boundary(t, shifted[t], to_int8=False) for t in graph.outputs if t in shifted]
    graph.nodes[:0] = entry
    graph.nodes.extend(exit_)
    graph.notes.append(NOTE)


def _boundary(outside: Tensor, inside: Tensor, to_int8: bool) -> Node:
    """The QUANTIZE that takes the model's uint8 tensor `outside` to its int8 twin `inside`, or back. The two
    keep the model's name: the uint8 one is the API's, the int8 one gets a suffix."""
    inside.name = f"{outside.name}_int8"
    if to_int8:
        return Node("quantize", inside.name, [outside], [inside], {})
    return Node("quantize", outside.name, [inside], [outside], {})
