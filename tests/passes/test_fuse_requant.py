"""fuse_requant: integer-dialect conv / Gemm + RequantShift pairs on the blocked kernels, bit-exact."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.frontend.onnx import load_onnx_model
from mote.passes.fuse_requant import fuse_requant
from mote.reference import interpret
from tests.frontend import deeploy_format as dp
from tests.frontend.deeploy_format import network, rqs, run


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int) -> np.ndarray:
    return rng.integers(lo, hi + 1, shape).astype(np.int64)


def kws_cnn(rng: np.random.Generator, time: int = 49, mfcc: int = 10, ch: int = 16) -> tuple[onnx.ModelProto,
                                                                                               list[np.ndarray],
                                                                                               np.ndarray]:
    """A keyword-spotting CNN as Deeploy's exporter writes it: Conv (10x4, stride 2) -> RQS -> Conv 3x3 ->
    RQS -> Conv 1x1 -> RQS -> Flatten -> Gemm -> RQS, and its numpy evaluation."""
    x = ints(rng, -128, 127, 1, 1, time, mfcc)
    w1, w2, w3 = ints(rng, -127, 127, ch, 1, 10, 4), ints(rng, -127, 127, ch, ch, 3, 3), ints(rng, -127, 127, ch, ch,
                                                                                                 1, 1)
    b1, b2 = ints(rng, -5000, 5000, ch), ints(rng, -5000, 5000, ch)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[10, 4], strides=[2, 2],
                              pads=[4, 1, 5, 2]), rqs("c1", "r1", 2**12),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             rqs("c2", "r2", 2**14, signed=False),
             helper.make_node("Conv", ["r2", "w3"], ["c3"], kernel_shape=[1, 1]), rqs("c3", "r3", 2**13),
             helper.make_node("Flatten", ["r3"], ["f"])]
    h, w = (time + 9 - 10) // 2 + 1, (mfcc + 3 - 4) // 2 + 1
    wg, bg = ints(rng, -127, 127, 12, ch * h * w), ints(rng, -20000, 20000, 12)
    nodes += [helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], transB=1), rqs("g", "y", 2**16)]
    inits = {"w1": w1, "b1": b1, "r1_mul": ints(rng, 1, 60, ch, 1, 1), "r1_add": ints(rng, -3000, 3000, ch, 1, 1),
             "w2": w2, "b2": b2, "r2_mul": ints(rng, 1, 90, ch, 1, 1), "r2_add": ints(rng, -9000, 9000, ch, 1, 1),
             "w3": w3, "r3_mul": ints(rng, 1, 200, ch, 1, 1), "r3_add": np.zeros(1),
             "wg": wg, "bg": bg, "y_mul": ints(rng, 1, 300, 12), "y_add": ints(rng, -9000, 9000, 12)}
    m = network(nodes, {"x": x.shape}, ["y"], inits)
    r1 = dp.requant_shift(dp.conv(x, w1, b1, (2, 2), (4, 1, 5, 2)), inits["r1_mul"][None], inits["r1_add"][None],
                          2**12, 256, True)
    r2 = dp.requant_shift(dp.conv(r1, w2, b2, (1, 1), (1, 1, 1, 1)), inits["r2_mul"][None], inits["r2_add"][None],
                          2**14, 256, False)
    r3 = dp.requant_shift(dp.conv(r2, w3, None, (1, 1), (0, 0, 0, 0)), inits["r3_mul"][None], 0, 2**13, 256, True)
    g = r3.reshape(1, -1) @ wg.T + bg
    want = dp.requant_shift(g, inits["y_mul"], inits["y_add"], 2**16, 256, True)
    return m, [x.astype(np.int8)], want


def fused_ops(tmp: Path, m: onnx.ModelProto, arrays: list[np.ndarray]) -> list[str]:
    path, npz = dp.save(tmp, m, arrays)
    graph = load_onnx_model(path, input_path=npz).graph
    return [n.op for n in fuse_requant(graph).nodes]


def test_kws_cnn_layers_fuse_and_stay_bit_exact_on_the_host(tmp_path: Path) -> None:
    m, arrays, want = kws_cnn(np.random.default_rng(1))
    ops = fused_ops(tmp_path / "g", m, arrays)
    assert ops.count("conv2d_rqs") == 4 and "conv2d_s32" not in ops and "requant_shift" not in ops
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)


def test_the_pass_leaves_the_graph_given_unchanged(tmp_path: Path) -> None:
    m, arrays, _ = kws_cnn(np.random.default_rng(2), time=9, mfcc=6, ch=4)
    path, npz = dp.save(tmp_path, m, arrays)
    graph = load_onnx_model(path, input_path=npz).graph
    before = [n.op for n in graph.nodes]
    fused = fuse_requant(graph)
    assert [n.op for n in graph.nodes] == before and fused is not graph
    feeds = load_onnx_model(path, input_path=npz).inputs_from_file(npz)
    a, b = interpret(graph, feeds), interpret(fused, feeds)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def one_layer(rng: np.random.Generator, mul: np.ndarray, add: np.ndarray, div: int, n_levels: int, signed: bool,
              group: int = 1, weights: tuple[int, int] = (-127, 127), out: int = 12
              ) -> tuple[onnx.ModelProto, list[np.ndarray], np.ndarray]:
    x = ints(rng, -128, 127, 1, 8, 6, 7)
    w, b = ints(rng, *weights, out, 8 // group, 3, 3), ints(rng, -30000, 30000, out)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 0, 1, 2], group=group),
             rqs("c", "y", div, n_levels, signed)]
    m = network(nodes, {"x": x.shape}, ["y"], {"w": w, "b": b, "y_mul": mul, "y_add": add})
    acc = dp.conv(x, w, b, (1, 1), (1, 0, 1, 2), group)
    want = dp.requant_shift(acc, mul.reshape(1, -1, 1, 1), add.reshape(1, -1, 1, 1), div, n_levels, signed)
    return m, [x.astype(np.int8)], want


EDGES = {
    "mul and add extremes": (lambda r: np.asarray([2**31 - 128, 1, 0, 2**30] * 3), lambda r: np.asarray(
        [-(2**31) + 128, 2**31 - 128, 5, -7] * 3), 2**31, 256, True),
    "divisor not a power of two": (lambda r: ints(r, 1, 999, 12), lambda r: ints(r, -99999, 99999, 12), 300007, 256,
                                   True),
    "odd divisor, negative mul": (lambda r: ints(r, -999, 999, 12), lambda r: ints(r, -9999, 9999, 12), 77777, 256,
                                  True),
    "unsigned, 16 levels": (lambda r: ints(r, 1, 99, 12), lambda r: ints(r, -99999, 99999, 12), 2**15, 16, False),
    "signed, 64 levels, one mul": (lambda r: np.asarray([41]), lambda r: np.asarray([1234]), 2**13, 64, True),
    "divisor 1": (lambda r: ints(r, 0, 1, 12), lambda r: ints(r, -9, 9, 12), 1, 256, False),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_output_stage_edges_fuse_and_match_deeploy(tmp_path: Path, case: str) -> None:
    mul, add, div, n_levels, signed = EDGES[case]
    rng = np.random.default_rng(len(case))
    mul_v, add_v = mul(rng), add(rng)
    m, arrays, want = one_layer(rng, mul_v, add_v, div, n_levels, signed)
    assert "conv2d_rqs" in fused_ops(tmp_path / "g", m, arrays)
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)


@pytest.mark.parametrize("group, weights", [(8, (-127, 127)), (2, (-128, 127)), (8, (-128, -100))])
def test_grouped_and_depthwise_fuse_onto_their_own_loops(tmp_path: Path, group: int,
                                                          weights: tuple[int, int]) -> None:
    """Depthwise (a multiplier of 2 here) and grouped convolutions and their RequantShift: one conv2d_rqs layer
    on mote_conv_grouped_requant_shift_s8 (weights of -128 too), exact."""
    rng = np.random.default_rng(group)
    m, arrays, want = one_layer(rng, ints(rng, 1, 99, 16), ints(rng, -999, 999, 16), 2**12, 256, True, group,
                                weights, out=16)
    ops = fused_ops(tmp_path / "g", m, arrays)
    assert ops == ["conv2d_rqs"]
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)


def test_weights_of_minus_128_take_the_split_weights_kernel(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    m, arrays, want = one_layer(rng, ints(rng, 1, 99, 12), ints(rng, -999, 999, 12), 2**12, 256, False,
                                weights=(-128, -100))
    assert "conv2d_rqs" in fused_ops(tmp_path / "g", m, arrays)
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)
    assert np.array_equal(run(tmp_path / "rv32", m, arrays, target="rv32")[0], want)


@pytest.mark.parametrize("bias_first", [True, False])
def test_a_matmul_bias_added_before_the_requant_joins_the_fused_layer(tmp_path: Path, bias_first: bool) -> None:
    """MatMul -> Add(constant per column) -> RequantShift, as Deeploy's linear layers come."""
    rng = np.random.default_rng(6)
    x, w = ints(rng, -128, 127, 1, 6, 16), ints(rng, -128, 127, 16, 12)
    bias = ints(rng, -99999, 99999, 1, 1, 12)
    add_in = ["bias", "mm"] if bias_first else ["mm", "bias"]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", add_in, ["s"]),
             rqs("s", "y", 2**11)]
    inits = {"w": w, "bias": bias, "y_mul": ints(rng, 1, 99, 12), "y_add": ints(rng, -999, 999, 12)}
    m = network(nodes, {"x": x.shape}, ["y"], inits)
    want = dp.requant_shift(x @ w + bias, inits["y_mul"], inits["y_add"], 2**11, 256, True)
    ops = fused_ops(tmp_path / "g", m, arrays := [x.astype(np.int8)])
    assert "conv2d_rqs" in ops and "add_s32" not in ops and "requant_shift" not in ops
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)


def test_kws_cnn_on_the_virtual_platform(tmp_path: Path) -> None:
    m, arrays, want = kws_cnn(np.random.default_rng(3), time=17, mfcc=8, ch=8)
    assert np.array_equal(run(tmp_path, m, arrays, target="rv32")[0], want)


def test_output_stage_edges_on_the_virtual_platform(tmp_path: Path) -> None:
    for k, case in enumerate(("mul and add extremes", "divisor not a power of two", "odd divisor, negative mul")):
        mul, add, div, n_levels, signed = EDGES[case]
        rng = np.random.default_rng(k)
        m, arrays, want = one_layer(rng, mul(rng), add(rng), div, n_levels, signed)
        assert np.array_equal(run(tmp_path / str(k), m, arrays, target="rv32")[0], want)


def test_rows_take_the_32_bit_kind_where_the_sum_fits_and_64_bits_elsewhere() -> None:
    from mote.ops.requant_shift import RequantShiftParams
    from mote.ops.requant_stage import REQUANT_SHIFT_32_KIND, REQUANT_SHIFT_KIND, requant_shift_rows

    def kinds(mul: list[int], add: list[int], divisor: int) -> list[int]:
        shift = divisor.bit_length() - 1 if divisor & (divisor - 1) == 0 else -1
        p = RequantShiftParams(len(mul), len(mul), 0, 0, -128, 127, divisor, shift, np.asarray(mul, np.int32),
                               np.asarray(add, np.int32))
        return [int(k) for k in requant_shift_rows(p, len(mul))[:, 1]]

    assert kinds([37, 5], [-300, 9], 2**12) == [REQUANT_SHIFT_32_KIND] * 2
    assert kinds([37], [-300], 3001) == [REQUANT_SHIFT_32_KIND + 1]
    # 256 levels of a divisor 2^31 span 2^39: 64 bits; a negative multiplier is not monotone: 64 bits
    assert kinds([2**30, -5], [7, 0], 2**31) == [REQUANT_SHIFT_KIND + 32, REQUANT_SHIFT_KIND + 32]


def test_a_target_short_of_flash_for_the_pair_words_gets_the_unfused_layers(tmp_path: Path) -> None:
    from mote.codegen.compile import compile_graph
    from mote.ops.registry import Core
    from mote.pipeline import prepare
    from mote.targets.rv32.config import Rv32Config
    from mote.targets.rv32.target import Rv32

    m, arrays, _ = kws_cnn(np.random.default_rng(8), time=17, mfcc=8, ch=8)
    path, npz = dp.save(tmp_path, m, arrays)
    graph = load_onnx_model(path, input_path=npz).graph
    fused, plain = compile_graph(graph, core=Core.SCALAR), compile_graph(graph, core=Core.SCALAR, fuse=False)
    assert fused.weights_bytes > plain.weights_bytes
    for flash, want in ((fused.weights_bytes, "conv2d_rqs"), (fused.weights_bytes - 1, "conv2d_s32")):
        compiled = prepare(path, Rv32(Rv32Config(flash_bytes=flash)), None, input_path=npz)[1]
        assert want in [n.op for n in compiled.graph.nodes], flash
