"""Helpers for the tests of exporters' patterns: quantize float models whose inputs need not be float32,
run a converted model in mote and onnxruntime (float differences are measured in ULP: `ulps`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import OnnxConversion, convert
from mote.frontend.onnx.compare import onnx_outputs
from mote.reference import interpret
from mote.targets.host import build_host
from mote.tflm_match import ulp_distance as ulps  # noqa: F401 (the tests' float measure)
from tests.frontend.onnx_util import _shape, quantize_static_on


def sample(vi: Any, rng: np.random.Generator) -> np.ndarray:
    """One calibration input for a graph input of any numeric dtype."""
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))
    shape = _shape(vi)
    if dtype.kind == "f":
        return rng.normal(size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, shape).astype(dtype)


def quantize(float_model: onnx.ModelProto, rng: np.random.Generator, fmt: str = "qdq", uint8: bool = False,
             exclude: list[str] | None = None, samples: int = 8) -> onnx.ModelProto:
    """The model quantized by onnxruntime's quantize_static, as its users call it (default op types,
    per-channel weights), calibrated on random samples of each input's own dtype."""
    from onnxruntime.quantization import QuantFormat

    feeds = [{i.name: sample(i, rng) for i in float_model.graph.input} for _ in range(samples)]
    return quantize_static_on(float_model, feeds, uint8, per_channel=True, nodes_to_exclude=exclude or [],
                              quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator)


def ops(m: onnx.ModelProto) -> list[str]:
    return [n.op_type for n in m.graph.node]


def run_both(m: onnx.ModelProto, seeds: int = 3, host: Path | None = None, sanitize: bool = False
             ) -> tuple[OnnxConversion, list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]]:
    """mote's reference and onnxruntime on random inputs: per seed (mote's outputs, onnxruntime's), keyed by
    mote tensor name; with `host`, the generated C is built and held bit-exact with the reference."""
    conv = convert(m, "test")
    binary = build_host(compile_graph(conv.graph), host / "project", sanitize=sanitize) if host else None
    results = []
    for seed in range(seeds):
        rng = np.random.default_rng(200 + seed)
        declared = {vi.name: vi for vi in m.graph.input}
        inputs = {info.tensor_name: info.to_mote(sample(declared[info.onnx_name], rng)) for info in conv.inputs}
        outputs = interpret(conv.graph, inputs)
        if binary is not None:
            got, _ = binary.run(inputs)
            for name, want in outputs.items():
                assert np.array_equal(got[name].view(np.uint8), want.view(np.uint8)), f"C differs on {name!r}"
        results.append((outputs, onnx_outputs(m, conv, inputs)))
    return conv, results
