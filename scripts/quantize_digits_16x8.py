"""Quantize the float32 digits CNN (models/float/digits_cnn_f32.tflite) to TFLite's 16x8 scheme: the int16
bench model, models/int16/digits_cnn_16x8.tflite.

Usage: python scripts/quantize_digits_16x8.py

Post-training quantization in numpy, as TFLite's converter does it for 16x8: int16 activations with zero
point 0 and a scale from the largest magnitude each tensor takes on the training images (run through mote's
reference interpreter, op by op); int8 weights per output channel, symmetric; int64 biases at input scale
times weight scale. The graph is the float one (CONV_2D, CONV_2D, RESHAPE, FULLY_CONNECTED; the output is the
int16 logits). The script checks the accuracy with the TFLite Micro interpreter. Deterministic: reruns give
identical bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout
sys.path.insert(0, str(REPO / "scripts"))

from digits_net import load_data  # noqa: E402

from mote.frontend.tflite import load_tflite_file  # noqa: E402
from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402
from mote.ir import Graph, Tensor  # noqa: E402
from mote.ops import OPS  # noqa: E402

FLOAT_MODEL = REPO / "models" / "float" / "digits_cnn_f32.tflite"
MODEL_PATH = REPO / "models" / "int16" / "digits_cnn_16x8.tflite"


def activation_ranges(graph: Graph, images: np.ndarray) -> dict[Tensor, float]:
    """The largest magnitude of every activation over `images`, through the float reference op by op."""
    peak: dict[Tensor, float] = {}
    for image in images:
        values = {graph.inputs[0]: image.reshape(graph.inputs[0].shape).astype(np.float32)}
        for node in graph.nodes:
            op = OPS[node.op]
            args = [None if t is None else (t.data if t.is_const else values[t]) for t in node.inputs]
            for t, v in zip(node.outputs, op.reference(node, op.prepare(node), args)):
                values[t] = np.asarray(v, np.float32).reshape(t.shape)
        for t, v in values.items():
            peak[t] = max(peak.get(t, 0.0), float(np.abs(v).max()))
    return peak


def build_model(graph: Graph, peak: dict[Tensor, float]) -> bytes:
    mb = ModelBuilder()
    index: dict[Tensor, int] = {}
    scale = {t: max(p, 1e-6) / 32767 for t, p in peak.items()}

    def activation(t: Tensor) -> int:
        if t not in index:
            index[t] = mb.tensor(t.name, list(t.shape), "int16", scale=float(np.float32(scale[t])), zero_point=0)
        return index[t]

    for node in graph.nodes:
        x = node.inputs[0]
        assert x is not None
        out = node.outputs[0]
        if node.op == "reshape":
            shape = node.inputs[1]
            assert shape is not None and shape.data is not None
            scale[out] = scale[x]  # a reshape keeps its input's quantization
            mb.op("RESHAPE", [activation(x), mb.tensor(shape.name, list(shape.shape), "int32", data=shape.data)],
                  [activation(out)], new_shape=[int(v) for v in shape.data])
            continue
        w, b = node.inputs[1], node.inputs[2]
        assert w is not None and b is not None and w.data is not None and b.data is not None
        weights = np.asarray(w.data, np.float64)
        per_channel = np.abs(weights.reshape(weights.shape[0], -1)).max(axis=1)
        w_scales = np.maximum(per_channel, 1e-9) / 127
        q_w = np.clip(np.round(weights / w_scales.reshape(-1, *[1] * (weights.ndim - 1))), -127, 127)
        s_x = float(np.float32(scale[x]))
        b_scales = [s_x * float(np.float32(s)) for s in w_scales]
        q_b = np.round(np.asarray(b.data, np.float64) / np.array(b_scales)).astype(np.int64)
        wt = mb.tensor(w.name, list(w.shape), "int8", scale=[float(s) for s in w_scales],
                       zero_point=[0] * len(w_scales), axis=0, data=q_w.astype(np.int8))
        bt = mb.tensor(b.name, list(b.shape), "int64", scale=b_scales, zero_point=[0] * len(b_scales), axis=0,
                       data=q_b)
        options: dict[str, object] = {"fused_activation_function": node.attrs.get("activation", "NONE")}
        if node.op == "conv2d":
            stride = node.attrs["stride"]
            options.update(padding=node.attrs["padding"], stride_h=stride[0], stride_w=stride[1])
        mb.op("CONV_2D" if node.op == "conv2d" else "FULLY_CONNECTED", [activation(x), wt, bt], [activation(out)],
              **options)
    return mb.build([index[graph.inputs[0]]], [index[graph.outputs[0]]])


def tflm_accuracy(model: bytes, x: np.ndarray, y: np.ndarray, s_in: float) -> float:
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    hits = 0
    for image, label in zip(x, y):
        interp.set_input(np.clip(np.round(image / s_in), -32768, 32767).astype(np.int16).reshape(1, 8, 8, 1), 0)
        interp.invoke()
        hits += int(np.argmax(interp.get_output(0)) == label)
    return hits / len(y)


def main() -> None:
    graph = load_tflite_file(FLOAT_MODEL)
    x_train, x_test, _, y_test = load_data()
    peak = activation_ranges(graph, x_train)
    model = build_model(graph, peak)
    MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
    MODEL_PATH.write_bytes(model)
    accuracy = tflm_accuracy(model, x_test, y_test, float(np.float32(peak[graph.inputs[0]] / 32767)))
    print(f"wrote {MODEL_PATH.relative_to(REPO)} ({len(model):,} bytes); test accuracy {100 * accuracy:.2f}% "
          "(TFLite Micro, int16 activations, int8 weights)")


if __name__ == "__main__":
    main()
