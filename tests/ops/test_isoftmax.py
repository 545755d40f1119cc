"""iSoftmax (Deeploy's Softmax_s8_s8) in Deeploy's format against a statement-by-statement transcription of the
C kernel: reference interpreter, sanitized host C, and rv32; random rows with extremes and equal values,
Deeploy's coefficient sets, long rows, an unsigned input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from mote.errors import UnsupportedError
from mote.ops.isoftmax import y_table
from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr

# (coeffA, coeffB, coeffC, log2): the kernel tests' and the microLlama networks' sets, and a small log2 whose
# quotient wraps the int8 z.
COEFFS = [(1, 345, 62395, 255), (1, 86, 3888, 64), (2, 20, 100, 3), (1, 5, 7, 1)]


def softmax_model(shape: tuple[int, ...], coeffs: tuple[int, int, int, int], n_levels: int = 256,
                  domain: str = "") -> object:
    a, b, c, log2 = coeffs
    node = helper.make_node("iSoftmax", ["input"], ["output"], domain=domain, coeffA=tensor_attr(a),
                            coeffB=tensor_attr(b), coeffC=tensor_attr(c), log2=tensor_attr(log2),
                            n_levels=tensor_attr(n_levels))
    return network([node], {"input": shape}, ["output"])


def expected(x: np.ndarray, coeffs: tuple[int, int, int, int], n_levels: int = 256) -> np.ndarray:
    """Deeploy's stored int8 plus n_levels / 2: the output is unsigned."""
    stored = dk.softmax_s8(x.reshape(-1).tolist(), x.shape[-1], *coeffs, n_levels)
    return (np.array(stored) + n_levels // 2).reshape(x.shape)


@pytest.mark.parametrize("coeffs", COEFFS)
def test_matches_the_kernel(coeffs: tuple[int, int, int, int], tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(sum(coeffs)), (1, 3, 6, 8))
    assert_all_equal(run(softmax_model(x.shape, coeffs), [x.astype(np.int8)], tmp_path), [expected(x, coeffs)])


def test_long_rows_fewer_levels_and_a_custom_domain(tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(1), (2, 300))
    m = softmax_model(x.shape, COEFFS[0], n_levels=128, domain="PACTOps")
    m.opset_import.append(helper.make_opsetid("PACTOps", 1))
    assert_all_equal(run(m, [x], tmp_path), [expected(x, COEFFS[0], 128)])


def test_unsigned_input_gives_the_same_values(tmp_path: Path) -> None:
    """Inputs in [0, 255] (stored with zero point -128): the softmax sees only differences."""
    x = int8_inputs(np.random.default_rng(2), (4, 16), 0, 255)
    want = expected(x - 128, COEFFS[1])
    assert_all_equal(run(softmax_model(x.shape, COEFFS[1]), [x.astype(np.uint8)], tmp_path), [want])


def test_on_rv32(tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(3), (5, 24))
    results = run(softmax_model(x.shape, COEFFS[0]), [x.astype(np.int8)], tmp_path, host=False, rv32=True)
    assert_all_equal(results, [expected(x, COEFFS[0])])


def test_table_is_the_kernel_formula() -> None:
    for a, b, c, log2 in COEFFS:
        for d in (0, 1, 100, 255):
            x = [0, -d] if d else [0]
            y = dk.softmax_s8(x, len(x), a, b, c, log2, 256)
            assert y[-1] == dk.cast((y_table(a, b, c, log2)[d] * 255) // sum(y_table(a, b, c, log2)[e] for e in
                                                                             ([0, d] if d else [0])) - 128, 8)


def test_overflowing_coefficients_are_refused(tmp_path: Path) -> None:
    x = np.zeros((1, 4), np.int64)
    with pytest.raises(UnsupportedError, match="overflow"):
        run(softmax_model(x.shape, (2**20, 345, 0, 255)), [x], tmp_path, host=False)
