"""IntegerDiv (Deeploy's Div_s32_s32) in Deeploy's format against a transcription of the C kernel (its loops
over nomStep / denomStep): one denominator per row or per element, negative values and ties (halves round
away from zero), a zero denominator; reference, sanitized host C, rv32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from mote.errors import BuildError, MoteError, UnsupportedError
from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, network, run


def div_model(a_shape: tuple[int, ...], b_shape: tuple[int, ...], delta: int, eps: int, eta: int) -> object:
    node = helper.make_node("IntegerDiv", ["a", "b"], ["output"], domain="PACTOps", Delta=delta, eps=eps, eta=eta)
    m = network([node], {"a": a_shape, "b": b_shape}, ["output"])
    m.opset_import.append(helper.make_opsetid("PACTOps", 1))
    return m


def operands(rng: np.random.Generator, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> list[np.ndarray]:
    a = rng.integers(-2**20, 2**20, a_shape)
    b = rng.integers(1000, 2**16, b_shape) * rng.choice([-1, 1], b_shape)
    a.reshape(-1)[:2] = (2**20, -2**20)
    return [a, b]


@pytest.mark.parametrize("a_shape,b_shape,k", [((1, 8, 16), (1, 8, 1), (65536, 1, 7)), ((2, 3, 5), (2, 1, 1),
                                                                                         (256, 3, 100)),
                                               ((4, 6), (4, 6), (1024, 0, 1))])
def test_matches_the_kernel(a_shape: tuple[int, ...], b_shape: tuple[int, ...], k: tuple[int, int, int],
                            tmp_path: Path) -> None:
    a, b = operands(np.random.default_rng(sum(a_shape)), a_shape, b_shape)
    want = np.array(dk.div_s32(a.reshape(-1).tolist(), b.reshape(-1).tolist(), a_shape, b_shape, *k)).reshape(a_shape)
    assert_all_equal(run(div_model(a_shape, b_shape, *k), [a, b], tmp_path), [want])


def test_ties_round_away_from_zero_on_rv32(tmp_path: Path) -> None:
    a = np.array([[70000, -70000, 70001, -70001, 3 * 70000, 0, 2**20, -2**20]])
    b = np.array([[140000]])
    want = np.array(dk.div_s32(a.reshape(-1).tolist(), [140000], a.shape, b.shape, 1, 0, 1)).reshape(a.shape)
    assert want.tolist()[0][:2] == [1, -1]  # 0.5 and -0.5
    assert_all_equal(run(div_model(a.shape, b.shape, 1, 0, 1), [a, b], tmp_path, rv32=True), [want])


def test_zero_denominator_fails(tmp_path: Path) -> None:
    a, b = np.full((1, 4), 2**20), np.array([[2**20], ]).reshape(1, 1)
    m = div_model(a.shape, b.shape, 1, -7 * 2**20, 7)
    with pytest.raises(MoteError, match="zero denominator"):
        run(m, [a, b], tmp_path, host=False)
    with pytest.raises(BuildError, match="failed"):
        from mote.codegen.compile import compile_graph
        from mote.frontend.onnx.run import load_onnx_model
        from mote.targets.host import build_host

        om = load_onnx_model(tmp_path / "network.onnx", input_path=tmp_path / "inputs.npz")
        build_host(compile_graph(om.graph), tmp_path / "h").run(om.inputs_from_file(tmp_path / "inputs.npz"))


def test_other_broadcasts_are_refused(tmp_path: Path) -> None:
    a, b = operands(np.random.default_rng(1), (2, 4, 8), (1, 4, 8))
    with pytest.raises(UnsupportedError, match="denominator"):
        run(div_model(a.shape, b.shape, 1, 0, 1), [a, b], tmp_path, host=False)
