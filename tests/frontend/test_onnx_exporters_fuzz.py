"""Seeded mutations of the exporters' patterns (Cast after an input, NHWC Transposes, float islands, Resize, a
float Softmax output): each mutant converts, matching onnxruntime where it runs it, or is refused with a
MoteError, never anything else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from onnx import TensorProto

from tests.frontend.onnx_exporters import quantize
from tests.frontend.test_onnx_exporters import cast_input_model, nhwc_model
from tests.frontend.test_onnx_floats import ISLANDS, N, island
from tests.frontend.test_onnx_fuzz import run_campaign
from tests.frontend.test_onnx_resize import NEAREST, resize_model


def test_exporter_pattern_mutants(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    seeds = [quantize(ISLANDS[name](), rng) for name in ("softsign_div", "pow2_reduce_mean", "hard_swish")]
    seeds += [quantize(NEAREST["onnx_default_sizes"](), rng),
              quantize(resize_model("linear", "half_pixel", scales=[1, 1, 2, 2]), rng),
              quantize(cast_input_model(rng, TensorProto.UINT8), rng), quantize(nhwc_model(rng), rng, "qoperator"),
              quantize(island([N("Softmax", ["a"], ["z"], name="softmax")]), rng, exclude=["softmax"])]
    counts = run_campaign(500, 21, tmp_path, seeds, check_accepted=True)
    assert counts["other"] == 0 and counts["accepted"] > 10 and counts["compared"] > 10, counts
