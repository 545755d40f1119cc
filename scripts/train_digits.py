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
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout

from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402

MODEL_PATH = REPO / "mote" / "models" / "digits_cnn.tflite"
README_PATH = REPO / "mote" / "models" / "README.md"

SEED = 0
EPOCHS = 40
BATCH = 32
LEARNING_RATE = 2e-3
CONV1_CH = 8
CONV2_CH = 16
CLASSES = 10

Params = dict[str, np.ndarray]


# --- data ---------------------------------------------------------------------------


def load_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Images as NHWC [N, 8, 8, 1] in [0, 1]; 80/20 stratified split."""
    digits = load_digits()
    x = (digits.images / 16.0).reshape(-1, 8, 8, 1)
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=0.2, stratify=digits.target, random_state=0
    )
    return x_train, x_test, y_train, y_test


# --- layers (NHWC activations, OHWI filters, as in TFLite) ------------------------


def same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TFLite's SAME padding: the odd extra pixel goes after, not before."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def im2col(x: np.ndarray, kernel: int, stride: int) -> np.ndarray:
    """[N, H, W, C] -> [N, Ho, Wo, kernel*kernel*C], columns ordered (kh, kw, c)."""
    n, h, w, c = x.shape
    top, bottom = same_padding(h, kernel, stride)
    left, right = same_padding(w, kernel, stride)
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    ho, wo = -(-h // stride), -(-w // stride)
    cols = np.empty((n, ho, wo, kernel, kernel, c), dtype=x.dtype)
    for i in range(kernel):
        for j in range(kernel):
            cols[:, :, :, i, j, :] = padded[:, i : i + stride * ho : stride, j : j + stride * wo : stride, :]
    return cols.reshape(n, ho, wo, kernel * kernel * c)


def col2im(cols: np.ndarray, shape: tuple[int, ...], kernel: int, stride: int) -> np.ndarray:
    """Adjoint of im2col: scatter-add column gradients back onto the input."""
    n, h, w, c = shape
    top, bottom = same_padding(h, kernel, stride)
    left, right = same_padding(w, kernel, stride)
    _, ho, wo, _ = cols.shape
    cols = cols.reshape(n, ho, wo, kernel, kernel, c)
    padded = np.zeros((n, h + top + bottom, w + left + right, c), dtype=cols.dtype)
    for i in range(kernel):
        for j in range(kernel):
            padded[:, i : i + stride * ho : stride, j : j + stride * wo : stride, :] += cols[:, :, :, i, j, :]
    return padded[:, top : top + h, left : left + w, :]


def conv_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int) -> tuple[np.ndarray, np.ndarray]:
    cols = im2col(x, w.shape[1], stride)
    return cols @ w.reshape(w.shape[0], -1).T + b, cols


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# --- the network ------------------------------------------------------------------


def init_params(rng: np.random.Generator) -> Params:
    def he(shape: tuple[int, ...], fan_in: int) -> np.ndarray:
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=shape)

    return {
        "w1": he((CONV1_CH, 3, 3, 1), 9),
        "b1": np.zeros(CONV1_CH),
        "w2": he((CONV2_CH, 3, 3, CONV1_CH), 9 * CONV1_CH),
        "b2": np.zeros(CONV2_CH),
        "w3": he((CLASSES, 4 * 4 * CONV2_CH), 4 * 4 * CONV2_CH),
        "b3": np.zeros(CLASSES),
    }


def forward(p: Params, x: np.ndarray) -> dict[str, np.ndarray]:
    """All intermediate values; 'a1', 'a2', 'logits' are what calibration sees."""
    z1, cols1 = conv_forward(x, p["w1"], p["b1"], stride=1)
    a1 = np.maximum(z1, 0.0)
    z2, cols2 = conv_forward(a1, p["w2"], p["b2"], stride=2)
    a2 = np.maximum(z2, 0.0)
    flat = a2.reshape(len(x), -1)
    logits = flat @ p["w3"].T + p["b3"]
    return {
        "cols1": cols1,
        "z1": z1,
        "a1": a1,
        "cols2": cols2,
        "z2": z2,
        "a2": a2,
        "flat": flat,
        "logits": logits,
    }


def backward(p: Params, x: np.ndarray, y: np.ndarray, act: dict[str, np.ndarray]) -> Params:
    """Gradients of the mean cross-entropy loss."""
    n = len(x)
    d_logits = softmax(act["logits"])
    d_logits[np.arange(n), y] -= 1.0
    d_logits /= n
    grads = {"w3": d_logits.T @ act["flat"], "b3": d_logits.sum(axis=0)}
    d_z2 = (d_logits @ p["w3"]).reshape(act["a2"].shape) * (act["z2"] > 0)
    grads["w2"], grads["b2"], d_a1 = conv_backward(p["w2"], act["cols2"], d_z2, act["a1"].shape, 2)
    d_z1 = d_a1 * (act["z1"] > 0)
    grads["w1"], grads["b1"], _ = conv_backward(p["w1"], act["cols1"], d_z1, x.shape, 1)
    return grads


def conv_backward(
    w: np.ndarray,
    cols: np.ndarray,
    d_out: np.ndarray,
    in_shape: tuple[int, ...],
    stride: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out_ch = w.shape[0]
    d_flat = d_out.reshape(-1, out_ch)
    d_w = (d_flat.T @ cols.reshape(len(d_flat), -1)).reshape(w.shape)
    d_cols = (d_flat @ w.reshape(out_ch, -1)).reshape(cols.shape)
    return d_w, d_flat.sum(axis=0), col2im(d_cols, in_shape, w.shape[1], stride)


def predict(p: Params, x: np.ndarray) -> np.ndarray:
    return forward(p, x)["logits"].argmax(axis=1)


def train(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> Params:
    """Adam on mini-batches, learning rate quartered for the last third of training."""
    p = init_params(rng)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    for epoch in range(EPOCHS):
        lr = LEARNING_RATE if epoch < 2 * EPOCHS // 3 else LEARNING_RATE / 4
        order = rng.permutation(len(x))
        for start in range(0, len(x), BATCH):
            idx = order[start : start + BATCH]
            grads = backward(p, x[idx], y[idx], forward(p, x[idx]))
            step += 1
            for k, g in grads.items():
                m[k] = beta1 * m[k] + (1 - beta1) * g
                v[k] = beta2 * v[k] + (1 - beta2) * g * g
                m_hat = m[k] / (1 - beta1**step)
                v_hat = v[k] / (1 - beta2**step)
                p[k] -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return p


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
