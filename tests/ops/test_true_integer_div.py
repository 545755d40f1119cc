"""TrueIntegerDiv in Deeploy's format, between two RequantShifts as Deeploy's tests and microLlama have it:
mote's two steps (times the factor, then the RequantShift) against Deeploy's merged RequantShift (its
MergeTrueIntegerDivRequantShiftPass: multiplier times floor(Delta * eta / (y * eta + eps)) * 256, divisor
times 256), computed here from the pass's formulas; reference, sanitized host C, rv32."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops.dialect_util import assert_all_equal, network, run, tensor_attr


def rqs(x: str, y: str, div: int) -> object:
    return helper.make_node("RequantShift", [x, f"{y}_mul", f"{y}_add"], [y], div=tensor_attr(div),
                            n_levels_out=tensor_attr(256), signed=tensor_attr(1))


def chain_model(shape: tuple[int, ...], k: dict[str, int], mul1: int, mul2: int) -> object:
    nodes = [rqs("input", "x", 2**16), helper.make_node("TrueIntegerDiv", ["x"], ["q"], **k), rqs("q", "output", 2**16)]
    inits = {"x_mul": np.array([[mul1]]), "x_add": np.array([[0]]), "output_mul": np.array([[mul2]]),
             "output_add": np.array([[0]])}
    return network(nodes, {"input": shape}, ["output"], inits)


def requant(v: np.ndarray, mul: int, div: int) -> np.ndarray:
    """RequantShift's definition with exact rationals: clip(floor(v * mul / div + 1/2), -128, 127)."""
    return np.clip((2 * v * mul + div) // (2 * div), -128, 127)


@pytest.mark.parametrize("k,mul2", [({"Delta": 16384, "eps": 1, "eta": 200000, "y": 2}, 4),
                                    ({"Delta": 2**14, "eps": 3, "eta": 1000, "y": 3}, 11)])
def test_matches_the_merged_requant_shift(k: dict[str, int], mul2: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(mul2)
    x = rng.integers(-16384, 16384, (1, 16, 64))
    x.reshape(-1)[:2] = (-16384, 16383)
    first = requant(x, 504, 2**16)
    coeff = math.floor((k["Delta"] * k["eta"]) / (k["y"] * k["eta"] + k["eps"])) * 256
    want = requant(first, int(round(mul2 * coeff)), 2**16 * 256)
    assert_all_equal(run(chain_model(x.shape, k, 504, mul2), [x], tmp_path, rv32=mul2 == 4), [want])
