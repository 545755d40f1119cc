"""Train the bundled example model: a small int8 CNN for 8x8 handwritten digits.

Usage: python scripts/train_digits.py

Trains in plain numpy on scikit-learn's bundled digits set (no download), applies
post-training int8 quantization, writes mote/models/digits_cnn.tflite, checks its
accuracy with the TFLite Micro interpreter and records the result in
mote/models/README.md. Everything is seeded, so reruns give identical bytes.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout

from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from digits_net import CLASSES, CONV1_CH, CONV2_CH, SEED, Params, forward, load_data, predict, train  # noqa: E402

MODEL_PATH = REPO / "mote" / "models" / "digits_cnn.tflite"
README_PATH = REPO / "mote" / "models" / "README.md"


# --- post-training int8 quantization --------------------------------------------


@dataclass(frozen=True)
class QParams:
    scale: float
    zero_point: int


def activation_qparams(values: np.ndarray) -> QParams:
    """Asymmetric int8 covering [min, max] of the calibration data, and 0 exactly."""
    lo, hi = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    scale = float(np.float32((hi - lo) / 255.0))
    zero_point = int(np.clip(round(-128 - lo / scale), -128, 127))
    return QParams(scale, zero_point)


def weight_scales(w: np.ndarray, per_channel: bool) -> np.ndarray:
    """Symmetric scales, one per output channel (axis 0) or one for the tensor.

    Rounded to float32 here because that is what the file stores, and the bias
    scales must be derived from the stored values.
    """
    rows = w.reshape(len(w), -1) if per_channel else w.reshape(1, -1)
    max_abs = np.abs(rows).max(axis=1)
    return (np.maximum(max_abs, 1e-12) / 127.0).astype(np.float32)


def quantize_weights(w: np.ndarray, scales: np.ndarray) -> np.ndarray:
    broadcast = scales.reshape((-1,) + (1,) * (w.ndim - 1))
    return np.clip(np.round(w / broadcast), -127, 127).astype(np.int8)


def quantize_bias(b: np.ndarray, bias_scales: np.ndarray) -> np.ndarray:
    return np.round(b / bias_scales).astype(np.int32)


def calibrate(p: Params, x: np.ndarray) -> dict[str, QParams]:
    act = forward(p, x)
    return {
        "input": activation_qparams(x),
        "conv1": activation_qparams(act["a1"]),
        "conv2": activation_qparams(act["a2"]),
        "logits": activation_qparams(act["logits"]),
        # TFLite's int8 softmax requires exactly this output quantization.
        "probs": QParams(1.0 / 256.0, -128),
    }


def add_weights(
    mb: ModelBuilder,
    name: str,
    w: np.ndarray,
    b: np.ndarray,
    s_in: float,
    per_channel: bool,
) -> tuple[int, int]:
    """Int8 weights and their int32 bias (scale s_in * s_w[c], zero point 0)."""
    s_w = weight_scales(w, per_channel)
    s_bias = s_w.astype(np.float64) * s_in
    w_idx = mb.tensor(
        f"{name}/weights",
        w.shape,
        "int8",
        scale=s_w,
        zero_point=0,
        axis=0,
        data=quantize_weights(w, s_w),
    )
    b_idx = mb.tensor(
        f"{name}/bias",
        b.shape,
        "int32",
        scale=s_bias,
        zero_point=0,
        data=quantize_bias(b, s_bias),
    )
    return w_idx, b_idx


def build_model(p: Params, q: dict[str, QParams]) -> bytes:
    mb = ModelBuilder()

    def activation(name: str, shape: list[int], qp: QParams) -> int:
        return mb.tensor(name, shape, "int8", scale=qp.scale, zero_point=qp.zero_point)

    x = mb.tensor("input", [1, 8, 8, 1], "float32")
    x_q = activation("input_int8", [1, 8, 8, 1], q["input"])
    mb.op("QUANTIZE", [x], [x_q])

    w1, b1 = add_weights(mb, "conv1", p["w1"], p["b1"], q["input"].scale, per_channel=True)
    conv1 = activation("conv1", [1, 8, 8, CONV1_CH], q["conv1"])
    mb.op(
        "CONV_2D",
        [x_q, w1, b1],
        [conv1],
        padding="SAME",
        stride_w=1,
        stride_h=1,
        fused_activation_function="RELU",
    )

    w2, b2 = add_weights(mb, "conv2", p["w2"], p["b2"], q["conv1"].scale, per_channel=True)
    conv2 = activation("conv2", [1, 4, 4, CONV2_CH], q["conv2"])
    mb.op(
        "CONV_2D",
        [conv1, w2, b2],
        [conv2],
        padding="SAME",
        stride_w=2,
        stride_h=2,
        fused_activation_function="RELU",
    )

    flat_len = 4 * 4 * CONV2_CH
    shape = mb.tensor("flatten/shape", [2], "int32", data=np.array([1, flat_len]))
    flatten = activation("flatten", [1, flat_len], q["conv2"])
    mb.op("RESHAPE", [conv2, shape], [flatten], new_shape=[1, flat_len])

    # Per-tensor, as the TFLite converter emits for FULLY_CONNECTED by default.
    w3, b3 = add_weights(mb, "fc", p["w3"], p["b3"], q["conv2"].scale, per_channel=False)
    logits = activation("logits", [1, CLASSES], q["logits"])
    mb.op(
        "FULLY_CONNECTED",
        [flatten, w3, b3],
        [logits],
        fused_activation_function="NONE",
    )

    probs = activation("probs", [1, CLASSES], q["probs"])
    mb.op("SOFTMAX", [logits], [probs], beta=1.0)
    out = mb.tensor("output", [1, CLASSES], "float32")
    mb.op("DEQUANTIZE", [probs], [out])
    return mb.build(inputs=[x], outputs=[out], description="mote digits_cnn")


# --- evaluation and report ------------------------------------------------------


def int8_accuracy(model: bytes, x: np.ndarray, y: np.ndarray) -> float:
    from tflite_micro.python.tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(model, arena_size=16 * 1024)
    correct = 0
    for image, label in zip(x, y, strict=True):
        interpreter.set_input(image[None].astype(np.float32), 0)
        interpreter.invoke()
        correct += int(interpreter.get_output(0).argmax() == label)
    return correct / len(y)


def count_macs() -> int:
    conv1 = 8 * 8 * CONV1_CH * 9
    conv2 = 4 * 4 * CONV2_CH * 9 * CONV1_CH
    return conv1 + conv2 + 4 * 4 * CONV2_CH * CLASSES


def write_readme(float_acc: float, int8_acc: float, n_test: int, size: int) -> None:
    README_PATH.write_text(f"""\
# Bundled models

## digits_cnn.tflite

A small convolutional network that classifies 8x8 grayscale images of handwritten
digits (0-9). It is mote's default example: small enough to read in full, real
enough to show that a compiled model gets the same answers as TFLite Micro.

Trained on the digits set that ships with scikit-learn (1797 images from UCI,
pixel values 0-16 scaled to [0, 1]), 80/20 stratified split with seed 0.

| layer | op | output |
|---|---|---|
| input | float32 | 1x8x8x1 |
| input_int8 | QUANTIZE | 1x8x8x1 int8 |
| conv1 | CONV_2D 3x3, stride 1, SAME, ReLU | 1x8x8x{CONV1_CH} |
| conv2 | CONV_2D 3x3, stride 2, SAME, ReLU | 1x4x4x{CONV2_CH} |
| flatten | RESHAPE | 1x{4 * 4 * CONV2_CH} |
| logits | FULLY_CONNECTED | 1x{CLASSES} |
| probs | SOFTMAX | 1x{CLASSES} int8 (scale 1/256, zero point -128) |
| output | DEQUANTIZE | 1x{CLASSES} float32 |

Quantization is post-training. Weights are symmetric int8, per output channel
for the convolutions and per tensor for the fully connected layer (what the
TFLite converter emits); biases are int32 with scale input_scale * weight_scale.
Activations are asymmetric int8 with ranges calibrated on the training images.
The model does {count_macs():,} multiply-accumulates per image; the file is
{size:,} bytes. The input is the float image, pixel value / 16, NHWC.

Test accuracy on the {n_test} held-out images:

| | accuracy |
|---|---|
| float (numpy) | {100 * float_acc:.1f}% |
| int8 (TFLite Micro interpreter) | {100 * int8_acc:.1f}% |

To retrain (a few seconds, pure numpy, deterministic):

    python scripts/train_digits.py

This rewrites `digits_cnn.tflite` and the accuracies above.
""")


def main() -> None:
    start = time.perf_counter()
    x_train, x_test, y_train, y_test = load_data()
    params = train(x_train, y_train, np.random.default_rng(SEED))
    float_acc = float(np.mean(predict(params, x_test) == y_test))
    print(f"trained in {time.perf_counter() - start:.1f} s")

    model = build_model(params, calibrate(params, x_train))
    MODEL_PATH.write_bytes(model)
    int8_acc = int8_accuracy(model, x_test, y_test)
    write_readme(float_acc, int8_acc, len(y_test), len(model))

    print(f"float test accuracy: {100 * float_acc:.2f}%")
    print(f"int8 test accuracy:  {100 * int8_acc:.2f}% (TFLite Micro)")
    print(f"wrote {MODEL_PATH.relative_to(REPO)} ({len(model)} bytes)")


if __name__ == "__main__":
    main()
