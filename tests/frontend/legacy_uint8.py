"""A legacy uint8 model as TOCO wrote them (a small mobilenet_v1: uint8 activations and per-tensor asymmetric
uint8 weights with zero points, int32 biases of scale input * weight scale, fused ReLU6, a global average pool,
a 1x1 convolution to the logits, reshape, softmax with output scale 1/256 and zero point 0), and an independent
numpy implementation of TensorFlow Lite's uint8 reference kernels to check mote against.

The uint8 kernels (TensorFlow Lite 2.x, reference_ops): a convolution sums (w - w_zp) * (x - x_zp) over the
in-bounds taps, adds the bias, then MultiplyByQuantizedMultiplier with QuantizeMultiplier(double(s_x) *
double(s_w) / double(s_out)), adds the output zero point and clamps to the fused activation's range
(zp + round(real / scale), the division in float); average pooling divides the uint8 sum as
(sum + count / 2) / count. Softmax is one template for uint8 and int8 whose outputs differ only by the
type's minimum added at the end: its oracle here is TFLite Micro's int8 softmax on the values shifted by -128.
"""

from __future__ import annotations

import math

import numpy as np
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite_writer import ModelBuilder

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def quantize_multiplier(real: float) -> tuple[int, int]:
    if real == 0.0:
        return 0, 0
    frac, shift = math.frexp(real)
    q = int(math.floor(abs(frac) * 2**31 + 0.5)) * (1 if frac >= 0 else -1)  # TfLiteRound: halves away
    if q == 2**31:
        q, shift = q // 2, shift + 1
    if shift < -31:
        return 0, 0
    return q, shift


def _srdhm(a: int, b: int) -> int:
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    total = ab + nudge
    return abs(total) // 2**31 * (1 if total >= 0 else -1)  # C division: toward zero


def _rdbp(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def multiply_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    left, right = max(shift, 0), max(-shift, 0)
    return _rdbp(_srdhm(x * (1 << left), multiplier), right)


def activation_range(activation: str, scale: float, zero_point: int) -> tuple[int, int]:
    def q(real: float) -> int:
        r = float(np.float32(real) / np.float32(scale))
        return zero_point + int(math.floor(abs(r) + 0.5)) * (1 if r >= 0 else -1)

    if activation == "RELU6":
        return max(0, q(0.0)), min(255, q(6.0))
    return 0, 255


def conv_uint8(x: np.ndarray, xq: tuple[float, int], w: np.ndarray, wq: tuple[float, int], bias: np.ndarray,
               outq: tuple[float, int], stride: int, padding: str, activation: str,
               depthwise: bool = False) -> np.ndarray:
    """x [h, w, c] uint8; w [oc, fh, fw, ic] (conv) or [fh, fw, c] (depthwise); SAME or VALID padding."""
    h, wd, c = x.shape
    fh, fw = (w.shape[0], w.shape[1]) if depthwise else (w.shape[1], w.shape[2])
    oc = w.shape[2] if depthwise else w.shape[0]
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-wd // stride)
        pad_t = max((oh - 1) * stride + fh - h, 0) // 2
        pad_l = max((ow - 1) * stride + fw - wd, 0) // 2
    else:
        oh, ow, pad_t, pad_l = (h - fh) // stride + 1, (wd - fw) // stride + 1, 0, 0
    multiplier, shift = quantize_multiplier(float(np.float32(xq[0])) * float(np.float32(wq[0]))
                                            / float(np.float32(outq[0])))
    low, high = activation_range(activation, outq[0], outq[1])
    xd = x.astype(np.int64) - xq[1]
    wd_ = w.astype(np.int64) - wq[1]
    out = np.zeros((oh, ow, oc), np.uint8)
    for oy in range(oh):
        for ox in range(ow):
            acc = np.zeros(oc, np.int64)
            for fy in range(fh):
                for fx in range(fw):
                    iy, ix = oy * stride - pad_t + fy, ox * stride - pad_l + fx
                    if 0 <= iy < h and 0 <= ix < wd:  # out-of-bounds taps are skipped
                        acc += xd[iy, ix] * wd_[fy, fx] if depthwise else wd_[:, fy, fx, :] @ xd[iy, ix]
            for o in range(oc):
                v = multiply_by_quantized_multiplier(int(acc[o] + bias[o]), multiplier, shift) + outq[1]
                out[oy, ox, o] = min(max(v, low), high)
    return out


def avg_pool_uint8(x: np.ndarray, size: int, stride: int) -> np.ndarray:
    """VALID average pooling of x [h, w, c] uint8, every window whole."""
    h, wd, c = x.shape
    oh, ow = (h - size) // stride + 1, (wd - size) // stride + 1
    out = np.zeros((oh, ow, c), np.uint8)
    count = size * size
    for oy in range(oh):
        for ox in range(ow):
            total = x[oy * stride:oy * stride + size, ox * stride:ox * stride + size].astype(np.int64).sum(axis=(0, 1))
            out[oy, ox] = np.clip((total + count // 2) // count, 0, 255)
    return out


def softmax_uint8(logits: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """TFLite's uint8 softmax (output 1/256, zero point 0) of a row, through TFLite Micro's int8 one."""
    mb = ModelBuilder()
    n = logits.size
    x = mb.tensor("x", [1, n], "int8", scale=scale, zero_point=zero_point - 128)
    y = mb.tensor("y", [1, n], "int8", scale=1 / 256, zero_point=-128)
    mb.op("SOFTMAX", [x], [y], beta=1.0)
    interp = runtime.Interpreter.from_bytes(mb.build([x], [y]), arena_size=1 << 16)
    interp.set_input((logits.astype(np.int16) - 128).astype(np.int8).reshape(1, n), 0)
    interp.invoke()
    return (interp.get_output(0).astype(np.int16) + 128).astype(np.uint8).reshape(-1)


# (scale, zero point) of each activation, TOCO-style: ReLU6 outputs 6/255 and zero point 0.
INPUT_Q = (1 / 128, 128)
RELU6_Q = (6 / 255, 0)
LOGITS_Q = (0.0971, 73)
SOFTMAX_Q = (1 / 256, 0)


def _weights(rng: np.random.Generator, shape: list[int], zero_point: int) -> np.ndarray:
    """uint8 weights spanning 0..255, as min/max quantization leaves them."""
    w = rng.integers(0, 256, shape)
    w.reshape(-1)[:2] = [0, 255]
    w.reshape(-1)[2] = zero_point
    return w.astype(np.uint8)


def mobilenet_uint8(seed: int = 0, size: int = 16) -> tuple[bytes, dict[str, object]]:
    """The model and its constants (for `reference_outputs`)."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    c = {
        "w1": _weights(rng, [8, 3, 3, 3], 151), "w1q": (0.00213, 151),
        "w2": _weights(rng, [1, 3, 3, 8], 110), "w2q": (0.00617, 110),
        "w3": _weights(rng, [12, 1, 1, 8], 97), "w3q": (0.00288, 97),
        "w4": _weights(rng, [10, 1, 1, 12], 128), "w4q": (0.0154, 128),
    }
    for i, (prev, out_ch) in enumerate(((INPUT_Q, 8), (RELU6_Q, 8), (RELU6_Q, 12), (RELU6_Q, 10)), start=1):
        c[f"b{i}"] = rng.integers(-3000, 3000, out_ch).astype(np.int32)
        c[f"b{i}q"] = float(np.float32(prev[0]) * np.float32(c[f"w{i}q"][0]))
    x = mb.tensor("input", [1, size, size, 3], "uint8", scale=INPUT_Q[0], zero_point=INPUT_Q[1])

    def conv(name: str, src: int, i: int, shape: list[int], outq: tuple[float, int], builtin: str,
             **options: object) -> int:
        w = mb.tensor(f"{name}/weights", list(c[f"w{i}"].shape), "uint8", scale=c[f"w{i}q"][0],
                      zero_point=c[f"w{i}q"][1], data=c[f"w{i}"])
        b = mb.tensor(f"{name}/bias", [len(c[f"b{i}"])], "int32", scale=c[f"b{i}q"], zero_point=0, data=c[f"b{i}"])
        y = mb.tensor(name, shape, "uint8", scale=outq[0], zero_point=outq[1])
        mb.op(builtin, [src, w, b], [y], **options)
        return y

    half = size // 2
    h1 = conv("conv1", x, 1, [1, half, half, 8], RELU6_Q, "CONV_2D", padding="SAME", stride_h=2, stride_w=2,
              fused_activation_function="RELU6")
    h2 = conv("dw2", h1, 2, [1, half, half, 8], RELU6_Q, "DEPTHWISE_CONV_2D", padding="SAME", stride_h=1,
              stride_w=1, depth_multiplier=1, fused_activation_function="RELU6")
    h3 = conv("pw3", h2, 3, [1, half, half, 12], RELU6_Q, "CONV_2D", padding="SAME", stride_h=1, stride_w=1,
              fused_activation_function="RELU6")
    pool = mb.tensor("pool", [1, 1, 1, 12], "uint8", scale=RELU6_Q[0], zero_point=RELU6_Q[1])
    mb.op("AVERAGE_POOL_2D", [h3], [pool], padding="VALID", stride_h=half, stride_w=half, filter_height=half,
          filter_width=half)
    logits = conv("logits", pool, 4, [1, 1, 1, 10], LOGITS_Q, "CONV_2D", padding="SAME", stride_h=1, stride_w=1)
    shape = mb.tensor("shape", [2], "int32", data=np.array([1, 10]))
    flat = mb.tensor("flat", [1, 10], "uint8", scale=LOGITS_Q[0], zero_point=LOGITS_Q[1])
    mb.op("RESHAPE", [logits, shape], [flat])
    probs = mb.tensor("probs", [1, 10], "uint8", scale=SOFTMAX_Q[0], zero_point=SOFTMAX_Q[1])
    mb.op("SOFTMAX", [flat], [probs], beta=1.0)
    return mb.build([x], [probs]), c


def reference_outputs(c: dict[str, object], image: np.ndarray) -> dict[str, np.ndarray]:
    """Every activation of `mobilenet_uint8` for one uint8 image [1, h, w, 3], as TFLite's uint8 kernels."""
    x = image[0]
    h1 = conv_uint8(x, INPUT_Q, c["w1"], c["w1q"], c["b1"], RELU6_Q, 2, "SAME", "RELU6")  # type: ignore[arg-type]
    w2 = c["w2"][0]  # type: ignore[index]
    h2 = conv_uint8(h1, RELU6_Q, w2, c["w2q"], c["b2"], RELU6_Q, 1, "SAME", "RELU6", depthwise=True)  # type: ignore[arg-type]
    h3 = conv_uint8(h2, RELU6_Q, c["w3"], c["w3q"], c["b3"], RELU6_Q, 1, "SAME", "RELU6")  # type: ignore[arg-type]
    pool = avg_pool_uint8(h3, h3.shape[0], h3.shape[0])
    logits = conv_uint8(pool, RELU6_Q, c["w4"], c["w4q"], c["b4"], LOGITS_Q, 1, "SAME", "NONE")  # type: ignore[arg-type]
    probs = softmax_uint8(logits.reshape(-1), *LOGITS_Q)
    return {"conv1": h1, "dw2": h2, "pw3": h3, "pool": pool, "logits": logits, "probs": probs.reshape(1, 10)}


def add_uint8(a: np.ndarray, aq: tuple[float, int], b: np.ndarray, bq: tuple[float, int],
              outq: tuple[float, int]) -> np.ndarray:
    """TFLite's uint8 Add: both inputs shifted left 20 bits, scaled to twice the larger input scale, summed,
    rescaled to the output."""
    twice_max = 2 * max(float(np.float32(aq[0])), float(np.float32(bq[0])))
    m1, s1 = quantize_multiplier(float(np.float32(aq[0])) / twice_max)
    m2, s2 = quantize_multiplier(float(np.float32(bq[0])) / twice_max)
    mo, so = quantize_multiplier(twice_max / ((1 << 20) * float(np.float32(outq[0]))))
    out = np.zeros(a.shape, np.uint8)
    for i, (u, v) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
        su = multiply_by_quantized_multiplier((int(u) - aq[1]) * (1 << 20), m1, s1)
        sv = multiply_by_quantized_multiplier((int(v) - bq[1]) * (1 << 20), m2, s2)
        out.reshape(-1)[i] = min(max(multiply_by_quantized_multiplier(su + sv, mo, so) + outq[1], 0), 255)
    return out


def fully_connected_uint8(x: np.ndarray, xq: tuple[float, int], w: np.ndarray, wq: tuple[float, int],
                          bias: np.ndarray, outq: tuple[float, int], activation: str) -> np.ndarray:
    """TFLite's uint8 FullyConnected of x [batches, depth] by w [out, depth]: sum (w - w_zp) * (x - x_zp) + bias,
    requantized as a convolution."""
    multiplier, shift = quantize_multiplier(float(np.float32(xq[0])) * float(np.float32(wq[0]))
                                            / float(np.float32(outq[0])))
    low, high = (max(0, outq[1]), 255) if activation == "RELU" else activation_range(activation, *outq)
    acc = (x.astype(np.int64) - xq[1]) @ (w.astype(np.int64) - wq[1]).T + bias
    flat = [min(max(multiply_by_quantized_multiplier(int(a), multiplier, shift) + outq[1], low), high)
            for a in acc.reshape(-1)]
    return np.array(flat, np.uint8).reshape(acc.shape)


POOL_Q, FC_W_Q, FC_Q, SIDE_Q = (0.02, 110), (0.0011, 77), (0.05, 10), (0.07, 200)


def head_uint8(seed: int = 0) -> tuple[bytes, dict[str, np.ndarray]]:
    """Max pool, reshape, fully connected (weights' zero point 77, ReLU), an add of a second uint8 input,
    a concatenation and a dequantize: two outputs, uint8 and float32."""
    rng = np.random.default_rng(seed)
    c = {"w": _weights(rng, [6, 64], FC_W_Q[1]), "b": rng.integers(-2000, 2000, 6).astype(np.int32)}
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 8, 8, 4], "uint8", scale=POOL_Q[0], zero_point=POOL_Q[1])
    side = mb.tensor("side", [1, 6], "uint8", scale=SIDE_Q[0], zero_point=SIDE_Q[1])
    pool = mb.tensor("pool", [1, 4, 4, 4], "uint8", scale=POOL_Q[0], zero_point=POOL_Q[1])
    mb.op("MAX_POOL_2D", [x], [pool], padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2)
    shape = mb.tensor("shape", [2], "int32", data=np.array([1, 64]))
    flat = mb.tensor("flat", [1, 64], "uint8", scale=POOL_Q[0], zero_point=POOL_Q[1])
    mb.op("RESHAPE", [pool, shape], [flat])
    w = mb.tensor("fc/weights", [6, 64], "uint8", scale=FC_W_Q[0], zero_point=FC_W_Q[1], data=c["w"])
    b = mb.tensor("fc/bias", [6], "int32", scale=float(np.float32(POOL_Q[0]) * np.float32(FC_W_Q[0])), zero_point=0,
                  data=c["b"])
    fc = mb.tensor("fc", [1, 6], "uint8", scale=FC_Q[0], zero_point=FC_Q[1])
    mb.op("FULLY_CONNECTED", [flat, w, b], [fc], fused_activation_function="RELU")
    total = mb.tensor("sum", [1, 6], "uint8", scale=FC_Q[0], zero_point=FC_Q[1])
    mb.op("ADD", [fc, side], [total])
    cat = mb.tensor("cat", [1, 12], "uint8", scale=FC_Q[0], zero_point=FC_Q[1])
    mb.op("CONCATENATION", [fc, total], [cat], axis=1)
    real = mb.tensor("real", [1, 12], "float32")
    mb.op("DEQUANTIZE", [cat], [real])
    return mb.build([x, side], [cat, real]), c


def head_outputs(c: dict[str, np.ndarray], x: np.ndarray, side: np.ndarray) -> dict[str, np.ndarray]:
    pool = x[0].reshape(4, 2, 4, 2, 4).max(axis=(1, 3))
    fc = fully_connected_uint8(pool.reshape(1, 64), POOL_Q, c["w"], FC_W_Q, c["b"], FC_Q, "RELU")
    total = add_uint8(fc, FC_Q, side, SIDE_Q, FC_Q)
    cat = np.concatenate([fc, total], axis=1)
    real = (np.float64(np.float32(FC_Q[0])) * (cat.astype(np.int64) - FC_Q[1])).astype(np.float32)
    return {"cat": cat, "real": real}


def mul_uint8(a: np.ndarray, aq: tuple[float, int], b: np.ndarray, bq: tuple[float, int],
              outq: tuple[float, int], in_double: bool = False) -> np.ndarray:
    """TFLite's uint8 Mul (broadcasting): (a - a_zp) * (b - b_zp) requantized with the ratio of scales taken in
    float, as its Prepare computes `s_a * s_b / s_out` on float scales (`in_double`: as the int8 kernels do)."""
    if in_double:
        real = float(np.float32(aq[0])) * float(np.float32(bq[0])) / float(np.float32(outq[0]))
    else:
        real = float(np.float32(aq[0]) * np.float32(bq[0]) / np.float32(outq[0]))
    multiplier, shift = quantize_multiplier(real)
    products = (a.astype(np.int64) - aq[1]) * (b.astype(np.int64) - bq[1])
    flat = [min(max(multiply_by_quantized_multiplier(int(v), multiplier, shift) + outq[1], 0), 255)
            for v in products.reshape(-1)]
    return np.array(flat, np.uint8).reshape(products.shape)
