"""Model files -> mote Graph."""

from __future__ import annotations

from pathlib import Path

from mote.errors import ModelFileError
from mote.frontend.files import check_regular_file
from mote.ir import Graph

__all__ = ["check_regular_file", "load"]


def load(path: str | Path) -> Graph:
    """Load a model file, recognised by its content (a TFLite flatbuffer says 'TFL3') or its extension."""
    path = Path(path)
    check_regular_file(path, "model file")
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the model file ({e.strerror})") from None
    if path.suffix.lower() == ".onnx":
        from mote.frontend.onnx import load_onnx_file

        return load_onnx_file(path)
    if head[4:8] == b"TFL3" or path.suffix == ".tflite":
        from mote.frontend.tflite import load_tflite_file

        return load_tflite_file(path)
    raise ModelFileError(f"{path}: not a model file mote can read; give a .tflite flatbuffer or an .onnx model")
