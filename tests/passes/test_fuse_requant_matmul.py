"""fuse_requant on a product of two activations: Deeploy's MatMul of two int8 tensors and its RequantShift per
tensor or per column as one matmul_rqs layer on the register-blocked batch-matmul kernels, bit-exact with
Deeploy's arithmetic (tests/frontend/deeploy_format.py) on the host and the rv32 virtual platform, in fewer
instructions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote import pipeline
from mote.targets.rv32 import Rv32, Rv32Config
from tests.frontend import deeploy_format as dp
from tests.frontend.deeploy_format import network, rqs, run
from tests.passes.test_fuse_requant import fused_ops, ints


def attention_scores(rng: np.random.Generator, a_unsigned: bool, add: int, div: int = 2**10, levels: int = 256,
                     signed: bool = True, heads: int = 2, seq: int = 9, dim: int = 14
                     ) -> tuple[onnx.ModelProto, list[np.ndarray], np.ndarray]:
    """q [heads, seq, dim] x k^T [heads, dim, seq] -> RequantShift (one mul and add), and its numpy evaluation."""
    q = ints(rng, 0, 255, heads, seq, dim) if a_unsigned else ints(rng, -128, 127, heads, seq, dim)
    k = ints(rng, -128, 127, heads, dim, seq)
    mul = ints(rng, 1, 40, 1)
    nodes = [helper.make_node("MatMul", ["q", "k"], ["s"]), rqs("s", "y", div, levels, signed)]
    m = network(nodes, {"q": q.shape, "k": k.shape}, ["y"], {"y_mul": mul, "y_add": np.asarray([add])})
    want = dp.requant_shift(np.matmul(q, k), mul, add, div, levels, signed)
    return m, [q.astype(np.uint8 if a_unsigned else np.int8), k.astype(np.int8)], want


@pytest.mark.parametrize("a_unsigned, add, div, levels, signed", [
    (False, 300, 2**10, 256, True), (True, -70000, 2**14, 256, False), (False, 5, 3001, 255, True)])
def test_product_and_requant_fuse_and_match_deeploy_on_the_host(tmp_path: Path, a_unsigned: bool, add: int,
                                                                 div: int, levels: int, signed: bool) -> None:
    m, arrays, want = attention_scores(np.random.default_rng(div), a_unsigned, add, div, levels, signed)
    ops = fused_ops(tmp_path / "g", m, arrays)
    assert ops.count("matmul_rqs") == 1 and "matmul_s32" not in ops and "requant_shift" not in ops
    got = run(tmp_path, m, arrays, target="host")[0]
    assert np.array_equal(got, want) and len(np.unique(want)) > 20


# (q, k^T shapes, add per column, kernel): the pairs kernel (rows and columns in sets of four) and the blocked
# one with a row per column (six columns; one row, a decode step)
PER_COLUMN = [((2, 8, 12), (2, 12, 8), True, "mote_batch_matmul_pairs_requant_shift_s8"),
              ((1, 4, 8), (1, 8, 6), False, "mote_batch_matmul_requant_shift_cols_s8"),
              ((3, 5, 9), (3, 9, 6), True, "mote_batch_matmul_requant_shift_cols_s8"),
              ((2, 1, 16), (2, 16, 12), True, "mote_batch_matmul_requant_shift_cols_s8")]


@pytest.mark.parametrize("q_shape, k_shape, add_per_column, kernel", PER_COLUMN, ids=str)
@pytest.mark.parametrize("target", ["host", "rv32"])
def test_per_column_requant_fuses_and_matches_deeploy(tmp_path: Path, q_shape: tuple[int, ...],
                                                      k_shape: tuple[int, ...], add_per_column: bool, kernel: str,
                                                      target: str) -> None:
    """RequantShift with a mul (and an add) per column of the product: one matmul_rqs layer, exact."""
    rng = np.random.default_rng(sum(q_shape))
    q, k = ints(rng, 0, 255, *q_shape), ints(rng, -128, 127, *k_shape)
    cols = k_shape[-1]
    mul = ints(rng, 1, 40, cols)
    add = ints(rng, -2**18, 2**18, cols) if add_per_column else np.asarray([7000])
    nodes = [helper.make_node("MatMul", ["q", "k"], ["s"]), rqs("s", "y", 2**16)]
    m = network(nodes, {"q": q.shape, "k": k.shape}, ["y"], {"y_mul": mul, "y_add": add})
    arrays = [q.astype(np.uint8), k.astype(np.int8)]
    assert fused_ops(tmp_path / "g", m, arrays) == ["matmul_rqs"]
    want = dp.requant_shift(q @ k, mul, add, 2**16, 256, True)
    assert len(np.unique(want)) > 10
    assert np.array_equal(run(tmp_path, m, arrays, target=target)[0], want)
    if target == "rv32":
        path, npz = dp.save(tmp_path / "p", m, arrays)
        report = pipeline.run(path, target=Rv32(Rv32Config(cc="zig")), input_path=npz,
                              work_dir=tmp_path / "w").to_json()
        (layer,) = [layer for layer in report["layers"] if layer["op"] == "matmul_rqs"]
        assert layer["kernel"] == kernel


def test_on_the_virtual_platform_exact_and_under_4_5_instructions_per_mac(tmp_path: Path) -> None:
    """A 4-head, 32-token score matrix of 16-value heads: the fused layer at most 4.5 rv32 instructions per MAC
    (measured 4.0 by the pairs kernel, 4.6 by the blocked one; the int32 product and its requantization unfused:
    16.6)."""
    m, arrays, want = attention_scores(np.random.default_rng(8), True, -1000, heads=4, seq=32, dim=16)
    assert np.array_equal(run(tmp_path / "r", m, arrays, target="rv32")[0], want)
    path, npz = dp.save(tmp_path / "p", m, arrays)
    report = pipeline.run(path, target=Rv32(Rv32Config(cc="zig")), input_path=npz, work_dir=tmp_path / "w").to_json()
    (layer,) = [layer for layer in report["layers"] if layer["op"] == "matmul_rqs"]
    assert layer["kernel"] == "mote_batch_matmul_pairs_requant_shift_s8"
    assert layer["instructions"] <= 4.5 * layer["macs"]


# (channels, size, stride, filter, unsigned input, divisor, multipliers): the 32-bit shift rows in line; a divisor
# that is no power of two and multipliers of either sign take the rows' other kinds (an odd width too)
DEPTHWISE = [(32, 16, 1, 3, True, 2**12, (1, 99)), (12, 11, 2, 3, False, 2**12, (1, 99)),
             (8, 9, 1, 5, True, 2**12, (1, 99)), (6, 7, 1, 3, False, 3001, (-60, 60)),
             (5, 13, 1, 5, True, 2**13, (-40, 40))]


@pytest.mark.parametrize("channels, size, stride, k, unsigned, div, mul_range", DEPTHWISE)
def test_depthwise_and_requant_on_the_virtual_platform(tmp_path: Path, channels: int, size: int, stride: int, k: int,
                                                        unsigned: bool, div: int, mul_range: tuple[int, int]) -> None:
    """Depthwise convolutions and their RequantShift fused (mote_conv_grouped_requant_shift_s8): exact on rv32 for
    3x3 and 5x5 filters (the windows inside the input without bounds tests, two at a time for 3x3 at stride 1;
    the border windows over their inside taps), strides 1 and 2, padded; a 3x3 layer of 32 channels over 16x16
    in at most 10.5 instructions per MAC (measured 9.7; 14.4 before the border windows took their tap ranges and
    the 32-bit rows went in line; unfused 47.3)."""
    rng = np.random.default_rng(channels + k)
    x = ints(rng, 0, 255, 1, channels, size, size) if unsigned else ints(rng, -128, 127, 1, channels, size, size)
    w, b = ints(rng, -128, 127, channels, 1, k, k), ints(rng, -3000, 3000, channels)
    mul, add = ints(rng, *mul_range, channels, 1, 1), ints(rng, -999, 999, channels, 1, 1)
    pads = (k // 2,) * 4
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[k, k], pads=list(pads),
                              strides=[stride, stride], group=channels), rqs("c", "y", div)]
    m = network(nodes, {"x": x.shape}, ["y"], {"w": w, "b": b, "y_mul": mul, "y_add": add})
    want = dp.requant_shift(dp.conv(x, w, b, (stride, stride), pads, channels), mul[None], add[None], div, 256,
                            True)
    assert len(np.unique(want)) > 20
    arrays = [x.astype(np.uint8 if unsigned else np.int8)]
    assert fused_ops(tmp_path / "g", m, arrays) == ["conv2d_rqs"]
    assert np.array_equal(run(tmp_path / "h", m, arrays, target="host")[0], want)
    assert np.array_equal(run(tmp_path / "r", m, arrays, target="rv32")[0], want)
    if k == 3 and stride == 1 and channels == 32:
        path, npz = dp.save(tmp_path / "p", m, arrays)
        report = pipeline.run(path, target=Rv32(Rv32Config(cc="zig")), input_path=npz,
                              work_dir=tmp_path / "w").to_json()
        (layer,) = [layer for layer in report["layers"] if layer["op"] == "conv2d_rqs"]
        assert layer["kernel"] == "mote_conv_grouped_requant_shift_s8"
        assert layer["instructions"] <= 10.5 * layer["macs"]


def test_dsp_kernel_portable_c_matches_deeploy_sanitized(tmp_path: Path) -> None:
    """The DSP core's kernel for the fused layer (mote_batch_matmul_dsp_requant_shift_s8) in its portable C, built
    for the host with the sanitizers: exact with Deeploy's arithmetic (odd sequence and head sizes, an unsigned
    first operand); the Armv7E-M assembly runs in tests/targets/test_cortexm_dsp.py."""
    from mote.codegen.compile import compile_graph
    from mote.frontend.onnx import load_onnx_model
    from mote.ops.registry import Core
    from mote.reference import interpret
    from mote.targets.host import build_host

    m, arrays, want = attention_scores(np.random.default_rng(9), True, 700, heads=3, seq=7, dim=11)
    path, npz = dp.save(tmp_path / "p", m, arrays)
    model = load_onnx_model(path, input_path=npz)
    compiled = compile_graph(model.graph, core=Core.DSP)
    assert [layer.kernel for layer in compiled.layers if layer.op == "matmul_rqs"] == \
        ["mote_batch_matmul_dsp_requant_shift_s8"]
    feeds = model.inputs_from_file(npz)
    got = build_host(compiled, tmp_path / "h", sanitize=True).run(feeds)[0]
    expected = interpret(model.graph, feeds)
    assert all(np.array_equal(got[k], v) for k, v in expected.items())
    assert np.array_equal(model.onnx_outputs(got)[m.graph.output[0].name], want)
