"""CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int16 activations and int8 weights (16x8) against
TFLite Micro: int64, int32 and absent biases, per-channel and per-tensor weights, windows of every kind."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops.blocked_f32 import padded_plane
from mote.ops.registry import Core
from mote.ops.stage_16x8 import stage_row
from mote.quant import multiply_by_quantized_multiplier_64
from mote.reference import interpret
from tests.conftest import tflm_outputs


def _scales(rng: np.random.Generator, n: int) -> list[float]:
    return [float(v) for v in np.exp(rng.uniform(np.log(2e-3), np.log(2e-2), n))]


def conv_model(builtin: str, rng: np.random.Generator, bias: str = "int64", per_channel: bool = True,
               groups: int = 1, multiplier: int = 1, stride: int = 1, padding: str = "SAME", dilation: int = 1,
               activation: str = "NONE", channels: int = 4) -> bytes:
    h, w, c = 7, 6, channels
    oc = {"CONV_2D": 6 * groups, "DEPTHWISE_CONV_2D": c * multiplier}[builtin]
    fic = c // groups
    wshape = [oc, 3, 2, fic] if builtin == "CONV_2D" else [1, 3, 2, oc]
    s_in, s_out = 0.01, float(rng.uniform(0.02, 0.2))
    w_scales = _scales(rng, oc if per_channel else 1)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, h, w, c], "int16", scale=s_in, zero_point=0)
    wt = mb.tensor("w", wshape, "int8", scale=w_scales, zero_point=[0] * len(w_scales),
                   axis=0 if builtin == "CONV_2D" else 3, data=rng.integers(-127, 128, wshape))
    inputs = [x, wt]
    if bias != "none":
        b_scales = [s_in * s for s in (w_scales if per_channel else w_scales * oc)]
        inputs.append(mb.tensor("b", [oc], bias, scale=b_scales, zero_point=[0] * oc, axis=0,
                                data=rng.integers(-20000, 20000, oc)))
    geometry = {"padding": padding, "stride_h": stride, "stride_w": stride, "dilation_h_factor": dilation,
                "dilation_w_factor": dilation, "fused_activation_function": activation}
    if builtin == "DEPTHWISE_CONV_2D":
        geometry["depth_multiplier"] = multiplier
    def size(n: int, f: int) -> int:
        return -(-n // stride) if padding == "SAME" else -(-(n - (f - 1) * dilation) // stride)
    y = mb.tensor("y", [1, size(h, 3), size(w, 2), oc], "int16", scale=s_out, zero_point=0)
    mb.op(builtin, inputs, [y], **geometry)
    return mb.build([x], [y])


def fc_model(rng: np.random.Generator, bias: str = "int64", per_channel: bool = False, zero_points: bool = False,
             activation: str = "NONE", out: int = 7) -> bytes:
    depth = 20
    s_in, s_out = 0.01, float(rng.uniform(0.05, 0.3))
    w_scales = _scales(rng, out if per_channel else 1)
    zp = (lambda: int(rng.integers(-50, 50))) if zero_points else (lambda: 0)
    mb = ModelBuilder()
    x = mb.tensor("x", [3, depth], "int16", scale=s_in, zero_point=zp())
    w = mb.tensor("w", [out, depth], "int8", scale=w_scales, zero_point=[0] * len(w_scales), axis=0,
                  data=rng.integers(-127, 128, (out, depth)))
    inputs = [x, w]
    if bias != "none":
        scale = s_in * w_scales[0]
        inputs.append(mb.tensor("b", [out], bias, scale=scale, zero_point=0, data=rng.integers(-9000, 9000, out)))
    y = mb.tensor("y", [3, out], "int16", scale=s_out, zero_point=zp())
    mb.op("FULLY_CONNECTED", inputs, [y], fused_activation_function=activation)
    return mb.build([x], [y])


def _matches_tflm(model: bytes, seeds: int = 3) -> None:
    graph = load_tflite(model, "m")
    for seed in range(seeds):
        inputs = random_inputs(graph, seed)
        expected = tflm_outputs(model, graph, inputs)
        for name, want in expected.items():
            np.testing.assert_array_equal(interpret(graph, inputs)[name], want, err_msg=f"seed {seed}")
        assert len(np.unique(want)) > 5, "the test outputs are mostly saturated"


CONV_CASES = [dict(), dict(bias="int32"), dict(bias="none"), dict(per_channel=False), dict(groups=2),
              dict(stride=2, padding="VALID"), dict(dilation=2), dict(activation="RELU")]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_conv_matches_tflm(case: dict[str, object]) -> None:
    _matches_tflm(conv_model("CONV_2D", np.random.default_rng(len(str(case))), **case))  # type: ignore[arg-type]


DW_CASES = [dict(), dict(multiplier=2), dict(bias="none"), dict(stride=2, padding="VALID"), dict(dilation=2),
            dict(per_channel=False, activation="RELU")]


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_depthwise_matches_tflm(case: dict[str, object]) -> None:
    _matches_tflm(conv_model("DEPTHWISE_CONV_2D", np.random.default_rng(3), **case))  # type: ignore[arg-type]


FC_CASES = [dict(), dict(bias="int32"), dict(bias="none"), dict(per_channel=True), dict(zero_points=True),
            dict(bias="int32", zero_points=True, activation="RELU")]


@pytest.mark.parametrize("case", FC_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_fully_connected_matches_tflm(case: dict[str, object]) -> None:
    _matches_tflm(fc_model(np.random.default_rng(5), **case))  # type: ignore[arg-type]


def test_c_matches_tflm(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(11)
    check_model(conv_model("CONV_2D", rng, groups=2, stride=2), seeds=2, sanitize=True)
    check_model(conv_model("CONV_2D", rng, bias="int32"), seeds=2, sanitize=True)
    check_model(conv_model("DEPTHWISE_CONV_2D", rng, multiplier=2, dilation=2), seeds=2, sanitize=True)
    check_model(fc_model(rng, bias="int32", zero_points=True), seeds=2, sanitize=True)
    check_model(fc_model(rng, per_channel=True), seeds=2, sanitize=True)


def test_depthwise_int32_bias_is_refused() -> None:
    with pytest.raises(Exception, match="reads an int64 bias"):
        load_tflite(conv_model("DEPTHWISE_CONV_2D", np.random.default_rng(0), bias="int32"), "m")


BLOCKED_CONV_CASES = [dict(), dict(bias="none"), dict(per_channel=False, activation="RELU"),
                      dict(stride=2, padding="VALID"), dict(dilation=2, activation="RELU"), dict(channels=1),
                      dict(channels=2, stride=2, dilation=2, activation="RELU")]


@pytest.mark.parametrize("case", BLOCKED_CONV_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "-")
def test_blocked_conv_matches_tflm(case: dict[str, object], check_model: Callable[..., Graph]) -> None:
    """mote_conv_blocked_s16 on the scalar core: six filters (a set of four and a part), SAME borders, strides,
    dilation, short filter rows (gathered from a zero-padded copy), under the sanitizers."""
    model = conv_model("CONV_2D", np.random.default_rng(len(str(case)) + 40), **case)  # type: ignore[arg-type]
    check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    assert _kernels(model) == ["mote_conv_blocked_s16"]


BLOCKED_DW_CASES = [dict(), dict(channels=6, bias="none"), dict(stride=2, padding="VALID", activation="RELU"),
                    dict(dilation=2, channels=9)]


@pytest.mark.parametrize("case", BLOCKED_DW_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "-")
def test_blocked_depthwise_matches_tflm(case: dict[str, object], check_model: Callable[..., Graph]) -> None:
    """mote_depthwise_conv_blocked_s16 on the scalar core: blocks of four pixels inside the input, pixels at its
    borders one at a time, channels past a set of four, under the sanitizers."""
    model = conv_model("DEPTHWISE_CONV_2D", np.random.default_rng(len(str(case)) + 60), **case)  # type: ignore[arg-type]
    check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    assert _kernels(model) == ["mote_depthwise_conv_blocked_s16"]


@pytest.mark.parametrize("case", [dict(), dict(per_channel=True, activation="RELU", out=11), dict(out=13)],
                         ids=["plain", "per-channel-relu-8+4", "8+8"])
def test_blocked_fully_connected_matches_tflm(case: dict[str, object], check_model: Callable[..., Graph]) -> None:
    model = fc_model(np.random.default_rng(21), **case)  # type: ignore[arg-type]
    check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    assert _kernels(model) == ["mote_fully_connected_blocked_s16"]


@pytest.mark.parametrize("model,kernel", [
    (lambda rng: conv_model("CONV_2D", rng, bias="int32"), "mote_conv_s16"),
    (lambda rng: conv_model("CONV_2D", rng, groups=2), "mote_conv_s16"),
    (lambda rng: conv_model("DEPTHWISE_CONV_2D", rng, multiplier=2), "mote_depthwise_conv_s16"),
    (lambda rng: fc_model(rng, zero_points=True), "mote_fully_connected_s16"),
    (lambda rng: fc_model(rng, bias="int32"), "mote_fully_connected_s16")], ids=["int32-bias", "groups", "multiplier",
                                                                                "zero-points", "fc-int32-bias"])
def test_blocked_kernels_decline(model: Callable[[np.random.Generator], bytes], kernel: str,
                                 check_model: Callable[..., Graph]) -> None:
    """int32 biases (the int32 requantization), groups, depth multipliers and zero points keep the plain 16x8
    kernels."""
    data = model(np.random.default_rng(8))
    assert _kernels(data) == [kernel]
    check_model(data, seeds=1, core=Core.SCALAR)


def _kernels(model: bytes) -> list[str]:
    compiled = compile_graph(load_tflite(model, "m"), core=Core.SCALAR)
    return [layer.kernel for layer in compiled.layers]


def test_stage_rows_match_the_int64_requantization() -> None:
    """The blocked kernels' output stage (its thresholds and its one multiply) against TFLite's int64
    MultiplyByQuantizedMultiplier of sum + bias, offset and clamp, over sums up to the bound."""
    rng = np.random.default_rng(3)
    rows = 0
    for case in range(300):
        wide = 40 if case % 3 == 0 else 24  # a third whose requantized values may leave int32
        multiplier, shift = int(rng.integers(1 << 30, 1 << 31)), int(rng.integers(-20, 3 if wide == 40 else -7))
        bias, bound = int(rng.integers(-(1 << wide), 1 << wide)), int(rng.integers(1, 1 << 30))
        offset, lo, hi = int(rng.integers(-100, 100)), *sorted(int(v) for v in rng.integers(-32768, 32768, 2))
        row = stage_row(multiplier, shift, bias, bound, offset, lo, hi)
        if row is None:  # some value would leave int32: the layer keeps the plain kernels
            assert case % 3 == 0
            continue
        below, above, m, c_lo, c_hi, right = row
        rows += 1
        sums = np.concatenate([rng.integers(-bound, bound + 1, 500), [-bound, bound, below, below - 1, above,
                                                                           above + 1]]).clip(-bound, bound)
        want = np.clip(_wrap(multiply_by_quantized_multiplier_64(sums + bias, multiplier, shift) + offset), lo, hi)
        c = (c_hi << 32) | (c_lo & 0xFFFFFFFF)
        scaled = ((sums.astype(object) * (m & 0xFFFFFFFF) + c) >> 32) >> right  # the C's arithmetic
        assert all(-(2**31) <= v + offset < 2**31 for v in scaled)
        got = [lo if s < below else hi if s > above else min(max(int(v) + offset, lo), hi)
               for s, v in zip(sums, scaled)]
        np.testing.assert_array_equal(got, want)
    assert rows > 220


def _wrap(v: Any) -> Any:
    return (v + 2**31) % 2**32 - 2**31


def test_padded_plane_only_for_short_rows_and_modest_padding() -> None:
    """Short filter rows gather from a zero-padded copy of the input; long rows, or padding far larger than the
    input (a large dilation), gather from the input itself."""
    def layer(in_ch: int, dilation: int) -> Any:
        h, fh = 6, 3
        out = h  # SAME at stride 1
        pad = ((out - 1) + (fh - 1) * dilation + 1 - h) // 2
        return SimpleNamespace(in_h=h, in_w=h, in_ch=in_ch, out_h=out, out_w=out, filter_h=fh, filter_w=fh,
                               stride_h=1, stride_w=1, dilation_h=dilation, dilation_w=dilation, pad_top=pad,
                               pad_left=pad)
    assert padded_plane(layer(1, 1)) == (8, 8)
    assert padded_plane(layer(4, 1)) == (0, 0)
    assert padded_plane(layer(1, 100)) == (0, 0)
