"""LOGISTIC and TANH against TFLite Micro: every int8 input value, log-uniform input scales, random zero points."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS

# TFLite's int8 output quantization: logistic [0, 1) as 1/256 - 128, tanh [-1, 1) as 1/128.
OUTPUT_QUANT = {"LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0)}
BUILTINS = sorted(OUTPUT_QUANT)


def unary_model(builtin: str, shape: list[int], scale: float, zero_point: int,
                out_quant: tuple[float, int] | None = None) -> bytes:
    out_scale, out_zp = out_quant or OUTPUT_QUANT[builtin]
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=float(np.float32(scale)), zero_point=zero_point)
    y = mb.tensor("y", shape, "int8", scale=out_scale, zero_point=out_zp)
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


def random_model(builtin: str, rng: np.random.Generator) -> bytes:
    shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5)))]
    scale = np.exp(rng.uniform(np.log(1e-3), np.log(0.5)))
    return unary_model(builtin, shape, scale, int(rng.integers(-128, 128)))


def reference_matches_tflm(model: bytes) -> None:
    """All 256 int8 values through mote's numpy reference and through TFLite Micro."""
    node = load_tflite(model, "m").nodes[0]
    x = np.arange(-128, 128, dtype=np.int8).reshape(node.inputs[0].shape)
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], interp.get_output(0).reshape(x.shape))


@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("seed", range(40))
def test_reference_matches_tflm(builtin: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    scale = np.exp(rng.uniform(np.log(1e-4), np.log(4.0)))
    reference_matches_tflm(unary_model(builtin, [2, 128], scale, int(rng.integers(-128, 128))))


@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("scale", [2**-20, 1 / 256, 1 / 16, 0.1, 1.0, 10.0, 1000.0])
def test_reference_matches_tflm_at_extreme_scales(builtin: str, scale: float) -> None:
    reference_matches_tflm(unary_model(builtin, [2, 128], scale, 0))


def test_output_quantization_is_not_used() -> None:
    """TFLite Micro ignores the output scale (and, for tanh, the zero point); so does mote."""
    reference_matches_tflm(unary_model("LOGISTIC", [2, 128], 0.05, 3, out_quant=(0.1, -128)))
    reference_matches_tflm(unary_model("TANH", [2, 128], 0.05, 3, out_quant=(0.1, 17)))


def test_logistic_rejects_other_zero_point() -> None:
    with pytest.raises(UnsupportedError, match="-128"):  # refused while loading
        load_tflite(unary_model("LOGISTIC", [4], 0.05, 0, out_quant=(1 / 256, 0)), "m")


@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("seed", range(3))
def test_c_matches_tflm(builtin: str, seed: int, check_model: Callable[..., object]) -> None:
    check_model(random_model(builtin, np.random.default_rng(100 + seed)), seeds=2, sanitize=seed == 0)


@pytest.mark.parametrize("zero_point", [-128, 3, 90])
def test_a_large_logistic_runs_as_its_table(zero_point: int, check_model: Callable[..., object]) -> None:
    """From LUT_MIN_SIZE values the C looks each value up in a table of the reference; every int8 value."""
    from mote.codegen.compile import compile_graph
    from mote.ops.logistic import LUT_MIN_SIZE

    model = unary_model("LOGISTIC", [2, LUT_MIN_SIZE], 0.07, zero_point)
    assert compile_graph(load_tflite(model, "m")).layers[0].kernel == "mote_lut_s8"
    check_model(model, seeds=3, sanitize=zero_point == 3)
