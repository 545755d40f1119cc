"""QUANTIZE between every pair of integer dtypes TFLite Micro converts (int8, uint8, int16, int32), float32
to int16, DEQUANTIZE from int16 and uint8, and int8 SOFTMAX into int16: against the interpreter, on every
input value where the dtype is narrow enough."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from mote.ops.quantize import REQUANTIZE_PAIRS
from mote.ops.registry import Core, choose_kernel


def _zero_point(rng: np.random.Generator, dtype: str) -> int:
    return {"int8": int(rng.integers(-128, 128)), "uint8": int(rng.integers(0, 256)), "int16": 0,
            "int32": int(rng.integers(-1000, 1000))}[dtype]


def _values(dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype == "int32":
        return rng.integers(-2**31, 2**31, 4096).astype(np.int32)
    if dtype == "float32":
        return rng.normal(0, 300, 4096).astype(np.float32)
    info = np.iinfo(dtype)
    return np.arange(info.min, info.max + 1).astype(dtype)


def convert_model(builtin: str, x_dtype: str, y_dtype: str, size: int, rng: np.random.Generator) -> bytes:
    mb = ModelBuilder()
    quant_x = {} if x_dtype == "float32" else {"scale": float(np.exp(rng.uniform(-9, 0))),
                                                "zero_point": _zero_point(rng, x_dtype)}
    quant_y = {} if y_dtype == "float32" else {"scale": float(np.exp(rng.uniform(-9, 0))),
                                                "zero_point": _zero_point(rng, y_dtype)}
    x = mb.tensor("x", [size], x_dtype, **quant_x)
    y = mb.tensor("y", [size], y_dtype, **quant_y)
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


def _against_tflm(model: bytes, x: np.ndarray) -> None:
    node = load_tflite(model, "m").nodes[0]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 22)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    got = op.reference(node, op.prepare(node), [x])[0]
    np.testing.assert_array_equal(got.view(np.uint8) if got.dtype == np.float32 else got,
                                  interp.get_output(0).view(np.uint8) if got.dtype == np.float32
                                  else interp.get_output(0))


CONVERSIONS = sorted((a.value, b.value) for a, b in REQUANTIZE_PAIRS) + [("float32", "int16")]


@pytest.mark.parametrize("x_dtype,y_dtype", CONVERSIONS)
@pytest.mark.parametrize("seed", range(3))
def test_quantize_matches_tflm(x_dtype: str, y_dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = _values(x_dtype, rng)
    _against_tflm(convert_model("QUANTIZE", x_dtype, y_dtype, x.size, rng), x)


@pytest.mark.parametrize("x_dtype", ["int16", "uint8"])
@pytest.mark.parametrize("seed", range(3))
def test_dequantize_matches_tflm(x_dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = _values(x_dtype, rng)
    _against_tflm(convert_model("DEQUANTIZE", x_dtype, "float32", x.size, rng), x)


def softmax_model(rng: np.random.Generator, rows: int, depth: int) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [rows, depth], "int8", scale=float(np.exp(rng.uniform(-6, 0))),
                  zero_point=int(rng.integers(-128, 128)))
    y = mb.tensor("y", [rows, depth], "int16", scale=1 / 65536, zero_point=-32768)
    mb.op("SOFTMAX", [x], [y], beta=float(rng.choice([1.0, 0.5, 2.0])))
    return mb.build([x], [y])


@pytest.mark.parametrize("seed", range(6))
def test_softmax_int8_into_int16_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (64, 10)).astype(np.int8)
    _against_tflm(softmax_model(rng, 64, 10), x)


@pytest.mark.parametrize("x_dtype,y_dtype", [("int16", "int8"), ("int8", "int32"), ("int32", "int16"),
                                             ("int32", "int8"), ("uint8", "int8"), ("float32", "int16")])
def test_c_matches_tflm(x_dtype: str, y_dtype: str, check_model: Callable[..., object]) -> None:
    check_model(convert_model("QUANTIZE", x_dtype, y_dtype, 300, np.random.default_rng(7)), seeds=2, sanitize=True)


def test_c_dequantize_and_softmax_match_tflm(check_model: Callable[..., object]) -> None:
    check_model(convert_model("DEQUANTIZE", "int16", "float32", 300, np.random.default_rng(8)), seeds=2)
    check_model(softmax_model(np.random.default_rng(9), 5, 12), seeds=2, sanitize=True)


def test_conversions_the_interpreter_refuses_are_refused() -> None:
    with pytest.raises(Exception, match="not a conversion TFLite Micro"):
        load_tflite(convert_model("QUANTIZE", "int16", "uint8", 4, np.random.default_rng(0)), "m")


def test_an_unquantized_integer_input_is_refused() -> None:
    """TFLite Micro takes the missing scale as 0 and writes the output zero point everywhere: mote says so."""
    mb = ModelBuilder()
    x = mb.tensor("x", [4], "int32")
    y = mb.tensor("y", [4], "int8", scale=0.1, zero_point=3)
    mb.op("QUANTIZE", [x], [y])
    with pytest.raises(Exception, match="has no quantization .* output zero point everywhere"):
        load_tflite(mb.build([x], [y]), "m")


@pytest.mark.parametrize("x_dtype,y_dtype,shift", [("uint8", "int8", -128), ("int8", "uint8", 128)])
def test_the_uint8_boundary_flips_the_top_bit(x_dtype: str, y_dtype: str, shift: int,
                                              check_model: Callable[..., object]) -> None:
    """The same scale, zero points 128 apart: mote_quantize_flip_u8, x ^ 0x80, as the interpreter."""
    mb = ModelBuilder()
    zero_point = 131 if x_dtype == "uint8" else 3
    x = mb.tensor("x", [3, 100], x_dtype, scale=0.037, zero_point=zero_point)
    y = mb.tensor("y", [3, 100], y_dtype, scale=0.037, zero_point=zero_point + shift)
    mb.op("QUANTIZE", [x], [y])
    graph = check_model(mb.build([x], [y]), seeds=2, sanitize=True)
    node = graph.nodes[0]  # type: ignore[attr-defined]
    assert choose_kernel(OPS["quantize"], node, OPS["quantize"].prepare(node), Core.VECTOR).kernel.func == \
        "mote_quantize_flip_u8"
