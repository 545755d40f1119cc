"""Float islands of QDQ models: ops onnxruntime's quantizer leaves in float between DequantizeLinear and
QuantizeLinear, and a Softmax left in float before a graph output, run as mote float32 ops; QuantizeLinear
rounds halves to even as onnxruntime does.

Each island sits between two Concats of a tensor with itself, which both runtimes compute exactly, so what is
measured is the island alone: identical outputs where no transcendental function is computed, and in practice
for exp, log and tanh too (their ULP differences never cross a rounding boundary here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mote.errors import UnsupportedError
from mote.frontend.onnx import convert
from tests.frontend.onnx_exporters import ops, quantize, run_both, ulps
from tests.frontend.onnx_util import model
from tests.frontend.test_onnx_exporters import chain, lsb_diff

N = helper.make_node
F = np.float32


def island(nodes: list, inits: dict | None = None, shape: tuple[int, ...] = (1, 4, 6, 5)) -> onnx.ModelProto:
    """x -> Concat(x, x) -> nodes (reading a, writing z) -> Concat(z, z) -> y: the quantizer puts a
    DequantizeLinear before the island and a QuantizeLinear after it."""
    return model([N("Concat", ["x", "x"], ["a"], axis=1), *nodes, N("Concat", ["z", "z"], ["y"], axis=1)],
                 {"x": shape}, ["y"], inits or {})


ISLANDS = {
    "tanh": lambda: island([N("Tanh", ["a"], ["z"])]),
    "exp": lambda: island([N("Exp", ["a"], ["z"])]),
    "log_sqrt_abs": lambda: island([N("Abs", ["a"], ["b"]), N("Sqrt", ["b"], ["c"]), N("Log", ["c"], ["z"])]),
    "softsign_div": lambda: island([N("Abs", ["a"], ["b"]), N("Sub", ["b", "m1"], ["c"]), N("Div", ["a", "c"], ["z"])],
                                   {"m1": np.array(-1.0, F)}),
    "pow2_reduce_mean": lambda: island([N("Pow", ["a", "two"], ["b"]), N("ReduceMean", ["b"], ["z"], axes=[1])],
                                       {"two": np.array(2.0, F)}),
    "reduce_sum_unsqueeze": lambda: island([N("ReduceSum", ["a", "ax"], ["b"], keepdims=0),
                                            N("Unsqueeze", ["b", "ax"], ["z"])], {"ax": np.array([3], np.int64)}),
    "leaky_relu": lambda: island([N("LeakyRelu", ["a"], ["z"], alpha=0.1)]),
    "hard_sigmoid": lambda: island([N("HardSigmoid", ["a"], ["z"], alpha=0.3, beta=0.4)]),
    "hard_swish": lambda: model([N("Concat", ["x", "x"], ["a"], axis=1), N("HardSwish", ["a"], ["z"]),
                                 N("Concat", ["z", "z"], ["y"], axis=1)], {"x": (1, 4, 6, 5)}, ["y"], opset=14),
    "neg_clamp_reciprocal": lambda: island([N("Neg", ["a"], ["b"]), N("Max", ["b", "lo"], ["c"]),
                                            N("Min", ["c", "hi"], ["d"]), N("Reciprocal", ["d"], ["z"])],
                                           {"lo": np.array(0.25, F), "hi": np.array(2.0, F)}),
}


TABLED = {"tanh", "exp", "log_sqrt_abs", "softsign_div", "leaky_relu", "hard_sigmoid", "hard_swish",
          "neg_clamp_reciprocal"}


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
@pytest.mark.parametrize("name", sorted(ISLANDS))
def test_float_island_matches_onnxruntime(name: str, uint8: bool, tmp_path: Path) -> None:
    rng = np.random.default_rng(len(name))
    q = quantize(ISLANDS[name](), rng, uint8=uint8)
    graph = convert(q, "t").graph
    kinds = [n.op for n in graph.nodes]
    if name in TABLED:  # elementwise of one quantized tensor: one table (mote.frontend.onnx.tables)
        assert kinds.count("table_lookup") == 1 and kinds.count("dequantize") == 1, kinds
    else:
        assert kinds[2] == "dequantize" and kinds.count("quantize") == 2 and kinds.count("dequantize") == 2, kinds
    worst, differ = lsb_diff(q, seeds=3, host=tmp_path if not uint8 else None)
    assert worst == 0, (worst, differ)


def test_ops_mote_also_runs_quantized_chained_between_float_ops(tmp_path: Path) -> None:
    """Sigmoid, Add and Mul kept out of quantization (nodes_to_exclude) between float ops, all a function of one
    quantized tensor: one table (mote.frontend.onnx.tables)."""
    rng = np.random.default_rng(6)
    nodes = [N("Sigmoid", ["a"], ["s"], name="sigmoid"), N("Tanh", ["s"], ["t"]),
             N("Add", ["t", "a"], ["u"], name="add"), N("Mul", ["u", "t"], ["v"], name="mul"),
             N("Relu", ["v"], ["z"], name="relu")]
    q = quantize(island(nodes), rng, exclude=["sigmoid", "add", "mul", "relu"])
    kinds = [n.op for n in convert(q, "t").graph.nodes]
    assert kinds.count("table_lookup") == 1 and kinds.count("dequantize") == 1, kinds
    worst, differ = lsb_diff(q, seeds=3, host=tmp_path)
    assert worst <= 1 and differ <= 0.01, (worst, differ)


# The largest difference from onnxruntime of a float op's result read in float (a float graph output), in ULP:
# onnxruntime's own approximations of exp, log, tanh, the logistic function, sin, cos and (Eigen's) reciprocal;
# measured on 24 sets of 800 normal inputs: 17 for Sigmoid (in its tail), 3 for Tanh and Log, 1 for the others.
FLOAT_OUTPUT_ULP = {"Tanh": 3, "Exp": 1, "Sigmoid": 20, "Log": 3, "Sin": 1, "Cos": 1, "Reciprocal": 1, "Sqrt": 0,
                    "Neg": 0, "LeakyRelu": 0, "HardSigmoid": 0, "HardSwish": 0}


@pytest.mark.parametrize("op", sorted(FLOAT_OUTPUT_ULP))
def test_float_output_of_a_float_op(op: str) -> None:
    rng = np.random.default_rng(len(op))
    first = [N("Abs", ["a"], ["b"])] if op in ("Sqrt", "Log") else [N("Identity", ["a"], ["b"])]
    f = model([N("Concat", ["x", "x"], ["a"], axis=1), *first, N(op, ["b"], ["y"], name="op")], {"x": (2, 4, 50)},
              ["y"], opset=14)
    q = quantize(f, rng, exclude=["op"])
    conv, results = run_both(q, seeds=4)
    assert conv.graph.outputs[0].dtype.value == "float32"
    worst = max(int(ulps(ours[k], theirs[k]).max()) for ours, theirs in results for k in ours)
    assert worst <= FLOAT_OUTPUT_ULP[op], worst


def test_layernorm_pieces(tmp_path: Path) -> None:
    """LayerNormalization as exporters decompose it: the quantizer quantizes its Add and Mul (they run
    quantized, within 1 LSB of onnxruntime), the rest stays float."""
    rng = np.random.default_rng(5)
    nodes = [N("ReduceMean", ["a"], ["m"], axes=[-1]), N("Sub", ["a", "m"], ["d"]), N("Pow", ["d", "two"], ["d2"]),
             N("ReduceMean", ["d2"], ["v"], axes=[-1]), N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]),
             N("Div", ["d", "s"], ["n"]), N("Mul", ["n", "g"], ["ng"]), N("Add", ["ng", "bias"], ["z"])]
    inits = {"two": np.array(2.0, F), "eps": np.array(1e-5, F), "g": rng.normal(size=5).astype(F),
             "bias": rng.normal(size=5).astype(F)}
    q = quantize(island(nodes, inits), rng)
    kinds = [n.op for n in convert(q, "t").graph.nodes]
    assert {"mean", "sub", "square", "sqrt", "div"} <= set(kinds) and kinds.count("dequantize") >= 2
    worst, differ = lsb_diff(q, seeds=3, host=tmp_path)
    assert worst <= 1 and differ <= 0.01, (worst, differ)


@pytest.mark.parametrize("shape, bias", [((2, 3, 16), True), ((1, 2, 100), False)])
def test_layer_normalization(shape: tuple[int, ...], bias: bool, tmp_path: Path) -> None:
    """LayerNormalization (opset 17), which the quantizer wraps in DequantizeLinear / QuantizeLinear, runs as
    mote's integer kernel (mote.ops.layer_norm_int; its float form, in the order of onnxruntime's CPU kernel, where
    a float op takes the result)."""
    rng = np.random.default_rng(shape[-1])
    width = shape[-1]
    inputs = ["a", "scale", "bias"] if bias else ["a", "scale"]
    inits = {"scale": rng.normal(size=width).astype(F), "bias": rng.normal(size=width).astype(F)}
    if not bias:
        del inits["bias"]
    f = model([N("Concat", ["x", "x"], ["a"], axis=1), N("LayerNormalization", inputs, ["z"], epsilon=1e-3),
               N("Concat", ["z", "z"], ["y"], axis=1)], {"x": shape}, ["y"], inits, opset=17)
    q = quantize(f, rng)
    assert "LayerNormalization" in ops(q)
    kinds = [n.op for n in convert(q, "t").graph.nodes]
    assert "layer_norm" in kinds and not {"mean", "square", "sqrt", "div"} & set(kinds)
    worst, differ = lsb_diff(q, seeds=3, host=tmp_path if bias else None)
    assert worst <= 1 and differ <= 0.01, (worst, differ)


def test_quantize_linear_rounds_halves_to_even(tmp_path: Path) -> None:
    """Exact ties (a power-of-two scale), signed zeros, saturation: as onnxruntime, in the reference and in C."""
    nodes = [N("QuantizeLinear", ["x", "s", "zp"], ["y"])]
    m = model(nodes, {"x": (2, 160)}, ["y"], {"s": np.array(2.0**-5, F), "zp": np.array(-3, np.int8)},
              output_type=TensorProto.INT8)
    conv = convert(m, "t")
    assert conv.graph.nodes[0].attrs["round_half_even"]
    x = ((np.arange(-160, 160) + 0.5) * 2.0**-5).astype(F)
    x[:4] = [-0.0, 0.0, 1e30, -1e30]
    from mote.codegen.compile import compile_graph
    from mote.frontend.onnx.compare import onnx_outputs
    from mote.reference import interpret
    from mote.targets.host import build_host

    inputs = {"x": x.reshape(2, 160)}
    want = onnx_outputs(m, conv, inputs)["y"]
    assert np.array_equal(interpret(conv.graph, inputs)["y"], want)
    got = build_host(compile_graph(conv.graph), tmp_path / "p", sanitize=True).run(inputs)[0]["y"]
    assert np.array_equal(got, want)


# -- a Softmax left in float before the graph output -------------------------------------------------------------------

# mote's float softmax keeps TFLite Micro's order (exp, a left-to-right sum, one division); onnxruntime's MLAS kernel
# has its own exp approximation, sums in another order and multiplies by the sum's reciprocal, so the difference
# grows with the row: measured at most 4 ULP on rows of 6 to 16 values, 6 on the legacy opsets' flattened rows of
# 120 (and 20 on rows of 1000, not tested here).
SOFTMAX_ULP = 8


@pytest.mark.parametrize("opset, axis, shape", [(13, -1, (2, 8)), (13, 1, (1, 3, 4, 5)), (11, 1, (1, 3, 4, 5))])
def test_dequantized_softmax_output(opset: int, axis: int, shape: tuple[int, ...], tmp_path: Path) -> None:
    rng = np.random.default_rng(opset + axis)
    f = model([N("Concat", ["x", "x"], ["g"], axis=1), N("Softmax", ["g"], ["y"], axis=axis, name="softmax")],
              {"x": shape}, ["y"], opset=opset)
    q = quantize(f, rng, exclude=["softmax"])  # onnxruntime quantizes Softmax unless told not to
    assert ops(q)[-2:] == ["DequantizeLinear", "Softmax"]
    conv, results = run_both(q, seeds=10, host=tmp_path if opset == 13 and axis == 1 else None)
    assert conv.graph.nodes[-1].op in ("softmax", "reshape") and conv.graph.outputs[0].dtype.value == "float32"
    worst = max(int(ulps(ours[k], theirs[k]).max()) for ours, theirs in results for k in ours)
    assert worst <= SOFTMAX_ULP, worst


@pytest.mark.parametrize("opset, axis, shape", [(13, -1, (2, 8)), (11, 1, (1, 3, 4, 5)), (13, -1, (2, 500))])
def test_dequantized_log_softmax_output(opset: int, axis: int, shape: tuple[int, ...]) -> None:
    """LogSoftmax, which the quantizer leaves in float: mote's float log_softmax, measured at most 3 ULP from
    onnxruntime's (rows up to 1000)."""
    rng = np.random.default_rng(opset - axis)
    f = model([N("Concat", ["x", "x"], ["g"], axis=1), N("LogSoftmax", ["g"], ["y"], axis=axis)], {"x": shape}, ["y"],
              opset=opset)
    q = quantize(f, rng)
    assert ops(q)[-2:] == ["DequantizeLinear", "LogSoftmax"]
    conv, results = run_both(q, seeds=4)
    assert "log_softmax" in [n.op for n in conv.graph.nodes]
    assert max(int(ulps(ours[k], theirs[k]).max()) for ours, theirs in results for k in ours) <= 4


def test_float_softmax_after_a_reshape() -> None:
    """DequantizeLinear -> Softmax -> Reshape -> output: the reshape moves float32 values."""
    rng = np.random.default_rng(9)
    f = model([N("Concat", ["x", "x"], ["g"], axis=1), N("Softmax", ["g"], ["s"], name="softmax"),
               N("Reshape", ["s", "shape"], ["y"])], {"x": (2, 6)}, ["y"], {"shape": np.array([-1], np.int64)})
    q = quantize(f, rng, exclude=["softmax"])
    conv, results = run_both(q, seeds=3)
    assert conv.graph.outputs[0].shape == (24,)
    assert max(int(ulps(ours[k], theirs[k]).max()) for ours, theirs in results for k in ours) <= SOFTMAX_ULP


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
def test_qlinear_leaky_relu(uint8: bool) -> None:
    """com.microsoft QLinearLeakyRelu (QOperator) runs in float between its scales: onnxruntime's table exactly."""
    rng = np.random.default_rng(12)
    q = quantize(island([N("LeakyRelu", ["a"], ["z"], alpha=0.2)]), rng, "qoperator", uint8)
    assert "QLinearLeakyRelu" in ops(q)
    worst, _ = lsb_diff(q, seeds=3)
    assert worst == 0


def test_qlinear_softmax() -> None:
    """onnxruntime's QOperator format makes com.microsoft QLinearSoftmax: mote's int8 softmax, within 1 LSB."""
    rng = np.random.default_rng(10)
    f = model([N("Concat", ["x", "x"], ["g"], axis=1), N("Softmax", ["g"], ["y"])], {"x": (2, 8)}, ["y"])
    q = quantize(f, rng, "qoperator")
    assert "QLinearSoftmax" in ops(q)
    worst, _ = lsb_diff(q, seeds=3)
    assert worst <= 1


# -- what mote cannot run: one line, naming the node ------------------------------------------------------------------

def error(m: onnx.ModelProto) -> str:
    with pytest.raises(UnsupportedError) as info:
        convert(m, "net")
    assert "\n" not in str(info.value)
    return str(info.value)


def test_pow_by_another_exponent() -> None:
    """On a quantized tensor any exponent is a table (mote.frontend.onnx.tables); where the float form is needed
    (a float op reads the result), Pow takes exponents 1 and 2 only."""
    cube = island([N("Pow", ["a", "three"], ["z"], name="cube")], {"three": np.array(3.0, F)})
    q = quantize(cube, np.random.default_rng(1))
    assert "table_lookup" in [n.op for n in convert(q, "t").graph.nodes]
    assert lsb_diff(q, seeds=2)[0] <= 1
    floating = model([N("Concat", ["x", "x"], ["a"], axis=1), N("Pow", ["a", "three"], ["p"], name="cube"),
                      N("ReduceMean", ["p"], ["z"], axes=[1]), N("Concat", ["z", "z"], ["y"], axis=1)],
                     {"x": (1, 4, 6, 5)}, ["y"], {"three": np.array(3.0, F)})
    message = error(quantize(floating, np.random.default_rng(1)))
    assert "'cube'" in message and "exponent 1 or 2" in message


def test_float_op_on_an_unquantized_convolution() -> None:
    """A Conv whose output never gets a QuantizeLinear cannot feed a float op: mote computes convolutions
    quantized only."""
    rng = np.random.default_rng(2)
    f = model([N("Conv", ["x", "w"], ["c"], name="conv"), N("Tanh", ["c"], ["t"], name="tanh"),
               N("Concat", ["t", "t"], ["y"], axis=1)], {"x": (1, 3, 4, 4)}, ["y"],
              {"w": rng.normal(size=(2, 3, 1, 1)).astype(F)})
    q = quantize(f, rng)
    assert chain(q, "c")[:1] == ["QuantizeLinear"]
    for n in q.graph.node:  # drop the QuantizeLinear / DequantizeLinear pair the quantizer put after the Conv
        if n.op_type == "Tanh":
            n.input[0] = "c"
    message = error(q)
    assert "'tanh'" in message and "Conv node" in message and "QuantizeLinear" in message


def test_cast_to_an_integer_type() -> None:
    f = model([N("Concat", ["x", "x"], ["a"], axis=1), N("Cast", ["a"], ["c"], to=TensorProto.INT32, name="to_int"),
               N("Cast", ["c"], ["z"], to=TensorProto.FLOAT), N("Concat", ["z", "z"], ["y"], axis=1)],
              {"x": (1, 2, 3)}, ["y"])
    message = error(quantize(f, np.random.default_rng(3)))
    assert "'to_int'" in message and "float32" in message


def test_constant_of_a_higher_rank() -> None:
    f = model([N("Concat", ["x", "x"], ["a"], axis=1), N("Div", ["a", "k"], ["z"]),
               N("Concat", ["z", "z"], ["y"], axis=1)], {"x": (2, 4)}, ["y"], {"k": np.ones((1, 1, 8), F)})
    message = error(quantize(f, np.random.default_rng(4)))
    assert "3-D constant against a 2-D tensor" in message and "reshape the constant" in message
