"""Single-op and small integer-dialect networks in Deeploy's format (float tensors holding integers, numeric
attributes as one-element tensors), run through mote the way a Deeploy test runs (an inputs.npz by position):
the reference interpreter, the host C (sanitized) and, when asked, the rv32 firmware."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mote.codegen.compile import compile_graph
from mote.frontend.onnx.run import load_onnx_model
from mote.reference import interpret
from mote.targets.host import build_host


def tensor_attr(value: float) -> TensorProto:
    """A numeric attribute as Deeploy's exporters store it: a one-element float32 tensor."""
    return numpy_helper.from_array(np.array([value], np.float32))


def network(nodes: list[Any], inputs: dict[str, tuple[int, ...]], outputs: list[str],
            initializers: dict[str, np.ndarray] | None = None) -> onnx.ModelProto:
    """A float-typed model (Deeploy's files declare every tensor float32)."""
    graph = helper.make_graph(
        nodes, "deeploy_test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(a, np.float32), n) for n, a in (initializers or {}).items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def run(m: onnx.ModelProto, arrays: list[np.ndarray], tmp_path: Path, host: bool = True,
        rv32: bool = False) -> dict[str, list[np.ndarray]]:
    """The model's outputs (ONNX side, integers) from each of mote's ways to run it, keyed 'reference',
    'host', 'rv32'."""
    path, npz = tmp_path / "network.onnx", tmp_path / "inputs.npz"
    onnx.save(m, str(path))
    np.savez(npz, *arrays)
    om = load_onnx_model(path, input_path=npz)
    feeds = om.inputs_from_file(npz)
    results = {"reference": list(om.onnx_outputs(interpret(om.graph, feeds)).values())}
    if host:
        binary = build_host(compile_graph(om.graph), tmp_path / "host", sanitize=True)
        results["host"] = list(om.onnx_outputs(binary.run(feeds)[0]).values())
    if rv32:
        from mote.targets.rv32 import Rv32Config, build_rv32

        firmware = build_rv32(compile_graph(om.graph), tmp_path / "rv32", Rv32Config(cc="zig"))
        results["rv32"] = list(om.onnx_outputs(firmware.run(feeds).outputs).values())
    return results


def assert_all_equal(results: dict[str, list[np.ndarray]], want: list[np.ndarray]) -> None:
    for way, outs in results.items():
        assert len(outs) == len(want), way
        for i, (got, w) in enumerate(zip(outs, want)):
            got, w = np.asarray(got, np.int64), np.asarray(w, np.int64)
            assert got.shape == w.shape, f"{way} output {i}: shape {got.shape} != {w.shape}"
            bad = np.flatnonzero(got.reshape(-1) != w.reshape(-1))
            assert bad.size == 0, (f"{way} output {i}: {bad.size} of {w.size} differ, first at {bad[0]}: "
                                   f"{got.reshape(-1)[bad[0]]} != {w.reshape(-1)[bad[0]]}")


def int8_inputs(rng: np.random.Generator, shape: tuple[int, ...], lo: int = -128, hi: int = 127) -> np.ndarray:
    """Random values with the extremes and a row of equal values mixed in."""
    x = rng.integers(lo, hi + 1, shape)
    flat = x.reshape(-1)
    flat[:2] = (lo, hi)
    if x.ndim and x.shape[-1] > 1 and flat.size >= 2 * x.shape[-1]:
        flat[-x.shape[-1]:] = rng.integers(lo, hi + 1)  # the last row all equal
    return x.astype(np.int64)
