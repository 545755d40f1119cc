"""narrow_weights: an int8 model's layers re-quantized to 4 and 2 bits per channel, each real weight within half
a new step of the old one (or clipped at the range's end), biases moved to the new scales, the model given left
unchanged, and the narrowed model compiled onto the packed kernels bit-exact with the reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from small_cnn import small_cnn

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ir import subbyte
from mote.passes.narrow_weights import OPS, narrow_weights
from mote.reference import interpret
from mote.targets.host import build_host


def _real(data: np.ndarray, scale: tuple[float, ...], axis: int) -> np.ndarray:
    shape = [1] * data.ndim
    shape[axis] = -1
    return data.astype(np.float64) * np.broadcast_to(np.asarray(scale, np.float64), (data.shape[axis],)).reshape(shape)


@pytest.mark.parametrize("bits", [4, 2])
def test_weights_and_biases_move_to_the_narrow_scales(bits: int) -> None:
    graph = load_tflite(small_cnn(), "cnn")
    before = {n.name: [None if t is None else (t, None if t.data is None else t.data.copy()) for t in n.inputs]
              for n in graph.nodes}
    narrow = narrow_weights(graph, bits)
    low, high = subbyte.value_range(bits)
    layers = [(old, new) for old, new in zip(graph.nodes, narrow.nodes) if old.op in OPS]
    assert {n.op for n, _ in layers} == set(OPS)
    for old, new in layers:
        w, v = old.inputs[1], new.inputs[1]
        assert w is not None and v is not None and v.data is not None and v.quant is not None and w.quant is not None
        assert v.bits == bits and w.bits == 8 and v.data.min() >= low and v.data.max() <= high
        axis = OPS[old.op]
        was, now = _real(w.data, w.quant.scale, axis), _real(v.data, v.quant.scale, axis)
        step = np.abs(_real(np.ones_like(v.data), v.quant.scale, axis))
        clipped = (v.data == low) | (v.data == high)
        assert np.all((np.abs(now - was) <= step / 2 + 1e-12) | clipped)
        b, c = old.inputs[2], new.inputs[2]
        assert b is not None and c is not None and c.data is not None and c.quant is not None and b.quant is not None
        old_real = b.data * np.asarray(b.quant.scale)
        assert np.all(np.abs(c.data * np.asarray(c.quant.scale) - old_real) <= np.asarray(c.quant.scale) / 2 + 1e-12)
    for node in graph.nodes:  # the model given is unchanged
        for t, (same, data) in zip(node.inputs, before[node.name]):
            assert t is same and (data is None or np.array_equal(t.data, data))


@pytest.mark.parametrize("bits", [4, 2])
def test_narrowed_model_runs_packed_and_bit_exact(bits: int, tmp_path: Path) -> None:
    narrow = narrow_weights(load_tflite(small_cnn(), "cnn"), bits)
    compiled = compile_graph(narrow)
    assert {layer.op for layer in compiled.layers if "packed" in layer.kernel} == {
        "conv2d", "depthwise_conv2d", "fully_connected"}
    binary = build_host(compiled, tmp_path / "p", sanitize=True)
    for seed in range(2):
        inputs = random_inputs(narrow, seed)
        want = interpret(narrow, inputs)
        got = binary.run(inputs)[0]
        assert all(np.array_equal(got[k], v) for k, v in want.items())


def test_eight_bits_is_the_model_itself_and_others_are_refused() -> None:
    graph = load_tflite(small_cnn(), "cnn")
    assert narrow_weights(graph, 8) is graph
    with pytest.raises(MoteError, match="narrow_weights: a bit width of 3 is not supported; use 8, 4 or 2"):
        narrow_weights(graph, 3)
