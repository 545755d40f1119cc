"""int8 .tflite transformer blocks for the tests, written as TensorFlow's converter writes them: LayerNorm as
MEAN, SQUARED_DIFFERENCE, ADD, RSQRT, MUL and SUB; attention as BATCH_MATMUL (Q . K^T with adj_y), SOFTMAX over the
last axis and BATCH_MATMUL. Each tensor's quantization comes from a float run on random data (its range over 127
steps, asymmetric), as a calibrated converter would choose it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder


class Calibrated:
    """A ModelBuilder whose activations are quantized from float values computed alongside."""

    def __init__(self) -> None:
        self.mb = ModelBuilder()
        self.values: dict[int, np.ndarray] = {}

    def act(self, name: str, value: np.ndarray, fixed: tuple[float, int] | None = None) -> int:
        lo, hi = min(float(value.min()), 0.0), max(float(value.max()), 0.0)
        scale, zero = fixed or (max(hi - lo, 1e-6) / 255, int(round(-128 - lo / (max(hi - lo, 1e-6) / 255))))
        t = self.mb.tensor(name, list(value.shape), "int8", scale=scale, zero_point=int(np.clip(zero, -128, 127)))
        self.values[t] = value
        return t

    def const(self, name: str, value: np.ndarray) -> int:
        scale = max(float(np.abs(value).max()), 1e-6) / 127
        q = np.clip(np.round(value / scale), -127, 127).astype(np.int8)
        return self.mb.tensor(name, list(value.shape), "int8", scale=scale, zero_point=0, data=q)

    def axes(self, name: str, axes: list[int]) -> int:
        return self.mb.tensor(name, [len(axes)], "int32", data=np.array(axes, np.int32))

    def op(self, builtin: str, inputs: list[int], name: str, value: np.ndarray,
           fixed: tuple[float, int] | None = None, **options: object) -> int:
        out = self.act(name, value, fixed)
        self.mb.op(builtin, inputs, [out], **options)
        return out


def layer_norm(rows: int = 8, dim: int = 32, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, dim)).astype(np.float32) * 2 + 0.5
    gamma = (1 + rng.normal(size=dim) * 0.2).astype(np.float32)
    beta = (rng.normal(size=dim) * 0.3).astype(np.float32)
    c = Calibrated()
    xt = c.act("x", x)
    mean = x.mean(-1, keepdims=True)
    mt = c.op("MEAN", [xt, c.axes("axis", [-1])], "mean", mean, keep_dims=True)
    sq = (x - mean) ** 2
    st = c.op("SQUARED_DIFFERENCE", [xt, mt], "squared", sq)
    var = sq.mean(-1, keepdims=True)
    vt = c.op("MEAN", [st, c.axes("axis2", [-1])], "variance", var, keep_dims=True)
    eps = np.array([1e-3], np.float32)
    et = c.op("ADD", [vt, c.const("epsilon", eps)], "variance_eps", var + eps)
    inv = 1 / np.sqrt(var + eps)
    it = c.op("RSQRT", [et], "inverse", inv)
    ig = inv * gamma
    gt = c.op("MUL", [it, c.const("gamma", gamma)], "inverse_gamma", ig)
    xg = c.op("MUL", [xt, gt], "scaled", x * ig)
    mg = c.op("MUL", [mt, gt], "mean_scaled", mean * ig)
    bt = c.op("SUB", [c.const("beta", beta), mg], "shift", beta - mean * ig)
    yt = c.op("ADD", [xg, bt], "y", x * ig + beta - mean * ig)
    return c.mb.build([xt], [yt])


def attention(heads: int = 2, seq: int = 16, head_dim: int = 16, seed: int = 0) -> bytes:
    """q, k, v [heads, seq, head_dim] -> softmax(q . k^T / sqrt(head_dim)) . v, the scale folded into q."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(heads, seq, head_dim)).astype(np.float32) for _ in range(3))
    q = q / np.sqrt(head_dim)
    c = Calibrated()
    qt, kt, vt = c.act("q", q), c.act("k", k), c.act("v", v)
    scores = q @ np.swapaxes(k, -1, -2)
    st = c.op("BATCH_MATMUL", [qt, kt], "scores", scores, adj_x=False, adj_y=True)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    pt = c.op("SOFTMAX", [st], "weights", p, fixed=(1 / 256, -128), beta=1.0)
    ot = c.op("BATCH_MATMUL", [pt, vt], "y", p @ v, adj_x=False, adj_y=False)
    return c.mb.build([qt, kt, vt], [ot])


BLOCKS: dict[str, Callable[[], bytes]] = {"layer_norm": layer_norm, "attention": attention,
                                          "attention_4_heads": lambda: attention(4, 32, 16, 1)}
