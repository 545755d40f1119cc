"""Deeploy's integer ONNX networks as its users write them (float-typed integers, tensor attributes, inputs by
position in int8 / uint8 / int64 containers) against independent numpy evaluations of Deeploy's kernel
formulas (tests/frontend/deeploy_format.py): the reference interpreter for every operator, the generated C
on the host and on the rv32 virtual platform for a few networks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from mote.errors import MoteError
from tests.frontend import deeploy_format as dp
from tests.frontend.deeploy_format import network, rqs, run


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int) -> np.ndarray:
    return rng.integers(lo, hi + 1, shape).astype(np.int64)


def test_inputs_by_position_in_any_container_and_raw_int32_outputs(tmp_path: Path) -> None:
    """Two inputs as arr_0 (int8) and arr_1 (uint8 values in an int64 container), an extra array ignored; the
    Add's int32 result is the output (no RequantShift), saved as integers."""
    rng = np.random.default_rng(0)
    a, b = ints(rng, -128, 127, 1, 4, 5), ints(rng, 0, 255, 1, 4, 5)
    m = network([helper.make_node("Add", ["x", "y"], ["out"])], {"x": (1, 4, 5), "y": (1, 4, 5)}, ["out"], {})
    got = run(tmp_path, m, [a.astype(np.int8), b, np.zeros(3, np.int8)])
    assert got[0].dtype.kind == "i" and np.array_equal(got[0], a + b)


def test_input_types_are_inferred_from_the_values(tmp_path: Path) -> None:
    """Values beyond 8 bits (an int32 input) and float containers holding integers."""
    rng = np.random.default_rng(1)
    a, b = ints(rng, -5000, 5000, 2, 3), ints(rng, -7, 7, 2, 3)
    m = network([helper.make_node("Sub", ["x", "y"], ["out"])], {"x": (2, 3), "y": (2, 3)}, ["out"], {})
    assert np.array_equal(run(tmp_path, m, [a.astype(np.float32), b.astype(np.float64)])[0], a - b)


def test_non_integer_inputs_are_refused(tmp_path: Path) -> None:
    m = network([helper.make_node("Add", ["x", "y"], ["out"])], {"x": (2,), "y": (2,)}, ["out"], {"y": [1, 2]})
    m.graph.node[0].op_type = "RequantShift"  # an integer-dialect model
    with pytest.raises(MoteError, match="does not hold integers"):
        run(tmp_path, m, [np.asarray([0.5, 1.0], np.float32)])


@pytest.mark.parametrize("signed, key", [(True, "n_levels_out"), (False, "n_levels_out"), (True, "n_levels")])
def test_requant_shift_per_channel_and_per_tensor(tmp_path: Path, signed: bool, key: str) -> None:
    """RequantShift after a convolution: mul per channel as [C, 1, 1] (as Deeploy's exporters write it), add per
    tensor, div and the levels as tensor attributes; Deeploy's rounding (+ div/2, floor) and clamping."""
    rng = np.random.default_rng(2)
    x, w = ints(rng, -128, 127, 1, 3, 6, 6), ints(rng, -128, 127, 4, 3, 3, 3)
    mul, add = ints(rng, 1, 900, 4, 1, 1), ints(rng, -50000, 50000, 1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             rqs("c", "y", 2**16, 256, signed, key)]
    m = network(nodes, {"x": (1, 3, 6, 6)}, ["y"], {"w": w, "y_mul": mul, "y_add": add})
    want = dp.requant_shift(dp.conv(x, w, None, (1, 1), (1, 1, 1, 1)), mul[None], add, 2**16, 256, signed)
    got = run(tmp_path, m, [x.astype(np.int8)])[0]
    assert np.array_equal(got, want) and (got.min() >= 0 if not signed else got.min() < 0)


@pytest.mark.parametrize("n_levels, target", [(255, "reference"), (7, "reference"), (3, "host"), (255, "rv32")])
def test_odd_levels_clamp_as_deeploys_templates(tmp_path: Path, n_levels: int, target: str) -> None:
    """Signed RequantShift over an odd number of levels: Deeploy's templates clamp to [-(n // 2), n // 2 - 1]
    (255 levels: [-127, 126]), one level short of symmetric; after an int8 input (unfused) and after a
    convolution (fused into its output stage)."""
    rng = np.random.default_rng(n_levels)
    x, w = ints(rng, -128, 127, 1, 4, 5, 5), ints(rng, -127, 127, 8, 4, 3, 3)
    mul, add = ints(rng, 1, 99, 8, 1, 1), ints(rng, -9999, 9999, 1)
    nodes = [rqs("x", "r", 2**2, n_levels), helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3]),
             rqs("c", "y", 2**12, n_levels)]
    m = network(nodes, {"x": x.shape}, ["r", "y"], {"w": w, "y_mul": mul, "y_add": add, "r_mul": np.asarray([5]),
                                                    "r_add": np.asarray([1])})
    want_r = dp.requant_shift(x, 5, 1, 2**2, n_levels, True)
    want_y = dp.requant_shift(dp.conv(x, w, None, (1, 1), (0, 0, 0, 0)), mul[None], add, 2**12, n_levels, True)
    r, y = run(tmp_path, m, [x.astype(np.int8)], target=target)
    for got, want in ((r, want_r), (y, want_y)):
        assert want.max() == n_levels // 2 - 1 and want.min() == -(n_levels // 2)
        assert np.array_equal(got, want)


@pytest.mark.parametrize("case", ["regular_2d", "depthwise_2d", "pointwise", "strided_padded", "regular_1d",
                                  "depthwise_1d"])
def test_conv_raw_accumulators(tmp_path: Path, case: str) -> None:
    """Conv without RequantShift: the int32 accumulators are the output; unsigned input values."""
    rng = np.random.default_rng(3)
    c, o = 4, 4 if case.startswith("depthwise") else 6
    spatial = (9,) if case.endswith("1d") else (7, 6)
    k = (1,) * len(spatial) if case == "pointwise" else (3,) * len(spatial)
    group = c if case.startswith("depthwise") else 1
    stride = (2,) * len(spatial) if case == "strided_padded" else (1,) * len(spatial)
    pads = (1,) * 2 * len(spatial) if case == "strided_padded" else (0,) * 2 * len(spatial)
    x, w = ints(rng, 0, 255, 1, c, *spatial), ints(rng, -128, 127, o, c // group, *k)
    bias = ints(rng, -9999, 9999, o)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=list(k), strides=list(stride),
                            pads=list(pads), group=group)
    m = network([node], {"x": (1, c, *spatial)}, ["y"], {"w": w, "b": bias})
    assert np.array_equal(run(tmp_path, m, [x.astype(np.uint8)])[0], dp.conv(x, w, bias, stride, pads, group))


@pytest.mark.parametrize("trans_a, trans_b, alpha, beta, c_shape", [
    (0, 0, 1.0, 1.0, (8,)), (0, 1, 1.0, 1.0, (5, 8)), (0, 0, 2.0, 3.0, (5, 8)), (1, 1, 1.0, 1.0, (5, 1)),
    (1, 0, 3.0, 1.0, None)])
def test_gemm_variants(tmp_path: Path, trans_a: int, trans_b: int, alpha: float, beta: float,
                       c_shape: tuple[int, ...] | None) -> None:
    rng = np.random.default_rng(4)
    a = ints(rng, -128, 127, *((12, 5) if trans_a else (5, 12)))
    w = ints(rng, -128, 127, *((8, 12) if trans_b else (12, 8)))
    inits = {"w": w}
    inputs = ["a", "w"]
    if c_shape is not None:
        inits["c"] = ints(rng, -3000, 3000, *c_shape)
        inputs.append("c")
    node = helper.make_node("Gemm", inputs, ["y"], transA=trans_a, transB=trans_b, alpha=alpha, beta=beta)
    m = network([node], {"a": a.shape}, ["y"], inits)
    am, wm = (a.T if trans_a else a), (w.T if trans_b else w)
    want = int(alpha) * (am @ wm) + (0 if c_shape is None else int(beta) * inits["c"])
    assert np.array_equal(run(tmp_path, m, [a.astype(np.int8)])[0], want)


def test_gemm_requant_per_row(tmp_path: Path) -> None:
    """Gemm then RequantShift with mul/add per row ([M, 1]) and per column ([N])."""
    rng = np.random.default_rng(5)
    a, w, bias = ints(rng, -128, 127, 6, 10), ints(rng, -128, 127, 10, 7), ints(rng, -500, 500, 7)
    mul, add = ints(rng, 1, 300, 6, 1), ints(rng, -9000, 9000, 6, 1)
    mul2, add2 = ints(rng, 1, 99, 7), ints(rng, -900, 900, 7)
    nodes = [helper.make_node("Gemm", ["a", "w", "b"], ["g"]), rqs("g", "r", 2**12),
             helper.make_node("MatMul", ["r", "w2"], ["m"]), rqs("m", "y", 2**10, signed=False)]
    w2 = ints(rng, -128, 127, 7, 7)
    m = network(nodes, {"a": (6, 10)}, ["y"], {"w": w, "b": bias, "r_mul": mul, "r_add": add, "w2": w2,
                                              "y_mul": mul2, "y_add": add2})
    r = dp.requant_shift(a @ w + bias, mul, add, 2**12, 256, True)
    want = dp.requant_shift(r @ w2, mul2, add2, 2**10, 256, False)
    assert np.array_equal(run(tmp_path, m, [a])[0], want)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3, 4, 8), (2, 3, 8, 5)), ((4, 1, 4, 8), (4, 1, 8, 4)),
                                              ((1, 6, 8), (8, 8)), ((3, 4, 8), (1, 8, 2))])
def test_matmul_of_two_activations_batched(tmp_path: Path, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
                                           ) -> None:
    rng = np.random.default_rng(6)
    a, b = ints(rng, -128, 127, *a_shape), ints(rng, 0, 255, *b_shape)
    m = network([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": a_shape, "b": b_shape}, ["y"], {})
    assert np.array_equal(run(tmp_path, m, [a.astype(np.int8), b.astype(np.uint8)])[0], np.matmul(a, b))


def test_matmul_int32_operands_wrap_like_int32(tmp_path: Path) -> None:
    """int32 inputs (Deeploy's MatMul/Regular declares INT32): products summed in int32 arithmetic."""
    rng = np.random.default_rng(7)
    a, b = ints(rng, -40000, 40000, 1, 2, 3, 16), ints(rng, -40000, 40000, 1, 2, 16, 4)
    m = network([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": a.shape, "b": b.shape}, ["y"], {},
                output_type=TensorProto.INT32)
    got = run(tmp_path, m, [a.astype(np.int32), b.astype(np.int32)])[0]
    assert got.dtype == np.int32 and np.array_equal(got, dp.wrap32(np.matmul(a, b)))


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
def test_elementwise_with_and_without_requant(tmp_path: Path, op: str) -> None:
    rng = np.random.default_rng(8)
    a, b = ints(rng, -128, 127, 1, 3, 4), ints(rng, 0, 255, 1, 3, 4)
    mul, add = ints(rng, 1, 64, 1, 3, 1), ints(rng, -500, 500, 1)
    nodes = [helper.make_node(op, ["a", "b"], ["s"]), rqs("s", "y", 2**7, signed=True)]
    m = network(nodes, {"a": a.shape, "b": b.shape}, ["s", "y"], {"y_mul": mul, "y_add": add})
    exact = {"Add": a + b, "Sub": a - b, "Mul": a * b}[op]
    raw, y = run(tmp_path, m, [a.astype(np.int8), b.astype(np.uint8)])
    assert np.array_equal(raw, exact) and np.array_equal(y, dp.requant_shift(exact, mul, add, 2**7, 256, True))


def test_concat_of_mixed_types_and_an_empty_cache(tmp_path: Path) -> None:
    """Signed 8-bit, unsigned 8-bit and 32-bit inputs, and an empty input (a KV cache of length 0)."""
    rng = np.random.default_rng(9)
    a, b, c = ints(rng, -128, 127, 1, 2, 3, 4), ints(rng, 0, 255, 1, 2, 1, 4), ints(rng, -9999, 9999, 1, 2, 2, 4)
    empty = np.zeros((1, 2, 0, 4), np.int64)
    m = network([helper.make_node("Concat", ["e", "a", "b", "c"], ["y"], axis=-2)],
                {"e": (1, 2, 0, 4), "a": a.shape, "b": b.shape, "c": c.shape}, ["y"], {})
    got = run(tmp_path, m, [empty, a, b, c])[0]
    assert np.array_equal(got, np.concatenate([a, b, c], axis=2))


def test_movement_ops(tmp_path: Path) -> None:
    """Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Slice, Gather and Identity on unsigned values; nodes listed
    out of order (an Identity before the node producing its input), as some of Deeploy's tests are."""
    rng = np.random.default_rng(10)
    x = ints(rng, 0, 255, 1, 4, 6, 5)
    nodes = [helper.make_node("Identity", ["f"], ["out_id"]),
             helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
             helper.make_node("Reshape", ["t", "shape"], ["r"]),
             helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["s"]),
             helper.make_node("Unsqueeze", ["s", "ax0"], ["u"]),
             helper.make_node("Squeeze", ["u", "ax0"], ["q"]),
             helper.make_node("Gather", ["q", "idx"], ["g"], axis=1),
             helper.make_node("Flatten", ["q"], ["f"], axis=1)]
    inits = {"shape": np.asarray([1, 30, 4]), "starts": np.asarray([2, 1]), "ends": np.asarray([29, 4]),
             "axes": np.asarray([1, 2]), "steps": np.asarray([3, 1]), "ax0": np.asarray([0]), "idx": np.asarray(4)}
    m = network(nodes, {"x": x.shape}, ["g", "out_id"], {})
    for k, v in inits.items():
        m.graph.initializer.append(numpy_helper.from_array(v.astype(np.int64), k))
    s = x.transpose(0, 2, 3, 1).reshape(1, 30, 4)[:, 2:29:3, 1:4]
    g, f = run(tmp_path, m, [x.astype(np.uint8)])
    assert np.array_equal(g, s[:, 4]) and np.array_equal(f, s.reshape(1, -1))


@pytest.mark.parametrize("dims", [1, 2])
def test_max_pool_and_pad_with_attribute_pads(tmp_path: Path, dims: int) -> None:
    """Pad as Deeploy's exporters write it under opset 13 (pads and value as attributes), then MaxPool."""
    rng = np.random.default_rng(11)
    shape = (1, 3, 9) if dims == 1 else (1, 3, 8, 7)
    x = ints(rng, -128, 127, *shape)
    pads = [0, 0] + [1] * dims + [0, 0] + [2] * dims
    nodes = [helper.make_node("Pad", ["x"], ["p"], mode="constant", pads=pads, value=0.0),
             helper.make_node("MaxPool", ["p"], ["y"], kernel_shape=[3] * dims, strides=[2] * dims)]
    m = network(nodes, {"x": shape}, ["p", "y"], {})
    padded = np.pad(x, [(pads[i], pads[i + x.ndim]) for i in range(x.ndim)])
    p, y = run(tmp_path, m, [x.astype(np.int8)])
    assert np.array_equal(p, padded) and np.array_equal(y, dp.max_pool(padded, (3,) * dims, (2,) * dims))


@pytest.mark.parametrize("op, axes, keepdims", [("ReduceMean", (1,), 0), ("ReduceSum", (1,), 0),
                                                ("ReduceMean", (2, 3), 1), ("IntegerMean", (1,), 1),
                                                ("ReduceMean", (3,), 0)])
def test_reductions(tmp_path: Path, op: str, axes: tuple[int, ...], keepdims: int) -> None:
    """Sums exactly; means as Deeploy's template divides (lengths 8, 16 and the odd 5 here)."""
    rng = np.random.default_rng(12)
    x = ints(rng, -128, 127, 1, 8, 4, 5 if axes == (3,) else 4)
    m = network([helper.make_node(op, ["x"], ["y"], axes=list(axes), keepdims=keepdims)], {"x": x.shape}, ["y"],
                {})
    want = x.sum(axis=axes, keepdims=bool(keepdims)) if op == "ReduceSum" else dp.reduce_mean(x, axes,
                                                                                            bool(keepdims))
    assert np.array_equal(run(tmp_path, m, [x.astype(np.int8)])[0], want)


@pytest.mark.parametrize("target", ["reference", "host", "rv32"])
def test_a_mean_over_an_even_length_rounds_exact_halves_away_from_zero(tmp_path: Path, target: str) -> None:
    """Length 6 (not a power of two): Deeploy's template divides (sum + sign * 3) / 6 truncating, so a sum of
    -9 gives -2 (not -1, as rounding half up would) and 9 gives 2; the rows below hit every such tie."""
    rows = np.array([[-2, -2, -2, -1, -1, -1], [2, 2, 2, 1, 1, 1], [-128, -128, -128, -127, -127, -127],
                     [-1, -1, -1, 0, 0, 0], [5, -3, 0, 0, 0, 1], [-5, 3, 0, 0, 0, -1]], np.float32)
    x = rows.reshape(1, 6, 1, 6)
    m = network([helper.make_node("ReduceMean", ["x"], ["y"], axes=[3], keepdims=0)], {"x": x.shape}, ["y"], {})
    got = run(tmp_path, m, [x.astype(np.int8)], target)[0]
    assert np.array_equal(got, dp.reduce_mean(x, (3,), False))
    assert got.reshape(-1).tolist() == [-2, 2, -128, -1, 1, -1]


def _small_cnn(rng: np.random.Generator) -> tuple[object, list[np.ndarray], np.ndarray]:
    """Conv -> RQS (unsigned) -> MaxPool -> Flatten -> Gemm (transB) -> RQS, with the numpy expectation."""
    x, w, b = ints(rng, 0, 255, 1, 3, 8, 8), ints(rng, -128, 127, 4, 3, 3, 3), ints(rng, -2000, 2000, 4)
    mul, add = ints(rng, 1, 200, 4, 1, 1), ints(rng, -9000, 9000, 4, 1, 1)
    wg, bg = ints(rng, -128, 127, 5, 4 * 3 * 3), ints(rng, -900, 900, 5)
    mul2, add2 = ints(rng, 1, 64, 5), ints(rng, -900, 900, 5)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             rqs("c", "r", 2**15, signed=False), helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2],
                                                                  strides=[2, 2]),
             helper.make_node("Conv", ["p", "w3"], ["c3"], kernel_shape=[2, 2], strides=[2, 2]),
             rqs("c3", "r3", 2**10), helper.make_node("Flatten", ["r3"], ["f"]),
             helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], transB=1), rqs("g", "y", 2**9)]
    w3 = ints(rng, -128, 127, 4, 4, 2, 2)
    inits = {"w": w, "b": b, "r_mul": mul, "r_add": add, "w3": w3, "r3_mul": np.ones((4, 1, 1)) * 3,
             "r3_add": np.zeros(1), "wg": np.resize(wg, (5, 16)), "bg": bg, "y_mul": mul2, "y_add": add2}
    m = network(nodes, {"x": x.shape}, ["y"], inits)
    r = dp.requant_shift(dp.conv(x, w, b, (1, 1), (1, 1, 1, 1)), mul[None], add[None], 2**15, 256, False)
    p = dp.max_pool(r, (2, 2), (2, 2))
    r3 = dp.requant_shift(dp.conv(p, w3, None, (2, 2), (0, 0, 0, 0)), 3, 0, 2**10, 256, True)
    g = r3.reshape(1, -1) @ inits["wg"].T + bg
    return m, [x.astype(np.uint8)], dp.requant_shift(g, mul2, add2, 2**9, 256, True)


def test_small_cnn_on_the_host(tmp_path: Path) -> None:
    m, arrays, want = _small_cnn(np.random.default_rng(13))
    assert np.array_equal(run(tmp_path, m, arrays, target="host")[0], want)


def test_attention_like_block_on_the_host(tmp_path: Path) -> None:
    """Activation x activation MatMuls of requantized projections, batched over heads, and a Concat."""
    rng = np.random.default_rng(14)
    x = ints(rng, -128, 127, 1, 6, 8)
    wq, wk = ints(rng, -128, 127, 8, 8), ints(rng, -128, 127, 8, 8)
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]), rqs("q", "rq", 2**10),
             helper.make_node("MatMul", ["x", "wk"], ["k"]), rqs("k", "rk", 2**10),
             helper.make_node("Reshape", ["rq", "heads"], ["qh"]),
             helper.make_node("Reshape", ["rk", "heads"], ["kh"]),
             helper.make_node("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
             helper.make_node("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
             helper.make_node("MatMul", ["qt", "kt"], ["s"]), rqs("s", "y", 2**8)]
    inits = {"wq": wq, "wk": wk, "rq_mul": np.asarray([7.0]), "rq_add": np.asarray([0.0]),
             "rk_mul": np.asarray([5.0]), "rk_add": np.asarray([3.0]), "y_mul": np.asarray([3.0]),
             "y_add": np.asarray([-40.0])}
    m = network(nodes, {"x": x.shape}, ["y"], inits)
    m.graph.initializer.append(numpy_helper.from_array(np.asarray([1, 6, 2, 4]), "heads"))
    q = dp.requant_shift(x @ wq, 7, 0, 2**10, 256, True).reshape(1, 6, 2, 4).transpose(0, 2, 1, 3)
    k = dp.requant_shift(x @ wk, 5, 3, 2**10, 256, True).reshape(1, 6, 2, 4).transpose(0, 2, 3, 1)
    want = dp.requant_shift(q @ k, 3, -40, 2**8, 256, True)
    assert np.array_equal(run(tmp_path, m, [x.astype(np.int8)], target="host")[0], want)


def test_small_cnn_on_the_virtual_platform(tmp_path: Path) -> None:
    m, arrays, want = _small_cnn(np.random.default_rng(15))
    assert np.array_equal(run(tmp_path, m, arrays, target="rv32")[0], want)


def test_gemm_and_batched_matmul_on_the_virtual_platform(tmp_path: Path) -> None:
    rng = np.random.default_rng(16)
    a, b = ints(rng, -128, 127, 2, 3, 8), ints(rng, -30000, 30000, 2, 8, 4)
    c = ints(rng, -99, 99, 3, 4)
    nodes = [helper.make_node("MatMul", ["a", "b"], ["m"]), helper.make_node("Sub", ["m", "c"], ["y"])]
    m = network(nodes, {"a": a.shape, "b": b.shape}, ["y"], {"c": c})
    assert np.array_equal(run(tmp_path, m, [a.astype(np.int8), b], target="rv32")[0], np.matmul(a, b) - c)


def test_a_value_and_its_transpose_both_read(tmp_path: Path) -> None:
    """A KV-cache output read as it is and, transposed, by the attention MatMul (microLlama's K cache): both
    layouts of the one tensor are kept apart; the empty past cache is dropped from the Concat."""
    rng = np.random.default_rng(17)
    x, q = ints(rng, -128, 127, 1, 4, 6, 4), ints(rng, -128, 127, 1, 6, 4, 4)
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]),
             helper.make_node("Concat", ["past", "t"], ["c"], axis=-2), rqs("c", "k", 2),
             helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"])]
    m = network(nodes, {"x": x.shape, "past": (1, 6, 0, 4), "q": q.shape}, ["k", "s"],
                {"k_mul": np.ones(1), "k_add": np.zeros(1)})
    k, s = run(tmp_path, m, [x.astype(np.int8), np.zeros((1, 6, 0, 4), np.int64), q.astype(np.int8)])
    want = dp.requant_shift(x.transpose(0, 2, 1, 3), 1, 0, 2, 256, True)
    assert np.array_equal(k, want) and np.array_equal(s, q @ want.transpose(0, 1, 3, 2))


def test_gather_several_indices_and_an_embedding(tmp_path: Path) -> None:
    """Gather of constant indices (negative ones too) from an activation, and of run-time token ids from a
    constant table (an embedding)."""
    rng = np.random.default_rng(18)
    x, tokens = ints(rng, 0, 255, 1, 5, 6), ints(rng, 0, 9, 1, 4)
    table = ints(rng, -128, 127, 10, 6)
    nodes = [helper.make_node("Gather", ["x", "idx"], ["g"], axis=1),
             helper.make_node("Gather", ["table", "tokens"], ["e"], axis=0)]
    m = network(nodes, {"x": x.shape, "tokens": tokens.shape}, ["g", "e"], {"table": table})
    m.graph.initializer.append(numpy_helper.from_array(np.asarray([[4, 0], [-1, 2]], np.int64), "idx"))
    g, e = run(tmp_path, m, [x.astype(np.uint8), tokens])
    assert np.array_equal(g, x[:, [[4, 0], [4, 2]]]) and np.array_equal(e, table[tokens])


def test_mote_run_takes_and_writes_deeploy_files(tmp_path: Path) -> None:
    """`mote run network.onnx --input inputs.npz --save-outputs out.npz` as a Deeploy test runs: the outputs
    come back as integers under the output names, in the model's order and layout; too few arrays is one line."""
    import subprocess
    import sys

    rng = np.random.default_rng(19)
    x, w = ints(rng, 0, 255, 1, 2, 6), ints(rng, -128, 127, 3, 2, 3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3]), rqs("c", "y", 2**8, signed=False)]
    m = network(nodes, {"x": x.shape}, ["c", "y"], {"w": w, "y_mul": np.ones((3, 1)), "y_add": np.zeros((3, 1))})
    path, npz = dp.save(tmp_path, m, [x.astype(np.uint8)])
    out = tmp_path / "out.npz"
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(path), "--input", str(npz), "--save-outputs",
                           str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    saved = np.load(out)
    c = dp.conv(x, w, None, (1,), (0, 0))
    assert saved.files == ["c", "y"] and saved["c"].dtype.kind == "i"
    assert np.array_equal(saved["c"], c) and np.array_equal(saved["y"], dp.requant_shift(c, 1, 0, 2**8, 256, False))
    two = network([helper.make_node("Add", ["a", "b"], ["s"])], {"a": (2,), "b": (2,)}, ["s"], {})
    path, npz = dp.save(tmp_path / "two", two, [np.ones(2, np.int8)])
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(path), "--input", str(npz)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "by position" in proc.stderr


@pytest.mark.parametrize("values, levels, signed", [([0, 127], 256, False), ([0, 255], 256, False),
                                                    ([-1, 127], 256, True), ([-129, 3], 2**32, True),
                                                    ([0, 256], 2**32, True)])
def test_input_type_inference_as_deeploys_runner(values: list[int], levels: int, signed: bool) -> None:
    """The narrowest type, unsigned before signed (Deeploy's minimal integer type); wider ones as 32 bits."""
    from mote.frontend.onnx.integer_io import infer_type

    t = infer_type(np.asarray(values, np.float64))
    assert (t.n_levels, t.signed) == (levels, signed)


def test_matmul_integer_as_deeploy_maps_it(tmp_path: Path) -> None:
    """MatMulInteger (zero points 0) is Deeploy's MatMul: the exact product, here requantized."""
    rng = np.random.default_rng(20)
    a, b = ints(rng, -128, 127, 3, 6), ints(rng, 0, 255, 6, 5)
    nodes = [helper.make_node("MatMulInteger", ["a", "b", "za"], ["m"]), rqs("m", "y", 2**9)]
    m = network(nodes, {"a": a.shape, "b": b.shape}, ["y"], {"za": np.zeros(1), "y_mul": np.asarray([3.0]),
                                                           "y_add": np.asarray([0.0])})
    want = dp.requant_shift(a @ b, 3, 0, 2**9, 256, True)
    assert np.array_equal(run(tmp_path, m, [a.astype(np.int8), b.astype(np.uint8)])[0], want)
