"""Layers tiled into an L1 (mote.memory.tiling, mote.codegen.l1_tiles) compute the same bits as untiled:
random conv, depthwise, pooling, fully connected and add layers, each compiled with the smallest L1 its
layers fit (one-row tiles, the most halo) and with a larger one, run as C on the host (where the DMA is a
copy) against the reference interpreter and the untiled C."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import CompiledModel, compile_graph
from mote.errors import MemoryFitError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host
from tests.ops.binary_util import binary_model
from tests.ops.test_avg_pool2d import pool_model
from tests.ops.test_conv2d import Case, conv_chain_model
from tests.ops.test_conv2d import random_case as conv_case
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_depthwise_conv2d import random_case as depthwise_case
from tests.ops.test_fully_connected import fc_model
from tests.ops.test_fully_connected import random_case as fc_case
from tests.ops.test_fully_connected import wide_case as wide_fc_case

MODELS = Path(__file__).resolve().parents[2] / "models" / "mlperf-tiny"


def tall(case: Case) -> Case:
    """One batch of 16 rows, stride 1 down the rows: enough rows that tiles of a few rows need less L1
    than the whole layer."""
    case.batches, case.in_hw, case.stride = 1, (16, case.in_hw[1]), (1, case.stride[1])
    return case


def one_batch_pool(builtin: str, rng: np.random.Generator) -> bytes:
    """A random pooling model of one batch (tiles split one image's rows)."""
    while True:
        model = pool_model(builtin, rng)
        if load_tflite(model, "pool").inputs[0].shape[0] == 1:
            return model


def same_shape_add(rng: np.random.Generator) -> bytes:
    """ADD of two activations of one shape (the elementwise tiles), random quantization."""
    shape = [1, int(rng.integers(4, 20)), int(rng.integers(1, 12)), int(rng.integers(1, 9))]
    mb = ModelBuilder()
    a, b, y = (mb.tensor(name, shape, "int8", scale=float(rng.uniform(0.01, 0.1)),
                         zero_point=int(rng.integers(-128, 128))) for name in ("a", "b", "y"))
    mb.op("ADD", [a, b], [y], fused_activation_function="NONE")
    return mb.build([a, b], [y])


def one_row_fc(rng: np.random.Generator) -> bytes:
    """FULLY_CONNECTED of one input row and 16 to 59 outputs: tiled by output channels."""
    case = wide_fc_case(rng)
    return fc_model(replace(case, in_shape=(1, case.accum_depth), out_depth=int(rng.integers(33, 60))), rng)


def smallest_fit(graph: Graph) -> tuple[CompiledModel, int]:
    """The model compiled for the smallest L1 (a multiple of 8 bytes) its tiled layers fit: whether a budget
    fits only grows with it, so a bisection finds it."""
    def fits(budget: int) -> bool:
        try:
            compile_graph(graph, core=Core.SCALAR, l1=budget)
            return True
        except MemoryFitError:
            return False

    low, high = 0, 8  # low does not fit, high does
    while not fits(high):
        low, high = high, 2 * high
    while high - low > 8:
        mid = (low + high) // 16 * 8
        low, high = (low, mid) if fits(mid) else (mid, high)
    return compile_graph(graph, core=Core.SCALAR, l1=high), high


def models() -> list[tuple[str, Callable[[np.random.Generator], bytes]]]:
    return [
        ("conv", lambda rng: conv_chain_model([tall(conv_case(rng))], rng)),
        ("depthwise", lambda rng: depthwise_model(tall(depthwise_case(rng)), rng)),
        ("avg_pool", lambda rng: one_batch_pool("AVERAGE_POOL_2D", rng)),
        ("max_pool", lambda rng: one_batch_pool("MAX_POOL_2D", rng)),
        ("fully_connected", lambda rng: fc_model(fc_case(rng), rng)),
        ("fully_connected channels", one_row_fc),
        ("add", same_shape_add),
        ("broadcast add", lambda rng: binary_model("ADD", rng)),  # not tiled: runs on L2 beside tiled layers
    ]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("kind,make", models(), ids=[name for name, _ in models()])
def test_tiled_layers_are_bit_exact_with_untiled(kind: str, make: Callable[[np.random.Generator], bytes], seed: int,
                                                 tmp_path: Path) -> None:
    graph = load_tflite(make(np.random.default_rng(900 + seed)), "layer")
    untiled = build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "untiled")
    smallest, budget = smallest_fit(graph)
    larger = compile_graph(graph, core=Core.SCALAR, l1=2 * budget)
    inputs = random_inputs(graph, seed)
    expected = interpret(graph, inputs)
    want = untiled.run(inputs)[0]
    for name, compiled in (("smallest", smallest), ("larger", larger)):
        assert compiled.l1_bytes <= compiled.l1_budget  # the tile buffers never exceed the L1
        got = build_host(compiled, tmp_path / name).run(inputs)[0]
        for key, value in expected.items():
            np.testing.assert_array_equal(got[key], value, err_msg=f"{kind} {name} L1 ({compiled.l1_budget} B)")
            np.testing.assert_array_equal(got[key], want[key])
    if kind in ("conv", "depthwise", "fully_connected channels", "add"):  # the smallest L1 splits them
        assert len(smallest.tiled[0].tiles) > 1


@pytest.mark.parametrize("file,l1", [("pretrainedResnet_quant.tflite", 16 << 10), ("vww_96_int8.tflite", 32 << 10)])
def test_mlperf_tiny_models_tiled_on_the_host(file: str, l1: int, tmp_path: Path) -> None:
    """ResNet-8 (its adds tiled too) and VWW in an L1 smaller than their layers: several tiles per layer."""
    graph = load_tflite((MODELS / file).read_bytes(), file)
    compiled = compile_graph(graph, core=Core.SCALAR, l1=l1)
    assert compiled.l1_bytes <= l1 and max(len(plan.tiles) for plan in compiled.tiled.values()) > 2
    assert {graph.nodes[i].op for i in compiled.tiled} >= ({"conv2d", "add"} if "Resnet" in file else
                                                           {"conv2d", "depthwise_conv2d", "avg_pool2d"})
    inputs = random_inputs(graph, 1)
    got = build_host(compiled, tmp_path / "tiled").run(inputs)[0]
    for key, value in interpret(graph, inputs).items():
        np.testing.assert_array_equal(got[key], value)


def test_tiled_layers_are_sanitizer_clean(tmp_path: Path) -> None:
    """ASan and UBSan find nothing in the tiles' buffers and copies (a conv at its smallest L1)."""
    graph = load_tflite(conv_chain_model([tall(conv_case(np.random.default_rng(3)))], np.random.default_rng(4)), "c")
    compiled, _ = smallest_fit(graph)
    inputs = random_inputs(graph, 0)
    got = build_host(compiled, tmp_path / "asan", sanitize=True).run(inputs)[0]
    for key, value in interpret(graph, inputs).items():
        np.testing.assert_array_equal(got[key], value)
