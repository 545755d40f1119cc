"""Post-training quantization of float ONNX models with onnxruntime's quantization tools.

`mote quantize model.onnx --calib data.npz -o model_int8.onnx` produces a QDQ model: int8 weights
per output channel (symmetric), int8 activations (asymmetric), ranges from the calibration data with
the chosen method (MinMax, Entropy or Percentile). It reports what it can measure: the largest and
mean absolute difference between the float and the quantized model's outputs on the calibration set.
`--weight-bits 4|2` makes the weights int4 or int2 (mote.frontend.onnx.subbyte_quant) and reports the same
figures for the model with 8-bit weights beside them: the accuracy the narrower weights cost.

Calibration data: a .npz keyed by input name, or a directory of .npy files (a single-input model:
one sample per file). An array holds one sample shaped like the input, or a stack of samples along a
new leading axis, or (when the input's batch dimension is 1) a batch that is split into samples.
"""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import ModelFileError, MoteError
from mote.frontend.files import read_arrays
from mote.frontend.onnx import subbyte_quant
from mote.frontend.onnx.check import check_model
from mote.frontend.onnx.convert import read_model

METHODS = ("MinMax", "Entropy", "Percentile")


def quantize_model(src: str | Path, calib: str | Path, dst: str | Path, method: str = "MinMax",
                   input_shapes: Mapping[str, tuple[int, ...]] | None = None, weight_bits: int = 8) -> dict[str, Any]:
    """Quantize float ONNX model `src` into QDQ model `dst`; returns the report (JSON-ready). `weight_bits` 4 or 2:
    sub-byte weights (mote.frontend.onnx.subbyte_quant), reported beside the 8-bit model's accuracy."""
    src, dst = Path(src), Path(dst)
    if method not in METHODS:
        raise MoteError(f"unknown calibration method {method!r}; choose one of {', '.join(METHODS)}")
    subbyte_quant.check_weight_bits(weight_bits)
    model = read_model(src)
    check_model(model, src.stem)  # a damaged file is refused here, not somewhere inside onnxruntime
    samples = calibration_samples(model, Path(calib), input_shapes or {})
    with tempfile.TemporaryDirectory(prefix="mote-quantize-") as tmp:
        portable = _lowest_ir_version(model, Path(tmp) / "float.onnx")
        prepared = _preprocess(portable, Path(tmp) / "prepared.onnx")
        if weight_bits < 8:
            narrow = subbyte_quant.with_opset(prepared, subbyte_quant.OPSETS[weight_bits], Path(tmp) / "opset.onnx")
            _quantize_static(src, narrow, dst, samples, method, 4)
            if weight_bits == 2:
                subbyte_quant.narrow_to_two_bits(dst, narrow)
        else:
            _quantize_static(src, prepared, dst, samples, method, 8)
        report = {"model": str(src), "output": str(dst), "method": method, "calibration_samples": len(samples),
                  "weight_bits": weight_bits, "weight_bytes": subbyte_quant.weight_bytes(dst)}
        report.update(_measured(portable, dst, samples))
        if weight_bits < 8:  # the accuracy change: the same calibration with 8-bit weights
            wide = Path(tmp) / "int8.onnx"
            _quantize_static(src, prepared, wide, samples, method, 8)
            report["int8_weights"] = {"weight_bytes": subbyte_quant.weight_bytes(wide),
                                      **_measured(portable, wide, samples)}
    return report


def _quantize_static(src: Path, prepared: Path, dst: Path, samples: list[dict[str, np.ndarray]], method: str,
                     bits: int) -> None:
    """onnxruntime's static QDQ quantization: per-channel symmetric weights of `bits` (8 or 4) bits, asymmetric
    int8 activations."""
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    try:
        with _quiet():
            quantize_static(str(prepared), str(dst), _Reader(samples), quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QInt8,
                            weight_type=QuantType.QInt8 if bits == 8 else QuantType.QInt4,
                            calibrate_method=getattr(CalibrationMethod, method),
                            extra_options={"ActivationSymmetric": False, "WeightSymmetric": True})
    except Exception as e:  # onnxruntime raises its own types, with multi-line messages
        dst.unlink(missing_ok=True)
        raise MoteError(f"{src}: onnxruntime could not quantize the model: {_first_line(e)}") from None


def _measured(float_model: Path, quantized: Path, samples: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    try:
        with _quiet():
            return accuracy(float_model, quantized, samples)
    except MoteError:
        raise
    except Exception as e:  # onnxruntime's own types: the quantized model does not run
        raise MoteError(f"{quantized}: onnxruntime cannot run the quantized model: {_first_line(e)}") from None


def _first_line(e: Exception) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return (lines[0] if lines else type(e).__name__)[:200]


def _lowest_ir_version(model: Any, dst: Path) -> Path:
    """The model saved with the lowest IR version its opsets allow: exporters write the newest IR
    version their onnx package knows, which an onnxruntime of the same age may not read yet."""
    import onnx
    from onnx.helper import find_min_ir_version_for

    model = onnx.ModelProto.FromString(model.SerializeToString())
    model.ir_version = min(model.ir_version, find_min_ir_version_for(list(model.opset_import), ignore_unknown=True))
    onnx.save(model, str(dst))
    return dst


def accuracy(float_model: Path, quantized_model: Path, samples: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    """Max and mean absolute output difference, float vs quantized, over `samples` (and, for
    classifier-shaped outputs, how often the arg-max agrees)."""
    f_sess, q_sess = _session(float_model), _session(quantized_model)
    worst, total, count, agree, rows = 0.0, 0.0, 0, 0, 0
    for feeds in samples:
        for f, q in zip(f_sess.run(None, feeds), q_sess.run(None, feeds)):
            d = np.abs(np.asarray(f, np.float64) - np.asarray(q, np.float64))
            worst, total, count = max(worst, float(d.max(initial=0.0))), total + float(d.sum()), count + d.size
            if f.ndim == 2 and f.shape[1] > 1:
                agree += int(np.count_nonzero(f.argmax(axis=1) == q.argmax(axis=1)))
                rows += f.shape[0]
    out: dict[str, Any] = {"max_abs_diff": worst, "mean_abs_diff": total / count if count else 0.0}
    if rows:
        out["top1_agreement"] = agree / rows
    return out


def calibration_samples(model: Any, calib: Path, input_shapes: Mapping[str, tuple[int, ...]]
                        ) -> list[dict[str, np.ndarray]]:
    """Calibration data as a list of feeds {input name: one sample shaped for the model}."""
    inputs = _model_inputs(model, input_shapes)
    arrays = _load_calibration(calib, list(inputs))
    dtypes = _input_dtypes(model)
    per_input = {name: _split(arrays[name], shape, name, calib, dtypes.get(name, np.dtype(np.float32)))
                 for name, shape in inputs.items()}
    counts = {len(v) for v in per_input.values()}
    if len(counts) != 1:
        raise MoteError(f"{calib}: the inputs have different numbers of calibration samples "
                        f"({ {k: len(v) for k, v in per_input.items()} })")
    n = counts.pop()
    if n == 0:
        raise MoteError(f"{calib}: no calibration samples")
    return [{name: per_input[name][i] for name in inputs} for i in range(n)]


def _model_inputs(model: Any, input_shapes: Mapping[str, tuple[int, ...]]) -> dict[str, list[int | None]]:
    """Input name -> declared shape (None for dynamic dimensions), without initializers."""
    initializers = {i.name for i in model.graph.initializer}
    out = {}
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        dims = vi.type.tensor_type.shape.dim
        shape = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None for d in dims]
        out[vi.name] = list(input_shapes.get(vi.name, shape))
    return out


def _input_dtypes(model: Any) -> dict[str, np.dtype]:
    """Input name -> its numpy dtype: float32, or the integer type of ids (a Gather's token ids, positions)."""
    from onnx import helper

    out = {}
    for vi in model.graph.input:
        elem = vi.type.tensor_type.elem_type
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(elem)) if elem else np.dtype(np.float32)
        out[vi.name] = dtype if dtype.kind in "iu" else np.dtype(np.float32)
    return out


def _load_calibration(calib: Path, names: list[str]) -> dict[str, np.ndarray]:
    if calib.is_dir():
        files = sorted(f for f in calib.glob("*.npy") if f.is_file())
        if not files:
            raise MoteError(f"{calib}: no .npy files in the calibration directory")
        if len(names) != 1:
            raise MoteError(f"{calib}: a directory of .npy files calibrates single-input models; this model "
                            f"has inputs {names}: give a .npz keyed by input name")
        samples = [read_arrays(f, "calibration data", "calibration file") for f in files]
        if not all(isinstance(s, np.ndarray) for s in samples):
            raise MoteError(f"{calib}: a file named .npy in the calibration directory is a .npz; give .npy files")
        try:
            return {names[0]: np.stack(samples)}
        except ValueError as e:  # samples of different shapes
            raise MoteError(f"{calib}: cannot read calibration data ({_first_line(e)}); give .npy files of one "
                            "shape") from None
    loaded = read_arrays(calib, "calibration data", "calibration file")
    if isinstance(loaded, np.ndarray):
        if len(names) != 1:
            raise MoteError(f"{calib}: a .npy calibrates a single-input model; give a .npz keyed by {names}")
        return {names[0]: loaded}
    arrays = loaded
    if not arrays:
        raise MoteError(f"{calib}: the .npz holds no arrays; the model's inputs are {names}")
    if len(names) == 1 and names[0] not in arrays and len(arrays) == 1:
        return {names[0]: next(iter(arrays.values()))}
    missing = [n for n in names if n not in arrays]
    if missing:
        raise MoteError(f"{calib}: no array named {missing[0]!r}; the model's inputs are {names}")
    return {n: arrays[n] for n in names}


FLOAT32 = np.dtype(np.float32)


def _split(a: np.ndarray, shape: list[int | None], name: str, calib: Path,
           dtype: np.dtype = FLOAT32) -> list[np.ndarray]:
    """Samples of input `name` from one calibration array, in the input's dtype (float32, or integer ids)."""
    if a.dtype.kind not in "biuf":
        raise MoteError(f"{calib}: calibration array for {name!r} holds {a.dtype.str} values; it needs numbers")
    if dtype.kind in "iu" and a.dtype.kind == "f" and not np.array_equal(a, np.round(a)):
        raise MoteError(f"{calib}: calibration array for {name!r} holds fractions; the input takes integer ids")
    a = np.asarray(a, dtype=dtype)

    def fits(s: tuple[int, ...]) -> bool:
        return len(s) == len(shape) and all(d is None or d == n for d, n in zip(shape, s))

    if fits(a.shape):
        return [a]
    if a.ndim == len(shape) + 1 and fits(a.shape[1:]):
        return list(a)
    if shape and shape[0] == 1 and fits((1, *a.shape[1:])):
        return [s[None] for s in a]
    raise MoteError(f"{calib}: calibration array for {name!r} has shape {list(a.shape)}; the input's shape is "
                    f"{['?' if d is None else d for d in shape]}")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """onnxruntime's quantizer prints progress to stdout and advice to the root logger; mote's CLI
    output (and its --json) must stay clean."""
    import onnxruntime as ort

    ort.set_default_logger_severity(3)  # the sessions the quantizer creates log warnings to stderr otherwise
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


class _Reader:
    """onnxruntime's CalibrationDataReader protocol over a list of feeds."""

    def __init__(self, samples: list[dict[str, np.ndarray]]) -> None:
        self._samples = samples
        self._it: Iterator[dict[str, np.ndarray]] = iter(samples)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._it, None)

    def rewind(self) -> None:
        self._it = iter(self._samples)


def _preprocess(src: Path, dst: Path) -> Path:
    """onnxruntime's recommended pre-processing (shape inference, BatchNorm folded into Conv, ...);
    the model as it is when that fails (e.g. an unusual op)."""
    try:
        from onnxruntime.quantization.shape_inference import quant_pre_process

        with _quiet():
            quant_pre_process(str(src), str(dst), skip_symbolic_shape=True)
        return dst
    except Exception:  # pre-processing is an optimization; quantization works without it
        return src


def _session(path: Path) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    try:
        try:
            return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # its fused QGemm/QLinearConv take no int2 weights: run the graph as written
            if "tensor(int2)" not in str(e):
                raise
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's own exception types
        raise ModelFileError(f"{path}: onnxruntime cannot load the model ({_first_line(e)})") from None
