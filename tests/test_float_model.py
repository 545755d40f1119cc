"""The bundled float32 bench model (models/float/digits_cnn_f32.tflite) against TFLite Micro, bit for bit:
mote's reference interpreter and the generated C on the host, with the portable and the scalar kernels."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import REPO

from mote.ir import DType, Graph
from mote.ops.registry import Core

FLOAT_MODEL = REPO / "models" / "float" / "digits_cnn_f32.tflite"


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR])
def test_float_bench_model_matches_tflm(core: Core, check_model: Callable[..., Graph]) -> None:
    graph = check_model(FLOAT_MODEL.read_bytes(), seeds=3, core=core)
    assert [n.op for n in graph.nodes] == ["conv2d", "conv2d", "reshape", "fully_connected"]
    assert all(t.dtype is DType.FLOAT32 for t in (*graph.inputs, *graph.outputs))
