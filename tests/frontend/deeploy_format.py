"""Networks in the integer ONNX dialect exactly as Deeploy's exporters and test generators write them, and
independent numpy evaluations of Deeploy's kernel formulas, for the tests.

The format: integers in FLOAT tensors (inputs, weights, mul/add, outputs), `div` / `n_levels` / `signed` as
TENSOR attributes, inputs in an .npz under numpy's positional keys (`arr_0`, ...) in int8 / uint8 / int64
containers, taken by position.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mote.reference import interpret

FLOAT = TensorProto.FLOAT


def tensor_attr(value: float) -> onnx.TensorProto:
    """A number as Deeploy's exporters store it: a one-element float tensor."""
    return numpy_helper.from_array(np.asarray([value], np.float32))


def rqs(x: str, y: str, div: int, n_levels: int = 256, signed: bool = True, levels_key: str = "n_levels_out",
        domain: str = "") -> onnx.NodeProto:
    node = helper.make_node("RequantShift", [x, f"{y}_mul", f"{y}_add"], [y], name=f"rqs_{y}", domain=domain)
    node.attribute.extend([helper.make_attribute("div", tensor_attr(div)),
                           helper.make_attribute(levels_key, tensor_attr(n_levels)),
                           helper.make_attribute("signed", tensor_attr(1.0 if signed else 0.0))])
    return node


def network(nodes: list[Any], inputs: dict[str, tuple[int, ...]], outputs: list[str],
            initializers: dict[str, np.ndarray], opset: int = 13, output_type: int = FLOAT) -> onnx.ModelProto:
    """A model whose tensors are all float-typed (initializers float32 holding integers)."""
    graph = helper.make_graph(
        nodes, "network",
        [helper.make_tensor_value_info(n, FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, output_type, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(a, np.float32), n) for n, a in initializers.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def save(tmp: Path, m: onnx.ModelProto, arrays: list[np.ndarray]) -> tuple[Path, Path]:
    """network.onnx and inputs.npz (positional keys) in `tmp`."""
    tmp.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(tmp / "network.onnx"))
    np.savez(tmp / "inputs.npz", *arrays)
    return tmp / "network.onnx", tmp / "inputs.npz"


def run(tmp: Path, m: onnx.ModelProto, arrays: list[np.ndarray], target: str = "reference") -> list[np.ndarray]:
    """mote's outputs for Deeploy-style inputs, as `mote run --save-outputs` writes them (ONNX-side, by output
    order): from the reference interpreter, or built and run on `target` (then also bit-exact with it)."""
    from mote import pipeline
    from mote.frontend.onnx import load_onnx_model

    path, npz = save(tmp, m, arrays)
    if target == "reference":
        model = load_onnx_model(path, input_path=npz)
        outputs = model.onnx_outputs(interpret(model.graph, model.inputs_from_file(npz)))
    else:
        report = pipeline.run(path, target=target, input_path=npz)
        assert report.mismatches == 0, f"{target} differs from the reference interpreter"
        assert report.onnx_outputs is not None
        outputs = report.onnx_outputs
    return [outputs[o.name] for o in m.graph.output]


# ---- Deeploy's kernel formulas, in Python integers / numpy int64 (written from its C kernels and templates) ----

def requant_shift(x: np.ndarray, mul: np.ndarray, add: np.ndarray, div: int, n_levels: int, signed: bool) -> np.ndarray:
    """RequantShift_*: (x * mul + add + div / 2) >> log2(div), clamped to the output levels."""
    acc = np.asarray(x, np.int64) * np.asarray(mul, np.int64) + np.asarray(add, np.int64)
    y = np.floor_divide(acc + div // 2, div)
    lo, hi = (-(n_levels // 2), n_levels // 2 - 1) if signed else (0, n_levels - 1)
    return np.clip(y, lo, hi)


def conv(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: tuple[int, ...], pads: tuple[int, ...],
         group: int = 1) -> np.ndarray:
    """An N-D (1-D or 2-D) grouped convolution of integers, NC[H]W x OI[H]W, zero padding, int64."""
    x, w = np.asarray(x, np.int64), np.asarray(w, np.int64)
    d = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + d]) for i in range(d)])
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    k = w.shape[2:]
    out_sp = [(x.shape[2 + i] - k[i]) // stride[i] + 1 for i in range(d)]
    y = np.zeros((n, o, *out_sp), np.int64)
    per_group = o // group
    for oc in range(o):
        g = oc // per_group
        xs = x[:, g * ci:(g + 1) * ci]
        for idx in np.ndindex(*out_sp):
            window = tuple(slice(idx[i] * stride[i], idx[i] * stride[i] + k[i]) for i in range(d))
            y[(slice(None), oc, *idx)] = (xs[(slice(None), slice(None), *window)] * w[oc]).reshape(n, -1).sum(1)
    if bias is not None:
        y += np.asarray(bias, np.int64).reshape((1, -1) + (1,) * d)
    return y


def wrap32(x: np.ndarray) -> np.ndarray:
    """int32 arithmetic's result (Deeploy's kernels accumulate in int32)."""
    return ((np.asarray(x, np.int64) + 2**31) % 2**32) - 2**31


def reduce_mean(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """ReduceMean's template for a power-of-two or odd length: (sum + n/2) >> log2(n) / rounded division."""
    acc = np.asarray(x, np.int64).sum(axis=axes, keepdims=keepdims)
    n = int(np.prod([x.shape[a] for a in axes]))
    if n & (n - 1) == 0:
        return (acc + n // 2) >> int(np.log2(n))
    sign = np.where(acc < 0, -1, 1)
    return np.trunc((acc + sign * (n >> 1)) / n).astype(np.int64)


def max_pool(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...]) -> np.ndarray:
    d = len(kernel)
    out_sp = [(x.shape[2 + i] - kernel[i]) // stride[i] + 1 for i in range(d)]
    y = np.zeros((*x.shape[:2], *out_sp), np.int64)
    for idx in np.ndindex(*out_sp):
        window = tuple(slice(idx[i] * stride[i], idx[i] * stride[i] + kernel[i]) for i in range(d))
        y[(slice(None), slice(None), *idx)] = x[(slice(None), slice(None), *window)].reshape(*x.shape[:2], -1).max(-1)
    return y
