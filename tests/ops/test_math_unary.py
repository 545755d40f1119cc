"""The float32 math of mote.ops.math_unary against TFLite Micro: the reference and the generated C agree bit for
bit; both equal TFLite Micro exactly where no transcendental is involved, and within ULP_BOUND where mote's own
exp, log, sin, cos or expm1 replaces the C library's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from mote.targets.host import build_host
from mote.tflm_match import ulp_distance

# The largest distance from TFLite Micro over these inputs; 0: identical (README, "Float semantics").
ULP_BOUND = {"ABS": 0, "NEG": 0, "CEIL": 0, "FLOOR": 0, "ROUND": 0, "SQRT": 0, "RSQRT": 0, "SQUARE": 0,
             "EXP": 1, "LOG": 1, "SIN": 1, "COS": 1, "ELU": 1, "HARD_SWISH": 0, "LEAKY_RELU": 0}
SIZE = 4096


def inputs_for(builtin: str, rng: np.random.Generator) -> np.ndarray:
    """Values where each function is interesting: halves and signed zeros for the roundings, positives for
    roots and logarithms, wide ranges for the transcendentals."""
    if builtin in ("SQRT", "RSQRT", "LOG"):
        x = np.exp(rng.uniform(-80, 80, SIZE))
    elif builtin in ("CEIL", "FLOOR", "ROUND"):
        x = np.round(rng.uniform(-50, 50, SIZE) * 4) / 4
        x[:4] = [-0.0, 0.0, -0.5, 2.5]
    elif builtin in ("SIN", "COS"):
        x = rng.uniform(-1e4, 1e4, SIZE) * rng.choice([1e-4, 1.0], SIZE)
    elif builtin == "EXP":
        x = rng.uniform(-100, 88, SIZE)
    else:
        x = rng.standard_normal(SIZE) * rng.choice([0.001, 1.0, 30.0], SIZE)
    return x.astype(np.float32).reshape(4, SIZE // 4)


def model(builtin: str) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [4, SIZE // 4], "float32")
    y = mb.tensor("y", [4, SIZE // 4], "float32")
    mb.op(builtin, [x], [y], **({"alpha": 0.15} if builtin == "LEAKY_RELU" else {}))
    return mb.build([x], [y])


def tflm(data: bytes, x: np.ndarray) -> np.ndarray:
    interp = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    return interp.get_output(0).reshape(x.shape)


@pytest.mark.parametrize("builtin", sorted(ULP_BOUND))
def test_matches_tflite_micro(builtin: str, tmp_path: Path) -> None:
    data = model(builtin)
    graph = load_tflite(data, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=builtin in ("ROUND", "SIN", "ABS"))
    x = inputs_for(builtin, np.random.default_rng(len(builtin)))
    reference = interpret(graph, {"x": x})["y"]
    c_output = binary.run({"x": x})[0]["y"]
    np.testing.assert_array_equal(c_output.view(np.uint32), reference.view(np.uint32))
    distance = ulp_distance(reference, tflm(data, x))
    assert distance.max() <= ULP_BOUND[builtin], f"{builtin}: {distance.max()} ULP from TFLite Micro"
