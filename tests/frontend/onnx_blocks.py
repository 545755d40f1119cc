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


def rope_tables(positions: int, head_dim: int, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """Llama's rotary tables: cos and sin of position * base^(-2i / head_dim), each frequency twice."""
    inv = base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    angles = np.arange(positions)[:, None] * inv[None, :]
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rotary_nodes(x: str, cos: str, sin: str, head_dim: int, out: str) -> tuple[list[Any], dict[str, Any]]:
    """x * cos + rotate_half(x) * sin, rotate_half(x) = Concat(-x[..., half:], x[..., :half]) by Slice, Neg and
    Concat, as exporters write Llama's apply_rotary_pos_emb."""
    half = head_dim // 2
    init = {f"{out}_h0": np.array([0], np.int64), f"{out}_h1": np.array([half], np.int64),
            f"{out}_h2": np.array([head_dim], np.int64), f"{out}_ax": np.array([-1], np.int64)}
    nodes = [N("Slice", [x, f"{out}_h0", f"{out}_h1", f"{out}_ax"], [f"{out}_x1"]),
             N("Slice", [x, f"{out}_h1", f"{out}_h2", f"{out}_ax"], [f"{out}_x2"]),
             N("Neg", [f"{out}_x2"], [f"{out}_nx2"]),
             N("Concat", [f"{out}_nx2", f"{out}_x1"], [f"{out}_rot"], axis=-1),
             N("Mul", [x, cos], [f"{out}_xc"]), N("Mul", [f"{out}_rot", sin], [f"{out}_rs"]),
             N("Add", [f"{out}_xc", f"{out}_rs"], [out])]
    return nodes, init


def rotary(seq: int = 8, dim: int = 32, heads: int = 2, positions: int = 64, seed: int = 0) -> onnx.ModelProto:
    """x [1, seq, dim] and position ids [1, seq] (int64) -> q projected, split in heads, rotated by the cos and sin
    tables gathered at the positions."""
    rng = np.random.default_rng(seed)
    hd = dim // heads
    cos, sin = rope_tables(positions, hd)
    init: dict[str, Any] = {"wq": (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32),
                            "split": np.array([1, seq, heads, hd], np.int64), "cos_t": cos, "sin_t": sin,
                            "one": np.array([1], np.int64)}
    nodes = [N("MatMul", ["x", "wq"], ["q"]), N("Reshape", ["q", "split"], ["q4"]),
             N("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
             N("Gather", ["cos_t", "pos"], ["cos_g"]), N("Gather", ["sin_t", "pos"], ["sin_g"]),
             N("Unsqueeze", ["cos_g", "one"], ["cos"]), N("Unsqueeze", ["sin_g", "one"], ["sin"])]
    rot, rot_init = rotary_nodes("qh", "cos", "sin", hd, "y")
    graph = helper.make_graph(
        nodes + rot, "rotary",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, seq, dim]),
         helper.make_tensor_value_info("pos", onnx.TensorProto.INT64, [1, seq])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(np.asarray(a), n) for n, a in {**init, **rot_init}.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def embedding(vocab: int = 50, seq: int = 8, dim: int = 16, seed: int = 0) -> onnx.ModelProto:
    """Token ids [1, seq] (int64) -> the embedding table gathered, plus learned positions (a constant Add)."""
    rng = np.random.default_rng(seed)
    init = {"emb": rng.normal(size=(vocab, dim)).astype(np.float32),
            "positions": (rng.normal(size=(seq, dim)) * 0.3).astype(np.float32)}
    nodes = [N("Gather", ["emb", "ids"], ["tokens"], axis=0), N("Add", ["tokens", "positions"], ["y"])]
    return model(nodes, {"ids": (1, seq)}, ["y"], init, input_type=onnx.TensorProto.INT64)


def layer_norm(seq: int = 8, dim: int = 32, seed: int = 0) -> onnx.ModelProto:
    """x [1, seq, dim] -> MatMul -> LayerNormalization (opset 17, fused) with a scale and a bias."""
    rng = np.random.default_rng(seed)
    gamma = (1 + rng.normal(size=dim) * 0.3).astype(np.float32)
    init = {"w": (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32), "g": gamma,
            "b": (rng.normal(size=dim) * 0.2).astype(np.float32)}
    nodes = [N("MatMul", ["x", "w"], ["h"]), N("LayerNormalization", ["h", "g", "b"], ["y"], epsilon=1e-5, axis=-1)]
    return model(nodes, {"x": (1, seq, dim)}, ["y"], init, opset=17)


def rms_norm_qdq(seq: int = 8, dim: int = 32, seed: int = 0) -> onnx.ModelProto:
    """A QDQ RMSNormalization (opset 23) written by hand: onnxruntime's quantizer leaves that op's output in float
    (and its optimizer fails on the model when a MatMul follows), so the QuantizeLinear after it is given."""
    rng = np.random.default_rng(seed)
    init = {"g": (1 + rng.normal(size=dim) * 0.3).astype(np.float32), "sx": np.array(0.02, np.float32),
            "zx": np.array(3, np.int8), "sy": np.array(0.03, np.float32), "zy": np.array(-2, np.int8)}
    nodes = [N("QuantizeLinear", ["x", "sx", "zx"], ["xq"]), N("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             N("RMSNormalization", ["xd", "g"], ["n"], epsilon=1e-5, axis=-1),
             N("QuantizeLinear", ["n", "sy", "zy"], ["nq"]), N("DequantizeLinear", ["nq", "sy", "zy"], ["y"])]
    return model(nodes, {"x": (1, seq, dim)}, ["y"], init, opset=23)


def activation(kind: str, seq: int = 8, dim: int = 32, seed: int = 0) -> onnx.ModelProto:
    """x [1, seq, dim] -> MatMul -> an activation -> MatMul: GELU as the Gelu op (opset 20), as its erf form
    0.5 x (1 + erf(x / sqrt 2)) or its tanh form 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), or SiLU
    x * Sigmoid(x)."""
    rng = np.random.default_rng(seed)
    init: dict[str, Any] = {"w1": (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32),
                            "w2": (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32)}
    f32 = np.float32
    if kind == "gelu":
        body = [N("Gelu", ["h"], ["a"])]
    elif kind == "gelu_tanh_op":
        body = [N("Gelu", ["h"], ["a"], approximate="tanh")]
    elif kind == "gelu_erf":
        init.update(sqrt2=np.array(np.sqrt(2), f32), one=np.array(1, f32), half=np.array(0.5, f32))
        body = [N("Div", ["h", "sqrt2"], ["d"]), N("Erf", ["d"], ["e"]), N("Add", ["e", "one"], ["e1"]),
                N("Mul", ["h", "e1"], ["m"]), N("Mul", ["m", "half"], ["a"])]
    elif kind == "gelu_tanh":
        init.update(c=np.array(0.044715, f32), k=np.array(np.sqrt(2 / np.pi), f32), one=np.array(1, f32),
                    half=np.array(0.5, f32), three=np.array(3, f32))
        body = [N("Pow", ["h", "three"], ["h3"]), N("Mul", ["h3", "c"], ["ch3"]), N("Add", ["h", "ch3"], ["inner"]),
                N("Mul", ["inner", "k"], ["ki"]), N("Tanh", ["ki"], ["t"]), N("Add", ["t", "one"], ["t1"]),
                N("Mul", ["h", "t1"], ["m"]), N("Mul", ["m", "half"], ["a"])]
    elif kind == "silu":
        body = [N("Sigmoid", ["h"], ["s"]), N("Mul", ["h", "s"], ["a"])]
    else:
        raise ValueError(kind)
    nodes = [N("MatMul", ["x", "w1"], ["h"]), *body, N("MatMul", ["a", "w2"], ["y"])]
    return model(nodes, {"x": (1, seq, dim)}, ["y"], init, opset=20)


def rms_norm_nodes(x: str, weight: str, out: str) -> tuple[list[Any], dict[str, Any]]:
    """x * 1 / sqrt(mean(x^2) + eps) * weight, as PyTorch exports Llama's RMSNorm (Pow, ReduceMean, Add, Sqrt,
    Reciprocal, Mul, Mul)."""
    init = {f"{out}_two": np.array(2, np.float32), f"{out}_eps": np.array(1e-5, np.float32),
            f"{out}_axes": np.array([-1], np.int64)}
    nodes = [N("Pow", [x, f"{out}_two"], [f"{out}_sq"]),
             N("ReduceMean", [f"{out}_sq", f"{out}_axes"], [f"{out}_ms"], keepdims=1),
             N("Add", [f"{out}_ms", f"{out}_eps"], [f"{out}_mse"]), N("Sqrt", [f"{out}_mse"], [f"{out}_rms"]),
             N("Reciprocal", [f"{out}_rms"], [f"{out}_inv"]), N("Mul", [x, f"{out}_inv"], [f"{out}_n"]),
             N("Mul", [f"{out}_n", weight], [out])]
    return nodes, init


def llama_block(vocab: int = 48, seq: int = 8, dim: int = 32, heads: int = 2, hidden: int = 64,
                seed: int = 0) -> onnx.ModelProto:
    """ids and positions [1, seq] (int64) -> a token embedding, one Llama-style decoder layer (RMSNorm, attention
    with rotary embeddings and a causal mask, a SiLU-gated MLP, residual Adds), a final RMSNorm and the logits.
    The mask adds -8 above the diagonal (a moderate value keeps the scores' int8 scale useful)."""
    rng = np.random.default_rng(seed)
    hd = dim // heads

    def weight(rows: int, cols: int) -> np.ndarray:
        return (rng.normal(size=(rows, cols)) / np.sqrt(rows)).astype(np.float32)

    cos, sin = rope_tables(64, hd)
    init: dict[str, Any] = {
        "emb": rng.normal(size=(vocab, dim)).astype(np.float32), "wq": weight(dim, dim), "wk": weight(dim, dim),
        "wv": weight(dim, dim), "wo": weight(dim, dim), "wg": weight(dim, hidden), "wu": weight(dim, hidden),
        "wd": weight(hidden, dim), "wout": weight(dim, vocab), "cos_t": cos, "sin_t": sin,
        "g1": (1 + rng.normal(size=dim) * 0.1).astype(np.float32), "g2": (1 + rng.normal(size=dim) * 0.1).astype(
            np.float32), "g3": (1 + rng.normal(size=dim) * 0.1).astype(np.float32),
        "split": np.array([1, seq, heads, hd], np.int64), "merge": np.array([1, seq, dim], np.int64),
        "one": np.array([1], np.int64), "scale": np.array(1 / np.sqrt(hd), np.float32),
        "mask": np.triu(np.full((seq, seq), -8.0, np.float32), 1)}
    nodes: list[Any] = [N("Gather", ["emb", "ids"], ["h0"]),
                        N("Gather", ["cos_t", "pos"], ["cos_g"]), N("Gather", ["sin_t", "pos"], ["sin_g"]),
                        N("Unsqueeze", ["cos_g", "one"], ["cos"]), N("Unsqueeze", ["sin_g", "one"], ["sin"])]
    for parts in (rms_norm_nodes("h0", "g1", "n1"),):
        nodes += parts[0]
        init.update(parts[1])
    for t, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 1, 3]), ("v", [0, 2, 1, 3])):
        nodes += [N("MatMul", ["n1", f"w{t}"], [t]), N("Reshape", [t, "split"], [f"{t}4"]),
                  N("Transpose", [f"{t}4"], [f"{t}h"], perm=perm)]
    for t in ("q", "k"):
        rot, rot_init = rotary_nodes(f"{t}h", "cos", "sin", hd, f"{t}r")
        nodes += rot
        init.update(rot_init)
    nodes += [N("Transpose", ["kr"], ["krt"], perm=[0, 1, 3, 2]), N("MatMul", ["qr", "krt"], ["s0"]),
              N("Mul", ["s0", "scale"], ["s1"]), N("Add", ["s1", "mask"], ["s2"]),
              N("Softmax", ["s2"], ["p"], axis=-1), N("MatMul", ["p", "vh"], ["c4"]),
              N("Transpose", ["c4"], ["ct"], perm=[0, 2, 1, 3]), N("Reshape", ["ct", "merge"], ["c"]),
              N("MatMul", ["c", "wo"], ["o"]), N("Add", ["h0", "o"], ["h1"])]
    norm2, init2 = rms_norm_nodes("h1", "g2", "n2")
    nodes += norm2 + [N("MatMul", ["n2", "wg"], ["gate"]), N("Sigmoid", ["gate"], ["sg"]),
                      N("Mul", ["gate", "sg"], ["act"]), N("MatMul", ["n2", "wu"], ["up"]),
                      N("Mul", ["act", "up"], ["gated"]), N("MatMul", ["gated", "wd"], ["down"]),
                      N("Add", ["h1", "down"], ["h2"])]
    norm3, init3 = rms_norm_nodes("h2", "g3", "n3")
    nodes += norm3 + [N("MatMul", ["n3", "wout"], ["logits"])]
    init.update(init2)
    init.update(init3)
    graph = helper.make_graph(
        nodes, "llama_block",
        [helper.make_tensor_value_info("ids", onnx.TensorProto.INT64, [1, seq]),
         helper.make_tensor_value_info("pos", onnx.TensorProto.INT64, [1, seq])],
        [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(np.asarray(a), n) for n, a in init.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def decomposed_norm(kind: str, seq: int = 8, dim: int = 32, seed: int = 0) -> onnx.ModelProto:
    """MatMul -> a norm written out in ops -> MatMul: RMSNorm with Div ("rms_div": x / sqrt(mean(x^2) + eps) * g) or
    with Reciprocal and Mul ("rms_reciprocal"), or LayerNorm ("layer": ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt,
    Div, Mul, Add)."""
    rng = np.random.default_rng(seed)
    init: dict[str, Any] = {"w": (rng.normal(size=(dim, dim)) / np.sqrt(dim)).astype(np.float32),
                            "two": np.array(2, np.float32), "ax": np.array([-1], np.int64),
                            "eps": np.array(1e-5, np.float32), "g": (1 + rng.normal(size=dim) * 0.2).astype(np.float32),
                            "b": (rng.normal(size=dim) * 0.2).astype(np.float32)}
    if kind == "layer":
        body = [N("ReduceMean", ["h", "ax"], ["mu"], keepdims=1), N("Sub", ["h", "mu"], ["d"]),
                N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2", "ax"], ["var"], keepdims=1),
                N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]), N("Div", ["d", "sd"], ["n"]),
                N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "b"], ["z"])]
    else:
        body = [N("Pow", ["h", "two"], ["h2"]), N("ReduceMean", ["h2", "ax"], ["ms"], keepdims=1),
                N("Add", ["ms", "eps"], ["mse"]), N("Sqrt", ["mse"], ["r"])]
        body += [N("Div", ["h", "r"], ["n"])] if kind == "rms_div" else \
            [N("Reciprocal", ["r"], ["ir"]), N("Mul", ["h", "ir"], ["n"])]
        body.append(N("Mul", ["n", "g"], ["z"]))
    nodes = [N("MatMul", ["x", "w"], ["h"]), *body, N("MatMul", ["z", "w"], ["y"])]
    return model(nodes, {"x": (1, seq, dim)}, ["y"], init, opset=18)
