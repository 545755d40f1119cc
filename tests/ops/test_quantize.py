"""QUANTIZE (float32 -> int8, int8 -> int8) and DEQUANTIZE (int8 -> float32) against TFLite Micro."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from mote.ops.quantize import TABLE_MIN_SIZE
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host, host_core
from tests.ops.kernel_util import chosen


def random_scale(rng: np.random.Generator, low: float = 1e-3, high: float = 0.5) -> float:
    return float(np.float32(np.exp(rng.uniform(np.log(low), np.log(high)))))


def single_op(builtin: str, shape: list[int], x_dtype: str, y_dtype: str, x_quant: tuple[float, int] | None,
              y_quant: tuple[float, int] | None) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", shape, x_dtype, *(x_quant or ()))
    y = mb.tensor("y", shape, y_dtype, *(y_quant or ()))
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


def quantize_model(rng: np.random.Generator, shape: list[int], scale: float | None = None) -> bytes:
    y_quant = (scale or random_scale(rng), int(rng.integers(-128, 128)))
    return single_op("QUANTIZE", shape, "float32", "int8", None, y_quant)


def requantize_model(rng: np.random.Generator, shape: list[int]) -> bytes:
    x_quant = (random_scale(rng), int(rng.integers(-128, 128)))
    y_quant = (float(np.float32(x_quant[0] * rng.uniform(0.1, 10.0))), int(rng.integers(-128, 128)))
    return single_op("QUANTIZE", shape, "int8", "int8", x_quant, y_quant)


def dequantize_model(rng: np.random.Generator, shape: list[int]) -> bytes:
    return single_op("DEQUANTIZE", shape, "int8", "float32", (random_scale(rng, 1e-6, 100.0),
                                                              int(rng.integers(-128, 128))), None)


def random_shape(rng: np.random.Generator) -> list[int]:
    return [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5)))]


def reference_matches_tflm(model: bytes, x: np.ndarray) -> None:
    node = load_tflite(model, "m").nodes[0]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    got = op.reference(node, op.prepare(node), [x])[0]
    want = interp.get_output(0).reshape(x.shape)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))  # bit for bit, floats too


@pytest.mark.parametrize("seed", range(30))
def test_quantize_float_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = quantize_model(rng, [4, 256])
    scale = load_tflite(model, "m").outputs[0].scale
    steps = np.concatenate([rng.uniform(-300, 300, 512), rng.uniform(-1e9, 1e9, 64),  # mostly saturating
                            np.round(rng.uniform(-140, 140, 256)) + 0.5,  # near ties
                            rng.integers(-140, 140, 192).astype(np.float64)])
    x = (steps * scale).astype(np.float32).reshape(4, 256)
    reference_matches_tflm(model, x)


def test_quantize_float_ties_round_away_from_zero() -> None:
    """With a power-of-two scale, k + 1/2 steps are exact in float32: TFLite rounds them away from zero."""
    model = quantize_model(np.random.default_rng(0), [2, 150], scale=2.0**-5)
    x = ((np.arange(-150, 150) + 0.5) * 2.0**-5).astype(np.float32).reshape(2, 150)
    reference_matches_tflm(model, x)
    reference_matches_tflm(model, np.array([[-0.0, 0.0] * 75] * 2, dtype=np.float32))


@pytest.mark.parametrize("seed", range(30))
def test_requantize_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(requantize_model(rng, [2, 128]), np.arange(-128, 128, dtype=np.int8).reshape(2, 128))


@pytest.mark.parametrize("seed", range(30))
def test_dequantize_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(dequantize_model(rng, [2, 128]), np.arange(-128, 128, dtype=np.int8).reshape(2, 128))


MODELS = {"quantize": quantize_model, "requantize": requantize_model, "dequantize": dequantize_model}


@pytest.mark.parametrize("kind", sorted(MODELS))
@pytest.mark.parametrize("seed", range(2))
def test_c_matches_tflm(kind: str, seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(100 + seed)
    check_model(MODELS[kind](rng, random_shape(rng)), seeds=2, sanitize=seed == 0)


def test_quantize_float_ties_in_c(tmp_path: Path) -> None:
    """The hand-written rounding of mote_quantize_f32_s8 on exact ties, signed zeros and saturation."""
    model = quantize_model(np.random.default_rng(0), [2, 160], scale=2.0**-5)
    graph = load_tflite(model, "m")
    x = ((np.arange(-160, 160) + 0.5) * 2.0**-5).astype(np.float32)
    x[:4] = [-0.0, 0.0, 1e30, -1e30]
    x = x.reshape(2, 160)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    got = binary.run({"x": x})[0]["y"]
    want = OPS["quantize"].reference(graph.nodes[0], OPS["quantize"].prepare(graph.nodes[0]), [x])[0]
    np.testing.assert_array_equal(got, want)
    reference_matches_tflm(model, np.where(np.abs(x) > 1e20, 0, x).astype(np.float32))


@pytest.mark.skipif(host_core() is not Core.VNNI, reason="needs an x86-64 host with AVX-512 VNNI")
@pytest.mark.parametrize("zero_point", [-128, -3, 0, 127])
@pytest.mark.parametrize("kernel", ["mote_quantize_f32_s8_vnni", "mote_quantize_f32_s8_even_vnni"])
def test_quantize_float_vnni_matches_the_scalar_rounding(zero_point: int, kernel: str, tmp_path: Path) -> None:
    """The AVX-512 kernels (halves away from zero as TFLite, to even as ONNX) on ties, signed zeros, the
    saturation limits (q = +-256 and neighbours), infinities, NaN, subnormals and random values; 341
    elements, so the scalar tail runs too."""
    scale = 2.0**-5
    model = single_op("QUANTIZE", [341], "float32", "int8", None, (scale, zero_point))
    graph = load_tflite(model, "m")
    rng = np.random.default_rng(zero_point + 200)
    limits = np.array([-256, 256, -255.5, 255.5, -255.75, 255.75], np.float64) * scale
    near = np.nextafter(limits.astype(np.float32), np.float32(0))
    specials = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e30, -1e30], np.float32)
    x = np.concatenate([(np.arange(-150, 150) + 0.5) * scale, limits, near, specials,
                        rng.uniform(-10, 10, 341)]).astype(np.float32)[:341]
    rng.shuffle(x)
    graph.nodes[0].attrs["round_half_even"] = kernel.endswith("_even_vnni")
    compiled = compile_graph(graph, core=Core.VNNI)
    assert [layer.kernel for layer in compiled.layers] == [kernel]
    got = build_host(compiled, tmp_path / "project", sanitize=True).run({"x": x})[0]["y"]
    want = OPS["quantize"].reference(graph.nodes[0], OPS["quantize"].prepare(graph.nodes[0]), [x])[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("size, kernel", [(TABLE_MIN_SIZE - 1, "mote_requantize_s8"),
                                          (TABLE_MIN_SIZE, "mote_requantize_table_s8"),
                                          (300, "mote_requantize_table_s8")])
def test_requantize_by_table_matches_tflm(size: int, kernel: str, check_model: Callable[..., object],
                                          tmp_path: Path) -> None:
    """int8 -> int8 from TABLE_MIN_SIZE values: the requantization tabulated per input byte; every byte once
    against the reference."""
    rng = np.random.default_rng(size)
    model = requantize_model(rng, [1, size])
    graph = check_model(model, seeds=2, sanitize=True)
    assert chosen(graph.nodes[0], Core.VECTOR) == chosen(graph.nodes[0], Core.SCALAR) == kernel
    binary = build_host(compile_graph(graph), tmp_path / "bytes")
    every = {"x": np.resize(np.arange(-128, 128, dtype=np.int8), (1, size))}
    assert np.array_equal(binary.run(every)[0]["y"], interpret(graph, every)["y"])


@pytest.mark.parametrize("size, kernel", [(255, "mote_dequantize_s8_f32"), (256, "mote_dequantize_table_s8_f32"),
                                          (700, "mote_dequantize_table_s8_f32")])
def test_dequantize_by_table_on_scalar_cores_matches_tflm(size: int, kernel: str,
                                                          check_model: Callable[..., object]) -> None:
    """From 256 int8 values on a scalar core the floats come from a table of the 256 results: bit for bit
    TFLite Micro's (every input value, several scales and zero points)."""
    for seed in range(3):
        rng = np.random.default_rng(900 + seed)
        graph = check_model(dequantize_model(rng, [size]), seeds=2, sanitize=seed == 0, core=Core.SCALAR)
        assert chosen(graph.nodes[0], Core.SCALAR) == kernel
        assert chosen(graph.nodes[0], Core.VECTOR) == "mote_dequantize_s8_f32"
