"""Float ONNX transformer blocks for the tests: attention (MatMul of two activations, Softmax), and the pieces of a
small language model; each returns a float model that `mote quantize` (onnxruntime's quantize_static) quantizes."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper

from tests.frontend.onnx_util import model  # noqa: F401 (re-exported for the tests)

N = helper.make_node


def attention(seq: int = 16, dim: int = 32, heads: int = 2, seed: int = 0, residual: bool = True) -> onnx.ModelProto:
    """x [1, seq, dim] -> multi-head self-attention (Q . K^T with K transposed by a Transpose, scaled by a Mul,
    Softmax over the last axis, . V), the output projection, and the residual Add."""
    rng = np.random.default_rng(seed)
    hd = dim // heads
    init: dict[str, Any] = {n: (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32)
                            for n in ("wq", "wk", "wv", "wo")}
    init.update(split=np.array([1, seq, heads, hd], np.int64), merge=np.array([1, seq, dim], np.int64),
                scale=np.array(1 / np.sqrt(hd), np.float32))
    nodes = [N("MatMul", ["x", "wq"], ["q"]), N("MatMul", ["x", "wk"], ["k"]), N("MatMul", ["x", "wv"], ["v"]),
             N("Reshape", ["q", "split"], ["q4"]), N("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
             N("Reshape", ["k", "split"], ["k4"]), N("Transpose", ["k4"], ["kh"], perm=[0, 2, 3, 1]),
             N("Reshape", ["v", "split"], ["v4"]), N("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
             N("MatMul", ["qh", "kh"], ["scores"], name="qk"), N("Mul", ["scores", "scale"], ["scaled"]),
             N("Softmax", ["scaled"], ["weights"], axis=-1), N("MatMul", ["weights", "vh"], ["heads"], name="av"),
             N("Transpose", ["heads"], ["ht"], perm=[0, 2, 1, 3]), N("Reshape", ["ht", "merge"], ["merged"]),
             N("MatMul", ["merged", "wo"], ["o" if residual else "y"])]
    if residual:
        nodes.append(N("Add", ["o", "x"], ["y"]))
    return model(nodes, {"x": (1, seq, dim)}, ["y"], init, opset=17)
