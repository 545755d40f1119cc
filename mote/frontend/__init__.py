"""Model files -> mote Graph."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mote.errors import ModelFileError
from mote.ir import Graph


def check_regular_file(path: Path, what: str) -> None:
    """Refuse, without opening it, a path that is not a regular file: opening a FIFO blocks, and a
    device such as /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the {what} ({e.strerror})") from None
    if stat.S_ISDIR(mode):
        raise ModelFileError(f"{path}: not a regular file (a directory); the {what} must be one")
    if not stat.S_ISREG(mode):
        raise ModelFileError(f"{path}: not a regular file (a device, FIFO or socket); the {what} must be one")


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
