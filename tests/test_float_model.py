"""The bundled float32 bench model (models/float/digits_cnn_f32.tflite) against TFLite Micro, bit for bit:
mote's reference interpreter and the generated C on the host, with the portable and the scalar kernels."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO

from mote import pipeline
from mote.ir import DType, Graph
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32, Rv32Config

FLOAT_MODEL = REPO / "models" / "float" / "digits_cnn_f32.tflite"


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
def test_float_bench_model_matches_tflm(core: Core, check_model: Callable[..., Graph]) -> None:
    graph = check_model(FLOAT_MODEL.read_bytes(), seeds=3, core=core)
    assert [n.op for n in graph.nodes] == ["conv2d", "conv2d", "reshape", "fully_connected"]
    assert all(t.dtype is DType.FLOAT32 for t in (*graph.inputs, *graph.outputs))


def test_float_bench_model_on_rv32imfc_takes_the_blocked_kernels(tmp_path: Path) -> None:
    """With the F extension the float layers run blocked (mote.ops.blocked_f32), identical with the reference, in
    under 4.5 instructions per MAC (5.5 with the plain float kernels)."""
    report = pipeline.run(FLOAT_MODEL, target=Rv32(Rv32Config(cc="zig", isa="rv32imfc")), work_dir=tmp_path).to_json()
    assert report["bit_exact"]
    kernels = {layer["op"]: layer["kernel"] for layer in report["layers"]}
    assert kernels["conv2d"] == "mote_conv_blocked_f32"
    assert kernels["fully_connected"] == "mote_fully_connected_blocked_f32"
    assert report["instructions"] < 4.5 * report["macs"]
