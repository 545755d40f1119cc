"""mote against onnxruntime on the same inputs: the share of outputs within ±1 LSB, the largest difference.

onnxruntime requantizes in float (round half to even) where mote keeps TFLite Micro's fixed-point
integer arithmetic (round half away from zero), so the two may differ by one step of the output
quantization; mote's own reference interpreter stays the bit-exact golden model. An LSB is the
output's quantization step: the scale of the dequantized output, or 1 for integer outputs.
Integer-dialect models (RequantShift) cannot run in onnxruntime; they run in ONNX's reference
evaluator with RequantShift defined by its formula.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import MoteError
from mote.frontend.onnx.convert import OnnxConversion
from mote.ir import DType, Graph, Tensor
from mote.ops.requant_shift import level_range


@dataclass
class OnnxComparison:
    match_rate: float  # share of output values within ±1 LSB of onnxruntime's
    max_lsb_diff: float
    values: int  # how many output values were compared
    runtime: str  # "onnxruntime" or "onnx-reference" (integer dialect)

    def to_json(self) -> dict[str, Any]:
        return {"onnxruntime_match_rate": round(self.match_rate, 6), "onnxruntime_max_lsb_diff": self.max_lsb_diff}


def onnx_outputs(model: str | Path | Any, conversion: OnnxConversion,
                 inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The ONNX model's outputs for mote-side `inputs` (keyed by mote tensor name), returned in mote's
    layout and dtype, keyed by mote tensor name."""
    feeds = {info.onnx_name: info.to_onnx(inputs[info.tensor_name]) for info in conversion.inputs}
    proto = _proto(model)
    runtime = "ONNX's reference evaluator" if conversion.dialect == "integer" else "onnxruntime"
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # the runtimes' own warnings are not the user's business
            if conversion.dialect == "integer":
                results = _reference_evaluator(proto).run(None, feeds)
            else:
                results = _session(proto).run(None, feeds)
    except MoteError:
        raise
    except Exception as e:  # onnxruntime's InvalidGraph, Fail, ... and the evaluator's many kinds
        raise MoteError(f"{runtime} cannot run the model to compare with mote ({first_line(e)}); mote's own "
                        "result stands, the comparison is unavailable") from None
    named = dict(zip([o.name for o in proto.graph.output], results))
    return {info.tensor_name: info.to_mote(_as_onnx_dtype(named[info.onnx_name], info.onnx_dtype))
            for info in conversion.outputs}


def compare(model: str | Path | Any, conversion: OnnxConversion, inputs: dict[str, np.ndarray],
            outputs: dict[str, np.ndarray]) -> OnnxComparison:
    """mote's `outputs` for `inputs` (both keyed by mote tensor name) against the ONNX runtime's."""
    expected = onnx_outputs(model, conversion, inputs)
    total, within, worst = 0, 0, 0.0
    for t in conversion.graph.outputs:
        lsb = output_lsb(conversion.graph, t)
        diff = np.abs(np.asarray(outputs[t.name], np.float64) - np.asarray(expected[t.name], np.float64)) / lsb
        # float outputs: a dequantized value carries float32 rounding of about 1e-7 relative
        steps = np.round(diff, 3)
        total += diff.size
        within += int(np.count_nonzero(steps <= 1.0))
        worst = max(worst, float(steps.max(initial=0.0)))
    runtime = "onnx-reference" if conversion.dialect == "integer" else "onnxruntime"
    return OnnxComparison(within / total if total else 1.0, worst, total, runtime)


def onnxruntime_us_per_inference(model: str | Path | Any, conversion: OnnxConversion, inputs: dict[str, np.ndarray],
                                 iterations: int = 100) -> float:
    """onnxruntime's CPU time per inference of the model (one thread, warmed up), in microseconds: what
    a benchmark puts beside the compiled model's host time on the same inputs."""
    import time

    feeds = {info.onnx_name: info.to_onnx(inputs[info.tensor_name]) for info in conversion.inputs}
    session = _session(_proto(model), exact=False)
    session.run(None, feeds)
    start = time.perf_counter()
    for _ in range(iterations):
        session.run(None, feeds)
    return (time.perf_counter() - start) / iterations * 1e6


def first_line(e: BaseException) -> str:
    """An exception's message as one short line (onnxruntime's run over several)."""
    text = " ".join(line.strip() for line in str(e).splitlines()[:3] if line.strip())
    return f"{type(e).__name__}: {text[:200]}" if text else type(e).__name__


def output_lsb(graph: Graph, t: Tensor) -> float:
    """One quantization step of an output: the scale a float output was dequantized with, else 1."""
    if t.dtype is not DType.FLOAT32:
        return 1.0
    producer = graph.producer()
    node = producer.get(t)
    while node is not None and node.op in ("layout_transform", "reshape", "squeeze") and node.inputs[0] is not None:
        node = producer.get(node.inputs[0])  # moved, not changed: the step is the dequantized tensor's
    if node is not None and node.op == "dequantize":
        x = node.inputs[0]
        if x is not None and x.quant is not None:
            return float(np.float32(x.quant.scale[0]))
    return float(np.finfo(np.float32).eps)


def _as_onnx_dtype(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.asarray(a).astype(dtype) if np.dtype(dtype).kind != "f" else np.asarray(a)


def _proto(model: str | Path | Any) -> Any:
    import onnx

    return onnx.load(str(model)) if isinstance(model, (str, Path)) else model


def _session(proto: Any, exact: bool = True) -> Any:
    """A one-thread CPU session. `exact`: on x86 CPUs without VNNI, onnxruntime's u8 x s8 integer kernels
    (vpmaddubsw) saturate pairs of products to int16 and return wrong results; session.x64quantprecision
    has it use exact u8 x u8 kernels instead. onnxruntime cannot run QLinearConv with int8 activations
    that way (no kernel for s8 x u8), and needs no help there (its s8 x s8 kernels are exact): fall back.
    Where its graph optimizer fails on a QDQ model (some transformer graphs: RMSNormalization or Pow before a
    MatMul) or its fused kernels refuse the weights' type (int2), the session runs the graph as written, each
    DequantizeLinear, float op and QuantizeLinear by itself."""
    import onnxruntime as ort
    from onnxruntime.capi.onnxruntime_pybind11_state import NotImplemented as KernelMissing

    ort.set_default_logger_severity(4)  # fatal only: its warnings and errors would reach stderr; mote reports

    def make(precise: bool, optimize: bool = True) -> Any:
        options = ort.SessionOptions()
        if not optimize:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 4  # a failure becomes mote's own one-line error
        if precise:
            options.add_session_config_entry("session.x64quantprecision", "1")
        try:
            return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
        except KernelMissing:
            raise
        except Exception as e:  # onnxruntime's Fail from a graph transformer
            # its fusions of DequantizeLinear into QGemm/QLinearConv take no int2 weights (opset 25): as written
            if optimize and ("during initialization" in str(e) or "tensor(int2)" in str(e)
                             or "tensor(uint2)" in str(e)):
                return make(precise, optimize=False)
            raise

    if exact:
        try:
            return make(True)
        except KernelMissing:
            pass
    return make(False)


def _reference_evaluator(proto: Any) -> Any:
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class RequantShift(OpRun):
        op_domain = _requant_domain(proto)

        def _run(self, x, mul, add, div=1, n_levels_out=256, signed=1, n_levels=None):  # noqa: ANN001, ANN202
            return (requant_shift_formula(x, mul, add, div, n_levels if n_levels is not None else n_levels_out,
                                          signed),)

    return ReferenceEvaluator(proto, new_ops=[RequantShift])


def _requant_domain(proto: Any) -> str:
    return next((n.domain for n in proto.graph.node if n.op_type == "RequantShift"), "")


def requant_shift_formula(x: np.ndarray, mul: np.ndarray, add: np.ndarray, div: int, n_levels: int,
                          signed: int) -> np.ndarray:
    """RequantShift as QuantLib defines it: clip(floor((x * mul + add) / div + 0.5)) over n_levels levels,
    in float64 (exact for the integer magnitudes such models carry)."""
    y = np.floor((np.asarray(x, np.float64) * np.asarray(mul, np.float64) + np.asarray(add, np.float64))
                 / float(div) + 0.5)
    lo, hi = level_range(n_levels, bool(signed))
    return np.clip(y, lo, hi).astype(np.asarray(x).dtype)
