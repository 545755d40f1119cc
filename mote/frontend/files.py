"""Reading the files a user names (models, inputs, calibration data): special files are refused before
opening, and arrays are read without pickles. Kept apart from the loaders so that every frontend and the
layers above can use them without importing a loader."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np

from mote.errors import ModelFileError, MoteError


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


def read_arrays(path: Path, what: str = "inputs", file_kind: str = "input file") -> np.ndarray | dict[str, np.ndarray]:
    """The array of a .npy or the arrays of a .npz (no pickles); one-line errors for anything else, naming
    `what` the file holds."""
    check_regular_file(path, file_kind)
    try:
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            return loaded
        with loaded:
            return {key: loaded[key] for key in loaded.files}
    except Exception as e:  # numpy raises many kinds on a damaged file (ValueError, EOFError, BadZipFile, ...)
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise MoteError(f"{path}: cannot read {what} ({detail}); give a .npy or a .npz keyed by input name, saved "
                        "without pickles") from None
