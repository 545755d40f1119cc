"""Export the trained tiny language model as an ONNX decoder step graph with an explicit KV cache, and quantize it.

Usage: python scripts/export_tiny_lm.py [--weights build/tiny_lm/weights.npz]

Reads the weights scripts/train_tiny_lm.py wrote (no torch needed here) and writes, in the same directory:

- tiny_lm_float.onnx: one decoding step, written node by node with onnx.helper (deterministic bytes).
  Inputs: `token` int64 [1, 1], `pos` int64 [1, 1] (the token's position), and per layer i `past_k{i}`,
  `past_v{i}` float [1, heads, P, head_dim] (the keys and values of the P earlier tokens, P >= 0).
  Outputs: `logits` float [1, 256] (the next byte's), `present_k{i}`, `present_v{i}` [1, heads, P + 1,
  head_dim]: the cache with this token's key and value appended. Attention is Softmax(q K^T) V with the
  1/sqrt(head_dim) scale folded into the query weights (rotation is linear, so it commutes).
- calib.npz: calibration feeds for `mote quantize` (steps at one cache length over training text).

and then quantizes with mote's quantizer (int8, per-channel weights) into mote/models/tiny_lm.onnx, each
layer's past keys and values then sharing the quantization of its present ones (share_cache_quantization).
It checks on the way that the step graph run token by token in onnxruntime gives the logits of a
full-sequence numpy forward pass, and prints the validation loss of the float and the int8 step graphs
(onnxruntime) and of the int8 model as mote compiles it (the generated C, KV cache and all).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
from tiny_lm_net import CONFIG, SEED, Config, corpus, rope_tables, splits  # noqa: E402

OPSET = 17
TABLE_POSITIONS = 1024  # rotary table rows: the largest maximum context the step graph supports
MODEL_PATH = REPO / "mote" / "models" / "tiny_lm.onnx"


# --- numpy forward (full sequence), the check on the step graph -----------------------------------


def _rms(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def _rot(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)


def forward(w: dict[str, np.ndarray], tokens: np.ndarray, cfg: Config = CONFIG) -> np.ndarray:
    """Logits [time, 256] of a causal pass over `tokens` (float64)."""
    t = len(tokens)
    cos, sin = (a.astype(np.float64) for a in rope_tables(cfg, t))
    x = w["embed"][tokens].astype(np.float64)
    for i in range(cfg.layers):
        p = f"layers.{i}."
        h = _rms(x, w[p + "attn_norm"], cfg.norm_eps)

        def heads(m: np.ndarray) -> np.ndarray:
            return m.reshape(t, cfg.heads, cfg.head_dim).transpose(1, 0, 2)

        q, k = _rot(heads(h @ w[p + "wq"]), cos, sin), _rot(heads(h @ w[p + "wk"]), cos, sin)
        v = heads(h @ w[p + "wv"])
        s = q @ k.transpose(0, 2, 1) / np.sqrt(cfg.head_dim) + np.triu(np.full((t, t), -np.inf), 1)
        s = np.exp(s - s.max(-1, keepdims=True))
        a = (s / s.sum(-1, keepdims=True)) @ v
        x = x + a.transpose(1, 0, 2).reshape(t, cfg.dim) @ w[p + "wo"]
        h = _rms(x, w[p + "mlp_norm"], cfg.norm_eps)
        g = h @ w[p + "w_gate"]
        x = x + (g / (1 + np.exp(-g)) * (h @ w[p + "w_up"])) @ w[p + "w_down"]
    return _rms(x, w["norm"], cfg.norm_eps) @ w["head"]


# --- the ONNX step graph ----------------------------------------------------------------------------


def step_graph(w: dict[str, np.ndarray], cfg: Config = CONFIG) -> object:
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[object] = []
    inits: dict[str, np.ndarray] = {}

    def const(name: str, value: np.ndarray) -> str:
        inits[name] = value
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: object) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    d, hd, nh = cfg.dim, cfg.head_dim, cfg.heads
    cos, sin = rope_tables(cfg, TABLE_POSITIONS)  # each angle twice: pairs (i, i + hd / 2) turn together
    const("rope_cos", np.concatenate([cos, cos], axis=1))
    const("rope_sin", np.concatenate([sin, sin], axis=1))
    const("two", np.array(2.0, np.float32))
    const("eps", np.array(cfg.norm_eps, np.float32))
    const("shape_heads", np.array([1, 1, nh, hd], np.int64))
    const("shape_flat", np.array([1, 1, d], np.int64))
    const("shape_logits", np.array([1, cfg.vocab], np.int64))
    const("axis_heads", np.array([1], np.int64))
    cos_p = node("Unsqueeze", [node("Gather", ["rope_cos", "pos"], "cos_g", axis=0), "axis_heads"], "cos_p")
    sin_p = node("Unsqueeze", [node("Gather", ["rope_sin", "pos"], "sin_g", axis=0), "axis_heads"], "sin_p")

    def rms(x: str, weight: str, name: str) -> str:  # Llama's: x * (1 / sqrt(mean(x^2) + eps)) * weight
        sq = node("Pow", [x, "two"], f"{name}_sq")
        ms = node("ReduceMean", [sq], f"{name}_ms", axes=[-1], keepdims=1)
        rt = node("Sqrt", [node("Add", [ms, "eps"], f"{name}_mse")], f"{name}_rms")
        scaled = node("Mul", [x, node("Reciprocal", [rt], f"{name}_inv")], f"{name}_n")
        return node("Mul", [const(f"{name}_w", w[weight]), scaled], name)

    def rotary(x: str, name: str) -> str:  # x [1, heads, 1, hd]: x * cos + rotate_half(x) * sin
        const(f"{name}_s0", np.array([0], np.int64))
        const(f"{name}_s1", np.array([hd // 2], np.int64))
        const(f"{name}_s2", np.array([hd], np.int64))
        const(f"{name}_ax", np.array([-1], np.int64))
        a = node("Slice", [x, f"{name}_s0", f"{name}_s1", f"{name}_ax"], f"{name}_a")
        b = node("Slice", [x, f"{name}_s1", f"{name}_s2", f"{name}_ax"], f"{name}_b")
        turned = node("Concat", [node("Neg", [b], f"{name}_nb"), a], f"{name}_half", axis=-1)
        return node("Add", [node("Mul", [x, cos_p], f"{name}_xc"), node("Mul", [turned, sin_p], f"{name}_hs")], name)

    def heads(x: str, name: str) -> str:  # [1, 1, d] -> [1, heads, 1, hd]
        return node("Transpose", [node("Reshape", [x, "shape_heads"], f"{name}_r")], name, perm=[0, 2, 1, 3])

    x = node("Gather", [const("embed", w["embed"]), "token"], "x0", axis=0)  # [1, 1, d]
    for i in range(cfg.layers):
        p, n = f"layers.{i}.", f"l{i}"
        h = rms(x, p + "attn_norm", f"{n}_attn_norm")
        wq = (w[p + "wq"] / np.sqrt(hd)).astype(np.float32)
        q = rotary(heads(node("MatMul", [h, const(f"{n}_wq", wq)], f"{n}_q"), f"{n}_qh"), f"{n}_qr")
        k = rotary(heads(node("MatMul", [h, const(f"{n}_wk", w[p + "wk"])], f"{n}_k"), f"{n}_kh"), f"{n}_kr")
        v = heads(node("MatMul", [h, const(f"{n}_wv", w[p + "wv"])], f"{n}_v"), f"{n}_vh")
        keys = node("Concat", [f"past_k{i}", k], f"present_k{i}", axis=2)
        values = node("Concat", [f"past_v{i}", v], f"present_v{i}", axis=2)
        scores = node("MatMul", [q, node("Transpose", [keys], f"{n}_kt", perm=[0, 1, 3, 2])], f"{n}_scores")
        probs = node("Softmax", [scores], f"{n}_probs", axis=-1)
        att = node("MatMul", [probs, values], f"{n}_att")
        att = node("Reshape", [node("Transpose", [att], f"{n}_att_t", perm=[0, 2, 1, 3]), "shape_flat"], f"{n}_att_f")
        x = node("Add", [x, node("MatMul", [att, const(f"{n}_wo", w[p + "wo"])], f"{n}_o")], f"{n}_x1")
        h = rms(x, p + "mlp_norm", f"{n}_mlp_norm")
        g = node("MatMul", [h, const(f"{n}_w_gate", w[p + "w_gate"])], f"{n}_gate")
        silu = node("Mul", [g, node("Sigmoid", [g], f"{n}_sig")], f"{n}_silu")
        u = node("MatMul", [h, const(f"{n}_w_up", w[p + "w_up"])], f"{n}_up")
        down = node("MatMul", [node("Mul", [silu, u], f"{n}_gated"), const(f"{n}_w_down", w[p + "w_down"])],
                    f"{n}_down")
        x = node("Add", [x, down], f"{n}_x2")
    h = rms(x, "norm", "final_norm")
    logits = node("Reshape", [node("MatMul", [h, const("head", w["head"])], "logits3"), "shape_logits"], "logits")

    cache = [1, nh, "P", hd]
    new = [1, nh, "P1", hd]
    inputs = [helper.make_tensor_value_info("token", TensorProto.INT64, [1, 1]),
              helper.make_tensor_value_info("pos", TensorProto.INT64, [1, 1])]
    outputs = [helper.make_tensor_value_info(logits, TensorProto.FLOAT, [1, cfg.vocab])]
    for i in range(cfg.layers):
        for kind in "kv":
            inputs.append(helper.make_tensor_value_info(f"past_{kind}{i}", TensorProto.FLOAT, cache))
            outputs.append(helper.make_tensor_value_info(f"present_{kind}{i}", TensorProto.FLOAT, new))
    graph = helper.make_graph(nodes, "tiny_lm", inputs, outputs,
                              [numpy_helper.from_array(np.asarray(v, np.float32) if v.dtype == np.float64 else v, k)
                               for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="mote")
    model.ir_version = 8
    return model


# --- running the step graph -------------------------------------------------------------------------


def session(path: Path) -> object:
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), o, providers=["CPUExecutionProvider"])


def empty_cache(cfg: Config = CONFIG) -> dict[str, np.ndarray]:
    z = np.zeros((1, cfg.heads, 0, cfg.head_dim), np.float32)
    return {f"past_{k}{i}": z for i in range(cfg.layers) for k in "kv"}


def step(sess: object, token: int, pos: int, cache: dict[str, np.ndarray], cfg: Config = CONFIG
         ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    feed = {"token": np.array([[token]], np.int64), "pos": np.array([[pos]], np.int64), **cache}
    out = sess.run(None, feed)
    names = [o.name for o in sess.get_outputs()]
    res = dict(zip(names, out))
    return res["logits"][0], {f"past_{k}{i}": res[f"present_{k}{i}"] for i in range(cfg.layers) for k in "kv"}


def stepped_logits(sess: object, tokens: np.ndarray) -> np.ndarray:
    cache, rows = empty_cache(), []
    for pos, t in enumerate(tokens):
        logits, cache = step(sess, int(t), pos, cache)
        rows.append(logits)
    return np.stack(rows)


def loss(logits: np.ndarray, targets: np.ndarray) -> float:
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return float(-logp[np.arange(len(targets)), targets].mean())


def greedy(sess: object, prompt: bytes, n: int) -> bytes:
    cache, out = empty_cache(), bytearray(prompt)
    for pos, t in enumerate(prompt):
        logits, cache = step(sess, t, pos, cache)
    for _ in range(n):
        t = int(np.argmax(logits))
        out.append(t)
        logits, cache = step(sess, t, len(out) - 1, cache)
    return bytes(out)


def calibration(sess: object, train: np.ndarray, samples: int, length: int) -> dict[str, np.ndarray]:
    """`samples` feeds at cache length `length` (each the step after `length` tokens of training text)."""
    rng = np.random.default_rng(SEED)
    feeds: dict[str, list[np.ndarray]] = {}
    for start in rng.integers(0, len(train) - length - 2, size=samples):
        cache = empty_cache()
        for pos in range(length):
            _, cache = step(sess, int(train[start + pos]), pos, cache)
        feed = {"token": np.array([[train[start + length]]], np.int64), "pos": np.array([[length]], np.int64), **cache}
        for k, v in feed.items():
            feeds.setdefault(k, []).append(v)
    return {k: np.stack(v) for k, v in feeds.items()}


def mote_losses(model: Path, val: np.ndarray, n_bytes: int, work: Path) -> float:
    """The quantized model's validation loss as mote compiles it: the generated C on this machine (bit-exact
    with mote's reference interpreter), the KV-cache step model run window by window from model_reset()."""
    from mote.codegen.compile import compile_graph
    from mote.generate import load_decoder
    from mote.targets.host import build_host

    graph = load_decoder(model, CONFIG.context)
    binary = build_host(compile_graph(graph), work / "mote_loss")
    losses = []
    for i in range(0, n_bytes, CONFIG.context):
        chunk = val[i:i + CONFIG.context + 1].astype(np.int64)
        frames = [{"token": np.array([[t]]), "pos": np.array([[p]])} for p, t in enumerate(chunk[:-1])]
        outputs, _ = binary.run_stream(frames)  # a new process: the cache starts empty
        losses.append(loss(np.stack([o["logits"][0] for o in outputs]), chunk[1:]))
    return float(np.mean(losses))


def share_cache_quantization(path: Path, cfg: Config = CONFIG) -> None:
    """Give each layer's past keys (values) the quantization of its present keys (values), in place.

    They are one tensor a step apart (the present is fed back as the next step's past), so they need one
    quantization; calibration ranges them separately (the present holds one more token, so its range can be a
    little wider), which would requantize the whole cache at every step. The present's covers both."""
    import onnx

    model = onnx.load(str(path))
    producer = {o: n for n in model.graph.node for o in n.output}
    for i in range(cfg.layers):
        for kind in "kv":
            q_present = producer[producer[f"present_{kind}{i}"].input[0]]
            assert q_present.op_type == "QuantizeLinear", q_present.op_type
            for node in model.graph.node:
                if node.op_type == "QuantizeLinear" and node.input[0] == f"past_{kind}{i}":
                    for user in [node, *(n for n in model.graph.node if n.input and n.input[0] == node.output[0])]:
                        assert user.op_type in ("QuantizeLinear", "DequantizeLinear"), user.op_type
                        user.input[1], user.input[2] = q_present.input[1], q_present.input[2]
    used = {name for n in model.graph.node for name in n.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    onnx.save(model, str(path))


def main() -> int:
    import onnx

    from mote.frontend.onnx.quantize import quantize_model

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", type=Path, default=REPO / "build" / "tiny_lm" / "weights.npz")
    ap.add_argument("--model-out", type=Path, default=MODEL_PATH)
    ap.add_argument("--eval-bytes", type=int, default=2048, help="validation bytes the step graphs are scored on")
    args = ap.parse_args()
    out = args.weights.parent
    w = dict(np.load(args.weights))
    train, val, _ = splits(corpus())

    float_path = out / "tiny_lm_float.onnx"
    model = step_graph(w)
    onnx.checker.check_model(model)
    onnx.save(model, float_path)
    sess = session(float_path)
    probe = val[:64].astype(np.int64)
    diff = np.abs(stepped_logits(sess, probe) - forward(w, probe)).max()
    print(f"step graph vs full-sequence forward, 64 tokens: max |logit difference| {diff:.2e}")
    assert diff < 1e-3, diff

    calib = out / "calib.npz"
    np.savez(calib, **calibration(sess, train, samples=32, length=CONFIG.context - 1))
    report = quantize_model(float_path, calib, args.model_out)
    share_cache_quantization(args.model_out)
    print(json.dumps({k: v for k, v in report.items() if k not in ("model", "output")}))

    qsess = session(args.model_out)
    metrics: dict[str, object] = {}
    for name, s in (("float", sess), ("int8", qsess)):
        losses = []
        for i in range(0, args.eval_bytes, CONFIG.context):
            chunk = val[i:i + CONFIG.context + 1].astype(np.int64)
            losses.append(loss(stepped_logits(s, chunk[:-1]), chunk[1:]))
        metrics[f"{name}_val_loss_{args.eval_bytes}"] = round(float(np.mean(losses)), 4)
        metrics[f"{name}_sample"] = greedy(s, b"The ", 120).decode("utf-8", "replace")
    metrics[f"mote_int8_val_loss_{args.eval_bytes}"] = round(mote_losses(args.model_out, val, args.eval_bytes, out), 4)
    print(json.dumps(metrics, indent=1))
    (out / "export_metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
