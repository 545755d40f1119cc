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

    @property
    def graph(self) -> Graph:
        return self.conversion.graph

    def inputs_from_file(self, path: Path) -> dict[str, np.ndarray]:
        """Inputs from a .npy (single input) or a .npz keyed by ONNX input name, in the ONNX layout
        (NCHW, uint8, ...), as the compiled model takes them: dtype and shape exactly the model's."""
        infos = self.conversion.inputs
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

    def report(self, inputs: dict[str, np.ndarray], outputs: dict[str, np.ndarray]) -> dict[str, Any]:
        """The JSON keys `mote run` adds: onnxruntime_match_rate, onnxruntime_max_lsb_diff (and the
        quantization report when the model was quantized on the way)."""
        out = compare(self.proto, self.conversion, inputs, outputs).to_json()
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


def load_onnx_model(path: str | Path, calib: str | Path | None = None, method: str = "MinMax",
                    input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> OnnxModel:
    """Read and convert an ONNX model; a float model is quantized first with `calib` (else the
    conversion explains how to quantize it)."""
    import onnx

    path = Path(path)
    proto = read_model(path)
    report: dict[str, Any] = {}
    if calib is not None and is_float_model(proto):
        with tempfile.TemporaryDirectory(prefix="mote-onnx-") as tmp:
            dst = Path(tmp) / f"{path.stem}_int8.onnx"
            report = quantize_model(path, calib, dst, method, input_shapes)
            report.pop("output", None)
            proto = onnx.load(str(dst))
    conversion = convert(proto, path.stem, input_shapes, source=str(path))
    return OnnxModel(proto, conversion, report)
