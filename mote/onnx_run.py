"""The CLI's side of ONNX models: `mote run model.onnx [--calib ...] [--input-shape ...]`.

`load_onnx_model` reads the model (quantizing a float one first when calibration data is given) and
converts it; `OnnxModel.inputs_from_file` reads user inputs given in the ONNX model's own layout;
`OnnxModel.report` adds the comparison with onnxruntime to `mote run --json`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import MoteError
from mote.frontend.onnx import OnnxConversion, convert, is_float_model, read_model
from mote.ir import Graph
from mote.onnx_compare import compare


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
        (NCHW, uint8, ...), as the compiled model takes them."""
        try:
            loaded = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise MoteError(f"{path}: cannot read inputs ({e}); give a .npy or a .npz keyed by input name") from None
        infos = self.conversion.inputs
        arrays = {infos[0].onnx_name: loaded} if isinstance(loaded, np.ndarray) else dict(loaded)
        if isinstance(loaded, np.ndarray) and len(infos) != 1:
            raise MoteError(f"{path}: a .npy gives one input but the model has {len(infos)}; use a .npz")
        out = {}
        for info in infos:
            if info.onnx_name not in arrays:
                raise MoteError(f"{path}: no array named {info.onnx_name!r}; the model's inputs are "
                                f"{[i.onnx_name for i in infos]}")
            t = next(t for t in self.graph.inputs if t.name == info.tensor_name)
            onnx_shape = tuple(t.shape[info.perm.index(i)] for i in range(len(info.perm)))
            a = np.asarray(arrays[info.onnx_name])
            if a.size != t.size:
                raise MoteError(f"{path}: input {info.onnx_name!r} has {a.size} values; the model wants shape "
                                f"{list(onnx_shape)}")
            out[info.tensor_name] = info.to_mote(a.reshape(onnx_shape).astype(info.onnx_dtype))
        return out

    def report(self, inputs: dict[str, np.ndarray], outputs: dict[str, np.ndarray]) -> dict[str, Any]:
        """The JSON keys `mote run` adds: onnxruntime_match_rate, onnxruntime_max_lsb_diff (and the
        quantization report when the model was quantized on the way)."""
        out = compare(self.proto, self.conversion, inputs, outputs).to_json()
        if self.quantization:
            out["quantization"] = self.quantization
        return out


def load_onnx_model(path: str | Path, calib: str | Path | None = None, method: str = "MinMax",
                    input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> OnnxModel:
    """Read and convert an ONNX model; a float model is quantized first with `calib` (else the
    conversion explains how to quantize it)."""
    import onnx

    from mote.quantize import quantize_model

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
