"""Integer-dialect networks with Deeploy's nonlinear operators, in Deeploy's format: a transformer-block-like
chain (RequantShift, iLayerNorm, iSoftmax, iGELU, iRMSNorm, iHardswish) against the chain of transcribed
kernels, on the host and rv32; layouts (a channels-last Conv before a row-wise op); the errors a user can
cause."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from mote.errors import UnsupportedError
from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr


def rqs(x: str, y: str, div: int, signed: int = 1) -> object:
    return helper.make_node("RequantShift", [x, f"{y}_mul", f"{y}_add"], [y], div=tensor_attr(div),
                            n_levels_out=tensor_attr(256), signed=tensor_attr(signed))


def requant(v: np.ndarray, mul: np.ndarray | int, add: np.ndarray | int, div: int, signed: bool = True) -> np.ndarray:
    lo, hi = (-128, 127) if signed else (0, 255)
    return np.clip((2 * (v * mul + add) + div) // (2 * div), lo, hi)


def block(rng: np.random.Generator, rows: int, dim: int) -> tuple[object, dict[str, np.ndarray]]:
    """x -> iLayerNorm -> iSoftmax -> RQS (signed) -> iGELU -> RQS -> iRMSNorm -> iHardswish -> RQS."""
    inits = {"ln_w": rng.integers(-300_000, 300_000, dim), "ln_b": rng.integers(-9000, 9000, dim),
             "rms_w": np.full(dim, 3_900_000), "s_mul": np.array(1), "s_add": np.array(-128 * 4),
             "g_mul": np.array(3), "g_add": np.array(17), "y_mul": np.array(1), "y_add": np.array(0)}
    nodes = [
        helper.make_node("iLayerNorm", ["x", "ln_w", "ln_b"], ["ln"], D=tensor_attr(2**14), n_levels=tensor_attr(256)),
        helper.make_node("iSoftmax", ["ln"], ["sm"], coeffA=tensor_attr(1), coeffB=tensor_attr(86),
                         coeffC=tensor_attr(3888), log2=tensor_attr(64), n_levels=tensor_attr(256)),
        rqs("sm", "s", 4),
        helper.make_node("iGELU", ["s"], ["ge"], b=-40, one=1743),
        rqs("ge", "g", 2**12),
        helper.make_node("iRMSNorm", ["g", "rms_w"], ["rms"], D=2**16, n_levels=256),
        helper.make_node("iHardswish", ["rms"], ["hs"], one_over_six=42, three=122, six=244),
        rqs("hs", "y", 2**10),
    ]
    return network(nodes, {"x": (1, rows, dim)}, ["y"], inits), inits


def block_expected(x: np.ndarray, k: dict[str, np.ndarray]) -> np.ndarray:
    dim = x.shape[-1]
    flat = x.reshape(-1).tolist()
    ln = dk.layernorm_s8(flat, k["ln_w"].tolist(), k["ln_b"].tolist(), 0, dim, 14)
    sm = np.array(dk.softmax_s8(ln, dim, 1, 86, 3888, 64, 256)) + 128  # unsigned values
    s = requant(sm, 1, -128 * 4, 4)
    ge = np.array(dk.gelu_s8_s32(s.tolist(), -40, 1743, 0))
    g = requant(ge, 3, 17, 2**12)
    rms = dk.rmsnorm_s8(g.tolist(), k["rms_w"].tolist(), 0, dim, 16)
    hs = np.array(dk.hardswish_s8_s32(rms, 42, 122, 244, 0))
    return requant(hs, 1, 0, 2**10).reshape(x.shape)


def test_block_on_the_host(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    m, k = block(rng, 12, 32)
    x = int8_inputs(rng, (1, 12, 32))
    assert_all_equal(run(m, [x], tmp_path), [block_expected(x, k)])


def test_block_on_rv32(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    m, k = block(rng, 4, 16)
    x = int8_inputs(rng, (1, 4, 16))
    assert_all_equal(run(m, [x], tmp_path, host=False, rv32=True), [block_expected(x, k)])


def test_row_ops_after_a_channels_last_conv(tmp_path: Path) -> None:
    """Conv stores NHWC; iSoftmax and ITAMax normalize ONNX's last axis (W) all the same."""
    rng = np.random.default_rng(2)
    w = rng.integers(-128, 128, (3, 2, 1, 1))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), rqs("c", "r", 2**6),
             helper.make_node("ITAMax", ["r"], ["y"], n_levels=tensor_attr(256))]
    inits = {"w": w, "r_mul": np.ones((1, 3, 1, 1)), "r_add": np.zeros((1, 3, 1, 1))}
    x = int8_inputs(rng, (1, 2, 5, 7))
    conv = np.einsum("oi,nihw->nohw", w[:, :, 0, 0], x)
    r = requant(conv, 1, 0, 2**6)
    want = (np.array(dk.ita_max_s8(r.reshape(-1).tolist(), 7, 256)) + 128).reshape(r.shape)
    assert_all_equal(run(network(nodes, {"x": x.shape}, ["y"], inits), [x], tmp_path), [want])


@pytest.mark.parametrize("node,match", [
    (helper.make_node("iSoftmax", ["x"], ["y"], coeffA=1, coeffB=1, coeffC=1, log2=1, n_levels=256, axis=0),
     "only the last axis"),
    (helper.make_node("iSoftmax", ["x"], ["y"], coeffA=1, coeffB=1, coeffC=1, n_levels=256), "'log2' is missing"),
    (helper.make_node("ITAMax", ["x"], ["y"], n_levels=1024), "at most 256 levels"),
    (helper.make_node("iGELU", ["x"], ["y"], b=-40, one=1743, extra=1), "attribute 'extra'"),
    (helper.make_node("IntegerDiv", ["x", "x"], ["y"], Delta=1, eps=1, eta=1), "int8"),
])
def test_errors_name_the_node(node: object, match: str, tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError, match=match):
        run(network([node], {"x": (2, 8)}, ["y"]), [np.zeros((2, 8), np.int64)], tmp_path, host=False)


def test_one_tensor_read_in_two_layouts(tmp_path: Path) -> None:
    """A RequantShift output that is a graph output and, through a Transpose (which only relabels the layout),
    the input of a row op: each reader gets its own layout (microLlama's KV-cache outputs)."""
    rng = np.random.default_rng(3)
    nodes = [rqs("x", "a", 2**2), helper.make_node("Transpose", ["a"], ["t"], perm=[0, 2, 1, 3]), rqs("t", "r", 2),
             helper.make_node("Transpose", ["r"], ["u"], perm=[0, 1, 3, 2]),
             helper.make_node("iSoftmax", ["u"], ["y"], coeffA=tensor_attr(1), coeffB=tensor_attr(345),
                              coeffC=tensor_attr(62395), log2=tensor_attr(255), n_levels=tensor_attr(256))]
    inits = {"a_mul": np.array(3), "a_add": np.array(1), "r_mul": np.array(1), "r_add": np.array(0)}
    x = int8_inputs(rng, (1, 2, 3, 4))
    r = requant(np.transpose(requant(x, 3, 1, 4), (0, 2, 1, 3)), 1, 0, 2)
    u = np.transpose(r, (0, 1, 3, 2))
    y = (np.array(dk.softmax_s8(u.reshape(-1).tolist(), 2, 1, 345, 62395, 255, 256)) + 128).reshape(u.shape)
    assert_all_equal(run(network(nodes, {"x": x.shape}, ["y", "r"], inits), [x], tmp_path), [y, r])
