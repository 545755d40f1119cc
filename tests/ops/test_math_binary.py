"""mote.ops.math_binary against TFLite Micro: every op in every dtype it declares, with broadcasting; the
reference and the generated C identical with the interpreter (one C build per op and dtype)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import DType
from mote.ops.math_binary import BINARY
from mote.reference import interpret
from mote.targets.host import build_host

CASES = [(name, dtype.value) for name, spec in BINARY.items() for dtype in spec.dtypes]


def binary_model(name: str, dtype: str, a_shape: list[int], b_shape: list[int], quant: bool = True) -> bytes:
    spec = BINARY[name]
    q = {"scale": 0.05, "zero_point": 3 if dtype == "int8" else 0} if dtype in ("int8", "int16") and quant else {}
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, dtype, **q)
    b = mb.tensor("b", b_shape, dtype, **q)
    y = mb.tensor("y", out_shape, "bool" if spec.boolean else dtype, **({} if spec.boolean else q))
    mb.op(spec.builtin, [a, b], [y], **({"fused_activation_function": "RELU6"} if name == "div" else {}))
    return mb.build([a, b], [y])


@pytest.mark.parametrize("name,dtype", CASES)
def test_matches_tflite_micro(name: str, dtype: str, check_model: Callable[..., object]) -> None:
    check_model(binary_model(name, dtype, [2, 3, 5], [3, 1]), seeds=2, sanitize=dtype == "int8")


def test_float_edges_are_identical(check_model: Callable[..., object]) -> None:
    """Broadcasting the other way round, and the shapes of a real model's [N, C] + [C]."""
    for name in ("div", "floor_div", "floor_mod", "squared_difference", "greater", "maximum"):
        check_model(binary_model(name, "float32", [4], [3, 4]), seeds=2)


def test_int8_comparison_across_quantizations_is_refused() -> None:
    mb = ModelBuilder()
    a = mb.tensor("a", [4], "int8", scale=0.1, zero_point=0)
    b = mb.tensor("b", [4], "int8", scale=0.2, zero_point=0)
    y = mb.tensor("y", [4], "bool")
    mb.op("LESS", [a, b], [y])
    with pytest.raises(UnsupportedError, match="same scale and zero point"):
        load_tflite(mb.build([a, b], [y]), "m")


def test_every_declared_dtype_is_tested() -> None:
    assert {DType(d) for _, d in CASES} >= {DType.FLOAT32, DType.INT8, DType.BOOL}


def test_floor_mod_is_exact_over_wide_magnitudes(tmp_path: Path) -> None:
    """mote's own fmod (no libm) on quotients up to 2^200, subnormals, signed zeros and infinite divisors: the C and
    the reference bit for bit, and both equal to TFLite Micro's (which calls the C library's fmod)."""
    size = 4096
    rng = np.random.default_rng(7)
    magnitude = lambda: np.exp2(rng.uniform(-140, 100, size)) * rng.choice([-1.0, 1.0], size)  # noqa: E731
    a, b = magnitude().astype(np.float32), magnitude().astype(np.float32)
    a[:6] = [-0.0, 0.0, 5.0, -5.0, 1e-45, 7.5]
    b[:6] = [3.0, -3.0, -np.inf, np.inf, 2.0, 2.5]
    mb = ModelBuilder()
    ta, tb, ty = (mb.tensor(n, [size], "float32") for n in ("a", "b", "y"))
    mb.op("FLOOR_MOD", [ta, tb], [ty])
    data = mb.build([ta, tb], [ty])
    graph = load_tflite(data, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    reference = interpret(graph, {"a": a, "b": b})["y"]
    np.testing.assert_array_equal(binary.run({"a": a, "b": b})[0]["y"].view(np.uint32), reference.view(np.uint32))
    interp = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    interp.set_input(a, 0)
    interp.set_input(b, 1)
    interp.invoke()
    np.testing.assert_array_equal(interp.get_output(0).view(np.uint32), reference.view(np.uint32))
