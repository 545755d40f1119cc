"""int8 .tflite transformer blocks (tests/ops/transformer_tflite.py: LayerNorm as MEAN, SQUARED_DIFFERENCE, ADD,
RSQRT, MUL, SUB; attention as BATCH_MATMUL, SOFTMAX, BATCH_MATMUL) bit-exact with the tflite-micro interpreter, in
mote's reference and as generated C on the host (the scalar core's kernels and the vector core's, sanitized) and on
rv32; int8 RSQRT on every input value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote import pipeline
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.rv32 import Rv32, Rv32Config
from tests.conftest import tflm_outputs
from tests.ops import transformer_tflite


@pytest.mark.parametrize("core", [Core.SCALAR, Core.VECTOR], ids=lambda c: c.value)
@pytest.mark.parametrize("name", sorted(transformer_tflite.BLOCKS))
def test_block_matches_tflm(name: str, core: Core, check_model: Callable[..., object]) -> None:
    check_model(transformer_tflite.BLOCKS[name](), seeds=3, sanitize=True, core=core)


@pytest.mark.parametrize("name", ["layer_norm", "attention"])
def test_block_on_rv32(name: str, tmp_path: Path) -> None:
    model = tmp_path / f"{name}.tflite"
    model.write_bytes(transformer_tflite.BLOCKS[name]())
    report = pipeline.run(model, target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path / "fw", check_tflm=True)
    data = report.to_json()
    assert data["bit_exact"], data
    tflm = data["tflite_micro"]
    assert tflm["ran"] and tflm["mismatches"] == 0, tflm


@pytest.mark.parametrize("seed", range(6))
def test_rsqrt_int8_every_value(seed: int) -> None:
    rng = np.random.default_rng(seed)
    zero = int(rng.integers(-128, 100))
    mb = ModelBuilder()
    x = mb.tensor("x", [256 - 128 - zero], "int8", scale=float(rng.uniform(0.001, 0.2)), zero_point=zero)
    y = mb.tensor("y", [256 - 128 - zero], "int8", scale=float(rng.uniform(0.005, 0.5)),
                  zero_point=int(rng.integers(-128, 0)))
    mb.op("RSQRT", [x], [y])
    model = mb.build([x], [y])
    graph = load_tflite(model, "rsqrt")
    inputs = {"x": np.arange(zero, 128).astype(np.int8)}  # every value the op is defined on
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])
