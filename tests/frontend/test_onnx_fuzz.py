"""Seeded mutations of small valid ONNX models (byte flips, truncations, edits of attributes, initializers,
dimensions, names and inputs): the frontend converts each one or raises a MoteError, never anything else."""

from __future__ import annotations

import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mote.errors import MoteError
from mote.frontend.onnx import OnnxConversion, compare, convert_file
from mote.reference import interpret
from tests.frontend.onnx_util import feeds_for, quantize_qdq
from tests.frontend.test_onnx_integer import cnn
from tests.frontend.test_onnx_qdq import MODELS
from tests.frontend.test_onnx_qop import quantize_qoperator

# Values that break assumptions: zero, negatives, the int32 and int64 limits, a huge size.
_NASTY_INTS = [0, -1, -7, 1, 2, 3, 5, 255, 2**31 - 1, -2**31, 2**62, -2**63]
_NASTY_FLOATS = [0.0, -1.0, float("nan"), float("inf"), -float("inf"), 1e-45, 1e38]
_DTYPES = [TensorProto.FLOAT, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT16, TensorProto.INT32,
           TensorProto.INT64, TensorProto.STRING, TensorProto.DOUBLE, TensorProto.BOOL, TensorProto.FLOAT16, 0, 99]


def seed_models() -> list[onnx.ModelProto]:
    """QDQ, QOperator and integer-dialect models that mote converts."""
    rng = np.random.default_rng(0)
    out = [quantize_qdq(MODELS[name](rng), rng) for name in ("conv_relu6", "gemm", "concat", "maxpool_ceil",
                                                                "reshape", "pad", "squeeze_after_gap")]
    out += [quantize_qdq(MODELS["depthwise"](rng), rng, uint8=True)]
    out += [quantize_qoperator(MODELS[name](rng), rng, uint8=False) for name in ("conv", "avgpool", "softmax")]
    out.append(cnn(rng))
    return out


def _mutate_attribute(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    nodes = [n for n in m.graph.node if n.attribute]
    if not nodes:
        return
    a = nodes[rng.integers(len(nodes))].attribute
    attr = a[rng.integers(len(a))]
    choice = rng.integers(5)
    if choice == 0 and attr.ints:
        attr.ints[rng.integers(len(attr.ints))] = int(rng.choice(_NASTY_INTS))
    elif choice == 1 and attr.type == onnx.AttributeProto.INT:
        attr.i = int(rng.choice(_NASTY_INTS))
    elif choice == 2 and attr.ints:
        del attr.ints[rng.integers(len(attr.ints)):]
    elif choice == 3:  # another type under the same name
        values: list[object] = [[1, 2], 1.5, "x", [0.5], 3]
        new = helper.make_attribute(attr.name, values[rng.integers(len(values))])
        attr.CopyFrom(new)
    else:
        attr.f = float(rng.choice(_NASTY_FLOATS))
        attr.s = b"\x00SAME_UPPER\xff"


def _mutate_initializer(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    inits = m.graph.initializer
    if not inits:
        return
    t = inits[rng.integers(len(inits))]
    choice = rng.integers(6)
    if choice == 0 and t.dims:
        t.dims[rng.integers(len(t.dims))] = int(rng.choice(_NASTY_INTS))
    elif choice == 1 and t.raw_data:
        t.raw_data = t.raw_data[: rng.integers(len(t.raw_data))]
    elif choice == 2:
        t.data_type = int(rng.choice(_DTYPES))
    elif choice == 3:
        try:
            data = onnx.numpy_helper.to_array(t)
        except (ValueError, KeyError, TypeError):  # an earlier edit already broke it
            return
        if data.dtype.kind == "f":
            data = np.full(data.shape, rng.choice(_NASTY_FLOATS), data.dtype)
        elif data.dtype.kind in "iu":
            info = np.iinfo(data.dtype)
            data = np.full(data.shape, rng.choice([info.min, info.max, 0]), data.dtype)
        t.CopyFrom(onnx.numpy_helper.from_array(data, t.name))
    elif choice == 4:
        t.dims.append(int(rng.choice([1, 2, 0])))
    else:
        t.name = str(rng.choice(["", "x", next((o for n in m.graph.node for o in n.output), "z")]))


def _mutate_value_info(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    vis = list(m.graph.input) + list(m.graph.output)
    vi = vis[rng.integers(len(vis))]
    choice = rng.integers(4)
    dims = vi.type.tensor_type.shape.dim
    if choice == 0 and dims:
        dims[rng.integers(len(dims))].dim_value = int(rng.choice([0, 2**40, 7, 1]))
    elif choice == 1:
        vi.type.tensor_type.elem_type = int(rng.choice(_DTYPES))
    elif choice == 2:
        vi.name = str(rng.choice(["", "nope", "x", "w"]))
    elif dims:
        del dims[rng.integers(len(dims)):]


def _mutate_node(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    nodes = m.graph.node
    if not nodes:
        return
    i = int(rng.integers(len(nodes)))
    node = nodes[i]
    choice = rng.integers(7)
    names = [v for n in nodes for v in n.output] + [t.name for t in m.graph.initializer] + ["", "ghost"]
    if choice == 0 and node.input:
        del node.input[rng.integers(len(node.input)):]
    elif choice == 1 and node.input:
        node.input[rng.integers(len(node.input))] = str(rng.choice(names))
    elif choice == 2:
        node.input.append(str(rng.choice(names)))
    elif choice == 3:
        del nodes[i]
    elif choice == 4:
        node.op_type = str(rng.choice(["Loop", "If", "Conv", "Gemm", "QuantizeLinear", "Reshape", "Concat",
                                       "ConstantOfShape", "Softmax", "Unknown"]))
    elif choice == 5:
        nodes.insert(int(rng.integers(len(nodes) + 1)), node)  # a duplicate producer
    else:
        node.output[0] = str(rng.choice(names))


def _mutate_model(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    choice = rng.integers(3)
    if choice == 0:
        m.opset_import[0].version = int(rng.choice([0, 1, 7, 10, 99, -3]))
    elif choice == 1:
        del m.graph.output[:]
    else:
        m.opset_import[0].domain = "ai.onnx.ml"


def _insert_expensive_node(m: onnx.ModelProto, rng: np.random.Generator) -> None:
    """A constant expression that would allocate or loop without end if it were evaluated."""
    big = int(rng.choice([2**20, 2**31, 2**62]))
    choices = {
        "ConstantOfShape": [np.array([big, big], np.int64)],
        "Tile": [np.ones((4, 4), np.float32), np.array([big, 1], np.int64)],
        "Range": [np.array(0, np.int64), np.array(big, np.int64), np.array(1, np.int64)],
        "Expand": [np.ones(3, np.float32), np.array([big, 3], np.int64)],
    }
    op = list(choices)[rng.integers(len(choices))]
    names = [f"hostile_{op}_{i}" for i in range(len(choices[op]))]
    m.graph.initializer.extend(onnx.numpy_helper.from_array(a, n) for a, n in zip(choices[op], names))
    m.graph.node.insert(int(rng.integers(len(m.graph.node) + 1)), helper.make_node(op, names, [f"hostile_{op}"]))
    if rng.integers(2):
        body = helper.make_graph([helper.make_node("Identity", ["c"], ["c_out"]),
                                  helper.make_node("Identity", ["v"], ["v_out"])], "body",
                                 [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                  helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                  helper.make_tensor_value_info("v", TensorProto.FLOAT, [])],
                                 [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
                                  helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [])])
        m.graph.initializer.extend([onnx.numpy_helper.from_array(np.array(big, np.int64), "hostile_trip"),
                                    onnx.numpy_helper.from_array(np.array(True), "hostile_cond"),
                                    onnx.numpy_helper.from_array(np.array(0.0, np.float32), "hostile_v")])
        m.graph.node.insert(0, helper.make_node("Loop", ["hostile_trip", "hostile_cond", "hostile_v"],
                                                ["hostile_loop"], body=body))


_EDITS: list[Callable[[onnx.ModelProto, np.random.Generator], None]] = [
    _mutate_attribute, _mutate_initializer, _mutate_value_info, _mutate_node, _mutate_model, _insert_expensive_node]


def mutant(seed: onnx.ModelProto, rng: np.random.Generator) -> bytes:
    """One mutation of `seed`, as file bytes."""
    kind = rng.random()
    if kind < 0.6:
        m = onnx.ModelProto()
        m.CopyFrom(seed)
        for _ in range(1 if rng.random() < 0.7 else 2):
            _EDITS[rng.integers(len(_EDITS))](m, rng)
        return m.SerializeToString()
    data = bytearray(seed.SerializeToString())
    if kind < 0.85:
        for _ in range(int(rng.integers(1, 8))):
            data[rng.integers(len(data))] = int(rng.integers(256))
        return bytes(data)
    return bytes(data[: rng.integers(len(data))])


def run_campaign(cases: int, seed: int, workdir: Path, seeds: list[onnx.ModelProto] | None = None,
                 on_case: Callable[[bytes, BaseException | None], None] | None = None,
                 check_accepted: bool = False) -> dict[str, int]:
    """Convert `cases` mutants; counts of accepted, refused (MoteError) and other exceptions (raised at once
    unless `on_case` collects them). `check_accepted`: run each accepted mutant in mote's reference interpreter
    and compare it with the ONNX runtime (where that runs it), counting mismatches as failures."""
    rng = np.random.default_rng(seed)
    seeds = seeds or seed_models()
    counts = {"accepted": 0, "refused": 0, "other": 0, "compared": 0}
    path = workdir / "mutant.onnx"
    for _ in range(cases):
        data = mutant(seeds[rng.integers(len(seeds))], rng)
        path.write_bytes(data)
        error: BaseException | None = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a warning from a damaged model is a failure too
                conversion = convert_file(path)
                counts["accepted"] += 1
                if check_accepted:
                    counts["compared"] += _matches_runtime(path, conversion)
        except MoteError:
            counts["refused"] += 1
        except Exception as e:  # noqa: BLE001 - the point of the campaign
            counts["other"] += 1
            error = e
            if on_case is None:
                raise
        if on_case is not None:
            on_case(data, error)
    return counts


def _matches_runtime(path: Path, conversion: OnnxConversion) -> int:
    """1 when the runtime ran the mutant and agrees with mote's reference (AssertionError when it does not),
    0 when the runtime refuses the mutant."""
    inputs = feeds_for(conversion, np.random.default_rng(0))
    outputs = interpret(conversion.graph, inputs)
    try:
        result = compare(path, conversion, inputs, outputs)
    except MoteError:
        return 0
    assert result.match_rate >= 0.99 and result.max_lsb_diff <= 2, f"mote and the runtime differ: {result}"
    return 1


@pytest.fixture(scope="module")
def seeds() -> list[onnx.ModelProto]:
    return seed_models()


def test_seed_models_convert(seeds: list[onnx.ModelProto]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for m in seeds:
            path = Path(tmp) / "seed.onnx"
            onnx.save(m, str(path))
            assert convert_file(path).graph.nodes


def test_mutants_convert_or_raise_mote_error(seeds: list[onnx.ModelProto], tmp_path: Path) -> None:
    start = time.perf_counter()
    counts = run_campaign(600, 14, tmp_path, seeds, check_accepted=True)
    assert counts["other"] == 0
    assert counts["refused"] > 100 and counts["accepted"] > 15  # the mutations reach past the parser
    assert counts["compared"] > 10  # and accepted mutants run, matching the runtime
    assert time.perf_counter() - start < 60
