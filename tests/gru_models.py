"""Recurrent models written as TFLite ops, one frame per call, the way the TFLite converter writes an unrolled
Keras GRU: each hidden state is a model input that the caller feeds back from a model output.

Two GRU cells:

  reset_after=True (Keras GRU v2, the default): both matrices applied first, the reset gate on the
  recurrent part, gates split with SPLIT (input side) and SPLIT_V (recurrent side, sizes [u, u, -1])
      mx = FC(x) -> split z|r|h;  mh = FC(h) -> split z|r|h
      z = sigmoid(xz + hz);  r = sigmoid(xr + hr);  c = tanh(xh + r * hh);  h' = z * h + (1 - z) * c
  reset_after=False (the original GRU, TF1's GRUCell): the input and the state concatenated
      g = sigmoid(FC([x, h])) -> split r|z;  c = tanh(FC([x, r * h]));  h' = z * h + (1 - z) * c

a GRU keyword spotter (`gru_keyword`: GRU -> FULLY_CONNECTED -> SOFTMAX), and an RNNoise-like denoiser
(`rnnoise`): a dense layer, three GRUs fed by concatenations of the features and earlier layers, a
voice-activity output and per-band gains, three states going round.

The integer models are quantized as the converter quantizes, from the ranges a calibration stream takes
through the float model (`calibrate`): int8 activations per-tensor asymmetric, weights per-channel
symmetric, int32 biases at input scale * weight scale, LOGISTIC and SOFTMAX out at 1/256 zero point -128,
TANH out at 1/128 zero point 0; 16x8 (int16 activations) symmetric at zero point 0, int64 biases, LOGISTIC,
TANH and SOFTMAX out at 1/32768. CONCATENATION needs its inputs at its output's scale: an input at another scale goes
through a requantizing QUANTIZE first, as the converter writes it. A state's input and output share their
parameters, so that the caller can feed one back as the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret

Ranges = dict[str, tuple[float, float]]
Weights = dict[str, np.ndarray]


def asymmetric(lo: float, hi: float) -> tuple[float, int]:
    """The converter's int8 parameters for a range (widened to hold 0): scale and zero point."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    return scale, int(np.clip(round(-128 - lo / scale), -128, 127))


def symmetric(lo: float, hi: float) -> tuple[float, int]:
    """The converter's int16 parameters for a range (16x8 models): symmetric, zero point 0."""
    bound = max(abs(lo), abs(hi))
    return (bound / 32767.0 if bound > 0 else 1.0), 0


# the fixed output parameters of LOGISTIC, TANH and SOFTMAX, per activation dtype
FIXED = {"int8": {"LOGISTIC": (1.0 / 256.0, -128), "TANH": (1.0 / 128.0, 0), "SOFTMAX": (1.0 / 256.0, -128)},
         "int16": {"LOGISTIC": (1.0 / 32768.0, 0), "TANH": (1.0 / 32768.0, 0), "SOFTMAX": (1.0 / 32768.0, 0)}}


class Net:
    """Emits a model into a ModelBuilder by tensor name, in float32, int8 or 16x8 (int16 activations, int8
    weights); the integer ones take their activations' parameters from calibrated ranges."""

    def __init__(self, weights: Weights, ranges: Ranges | None, dtype: str) -> None:
        self.w = weights
        self.ranges = ranges
        self.dtype = dtype if ranges is not None else "float32"
        self.mb = ModelBuilder()
        self.tensors: dict[str, int] = {}  # every activation tensor by name, in order
        self.widths: dict[str, int] = {}
        self.fixed: dict[str, str] = {}  # tensors whose parameters an op fixes (LOGISTIC, TANH outputs)
        self._one: int | None = None
        self.consts: dict[object, int] = {}  # weights shared by the steps of an unrolled sequence

    def quant(self, name: str) -> tuple[float, int]:
        if self.dtype == "float32":
            return 1.0, 0
        if name in self.fixed:
            return FIXED[self.dtype][self.fixed[name]]
        assert self.ranges is not None
        return (asymmetric if self.dtype == "int8" else symmetric)(*self.ranges[name])

    def act(self, name: str, width: int, shape: list[int] | None = None) -> str:
        shape = shape or [1, width]
        if self.dtype == "float32":
            index = self.mb.tensor(name, shape, "float32")
        else:
            scale, zero = self.quant(name)
            index = self.mb.tensor(name, shape, self.dtype, scale=scale, zero_point=zero)
        self.tensors[name], self.widths[name] = index, width
        return name

    def fc(self, x: str, layer: str, out: str) -> str:
        """out = x . w[layer]^T + b[layer], the weights as the converter stores them: one tensor for every
        use of a layer, its bias one for every input scale it meets (the scale is the input's times the
        weights')."""
        w, b = self.w[f"{layer}.w"], self.w[f"{layer}.b"]
        self.act(out, len(b))
        scales = np.maximum(np.abs(w).max(axis=1), 1e-8) / 127.0
        bias_scales = self.quant(x)[0] * scales
        if f"{layer}.w" not in self.consts:
            if self.dtype == "float32":
                self.consts[f"{layer}.w"] = self.mb.tensor(f"{layer}.w", list(w.shape), "float32", data=w)
            else:
                self.consts[f"{layer}.w"] = self.mb.tensor(
                    f"{layer}.w", list(w.shape), "int8", scale=list(scales), zero_point=[0] * len(scales), axis=0,
                    data=np.clip(np.round(w / scales[:, None]), -127, 127))
        key = (layer, tuple(bias_scales))
        if key not in self.consts:
            name = f"{layer}.b" if self.dtype == "float32" else f"{layer}.b@{x}"
            if self.dtype == "float32":
                self.consts[key] = self.mb.tensor(name, list(b.shape), "float32", data=b)
            else:  # 16x8: an int64 bias, as the converter writes it
                self.consts[key] = self.mb.tensor(
                    name, list(b.shape), "int32" if self.dtype == "int8" else "int64", scale=list(bias_scales),
                    zero_point=[0] * len(b), axis=0, data=np.round(b / bias_scales).astype(np.int64))
        wt, bt = self.consts[f"{layer}.w"], self.consts[key]
        self.mb.op("FULLY_CONNECTED", [self.tensors[x], wt, bt], [self.tensors[out]], fused_activation_function="NONE")
        return out

    def unary(self, op: str, x: str, out: str, **options: float) -> str:
        self.fixed[out] = op
        self.act(out, self.widths[x])
        self.mb.op(op, [self.tensors[x]], [self.tensors[out]], **options)
        return out

    def binary(self, op: str, a: str | int, b: str, out: str) -> str:
        self.act(out, self.widths[b])
        left = a if isinstance(a, int) else self.tensors[a]
        self.mb.op(op, [left, self.tensors[b]], [self.tensors[out]], fused_activation_function="NONE")
        return out

    def one(self) -> int:
        """The constant 1 of `1 - z`, a rank-0 scalar as the converter writes it (int8: 127 at 1/255 zero
        point -128; int16: 32767 at 1/32767)."""
        if self._one is None:
            if self.dtype == "float32":
                self._one = self.mb.tensor("one", [], "float32", data=np.float32(1.0))
            elif self.dtype == "int8":
                self._one = self.mb.tensor("one", [], "int8", scale=1.0 / 255.0, zero_point=-128, data=np.array(127))
            else:
                self._one = self.mb.tensor("one", [], "int16", scale=1.0 / 32767.0, zero_point=0,
                                           data=np.array(32767))
        return self._one

    def split(self, x: str, outs: list[str], sizes: list[int] | None = None) -> list[str]:
        """SPLIT into equal parts, or SPLIT_V by `sizes` (one may be -1: the rest)."""
        width = self.widths[x] // len(outs)
        for name in outs:
            self.act(name, width)
        axis = self.mb.tensor(f"{outs[0]}.axis", [], "int32", data=np.array(1))
        indices = [self.tensors[n] for n in outs]
        if sizes is None:
            self.mb.op("SPLIT", [axis, self.tensors[x]], indices, num_splits=len(outs))
        else:
            size_t = self.mb.tensor(f"{outs[0]}.sizes", [len(sizes)], "int32", data=np.array(sizes))
            self.mb.op("SPLIT_V", [self.tensors[x], size_t, axis], indices, num_splits=len(outs))
        return outs

    def _at(self, parts: list[str], out: str) -> list[int]:
        """The parts at the output's parameters: one at others goes through a requantizing QUANTIZE."""
        inputs = []
        for p in parts:
            if self.quant(p) != self.quant(out):
                moved = f"{p}>{out}"
                assert self.ranges is not None  # float parts all share (1.0, 0)
                self.ranges = {**self.ranges, moved: self.ranges[out]}
                self.act(moved, self.widths[p])
                self.mb.op("QUANTIZE", [self.tensors[p]], [self.tensors[moved]])
                p = moved
            inputs.append(self.tensors[p])
        return inputs

    def concat(self, parts: list[str], out: str) -> str:
        """CONCATENATION along the features, which needs its inputs at its output's parameters."""
        self.act(out, sum(self.widths[p] for p in parts))
        self.mb.op("CONCATENATION", self._at(parts, out), [self.tensors[out]], axis=1, fused_activation_function="NONE")
        return out

    def unpack(self, x: str, outs: list[str], width: int) -> list[str]:
        """UNPACK [1, steps, width] into its steps (at the input's parameters, as the op leaves them)."""
        for name in outs:
            self.ranges = {**self.ranges, name: self.ranges[x]} if self.ranges else None
            self.act(name, width)
        self.mb.op("UNPACK", [self.tensors[x]], [self.tensors[n] for n in outs], num=len(outs), axis=1)
        return outs

    def pack(self, parts: list[str], out: str) -> str:
        """PACK the steps into [1, steps, width], at its output's parameters."""
        width = self.widths[parts[0]]
        self.act(out, width, [1, len(parts), width])
        self.mb.op("PACK", self._at(parts, out), [self.tensors[out]], values_count=len(parts), axis=1)
        return out


def gru_cell(net: Net, x: str, h: str, reset_after: bool, p: str, weights: str | None = None) -> str:
    """One GRU step on input `x` and state `h`, its tensors named with the prefix `p`, its weights with
    `weights` (default `p`); returns the new state's name."""
    w = p if weights is None else weights
    if reset_after:
        xz, xr, xc = net.split(net.fc(x, f"{w}x", f"{p}mx"), [f"{p}xz", f"{p}xr", f"{p}xc"])
        u = net.widths[xz]
        hz, hr, hc = net.split(net.fc(h, f"{w}h", f"{p}mh"), [f"{p}hz", f"{p}hr", f"{p}hc"], [u, u, -1])
        z = net.unary("LOGISTIC", net.binary("ADD", xz, hz, f"{p}z_in"), f"{p}z")
        r = net.unary("LOGISTIC", net.binary("ADD", xr, hr, f"{p}r_in"), f"{p}r")
        c_in = net.binary("ADD", xc, net.binary("MUL", r, hc, f"{p}r_hc"), f"{p}c_in")
    else:
        g = net.unary("LOGISTIC", net.fc(net.concat([x, h], f"{p}xh"), f"{w}g", f"{p}g_in"), f"{p}g")
        r, z = net.split(g, [f"{p}r", f"{p}z"])
        rh = net.binary("MUL", r, h, f"{p}rh")
        c_in = net.fc(net.concat([x, rh], f"{p}xrh"), f"{w}c", f"{p}c_in")
    c = net.unary("TANH", c_in, f"{p}c")
    zh = net.binary("MUL", z, h, f"{p}zh")
    zc = net.binary("MUL", net.binary("SUB", net.one(), z, f"{p}not_z"), c, f"{p}zc")
    return net.binary("ADD", zh, zc, f"{p}h_new")


def gru_weights(rng: np.random.Generator, inputs: int, units: int, reset_after: bool, p: str = "") -> Weights:
    """Trained-looking weights: Glorot-uniform input kernels, orthogonal recurrent kernels, small biases
    (the gates' spread so that some sit open and some closed)."""
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
        return {f"{p}x.w": glorot(3 * u, inputs), f"{p}x.b": bias(3 * u),
                f"{p}h.w": np.concatenate([orthogonal(u) for _ in range(3)]), f"{p}h.b": bias(3 * u)}
    return {f"{p}g.w": np.concatenate([glorot(2 * u, inputs), np.concatenate([orthogonal(u)] * 2)], axis=1),
            f"{p}g.b": bias(2 * u) + 1.0,  # TF1's GRUCell starts its gates' bias at 1
            f"{p}c.w": np.concatenate([glorot(u, inputs), orthogonal(u)], axis=1), f"{p}c.b": bias(u)}


@dataclass(frozen=True)
class Recurrent:
    """A recurrent model: its float weights, the function that emits it (it names its inputs, then its
    outputs) and its states (input name -> output name)."""

    weights: Weights
    emit: Callable[[Net], tuple[list[str], list[str]]]
    states: dict[str, str]
    features: int
    steps: int = 1  # frames per call: x is [1, steps, features] when more than one


def gru(inputs: int, units: int, reset_after: bool, seed: int) -> Recurrent:
    """A single GRU cell: inputs x and h, output h_new."""
    weights = gru_weights(np.random.default_rng(seed), inputs, units, reset_after)

    def emit(net: Net) -> tuple[list[str], list[str]]:
        x, h = net.act("x", inputs), net.act("h", units)
        return [x, h], [gru_cell(net, x, h, reset_after, "")]

    return Recurrent({k: v.astype(np.float32) for k, v in weights.items()}, emit, {"h": "h_new"}, inputs)


def gru_sequence(seed: int, steps: int = 3, inputs: int = 16, units: int = 12) -> Recurrent:
    """An unrolled GRU over `steps` frames per call, as the converter writes a Keras GRU with
    return_sequences and unroll: UNPACK over time, one cell per step sharing the weights, PACK of the
    states; outputs the sequence and the last state."""
    weights = gru_weights(np.random.default_rng(seed), inputs, units, True, "g.")

    def emit(net: Net) -> tuple[list[str], list[str]]:
        x, h = net.act("x", inputs, [1, steps, inputs]), net.act("h", units)
        states = [h]
        for t, frame in enumerate(net.unpack(x, [f"x{t}" for t in range(steps)], inputs)):
            states.append(gru_cell(net, frame, states[-1], True, f"t{t}.", "g."))
        return [x, h], [net.pack(states[1:], "y"), states[-1]]

    return Recurrent({k: v.astype(np.float32) for k, v in weights.items()}, emit, {"h": f"t{steps - 1}.h_new"},
                     inputs, steps)


def gru_keyword(seed: int, features: int = 40, units: int = 32, keywords: int = 4) -> Recurrent:
    """A GRU keyword spotter: one frame of features -> GRU -> FULLY_CONNECTED -> SOFTMAX, the state beside
    the keyword probabilities."""
    rng = np.random.default_rng(seed)
    w = {**gru_weights(rng, features, units, True, "g."),
         "k.w": rng.uniform(-0.5, 0.5, (keywords, units)), "k.b": rng.normal(0, 0.2, keywords)}

    def emit(net: Net) -> tuple[list[str], list[str]]:
        x, h = net.act("x", features), net.act("h", units)
        g = gru_cell(net, x, h, True, "g.")
        return [x, h], [net.unary("SOFTMAX", net.fc(g, "k", "logits"), "probs", beta=1.0), g]

    return Recurrent({k: v.astype(np.float32) for k, v in w.items()}, emit, {"h": "g.h_new"}, features)


def rnnoise(seed: int, features: int = 42, bands: int = 22, sizes: tuple[int, int, int] = (24, 48, 96)) -> Recurrent:
    """An RNNoise-like denoiser: dense(tanh) -> GRU 1 -> voice activity; [dense, GRU 1, x] -> GRU 2;
    [GRU 1, GRU 2, x] -> GRU 3 -> per-band gains (sigmoid)."""
    rng = np.random.default_rng(seed)
    dense, u1, u2 = 24, sizes[0], sizes[1]
    w = {"d.w": rng.uniform(-0.3, 0.3, (dense, features)), "d.b": rng.normal(0, 0.1, dense),
         **gru_weights(rng, dense, u1, True, "g1."), **gru_weights(rng, dense + u1 + features, u2, True, "g2."),
         **gru_weights(rng, u1 + u2 + features, sizes[2], True, "g3."),
         "vad.w": rng.uniform(-0.4, 0.4, (1, u1)), "vad.b": rng.normal(0, 0.1, 1),
         "gain.w": rng.uniform(-0.2, 0.2, (bands, sizes[2])), "gain.b": rng.normal(0, 0.1, bands)}

    def emit(net: Net) -> tuple[list[str], list[str]]:
        x = net.act("x", features)
        h1, h2, h3 = (net.act(f"h{k}", n) for k, n in zip((1, 2, 3), sizes))
        d = net.unary("TANH", net.fc(x, "d", "d_in"), "d")
        g1 = gru_cell(net, d, h1, True, "g1.")
        vad = net.unary("LOGISTIC", net.fc(g1, "vad", "vad_in"), "vad")
        g2 = gru_cell(net, net.concat([d, g1, x], "in2"), h2, True, "g2.")
        g3 = gru_cell(net, net.concat([g1, g2, x], "in3"), h3, True, "g3.")
        gains = net.unary("LOGISTIC", net.fc(g3, "gain", "gain_in"), "gains")
        return [x, h1, h2, h3], [gains, vad, g1, g2, g3]

    states = {"h1": "g1.h_new", "h2": "g2.h_new", "h3": "g3.h_new"}
    return Recurrent({k: v.astype(np.float32) for k, v in w.items()}, emit, states, features)


def build(model: Recurrent, ranges: Ranges | None = None, dtype: str = "int8", probe: bool = False) -> bytes:
    """The model as a .tflite flatbuffer: float32 without `ranges`, else `dtype` (int8, or int16 for 16x8);
    with `probe`, every activation tensor is an output too, to read its range."""
    net = Net(model.weights, ranges, dtype)
    inputs, outputs = model.emit(net)
    if probe:
        outputs = [n for n in net.tensors if n not in inputs]
    for h_in, h_out in model.states.items():  # the state goes round: one tensor's parameters
        assert net.quant(h_in) == net.quant(h_out), (h_in, h_out)
    return net.mb.build([net.tensors[n] for n in inputs], [net.tensors[n] for n in outputs])


def features(inputs: int, frames: int, seed: int) -> np.ndarray:
    """Audio-feature-like frames in float: slowly drifting bands with noise, [frames, 1, inputs]."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames)[:, None]
    bands = np.sin(0.3 * t + rng.uniform(0, 2 * np.pi, inputs)) * rng.uniform(0.5, 2.0, inputs)
    return (bands + rng.normal(0, 0.4, (frames, inputs))).astype(np.float32)[:, None, :]


def frames(model: Recurrent, count: int, seed: int) -> np.ndarray:
    """`count` calls' worth of float input x: [count, 1, features], or [count, 1, steps, features]."""
    if model.steps == 1:
        return features(model.features, count, seed)
    return features(model.features, count * model.steps, seed).reshape(count, 1, model.steps, model.features)


def calibrate(model: Recurrent, calls: int = 64, seed: int = 100) -> Ranges:
    """Every activation's range over a calibration stream through the float model (the states fed back);
    a state's input and output take the union of both, as they are one tensor going round."""
    graph = load_tflite(build(model, probe=True), "float_probe")
    ranges: dict[str, tuple[float, float]] = {}
    states = {t.name: np.zeros(t.shape, np.float32) for t in graph.inputs if t.name in model.states}
    for x in frames(model, calls, seed):
        values = {"x": x, **states, **interpret(graph, {"x": x, **states})}
        for name, v in values.items():
            lo, hi = ranges.get(name, (np.inf, -np.inf))
            ranges[name] = (min(lo, float(v.min())), max(hi, float(v.max())))
        states = {h_in: values[h_out] for h_in, h_out in model.states.items()}
    for h_in, h_out in model.states.items():
        both = (min(ranges[h_in][0], ranges[h_out][0]), max(ranges[h_in][1], ranges[h_out][1]))
        ranges[h_in] = ranges[h_out] = both
    return ranges


def quantize_input(x: np.ndarray, model: bytes, name: str) -> np.ndarray:
    """A float frame as the integer model's input `name` takes it."""
    t = next(t for t in load_tflite(model, "recurrent").inputs if t.name == name)
    info = np.iinfo(t.dtype.np)
    return np.clip(np.round(x / t.scale) + t.zero_point, info.min, info.max).astype(t.dtype.np)
