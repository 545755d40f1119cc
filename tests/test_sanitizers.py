"""The kernels under AddressSanitizer and UndefinedBehaviorSanitizer at the extremes TFLite allows: the
MLPerf Tiny models on inputs all -128, all 127 and random, and layers whose biases sit at the int32
limits, bit-exact with TFLite Micro for every kernel family; one step past a limit, refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.errors import BuildError, UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from mote.ops.accumulator_range import accumulator_bounds
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host, host_core

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
# The VNNI kernels compile to stubs on a CPU without AVX-512 VNNI: tested where this one has it.
CORES = (Core.VECTOR, Core.SCALAR, *([Core.VNNI] if host_core() is Core.VNNI else []))


def extreme_inputs(graph: Graph) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    fills = [{t.name: np.full(t.shape, v, t.dtype.np) for t in graph.inputs} for v in (-128, 127)]
    return [*fills, {t.name: rng.integers(-128, 128, t.shape).astype(t.dtype.np) for t in graph.inputs}]


def check_sanitized(model: bytes, core: Core, work: Path) -> None:
    graph = load_tflite(model, "model")
    binary = build_host(compile_graph(graph, core=core), work / "project", opt="-O1", sanitize=True)
    for i, inputs in enumerate(extreme_inputs(graph)):
        expected = tflm_outputs(model, graph, inputs)
        assert_same(interpret(graph, inputs), expected, f"reference interpreter, input {i}")
        assert_same(binary.run(inputs)[0], expected, f"sanitized C ({core.name}), input {i}")


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.name.lower())
@pytest.mark.parametrize("name", sorted(p.name for p in MLPERF_TINY.glob("*.tflite")))
def test_mlperf_tiny_sanitized_at_extreme_inputs(name: str, core: Core, tmp_path: Path) -> None:
    check_sanitized((MLPERF_TINY / name).read_bytes(), core, tmp_path)


def limit_biases(weights: np.ndarray, input_offset: int, rng: np.random.Generator, past: int = 0) -> np.ndarray:
    """Channel 0's bias as high and channel 1's as low as TFLite Micro's int32 sum allows for every
    input (`past` beyond that), the others ordinary. weights: [channels, taps]."""
    least, greatest = accumulator_bounds(weights, input_offset)
    bias = rng.integers(-5000, 5000, len(weights)).astype(np.int64)
    bias[0], bias[1] = INT32_MAX - greatest[0] + past, INT32_MIN - least[1] - past
    return np.clip(bias, INT32_MIN, INT32_MAX)


class LimitModel:
    """conv 3x3 -> conv 1x1 -> depthwise 3x3 -> fully connected, with biases at the int32 limits (the
    fully connected one as near as its kernels allow), or `past` beyond them in `past_layer`."""

    def __init__(self, seed: int, past: int = 0, past_layer: str = "") -> None:
        self.rng = np.random.default_rng(seed)
        self.mb = ModelBuilder()
        self.past, self.past_layer = past, past_layer
        self.scale, self.zero_point = 0.03, -7

    def tensor(self, name: str, shape: list[int], gain: float) -> int:
        self.scale *= gain
        self.zero_point = int(self.rng.integers(-20, 20))
        return self.mb.tensor(name, shape, "int8", scale=self.scale, zero_point=self.zero_point)

    def constants(self, name: str, shape: list[int], channels: int, axis: int, taps_of: np.ndarray) -> list[int]:
        w_scales = list(self.rng.uniform(0.002, 0.02, channels))
        data = taps_of
        w = self.mb.tensor(f"{name}_w", shape, "int8", scale=w_scales, zero_point=0, axis=axis, data=data)
        rows = np.moveaxis(data, axis, 0).reshape(channels, -1)
        bias = limit_biases(rows, -self.zero_point, self.rng, self.past if name == self.past_layer else 0)
        if name == "dense" != self.past_layer:
            # mote's fully connected kernels fold input_offset * sum(w) into the bias and refuse a layer
            # without 128 * 128 per tap of room for the products that follow (fully_connected.py).
            room = rows.shape[1] * 128 * 128 + np.abs(-self.zero_point * rows.sum(axis=1))
            bias[0], bias[1] = INT32_MAX - room[0], INT32_MIN + 1 + room[1]
        b = self.mb.tensor(f"{name}_b", [channels], "int32", scale=[self.scale * s for s in w_scales], zero_point=0,
                           data=bias)
        return [w, b]

    def build(self) -> bytes:
        x = self.tensor("x", [1, 6, 6, 4], 1.0)
        x0 = x
        weights = self.rng.integers(-127, 128, (8, 3, 3, 4))
        inputs = self.constants("conv", [8, 3, 3, 4], 8, 0, weights)
        y = self.tensor("conv_out", [1, 6, 6, 8], 0.01 * 36 * 64)
        self.mb.op("CONV_2D", [x, *inputs], [y], padding="SAME", stride_h=1, stride_w=1,
                   fused_activation_function="NONE")
        inputs = self.constants("pointwise", [8, 1, 1, 8], 8, 0, self.rng.integers(-127, 128, (8, 1, 1, 8)))
        z = self.tensor("pointwise_out", [1, 6, 6, 8], 0.01 * 8 * 64)
        self.mb.op("CONV_2D", [y, *inputs], [z], padding="VALID", stride_h=1, stride_w=1,
                   fused_activation_function="NONE")
        inputs = self.constants("depthwise", [1, 3, 3, 8], 8, 3, self.rng.integers(-127, 128, (1, 3, 3, 8)))
        d = self.tensor("depthwise_out", [1, 6, 6, 8], 0.01 * 3 * 64)
        self.mb.op("DEPTHWISE_CONV_2D", [z, *inputs], [d], padding="SAME", stride_h=1, stride_w=1,
                   depth_multiplier=1, fused_activation_function="NONE")
        inputs = self.constants("dense", [10, 288], 10, 0, self.rng.integers(-127, 128, (10, 288)))
        f = self.tensor("dense_out", [1, 10], 0.01 * 17 * 64)
        self.mb.op("FULLY_CONNECTED", [d, *inputs], [f], fused_activation_function="NONE")
        return self.mb.build([x0], [f])


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.name.lower())
def test_biases_at_the_int32_limits_are_exact_and_sanitizer_clean(core: Core, tmp_path: Path) -> None:
    check_sanitized(LimitModel(seed=3).build(), core, tmp_path)


@pytest.mark.parametrize("layer", ["conv", "pointwise", "depthwise", "dense"])
def test_a_bias_one_past_the_int32_limit_is_refused(layer: str) -> None:
    model = LimitModel(seed=3, past=1, past_layer=layer).build()
    with pytest.raises(UnsupportedError, match=r"output channel 0: bias \d+ plus the largest accumulator \d+ "
                                               r"overflows int32") as refused:
        compile_graph(load_tflite(model, "model"))  # refused when loading or compiling, never run
    assert "\n" not in str(refused.value) and f"{layer}_out" in str(refused.value)


def test_the_sanitizers_catch_what_the_refusal_prevents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: with the check bypassed, a bias past the limit overflows in the C under UBSan."""
    import mote.ops.conv2d

    monkeypatch.setattr(mote.ops.conv2d, "check_accumulator_range", lambda *args: None)
    graph = load_tflite(LimitModel(seed=3, past=2_000_000, past_layer="conv").build(), "model")
    binary = build_host(compile_graph(graph), tmp_path / "project", opt="-O1", sanitize=True)
    with pytest.raises(BuildError, match="signed integer overflow"):  # channel 0 at INT32_MAX, 1 at INT32_MIN
        for inputs in extreme_inputs(graph):
            binary.run(inputs)

