"""CONCATENATION against TFLite Micro: 1-5-D, every axis (also given negative), 1-4 inputs, constant inputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema
from tflite_micro.python.tflite_micro import runtime

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS


def concat_model(rng: np.random.Generator, activation: str = "NONE", mismatch: bool = False) -> bytes:
    rank = int(rng.integers(1, 6))
    base = [int(rng.integers(1, 5)) for _ in range(rank)]
    axis = int(rng.integers(rank))
    scale, zp = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-128, 128))
    mb = ModelBuilder()
    xs, graph_inputs, extents = [], [], []
    for i in range(int(rng.integers(1, 5))):
        shape = list(base)
        shape[axis] = int(rng.integers(1, 4))
        extents.append(shape[axis])
        const = i > 0 and rng.integers(4) == 0
        data = rng.integers(-128, 128, shape) if const else None
        x = mb.tensor(f"x{i}", shape, "int8", scale=scale, zero_point=zp + (1 if mismatch and i == 0 else 0),
                      data=data)
        xs.append(x)
        if not const:
            graph_inputs.append(x)
    out_shape = list(base)
    out_shape[axis] = sum(extents)
    y = mb.tensor("y", out_shape, "int8", scale=scale, zero_point=zp)
    # TFLite accepts a negative axis; half the models use one.
    mb.op("CONCATENATION", xs, [y], axis=axis - rank if rng.integers(2) else axis,
          fused_activation_function=activation)
    return mb.build(graph_inputs, [y])


@pytest.mark.parametrize("seed", range(40))
def test_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = concat_model(rng)
    graph = load_tflite(model, "m")
    inputs = [rng.integers(-128, 128, t.shape, dtype=np.int8) for t in graph.inputs]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    node = graph.nodes[0]
    values = dict(zip((id(t) for t in graph.inputs), inputs))
    args = [t.data if t.is_const else values[id(t)] for t in node.inputs]
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), args)[0],
                                  interp.get_output(0).reshape(node.outputs[0].shape))


@pytest.mark.parametrize("seed", range(5))
def test_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    check_model(concat_model(np.random.default_rng(100 + seed)), seeds=2, sanitize=seed == 0)


@pytest.mark.parametrize(("activation", "mismatch", "message"), [("RELU", False, "activation"),
                                                                   ("NONE", True, "requantize")])
def test_rejects_what_tflm_rejects(activation: str, mismatch: bool, message: str) -> None:
    rng = np.random.default_rng(1)
    while True:  # a model with at least two inputs so that one can differ
        model = concat_model(rng, activation, mismatch)
        if len(schema.ModelT.InitFromPackedBuf(model, 0).subgraphs[0].operators[0].inputs) > 1:
            break
    with pytest.raises(UnsupportedError, match=message):  # refused while loading
        load_tflite(model, "m")
