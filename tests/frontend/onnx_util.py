"""Helpers for the ONNX frontend tests: build small models, quantize them with onnxruntime, compare."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import OnnxComparison, OnnxConversion, compare, convert
from mote.reference import interpret
from mote.targets.host import build_host

FLOAT = TensorProto.FLOAT


def model(nodes: list[Any], inputs: dict[str, tuple[int, ...]], outputs: list[str],
          initializers: dict[str, np.ndarray] | None = None, opset: int = 13, ms: bool = False,
          input_type: int = FLOAT, output_type: int = FLOAT) -> onnx.ModelProto:
    """An ONNX model from nodes; outputs are declared without shapes."""
    graph = helper.make_graph(
        nodes, "test",
        [helper.make_tensor_value_info(n, input_type, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, output_type, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (initializers or {}).items()])
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if ms else [])
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def quantize_static_on(float_model: onnx.ModelProto, feeds: list[dict[str, np.ndarray]], uint8: bool = False,
                       **options: Any) -> onnx.ModelProto:
    """The model quantized by onnxruntime's quantize_static, calibrated on `feeds` (one dict per sample), int8
    weights (unless `options` give another weight_type) and int8 (or uint8) activations; `options` are
    quantize_static's others (quant_format, ...)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "f.onnx", Path(tmp) / "q.onnx"
        onnx.save(float_model, src)
        quantize_static(str(src), str(dst), Reader(), activation_type=QuantType.QUInt8 if uint8 else QuantType.QInt8,
                        **{"weight_type": QuantType.QInt8, **options})
        return onnx.load(str(dst))


def normal_feeds(float_model: onnx.ModelProto, rng: np.random.Generator, samples: int = 8,
                 scale: float = 1.0) -> list[dict[str, np.ndarray]]:
    """Calibration samples: normal floats for every input."""
    return [{i.name: (rng.normal(size=_shape(i)) * scale).astype(np.float32) for i in float_model.graph.input}
            for _ in range(samples)]


def quantize_qdq(float_model: onnx.ModelProto, rng: np.random.Generator, uint8: bool = False,
                 per_channel: bool = True, samples: int = 8, scale: float = 1.0) -> onnx.ModelProto:
    """The model quantized by onnxruntime's quantize_static (QDQ), calibrated on normal samples."""
    from onnxruntime.quantization import QuantFormat

    return quantize_static_on(float_model, normal_feeds(float_model, rng, samples, scale), uint8,
                              quant_format=QuantFormat.QDQ, per_channel=per_channel,
                              extra_options={"ActivationSymmetric": False})


def _shape(vi: Any) -> list[int]:
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def feeds_for(conv: OnnxConversion, rng: np.random.Generator, scale: float = 1.0) -> dict[str, np.ndarray]:
    """mote-side inputs: normal floats for float inputs, the whole range for integer (and bool) ones."""
    out = {}
    for t in conv.graph.inputs:
        if t.dtype.np == np.float32:
            out[t.name] = (rng.normal(size=t.shape) * scale).astype(np.float32)
        elif t.dtype.np == np.bool_:
            out[t.name] = rng.integers(0, 2, t.shape).astype(bool)
        else:
            info = np.iinfo(t.dtype.np)
            out[t.name] = rng.integers(info.min, info.max + 1, t.shape).astype(t.dtype.np)
    return out


def check_against_onnx(m: onnx.ModelProto, seeds: int = 2, min_match: float = 0.99, scale: float = 1.0,
                       max_lsb: float | None = None, host: Path | None = None,
                       sanitize: bool = False, ids: dict[str, int] | None = None) -> OnnxComparison:
    """Convert, run mote's reference and the ONNX runtime on random inputs, assert the match criterion;
    with `host`, also build the generated C there (with sanitizers if asked) and assert it is bit-exact
    with the reference. `ids`: integer inputs that index a table (Gather), each drawn from [0, its bound)."""
    conv = convert(m, "test")
    binary = build_host(compile_graph(conv.graph), host / "project", sanitize=sanitize) if host else None
    results = []
    for seed in range(seeds):
        rng = np.random.default_rng(100 + seed)
        inputs = feeds_for(conv, rng, scale)
        for name, bound in (ids or {}).items():
            inputs[name] = rng.integers(0, bound, inputs[name].shape).astype(inputs[name].dtype)
        outputs = interpret(conv.graph, inputs)
        results.append(compare(m, conv, inputs, outputs))
        if binary is not None:
            got, _ = binary.run(inputs)
            for name, want in outputs.items():
                assert np.array_equal(got[name], want), f"generated C differs from the reference on {name!r}"
    total = sum(r.values for r in results)
    rate = sum(r.match_rate * r.values for r in results) / total
    worst = max(r.max_lsb_diff for r in results)
    assert rate >= min_match, f"only {rate:.2%} of outputs within ±1 LSB of the ONNX runtime (max {worst} LSB)"
    if max_lsb is not None:
        assert worst <= max_lsb, f"max difference {worst} LSB > {max_lsb}"
    return OnnxComparison(rate, worst, total, results[0].runtime)
