"""Model inputs: seeded random ones, or loaded from .npy / .npz files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Graph


def random_inputs(graph: Graph, seed: int) -> dict[str, np.ndarray]:
    """Integers over the dtype's whole range; floats over the range the input quantizer covers."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in graph.inputs:
        if t.dtype is DType.FLOAT32:
            out[t.name] = rng.uniform(-1.0, 1.0, t.shape).astype(np.float32)
        else:
            info = np.iinfo(t.dtype.np)
            out[t.name] = rng.integers(info.min, info.max + 1, t.shape, dtype=t.dtype.np)
    return out


def load_inputs(graph: Graph, path: Path) -> dict[str, np.ndarray]:
    """A .npy for a single-input model, or a .npz keyed by input name."""
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise MoteError(f"{path}: cannot read inputs ({e}); give a .npy or a .npz keyed by input name") from None
    if isinstance(loaded, np.ndarray):
        if len(graph.inputs) != 1:
            raise MoteError(f"{path}: a .npy gives one input but the model has {len(graph.inputs)}; "
                            "use a .npz keyed by input name")
        arrays = {graph.inputs[0].name: loaded}
    else:
        arrays = dict(loaded)
    result = {}
    for t in graph.inputs:
        if t.name not in arrays:
            names = [i.name for i in graph.inputs]
            raise MoteError(f"{path}: no array named {t.name!r}; the model's inputs are {names}")
        a = arrays[t.name]
        if a.size != t.size:
            raise MoteError(f"{path}: input {t.name!r} has {a.size} values, the model wants shape {list(t.shape)}")
        result[t.name] = a.astype(t.dtype.np).reshape(t.shape)
    return result
