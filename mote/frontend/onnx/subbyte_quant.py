"""`mote quantize --weight-bits 4|2`: sub-byte weights in QDQ models.

4 bits: onnxruntime's quantizer writes them itself (QuantType.QInt4, symmetric per channel), on the float model
converted to opset 21, whose DequantizeLinear takes INT4 (older opsets get onnxruntime's com.microsoft ops).
2 bits: onnxruntime's quantizer has no 2-bit type, so the model is quantized at 4 bits (which lays out every
DequantizeLinear, scale and bias) on opset 25, whose DequantizeLinear takes INT2, and each weight is then
quantized again from its float values, per channel and symmetric as onnxruntime does it at other widths:
scale = max |w| / ((qmax - qmin) / 2) = max |w| / 1.5, q = clip(round(w / scale), -2, 1), zero point 0. Each
bias that sits on that weight's scale (input scale * weight scale) moves to the new scale with it. onnxruntime
runs such a model only with its graph optimizations off (its fused QGemm and QLinearConv take no int2 weights):
mote's sessions on it fall back to that (quantize._session, compare._session).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import MoteError
from mote.ir import subbyte

# The opset whose DequantizeLinear takes weights of each width.
OPSETS = {4: 21, 2: 25}
_BIAS_INPUT = {"Conv": 2, "Gemm": 2}


def check_weight_bits(bits: int) -> None:
    if bits not in (8, 4, 2):
        raise MoteError(f"--weight-bits {bits}: mote quantizes weights to 8, 4 or 2 bits; give one of those")


def with_opset(src: Path, opset: int, dst: Path) -> Path:
    """The model converted to `opset` (onnx's version converter), saved at `dst`."""
    import onnx
    from onnx import version_converter
    from onnx.helper import find_min_ir_version_for

    model = onnx.load(str(src))
    current = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), opset)
    if current < opset:
        try:
            model = version_converter.convert_version(model, opset)
        except Exception as e:  # onnx's converter raises its own types
            first = (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
            raise MoteError(f"{src}: cannot convert the model to opset {opset} for sub-byte weights ({first})") \
                from None
        model.ir_version = max(model.ir_version, find_min_ir_version_for(list(model.opset_import),
                                                                         ignore_unknown=True))
    onnx.save(model, str(dst))
    return dst


def narrow_to_two_bits(quantized: Path, float_model: Path) -> None:
    """Rewrite `quantized` (its weights INT4) in place with INT2 weights quantized from `float_model`'s."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(quantized))
    floats = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(float_model)).graph.initializer}
    inits = {i.name: i for i in model.graph.initializer}
    producers = {n.output[0]: n for n in model.graph.node if n.op_type == "DequantizeLinear"}
    ratios: dict[str, np.ndarray] = {}  # weight DequantizeLinear output -> new scale / old scale, per channel
    for out, dq in producers.items():
        w = inits.get(dq.input[0])
        if w is None or w.data_type != TensorProto.INT4:
            continue
        source = floats.get(dq.input[0].removesuffix("_quantized"))
        if source is None or len(dq.input) < 3:
            raise MoteError(f"{quantized}: cannot find the float weights of {dq.input[0]!r}; 2-bit weights are "
                            "quantized from them")
        axis = next((a.i for a in dq.attribute if a.name == "axis"), 1) % source.ndim
        old = numpy_helper.to_array(inits[dq.input[1]]).astype(np.float32)
        scale, q = _symmetric(source.astype(np.float64), axis, old.size > 1)
        _replace(inits[dq.input[0]], helper.make_tensor(w.name, TensorProto.INT2, list(w.dims),
                                                        q.reshape(-1).tolist()))
        zp = inits[dq.input[2]]
        _replace(zp, helper.make_tensor(zp.name, TensorProto.INT2, list(zp.dims), [0] * scale.size))
        _replace(inits[dq.input[1]], numpy_helper.from_array(scale.reshape(old.shape), dq.input[1]))
        ratios[out] = scale.reshape(-1).astype(np.float64) / old.reshape(-1).astype(np.float64)
    for node in model.graph.node:
        at = _BIAS_INPUT.get(node.op_type)
        if at is None or len(node.input) <= at or node.input[1] not in ratios or node.input[at] not in producers:
            continue
        _move_bias(producers[node.input[at]], inits, ratios[node.input[1]])
    onnx.save(model, str(quantized))


def _symmetric(w: np.ndarray, axis: int, per_channel: bool) -> tuple[np.ndarray, np.ndarray]:
    """2-bit symmetric scales (per slice along `axis`, or one) and values in [-2, 1]."""
    low, high = subbyte.value_range(2)
    others = tuple(i for i in range(w.ndim) if i != axis) if per_channel else None
    peak = np.abs(w).max(axis=others, keepdims=per_channel)
    scale = np.where(peak > 0, peak / ((high - low) / 2), 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale.astype(np.float64)), low, high).astype(np.int64)
    return scale.reshape(-1), q


def _move_bias(dq: Any, inits: dict[str, Any], ratio: np.ndarray) -> None:
    """An int32 bias on scale input scale * old weight scale, moved to input scale * new weight scale."""
    from onnx import TensorProto, numpy_helper

    bias, scale = inits.get(dq.input[0]), inits.get(dq.input[1])
    if bias is None or scale is None or bias.data_type != TensorProto.INT32:
        return
    q = numpy_helper.to_array(bias).astype(np.float64)
    old = numpy_helper.to_array(scale).astype(np.float64)
    new = (old.reshape(-1) * ratio).astype(np.float32)
    moved = np.rint(q * old.reshape(-1) / new.astype(np.float64))
    if np.abs(moved).max(initial=0) >= 2**31:
        raise MoteError(f"bias {bias.name!r} does not fit int32 on the 2-bit weights' scale")
    _replace(bias, numpy_helper.from_array(moved.astype(np.int32).reshape(q.shape), bias.name))
    _replace(scale, numpy_helper.from_array(new.reshape(old.shape), scale.name))


def _replace(proto: Any, new: Any) -> None:
    proto.CopyFrom(new)


def weight_bytes(path: Path) -> int:
    """The bytes a model's quantized weights take packed: the integer constants a DequantizeLinear reads,
    biases (int32) aside, at their width (8, 4 or 2 bits a value)."""
    import onnx
    from onnx import TensorProto

    widths = {TensorProto.INT8: 8, TensorProto.UINT8: 8, TensorProto.INT4: 4, TensorProto.UINT4: 4,
              TensorProto.INT2: 2, TensorProto.UINT2: 2}
    model = onnx.load(str(path))
    inits = {i.name: i for i in model.graph.initializer}
    total = 0
    for node in model.graph.node:
        t = inits.get(node.input[0]) if node.op_type == "DequantizeLinear" and node.input else None
        if t is not None and t.data_type in widths and t.name.endswith("_quantized"):
            total += subbyte.packed_size(int(np.prod(t.dims, dtype=np.int64)), widths[t.data_type])
    return total
