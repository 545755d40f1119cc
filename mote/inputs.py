"""Model inputs: seeded random ones, or loaded from .npy / .npz files.

A file's arrays must match the model's inputs exactly: the same dtype (nothing is cast: a cast would
truncate floats or wrap 300 to 44) and the same shape, or the shape without a leading batch
dimension of 1 (a transposed array of the same size is refused). A stream of calls (`mote run --calls N`)
puts the call first: each array is [N, *shape] (or [N, *shape without its leading 1])."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.errors import MoteError
from mote.frontend.files import read_arrays
from mote.ir import DType, Graph, Tensor


def _index_bounds(graph: Graph) -> dict[str, int]:
    """Graph inputs that are the indices of gather nodes (token ids, positions): name -> the smallest extent they
    index, so that random ones stay inside every table they pick from."""
    bounds: dict[str, int] = {}
    names = {t.name for t in graph.inputs}
    for node in graph.nodes:
        if node.op != "gather" or len(node.inputs) < 2 or node.inputs[0] is None or node.inputs[1] is None:
            continue
        ids, table = node.inputs[1], node.inputs[0]
        if ids.name in names:
            axis = int(node.attrs.get("axis", 0)) % max(len(table.shape), 1)
            bounds[ids.name] = min(bounds.get(ids.name, table.shape[axis]), table.shape[axis])
    return bounds


def random_inputs(graph: Graph, seed: int) -> dict[str, np.ndarray]:
    """Integers over the dtype's whole range (ids a gather reads: over its table); floats over the range the input
    quantizer covers."""
    rng = np.random.default_rng(seed)
    out = {}
    bounds = _index_bounds(graph)
    for t in graph.inputs:
        if t.dtype is DType.FLOAT32:
            out[t.name] = rng.uniform(-1.0, 1.0, t.shape).astype(np.float32)
        elif t.dtype is DType.BOOL:
            out[t.name] = rng.integers(0, 2, t.shape).astype(bool)
        elif t.name in bounds:
            out[t.name] = rng.integers(0, max(bounds[t.name], 1), t.shape).astype(t.dtype.np)
        else:
            info = np.iinfo(t.dtype.np)
            out[t.name] = rng.integers(info.min, info.max + 1, t.shape, dtype=t.dtype.np)
    return out


def random_stream(graph: Graph, seed: int, calls: int) -> list[dict[str, np.ndarray]]:
    """`calls` frames of random inputs, frame k seeded by seed + k (the first is random_inputs(graph, seed))."""
    return [random_inputs(graph, seed + k) for k in range(calls)]


def load_stream(graph: Graph, path: Path, calls: int) -> list[dict[str, np.ndarray]]:
    """The frames of a stream of `calls` calls: each array of the file has the call as its leading axis."""
    stacked = load_inputs(graph, path, calls)
    return [{name: a[k] for name, a in stacked.items()} for k in range(calls)]


def load_inputs(graph: Graph, path: Path, calls: int | None = None) -> dict[str, np.ndarray]:
    """A .npy for a single-input model, or a .npz keyed by input name, matched exactly to the inputs.
    With `calls`, each array holds that many frames along a leading axis (returned as [calls, *shape])."""
    loaded = read_arrays(path)
    names = [t.name for t in graph.inputs]
    if isinstance(loaded, np.ndarray):
        if len(graph.inputs) != 1:
            raise MoteError(f"{path}: a .npy gives one input but the model has {len(graph.inputs)}; "
                            f"use a .npz keyed by input name ({_listing(names)})")
        arrays = {graph.inputs[0].name: loaded}
    else:
        arrays = loaded
        if not arrays:
            raise MoteError(f"{path}: the .npz holds no arrays; the model's inputs are {_listing(names)}")
        extra = [k for k in arrays if k not in names]
        if extra:
            raise MoteError(f"{path}: array {extra[0]!r} is not an input of the model; its inputs are "
                            f"{_listing(names)}")
    return {t.name: _matched(path, t, arrays, calls) for t in graph.inputs}


def _matched(path: Path, t: Tensor, arrays: dict[str, np.ndarray], calls: int | None) -> np.ndarray:
    if t.name not in arrays:
        raise MoteError(f"{path}: no array named {t.name!r}; the .npz has {_listing(list(arrays))}")
    a = arrays[t.name]
    if calls is not None:
        return _frames(path, t, a, calls)
    wants = f"the model wants {t.dtype.value} {list(t.shape)}"
    if a.dtype != t.dtype.np:
        raise MoteError(f"{path}: input {t.name!r}: got {a.dtype} {list(a.shape)}, {wants} (mote does not cast: "
                        f"convert it with .astype(np.{t.dtype.value}) if that is what you mean)")
    shape = tuple(a.shape)
    if shape != t.shape and not (t.shape[:1] == (1,) and shape == t.shape[1:]):
        raise MoteError(f"{path}: input {t.name!r}: got {a.dtype} {list(a.shape)}, {wants}")
    if t.dtype is DType.FLOAT32 and not np.all(np.isfinite(a)):
        raise MoteError(f"{path}: input {t.name!r} holds NaN or infinite values; give finite numbers")
    return np.ascontiguousarray(a).reshape(t.shape)


def _frames(path: Path, t: Tensor, a: np.ndarray, calls: int) -> np.ndarray:
    """`a` as [calls, *t.shape]: a leading axis of one frame per call, then the input's shape."""
    wants = f"--calls {calls} wants {t.dtype.value} {[calls, *t.shape]}"
    if t.shape[:1] == (1,):
        wants += f" or {[calls, *t.shape[1:]]}"
    got = f"{path}: input {t.name!r}: got {a.dtype} {list(a.shape)}, {wants} (one frame per call along the first axis)"
    if a.dtype != t.dtype.np:
        raise MoteError(f"{got}; mote does not cast: convert it with .astype(np.{t.dtype.value})")
    frame = tuple(a.shape[1:])
    if a.ndim == 0 or a.shape[0] != calls or (frame != t.shape and not (t.shape[:1] == (1,) and frame == t.shape[1:])):
        raise MoteError(got)
    if t.dtype is DType.FLOAT32 and not np.all(np.isfinite(a)):
        raise MoteError(f"{path}: input {t.name!r} holds NaN or infinite values; give finite numbers")
    return np.ascontiguousarray(a).reshape(calls, *t.shape)


def _listing(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names) or "none"
