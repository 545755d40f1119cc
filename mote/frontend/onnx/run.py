"""The CLI's side of ONNX models: `mote run model.onnx [--calib ...] [--input-shape ...]`.

`load_onnx_model` reads the model (quantizing a float one first when calibration data is given) and
converts it; `OnnxModel.inputs_from_file` reads user inputs given in the ONNX model's own layout;
`OnnxModel.report` adds the comparison with onnxruntime to `mote run --json`.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import MoteError
from mote.frontend.files import read_arrays
from mote.frontend.onnx.check import MAX_ELEMENTS
from mote.frontend.onnx.compare import compare
from mote.frontend.onnx.convert import OnnxConversion, convert, is_float_model, read_model
from mote.frontend.onnx.integer_io import INTEGER_OPS, fit_shape, integer_arrays, integer_valued
from mote.frontend.onnx.quantize import quantize_model
from mote.ir import Graph


def is_onnx(path: str | Path) -> bool:
    return Path(path).suffix.lower() == ".onnx"


def parse_input_shapes(specs: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """--input-shape values like 'x=1,3,32,32' -> {'x': (1, 3, 32, 32)}."""
    shapes = {}
    for spec in specs:
        name, sep, dims = spec.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            shape = ()
        if not sep or not name or not shape or min(shape) < 1:
            raise MoteError(f"--input-shape {spec!r}: expected NAME=D0,D1,... with positive integers, "
                            "e.g. input=1,3,32,32")
        if math.prod(shape) > MAX_ELEMENTS:
            raise MoteError(f"--input-shape {spec!r}: {math.prod(shape)} elements, over mote's limit of {MAX_ELEMENTS}")
        shapes[name] = shape
    return shapes


@dataclass
class OnnxModel:
    proto: Any  # the ONNX model compiled: the file's, or its quantized form
    conversion: OnnxConversion
    quantization: dict[str, Any] = field(default_factory=dict)  # mote quantize's report, when it ran
    arrays: list[np.ndarray] | None = None  # integer dialect: the input file's arrays, by position

    @property
    def graph(self) -> Graph:
        return self.conversion.graph

    def inputs_from_file(self, path: Path) -> dict[str, np.ndarray]:
        """Inputs from a .npy (single input) or a .npz keyed by ONNX input name, in the ONNX layout
        (NCHW, uint8, ...), as the compiled model takes them: dtype and shape exactly the model's."""
        infos = self.conversion.inputs
        if self.conversion.dialect == "integer":
            return self._integer_inputs(Path(path))
        wanted = [i.onnx_name for i in infos]
        arrays = _load_arrays(Path(path), wanted)
        missing = [name for name in wanted if name not in arrays]
        if missing:
            raise MoteError(f"{path}: no array named {missing[0]!r}; the model's inputs are {wanted}")
        extra = sorted(set(arrays) - set(wanted))
        if extra:
            raise MoteError(f"{path}: array {extra[0]!r} is not an input of the model; its inputs are {wanted}")
        out = {}
        for info in infos:
            t = next(t for t in self.graph.inputs if t.name == info.tensor_name)
            onnx_shape = tuple(t.shape[info.perm.index(i)] for i in range(len(info.perm)))
            a = arrays[info.onnx_name]
            if a.dtype != info.onnx_dtype or a.shape != onnx_shape:
                raise MoteError(f"{path}: input {info.onnx_name!r}: got {_describe(a.dtype)} {list(a.shape)}, the "
                                f"model wants {info.onnx_dtype.name} {list(onnx_shape)}; convert the array first "
                                "(mote does not cast or reshape inputs)")
            out[info.tensor_name] = info.to_mote(a)
        return out

    def _integer_inputs(self, path: Path) -> dict[str, np.ndarray]:
        """Integer-dialect inputs by position (integer_io.py), in any integer-holding container."""
        inits = {i.name for i in self.proto.graph.initializer}
        names = [vi.name for vi in self.proto.graph.input if vi.name not in inits]
        arrays = self.arrays if self.arrays is not None else positional_arrays(path, names)
        given = dict(zip(names, integer_arrays(arrays, names, str(path))))
        out = {}
        for info in self.conversion.inputs:
            t = next(t for t in self.graph.inputs if t.name == info.tensor_name)
            onnx_shape = tuple(t.shape[info.perm.index(i)] for i in range(len(info.perm)))
            a = fit_shape(given[info.onnx_name], onnx_shape, info.onnx_name, str(path)).astype(np.int64)
            lo, hi = np.iinfo(info.mote_dtype).min + info.offset, np.iinfo(info.mote_dtype).max + info.offset
            if a.size and (a.min() < lo or a.max() > hi):
                raise MoteError(f"{path}: input {info.onnx_name!r} holds values in [{a.min()}, {a.max()}]; the model "
                                f"was compiled for [{lo}, {hi}]")
            out[info.tensor_name] = info.to_mote(a)
        return out

    def onnx_outputs(self, outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The compiled model's outputs as the ONNX model's: keyed by output name, in ONNX's layout, the integer
        dialect's values as integers (int32 where the model declares int32, else int64)."""
        out = {}
        for info in self.conversion.outputs:
            a = np.asarray(outputs[info.tensor_name])
            if self.conversion.dialect == "integer":
                inverse = tuple(info.perm.index(i) for i in range(len(info.perm)))
                wide = np.transpose(a.astype(np.int64) + info.offset, inverse)
                out[info.onnx_name] = np.ascontiguousarray(wide.astype(np.int32 if info.onnx_dtype == np.int32
                                                                        else np.int64))
            else:
                out[info.onnx_name] = info.to_onnx(a)
        return out

    def report(self, inputs: dict[str, np.ndarray], outputs: dict[str, np.ndarray]) -> dict[str, Any]:
        """The JSON keys `mote run` adds: onnxruntime_match_rate, onnxruntime_max_lsb_diff (and the
        quantization report when the model was quantized on the way). Integer-dialect models run in ONNX's
        reference evaluator, which knows RequantShift only: with other integer operators there is no comparison."""
        if self.conversion.dialect == "integer" and ({n.op_type for n in self.proto.graph.node} & INTEGER_OPS
                                                     - {"RequantShift"}):
            return {}
        try:
            out = compare(self.proto, self.conversion, inputs, outputs).to_json()
        except MoteError:
            if self.conversion.dialect != "integer":
                raise
            return {}  # the evaluator cannot run every exporter's RequantShift (attributes as tensors)
        if self.quantization:
            out["quantization"] = self.quantization
        return out


def _load_arrays(path: Path, names: list[str]) -> dict[str, np.ndarray]:
    """The arrays of a .npy (named after the model's only input) or of a .npz, read without pickles."""
    loaded = read_arrays(path)
    if isinstance(loaded, np.ndarray):
        if len(names) != 1:
            raise MoteError(f"{path}: a .npy gives one input but the model has {len(names)}; use a .npz keyed "
                            f"by {names}")
        return {names[0]: loaded}
    if not loaded:
        raise MoteError(f"{path}: the .npz holds no arrays; the model's inputs are {names}")
    return loaded


def _describe(dtype: np.dtype) -> str:
    """A dtype as a user reads it: float64, uint8, <U5 (strings), object."""
    return dtype.name if dtype.kind in "biufc" else dtype.str


def positional_arrays(path: Path, names: list[str]) -> list[np.ndarray]:
    """An input file's arrays in the order of the graph's inputs `names`: by name when every name is a key, else
    by position (Deeploy's `arr_0`, `arr_1`, ...)."""
    loaded = read_arrays(path)
    if isinstance(loaded, np.ndarray):
        return [loaded]
    if names and all(n in loaded for n in names):
        return [loaded[n] for n in names]
    return list(loaded.values())


def _integer_model_arrays(proto: Any, input_path: Path | None) -> list[np.ndarray] | None:
    """The arrays of `input_path` when the model is read as the integer dialect with them: a model with Deeploy's
    integer operators, or a model without any quantization whose given inputs all hold integers."""
    if input_path is None:
        return None
    ops = {n.op_type for n in proto.graph.node}
    integer_ops = bool(ops & INTEGER_OPS)
    if not integer_ops and (not is_float_model(proto) or "Cast" in ops):  # a Cast: a float model's own input cast
        return None
    names = [vi.name for vi in proto.graph.input if vi.name not in {i.name for i in proto.graph.initializer}]
    arrays = positional_arrays(Path(input_path), names)
    if integer_ops or (arrays and all(integer_valued(a) for a in arrays[:len(names)])):
        return arrays
    return None


def load_onnx_model(path: str | Path, calib: str | Path | None = None, method: str = "MinMax",
                    input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                    input_path: str | Path | None = None) -> OnnxModel:
    """Read and convert an ONNX model; a float model is quantized first with `calib` (else the
    conversion explains how to quantize it). `input_path`: the inputs the model will run on; an integer-dialect
    model (or a float-typed one given integer inputs) takes each input's integer type from them."""
    import onnx

    path = Path(path)
    proto = read_model(path)
    arrays = _integer_model_arrays(proto, Path(input_path) if input_path else None) if calib is None else None
    if arrays is not None:
        return OnnxModel(proto, convert(proto, path.stem, input_shapes, source=str(path), arrays=arrays), arrays=arrays)
    report: dict[str, Any] = {}
    if calib is not None and is_float_model(proto):
        with tempfile.TemporaryDirectory(prefix="mote-onnx-") as tmp:
            dst = Path(tmp) / f"{path.stem}_int8.onnx"
            report = quantize_model(path, calib, dst, method, input_shapes)
            report.pop("output", None)
            proto = onnx.load(str(dst))
    conversion = convert(proto, path.stem, input_shapes, source=str(path))
    return OnnxModel(proto, conversion, report)
