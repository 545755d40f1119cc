"""Narrowing weights to 4 and 2 bits per channel (mote.passes.narrow_weights): a valid quantized graph whose
reference, generated C on the host and real-valued weights agree with what the pass documents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same

from mote.accel.loader import find_accelerator
from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend import load
from mote.inputs import random_inputs
from mote.passes.narrow_weights import for_accelerator, narrow_weights
from mote.reference import interpret
from mote.targets.host import build_host


def _weights(graph):  # noqa: ANN001, ANN202
    return {n.name: n.inputs[1] for n in graph.nodes if n.op in ("conv2d", "depthwise_conv2d", "fully_connected")}


@pytest.mark.parametrize("bits", [4, 2])
def test_weights_fit_and_approximate_the_original(bits: int) -> None:
    graph = load(MLPERF_TINY / "kws_ref_model.tflite")
    before = {k: (t, t.data.copy()) for k, t in _weights(graph).items()}
    narrowed = narrow_weights(graph, bits)
    narrowed.verify()
    top = (1 << (bits - 1)) - 1
    for name, w in _weights(narrowed).items():
        old, data = before[name]
        assert old.bits == 8 and np.array_equal(old.data, data), "the input graph is untouched"
        assert w.bits == bits and w.dtype == old.dtype and np.abs(w.data).max() <= top
        axis = w.quant.axis if w.quant.per_channel else None
        others = tuple(i for i in range(w.data.ndim) if i != axis)
        scale = np.asarray(w.quant.scale) if axis is None else np.expand_dims(np.asarray(w.quant.scale), others)
        old_scale = np.asarray(old.quant.scale) if axis is None else np.expand_dims(np.asarray(old.quant.scale),
                                                                                   others)
        real, approx = data * old_scale, w.data * scale
        inside = np.abs(real) <= scale * top  # within the clipping point: rounded to the nearest new step
        assert np.all(np.abs(approx - real)[inside] <= np.broadcast_to(scale / 2 + 1e-9, real.shape)[inside])
        assert np.all(np.abs(approx[~inside]) == np.broadcast_to(scale * top, real.shape)[~inside])
        # no worse than scaling each channel's largest weight to the top of the range
        peak = np.abs(data).max(axis=others if axis is not None else None, keepdims=True) * old_scale
        plain = np.clip(np.round(real / (peak / top)), -top, top) * (peak / top)
        plain_error = ((plain - real) ** 2).sum(axis=others if axis is not None else None)
        error = ((approx - real) ** 2).sum(axis=others if axis is not None else None)
        assert np.all(error <= plain_error * (1 + 1e-9) + 1e-18)


def test_bias_follows_the_weight_scale() -> None:
    graph = load(MLPERF_TINY / "ad01_int8.tflite")
    narrowed = narrow_weights(graph, 4)
    for old, new in zip(graph.nodes, narrowed.nodes):
        if len(old.inputs) > 2 and old.inputs[2] is not None and old.inputs[2].quant is not None:
            w_old, w_new, b_old, b_new = old.inputs[1], new.inputs[1], old.inputs[2], new.inputs[2]
            ratio = np.asarray(w_old.quant.scale) / np.asarray(w_new.quant.scale)
            assert np.allclose(np.asarray(b_old.quant.scale) / np.asarray(b_new.quant.scale), ratio)
            assert np.all(np.abs(b_new.data - np.round(b_old.data * ratio)) <= 1)


@pytest.mark.parametrize("file, bits", [("kws_ref_model.tflite", 4), ("pretrainedResnet_quant.tflite", 2)])
def test_generated_c_on_the_host_is_bit_exact_with_the_reference(file: str, bits: int, tmp_path: Path) -> None:
    narrowed = narrow_weights(load(MLPERF_TINY / file), bits)
    binary = build_host(compile_graph(narrowed), tmp_path / "project")
    for seed in range(2):
        inputs = random_inputs(narrowed, seed)
        assert_same(binary.run(inputs)[0], interpret(narrowed, inputs), f"{file} int{bits}, seed {seed}")


def test_only_the_offloaded_layers_are_narrowed_and_a_missing_mode_is_an_error() -> None:
    graph = load(MLPERF_TINY / "pretrainedResnet_quant.tflite")
    narrowed = for_accelerator(graph, find_accelerator("qvanilla:weight_bits=4"))  # convolutions only
    bits = {n.op: n.inputs[1].bits for n in narrowed.nodes if n.op in ("conv2d", "fully_connected")}
    assert bits == {"conv2d": 4, "fully_connected": 8}
    assert for_accelerator(graph, find_accelerator("qvanilla")) is graph
    with pytest.raises(MoteError, match="weight_bits"):
        narrow_weights(graph, 3)
