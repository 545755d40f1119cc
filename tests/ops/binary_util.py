"""Shared by the ADD, SUB and MUL tests: random broadcasting models and a reference check against TFLite Micro."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def broadcast_shapes(rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Two shapes that broadcast: same shape, size-1 dims on either side, or fewer leading dims."""
    out = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 6)))]
    if rng.integers(4) == 0:
        return out, list(out)
    a = [n if rng.integers(2) else 1 for n in out]
    b = [n if rng.integers(2) or a[i] == 1 and n > 1 else 1 for i, n in enumerate(out)]
    return a[int(rng.integers(len(a) + 1)):] or [1], b[int(rng.integers(len(b))):]


def sum_scale(s_a: float, s_b: float) -> float:
    return s_a + s_b


def binary_model(builtin: str, rng: np.random.Generator, const_b: bool = False,
                 output_scale: Callable[[float, float], float] = sum_scale) -> bytes:
    """One `builtin` op on random broadcasting shapes; the output scale is output_scale(s_a, s_b) times
    a random factor in [0.3, 2)."""
    a_shape, b_shape = broadcast_shapes(rng)
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    s_a, s_b = (float(np.float32(rng.uniform(0.002, 0.1))) for _ in range(2))
    s_out = float(np.float32(output_scale(s_a, s_b) * rng.uniform(0.3, 2.0)))
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, "int8", scale=s_a, zero_point=int(rng.integers(-128, 128)))
    b_data = rng.integers(-128, 128, b_shape) if const_b else None  # e.g. a learned per-channel operand
    b = mb.tensor("b", b_shape, "int8", scale=s_b, zero_point=int(rng.integers(-128, 128)), data=b_data)
    y = mb.tensor("y", out_shape, "int8", scale=s_out, zero_point=int(rng.integers(-128, 128)))
    mb.op(builtin, [a, b], [y], fused_activation_function=str(rng.choice(ACTIVATIONS)))
    return mb.build([a] if const_b else [a, b], [y])


def reference_matches_tflm(model: bytes, rng: np.random.Generator) -> None:
    """mote's numpy reference for the single node against TFLite Micro, on full-range random inputs."""
    graph = load_tflite(model, "m")
    node = graph.nodes[0]
    inputs = [rng.integers(-128, 128, t.shape, dtype=np.int8) for t in graph.inputs]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    want = interp.get_output(0).reshape(node.outputs[0].shape)
    values = dict(zip((id(t) for t in graph.inputs), inputs))
    args = [t.data if t.is_const else values[id(t)] for t in node.inputs]
    op = OPS[node.op]
    got = op.reference(node, op.prepare(node), args)[0]
    np.testing.assert_array_equal(got, want)
