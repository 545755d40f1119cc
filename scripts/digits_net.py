"""The digits CNN in plain numpy: the data, forward and backward passes, and Adam training
(scripts/train_digits.py quantizes and writes the result)."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from mote.ints import ceil_div

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
    out = ceil_div(size, stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def im2col(x: np.ndarray, kernel: int, stride: int) -> np.ndarray:
    """[N, H, W, C] -> [N, Ho, Wo, kernel*kernel*C], columns ordered (kh, kw, c)."""
    n, h, w, c = x.shape
    top, bottom = same_padding(h, kernel, stride)
    left, right = same_padding(w, kernel, stride)
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    ho, wo = ceil_div(h, stride), ceil_div(w, stride)
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
