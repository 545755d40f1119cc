"""GRU cells written as TFLite ops, one frame per call, the way the TFLite converter writes an unrolled Keras
GRU: the hidden state is a model input that the caller feeds back from the model's output.

Two cells:

  reset_after=True (Keras GRU v2, the default): both matrices applied first, the reset gate on the
  recurrent part, gates split with SPLIT (input side) and SPLIT_V (recurrent side)
      mx = FC(x) -> split z|r|h;  mh = FC(h) -> split z|r|h
      z = sigmoid(xz + hz);  r = sigmoid(xr + hr);  c = tanh(xh + r * hh);  h' = z * h + (1 - z) * c
  reset_after=False (the original GRU, TF1's GRUCell): the input and the state concatenated
      g = sigmoid(FC([x, h])) -> split r|z;  c = tanh(FC([x, r * h]));  h' = z * h + (1 - z) * c

The integer models are quantized as the converter quantizes. int8: activations per-tensor asymmetric from the
ranges a calibration stream takes through the float model (`calibrate`), weights per-channel symmetric,
int32 biases at input scale * weight scale, LOGISTIC out at 1/256 zero point -128, TANH out at 1/128
zero point 0, and the tensors CONCATENATION joins (and the state, which feeds it) sharing one scale. 16x8
(int16 activations, int8 weights): activations symmetric at zero point 0, int64 biases, LOGISTIC and TANH
out at 1/32768.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret

Ranges = dict[str, tuple[float, float]]


@dataclass(frozen=True)
class GruWeights:
    """Trained-looking float weights: Glorot-uniform input kernels, orthogonal recurrent kernels, small
    biases (the gates' biases spread so that some gates sit open and some closed)."""

    inputs: int
    units: int
    reset_after: bool
    arrays: dict[str, np.ndarray]

    @staticmethod
    def random(inputs: int, units: int, reset_after: bool, seed: int) -> GruWeights:
        rng = np.random.default_rng(seed)

        def glorot(rows: int, cols: int) -> np.ndarray:
            limit = np.sqrt(6.0 / (rows + cols))
            return rng.uniform(-limit, limit, (rows, cols))

        def orthogonal(n: int) -> np.ndarray:
            q, r = np.linalg.qr(rng.normal(size=(n, n)))
            return q * np.sign(np.diag(r))

        def bias(n: int) -> np.ndarray:
            return rng.normal(0.0, 0.3, n)

        u = units
        if reset_after:
            arrays = {"wx": glorot(3 * u, inputs), "bx": bias(3 * u),
                      "wh": np.concatenate([orthogonal(u) for _ in range(3)]), "bh": bias(3 * u)}
        else:
            arrays = {"wg": np.concatenate([glorot(2 * u, inputs), np.concatenate([orthogonal(u)] * 2)], axis=1),
                      "bg": bias(2 * u) + 1.0,  # TF1's GRUCell starts its gates' bias at 1
                      "wc": np.concatenate([glorot(u, inputs), orthogonal(u)], axis=1), "bc": bias(u)}
        return GruWeights(inputs, units, reset_after, {k: v.astype(np.float32) for k, v in arrays.items()})


def asymmetric(lo: float, hi: float) -> tuple[float, int]:
    """The converter's int8 parameters for a range (widened to hold 0): scale and zero point."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    return scale, int(np.clip(round(-128 - lo / scale), -128, 127))


def symmetric(lo: float, hi: float) -> tuple[float, int]:
    """The converter's int16 parameters for a range (16x8 models): symmetric, zero point 0."""
    bound = max(abs(lo), abs(hi))
    return (bound / 32767.0 if bound > 0 else 1.0), 0


# the fixed output parameters of LOGISTIC and TANH, per activation dtype
FIXED = {"int8": {"sigmoid": (1.0 / 256.0, -128), "tanh": (1.0 / 128.0, 0)},
         "int16": {"sigmoid": (1.0 / 32768.0, 0), "tanh": (1.0 / 32768.0, 0)}}


class _Cell:
    """Emits one cell into a ModelBuilder, in float32, int8 or int16 with int8 weights (16x8), the integer
    ones with the calibrated ranges."""

    def __init__(self, weights: GruWeights, ranges: Ranges | None, dtype: str) -> None:
        self.w = weights
        self.ranges = ranges
        self.dtype = dtype
        self.mb = ModelBuilder()
        self.tensors: dict[str, int] = {}  # every activation tensor, in order

    def quant(self, name: str, fixed: str = "") -> tuple[float, int]:
        if self.dtype == "float32":
            return 1.0, 0
        if fixed:
            return FIXED[self.dtype][fixed]
        assert self.ranges is not None
        return (asymmetric if self.dtype == "int8" else symmetric)(*self.ranges[name])

    def act(self, name: str, width: int, fixed: str = "") -> int:
        if self.dtype == "float32":
            index = self.mb.tensor(name, [1, width], "float32")
        else:
            scale, zero = self.quant(name, fixed)
            index = self.mb.tensor(name, [1, width], self.dtype, scale=scale, zero_point=zero)
        self.tensors[name] = index
        return index

    def scale(self, name: str) -> float:
        return self.quant(name)[0]

    def fc(self, x: int, x_scale: float, weight: str, bias: str, out: int) -> None:
        w, b = self.w.arrays[weight], self.w.arrays[bias]
        if self.dtype == "float32":
            wt = self.mb.tensor(weight, list(w.shape), "float32", data=w)
            bt = self.mb.tensor(bias, list(b.shape), "float32", data=b)
        else:
            scales = np.maximum(np.abs(w).max(axis=1), 1e-8) / 127.0
            wq = np.clip(np.round(w / scales[:, None]), -127, 127).astype(np.int8)
            wt = self.mb.tensor(weight, list(w.shape), "int8", scale=list(scales), zero_point=[0] * len(scales),
                                axis=0, data=wq)
            bias_scales = x_scale * scales  # 16x8: an int64 bias, as the converter writes it
            bq = np.round(b / bias_scales).astype(np.int64)
            bt = self.mb.tensor(bias, list(b.shape), "int32" if self.dtype == "int8" else "int64",
                                scale=list(bias_scales), zero_point=[0] * len(b), axis=0, data=bq)
        self.mb.op("FULLY_CONNECTED", [x, wt, bt], [out], fused_activation_function="NONE")

    def binary(self, op: str, a: int, b: int, out: int) -> None:
        self.mb.op(op, [a, b], [out], fused_activation_function="NONE")

    def one(self) -> int:
        """The constant 1 of `1 - z`, a scalar as the converter writes it (int8: 127 at 1/255 zero point
        -128; int16: 32767 at 1/32767)."""
        if self.dtype == "float32":
            return self.mb.tensor("one", [], "float32", data=np.float32(1.0))
        if self.dtype == "int8":
            return self.mb.tensor("one", [], "int8", scale=1.0 / 255.0, zero_point=-128, data=np.array(127))
        return self.mb.tensor("one", [], "int16", scale=1.0 / 32767.0, zero_point=0, data=np.array(32767))


# the tensors CONCATENATION joins share one scale (the converter's same-scale rule for it), and the state
# feeds it: so x, h, r*h, the joined tensors and the new state take the union of their ranges
SHARED = ("x", "h", "rh", "xh", "xrh", "h_new")


def build(weights: GruWeights, ranges: Ranges | None = None, probe: bool = False, dtype: str = "int8") -> bytes:
    """The cell as a .tflite model: inputs x and h, output h_new (with `probe`, every activation tensor
    is an output too, to read its range); float32 without `ranges`, else `dtype` (int8, or int16 for 16x8)."""
    cell = _Cell(weights, ranges, dtype if ranges is not None else "float32")
    if ranges is not None and not weights.reset_after:
        lo = min(ranges[n][0] for n in SHARED)
        hi = max(ranges[n][1] for n in SHARED)
        cell.ranges = {**ranges, **{n: (lo, hi) for n in SHARED}}
    u, mb = weights.units, cell.mb
    x = cell.act("x", weights.inputs)
    h = cell.act("h", u)
    if weights.reset_after:
        mx, mh = cell.act("mx", 3 * u), cell.act("mh", 3 * u)
        cell.fc(x, cell.scale("x"), "wx", "bx", mx)
        cell.fc(h, cell.scale("h"), "wh", "bh", mh)
        # the input side's gates come through SPLIT, the recurrent side's through SPLIT_V with the last
        # size left to the op (-1), as Keras writes the two
        xz, xr, xc = (cell.act(n, u) for n in ("xz", "xr", "xc"))
        axis = mb.tensor("axis", [], "int32", data=np.array(1))
        mb.op("SPLIT", [axis, mx], [xz, xr, xc], num_splits=3)
        hz, hr, hc = (cell.act(n, u) for n in ("hz", "hr", "hc"))
        sizes = mb.tensor("sizes", [3], "int32", data=np.array([u, u, -1]))
        mb.op("SPLIT_V", [mh, sizes, axis], [hz, hr, hc], num_splits=3)
        z_in, r_in = cell.act("z_in", u), cell.act("r_in", u)
        cell.binary("ADD", xz, hz, z_in)
        cell.binary("ADD", xr, hr, r_in)
        z, r = cell.act("z", u, "sigmoid"), cell.act("r", u, "sigmoid")
        mb.op("LOGISTIC", [z_in], [z])
        mb.op("LOGISTIC", [r_in], [r])
        rh = cell.act("r_hc", u)
        cell.binary("MUL", r, hc, rh)
        c_in = cell.act("c_in", u)
        cell.binary("ADD", xc, rh, c_in)
    else:
        xh = cell.act("xh", weights.inputs + u)
        mb.op("CONCATENATION", [x, h], [xh], axis=1, fused_activation_function="NONE")
        g_in = cell.act("g_in", 2 * u)
        cell.fc(xh, cell.scale("xh"), "wg", "bg", g_in)
        g = cell.act("g", 2 * u, "sigmoid")
        mb.op("LOGISTIC", [g_in], [g])
        r, z = cell.act("r", u, "sigmoid"), cell.act("z", u, "sigmoid")
        axis = mb.tensor("axis", [], "int32", data=np.array(1))
        mb.op("SPLIT", [axis, g], [r, z], num_splits=2)
        rh = cell.act("rh", u)
        cell.binary("MUL", r, h, rh)
        xrh = cell.act("xrh", weights.inputs + u)
        mb.op("CONCATENATION", [x, rh], [xrh], axis=1, fused_activation_function="NONE")
        c_in = cell.act("c_in", u)
        cell.fc(xrh, cell.scale("xrh"), "wc", "bc", c_in)
    c = cell.act("c", u, "tanh")
    mb.op("TANH", [c_in], [c])
    zh, zc, not_z = cell.act("zh", u), cell.act("zc", u), cell.act("not_z", u)
    cell.binary("MUL", z, h, zh)
    cell.binary("SUB", cell.one(), z, not_z)
    cell.binary("MUL", not_z, c, zc)
    h_new = cell.act("h_new", u)
    cell.binary("ADD", zh, zc, h_new)
    # the state goes round: its output must be readable as the next call's input
    assert cell.quant("h_new") == cell.quant("h")
    outputs = [i for i in cell.tensors.values() if i not in (x, h)] if probe else [h_new]
    return mb.build([x, h], outputs)


def features(inputs: int, frames: int, seed: int) -> np.ndarray:
    """Audio-feature-like frames in float: slowly drifting bands with noise, [frames, 1, inputs]."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames)[:, None]
    bands = np.sin(0.3 * t + rng.uniform(0, 2 * np.pi, inputs)) * rng.uniform(0.5, 2.0, inputs)
    return (bands + rng.normal(0, 0.4, (frames, inputs))).astype(np.float32)[:, None, :]


def calibrate(weights: GruWeights, frames: int = 64, seed: int = 100) -> Ranges:
    """Every activation's range over a calibration stream through the float cell (the state fed back);
    the state's input and output take the union of both, as they are one tensor going round."""
    graph = load_tflite(build(weights, probe=True), "gru_float")
    ranges: dict[str, tuple[float, float]] = {}
    h = np.zeros((1, weights.units), np.float32)
    for x in features(weights.inputs, frames, seed):
        values = {"x": x, "h": h, **interpret(graph, {"x": x, "h": h})}
        for name, v in values.items():
            lo, hi = ranges.get(name, (np.inf, -np.inf))
            ranges[name] = (min(lo, float(v.min())), max(hi, float(v.max())))
        h = values["h_new"]
    ranges["h"] = ranges["h_new"] = (min(ranges["h"][0], ranges["h_new"][0]), max(ranges["h"][1], ranges["h_new"][1]))
    return ranges


def quantize_input(x: np.ndarray, model: bytes, name: str) -> np.ndarray:
    """A float frame as the integer model's input `name` takes it."""
    t = next(t for t in load_tflite(model, "gru").inputs if t.name == name)
    info = np.iinfo(t.dtype.np)
    return np.clip(np.round(x / t.scale) + t.zero_point, info.min, info.max).astype(t.dtype.np)

