"""Integer-dialect ONNX (RequantShift, integer-valued float tensors) against a numpy evaluation of the
formulas (ONNX's reference evaluator, RequantShift defined by clip(floor((x * mul + add) / div + 0.5))):
mote must be exact, in its reference interpreter and as generated C."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.frontend.onnx.compare import requant_shift_formula
from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS
from tests.frontend.onnx_util import check_against_onnx, model


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int) -> np.ndarray:
    return rng.integers(lo, hi + 1, shape).astype(np.float32)


def rqs(x: str, y: str, div: int, n_levels: int = 256, signed: int = 1, domain: str = "") -> onnx.NodeProto:
    return helper.make_node("RequantShift", [x, f"{y}_mul", f"{y}_add"], [y], domain=domain, div=div,
                            n_levels_out=n_levels, signed=signed)


def rqs_consts(rng: np.random.Generator, y: str, channels: int, rank: int = 4) -> dict[str, np.ndarray]:
    shape = (channels,) + (1,) * (rank - 2)
    return {f"{y}_mul": ints(rng, 1, 64, *shape), f"{y}_add": ints(rng, -3000, 3000, *shape)}


def cnn(rng: np.random.Generator, domain: str = "") -> onnx.ModelProto:
    """Conv -> RQS -> depthwise Conv -> RQS (unsigned) -> MaxPool -> Add (residual) -> RQS -> AveragePool
    -> RQS -> Flatten -> Gemm -> RQS."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        rqs("c1", "r1", 2**14, domain=domain),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], group=4, pads=[1, 1, 1, 1], strides=[1, 1]),
        rqs("c2", "r2", 2**11, signed=0, domain=domain),
        helper.make_node("MaxPool", ["r2"], ["p2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["p2", "r1"], ["a"]),
        rqs("a", "r3", 2**5, domain=domain),
        helper.make_node("AveragePool", ["r3"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
        rqs("ap", "r4", 2**6, n_levels=255, domain=domain),
        helper.make_node("Flatten", ["r4"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["g"], transB=1),
        rqs("g", "y", 2**12, domain=domain),
    ]
    inits = {"w1": ints(rng, -128, 127, 4, 3, 3, 3), "b1": ints(rng, -5000, 5000, 4),
             "w2": ints(rng, -128, 127, 4, 1, 3, 3), "w3": ints(rng, -128, 127, 6, 4 * 3 * 3),
             "b3": ints(rng, -5000, 5000, 6)}
    for y, ch in (("r1", 4), ("r2", 4), ("r3", 4), ("r4", 4)):
        inits.update(rqs_consts(rng, y, ch))
    inits.update({"y_mul": ints(rng, 1, 64, 6), "y_add": ints(rng, -3000, 3000, 6)})
    m = model(nodes, {"x": (1, 3, 6, 6)}, ["y"], inits)
    if domain:
        m.opset_import.append(helper.make_opsetid(domain, 1))
    return m


@pytest.mark.parametrize("domain", ["", "custom.quantlib"])
def test_integer_cnn_is_exact(domain: str) -> None:
    check_against_onnx(cnn(np.random.default_rng(4), domain), seeds=3, min_match=1.0, max_lsb=0)


def test_integer_cnn_host_bit_exact(tmp_path: Path) -> None:
    check_against_onnx(cnn(np.random.default_rng(5)), seeds=2, min_match=1.0, max_lsb=0, host=tmp_path)


def test_integer_matmul_transpose_reshape_pad(tmp_path: Path) -> None:
    """MatMul on a 3-D input, Transpose, Reshape, Pad, an int32 Add of two accumulators, GlobalAveragePool."""
    rng = np.random.default_rng(6)
    nodes = [
        rqs("x", "xr", 2**2),  # on int8 values
        helper.make_node("MatMul", ["xr", "w"], ["m"]),
        helper.make_node("MatMul", ["xr", "w2"], ["m2"]),
        helper.make_node("Add", ["m", "m2"], ["s"]),
        rqs("s", "r", 2**12),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Reshape", ["t", "shape"], ["rs"]),
        helper.make_node("Pad", ["rs", "pads", "value"], ["pd"]),
        helper.make_node("GlobalAveragePool", ["pd"], ["gap"]),
        rqs("gap", "y", 2**3, signed=0),
    ]
    inits = {"w": ints(rng, -128, 127, 8, 6), "w2": ints(rng, -128, 127, 8, 6),
             "xr_mul": ints(rng, 1, 6, 8), "xr_add": ints(rng, -8, 8, 8),
             "r_mul": ints(rng, 1, 300, 6), "r_add": ints(rng, -2000, 2000, 6),
             "shape": np.array([1, 6, 2, 5], np.int64), "pads": np.array([0, 0, 1, 0, 0, 0, 1, 2], np.int64),
             "value": np.array(3.0, np.float32), "y_mul": ints(rng, 1, 50, 1, 6, 1, 1),
             "y_add": ints(rng, -100, 100, 1, 6, 1, 1)}
    check_against_onnx(model(nodes, {"x": (1, 10, 8)}, ["y"], inits), seeds=2, min_match=1.0, max_lsb=0,
                       host=tmp_path, sanitize=True)


@pytest.mark.parametrize("signed", [0, 1])
@pytest.mark.parametrize("div", [1, 2**7, 12])
def test_requant_shift_op_matches_formula(div: int, signed: int) -> None:
    """The op alone on int32 inputs, ties included, against the float64 formula."""
    rng = np.random.default_rng(div + signed)
    x = np.concatenate([rng.integers(-2**20, 2**20, 500), np.arange(-600, 600)]).astype(np.int32).reshape(-1, 4)
    mul, add = rng.integers(1, 2**9, 4), rng.integers(-2**12, 2**12, 4)
    xt = Tensor("x", x.shape, DType.INT32, Quant((1.0,), (0,)))
    out = Tensor("y", x.shape, DType.INT8, Quant((1.0,), (0 if signed else -128,)))
    node = Node("requant_shift", "y", [xt, Tensor("m", (4,), DType.INT32, data=mul.astype(np.int32)),
                                       Tensor("a", (4,), DType.INT32, data=add.astype(np.int32))], [out],
                {"divisor": div, "n_levels": 256, "signed": bool(signed)})
    op = OPS["requant_shift"]
    got = op.reference(node, op.prepare(node), [x])[0].astype(np.int64) - out.quant.zero_point[0]
    want = requant_shift_formula(x.astype(np.float64), mul, add, div, 256, signed)
    assert np.array_equal(got, want)


def test_integer_cnn_on_the_virtual_platform(tmp_path: Path) -> None:
    """64-bit requantization and int32 accumulators on rv32 (compiler-rt division included)."""
    from mote.codegen.compile import compile_graph
    from mote.frontend.onnx import compare, convert
    from mote.targets.rv32 import Rv32Config, build_rv32
    from tests.frontend.onnx_util import feeds_for

    m = cnn(np.random.default_rng(7))
    conv = convert(m, "integer_cnn")
    firmware = build_rv32(compile_graph(conv.graph), tmp_path / "rv32", Rv32Config(cc="zig"))
    inputs = feeds_for(conv, np.random.default_rng(8))
    outputs = firmware.run(inputs).outputs
    result = compare(m, conv, inputs, outputs)
    assert result.match_rate == 1.0 and result.max_lsb_diff == 0
