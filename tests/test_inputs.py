"""`--input` files must match the model's inputs exactly: no cast, no reshape of a different layout,
one-line errors that say what the model wants; files that are not regular files are refused unopened."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY
from test_cli import assert_one_line_error, mote

from mote.errors import MoteError
from mote.frontend import load
from mote.inputs import load_inputs, random_inputs
from mote.ir import DType

KWS = MLPERF_TINY / "kws_ref_model.tflite"  # one input, 'input_1', int8 [1, 49, 10, 1]


@pytest.fixture(scope="module")
def kws() -> object:
    return load(KWS)


def _npy(tmp_path: Path, array: np.ndarray) -> Path:
    path = tmp_path / "x.npy"
    np.save(path, array)
    return path


def test_exact_dtype_and_shape_are_accepted(kws: object, tmp_path: Path) -> None:
    x = np.arange(490, dtype=np.int64).astype(np.int8).reshape(1, 49, 10, 1)
    got = load_inputs(kws, _npy(tmp_path, x))  # type: ignore[arg-type]
    assert np.array_equal(got["input_1"], x) and got["input_1"].dtype == np.int8


def test_a_missing_leading_batch_dimension_is_accepted(kws: object, tmp_path: Path) -> None:
    x = np.ones((49, 10, 1), np.int8)
    assert load_inputs(kws, _npy(tmp_path, x))["input_1"].shape == (1, 49, 10, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("array, words", [
    (np.full((1, 49, 10, 1), 300, np.int32), ["got int32 [1, 49, 10, 1]", "wants int8 [1, 49, 10, 1]", "cast"]),
    (np.full((1, 49, 10, 1), 0.7), ["got float64", "wants int8"]),
    (np.zeros((1, 10, 49, 1), np.int8), ["got int8 [1, 10, 49, 1]", "wants int8 [1, 49, 10, 1]"]),
    (np.zeros((490,), np.int8), ["got int8 [490]"]),
    (np.array(["a"] * 490).reshape(1, 49, 10, 1), ["<U1", "wants int8"]),
])
def test_mismatched_arrays_are_refused(kws: object, tmp_path: Path, array: np.ndarray, words: list[str]) -> None:
    with pytest.raises(MoteError) as error:
        load_inputs(kws, _npy(tmp_path, array))  # type: ignore[arg-type]
    message = str(error.value)
    assert "\n" not in message and "'input_1'" in message
    for word in words:
        assert word in message


def test_object_arrays_are_not_unpickled(kws: object, tmp_path: Path) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(MoteError, match="cannot read inputs"):
        load_inputs(kws, path)  # type: ignore[arg-type]


@pytest.mark.parametrize("arrays, words", [
    ({}, ["holds no arrays", "'input_1'"]),
    ({"input_1": np.zeros((1, 49, 10, 1), np.int8), "extra": np.zeros(1)}, ["'extra'", "not an input"]),
    ({"other": np.zeros((1, 49, 10, 1), np.int8)}, ["'other'", "not an input"]),
])
def test_npz_keys(kws: object, tmp_path: Path, arrays: dict[str, np.ndarray], words: list[str]) -> None:
    path = tmp_path / "x.npz"
    np.savez(path, **arrays)
    with pytest.raises(MoteError) as error:
        load_inputs(kws, path)  # type: ignore[arg-type]
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 damaged", b"\x93NUMPY\x01\x00garbage"])
def test_damaged_files(kws: object, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.npz"
    path.write_bytes(content)
    with pytest.raises(MoteError, match="cannot read inputs"):
        load_inputs(kws, path)  # type: ignore[arg-type]


def test_float_inputs_must_be_finite(tmp_path: Path) -> None:
    from mote import pipeline

    graph = load(pipeline.default_model())  # float32 [1, 8, 8, 1]
    x = np.zeros((1, 8, 8, 1), np.float32)
    x[0, 3, 3, 0] = np.nan
    with pytest.raises(MoteError, match="NaN or infinite"):
        load_inputs(graph, _npy(tmp_path, x))


def test_cli_says_what_the_model_wants(tmp_path: Path) -> None:
    proc = mote("run", KWS, "--input", _npy(tmp_path, np.full((10, 49), 300.0)))
    assert_one_line_error(proc, "input 'input_1': got float64 [10, 49], the model wants int8 [1, 49, 10, 1]")


def test_empty_npz_and_string_npy_on_the_cli(tmp_path: Path) -> None:
    (tmp_path / "empty.npz").write_bytes(b"")
    assert_one_line_error(mote("run", KWS, "--input", tmp_path / "empty.npz"), "empty.npz", "cannot read inputs")
    np.save(tmp_path / "s.npy", np.array(["text"]))
    assert_one_line_error(mote("run", KWS, "--input", tmp_path / "s.npy"), "s.npy", "<U4")


@pytest.mark.parametrize("option, kind", [(o, k) for o in ("model", "--input", "--calib")
                                           for k in ("fifo", "directory", "device")
                                           if (o, k) != ("--calib", "directory")])  # --calib takes a directory
def test_paths_that_are_not_regular_files_are_refused_without_blocking(tmp_path: Path, option: str,
                                                                       kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "pipe.tflite"
        os.mkfifo(path)
    elif kind == "directory":
        path = tmp_path / "dir.tflite"
        path.mkdir()
    else:
        path = Path("/dev/zero")
    args = {"model": [path], "--input": [KWS, "--input", path], "--calib": [KWS, "--calib", path]}[option]
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=120)  # opening a FIFO would block until the timeout
    assert_one_line_error(proc, str(path))
    assert "not a regular file" in proc.stderr


def test_random_ids_stay_inside_the_tables_they_index() -> None:
    """An integer input a gather reads (token ids, positions) is drawn from the smallest table it indexes."""
    from mote.ir import Graph, Node, Quant, Tensor

    ids = Tensor("ids", (1, 64), DType.INT64)
    big = Tensor("big", (50, 4), DType.INT8, Quant((0.1,), (0,)), np.zeros((50, 4), np.int8))
    small = Tensor("small", (12, 4), DType.INT8, Quant((0.1,), (0,)), np.zeros((12, 4), np.int8))
    a, b = (Tensor(n, (1, 64, 4), DType.INT8, Quant((0.1,), (0,))) for n in ("a", "b"))
    graph = Graph("g", [ids], [a, b], [Node("gather", "a", [big, ids], [a], {"axis": 0}),
                                       Node("gather", "b", [small, ids], [b], {"axis": 0})])
    drawn = np.concatenate([random_inputs(graph, seed)["ids"].reshape(-1) for seed in range(4)])
    assert drawn.dtype == np.int64 and drawn.min() >= 0 and drawn.max() <= 11 and drawn.max() >= 8
