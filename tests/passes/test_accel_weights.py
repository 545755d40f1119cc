"""Narrowing the weights of the layers an accelerator offloads (mote.passes.accel_weights): only those layers,
a missing mode is an error, and the narrowed model runs bit-exact on the host."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MLPERF_TINY, assert_same

from mote.accel.loader import find_accelerator
from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend import load
from mote.inputs import random_inputs
from mote.passes.accel_weights import for_accelerator, narrow_nodes
from mote.reference import interpret
from mote.targets.host import build_host


def test_only_the_offloaded_layers_are_narrowed() -> None:
    graph = load(MLPERF_TINY / "pretrainedResnet_quant.tflite")
    narrowed = for_accelerator(graph, find_accelerator("qvanilla:weight_bits=4"))  # convolutions only
    bits = {n.op: n.inputs[1].bits for n in narrowed.nodes if n.op in ("conv2d", "fully_connected")}
    assert bits == {"conv2d": 4, "fully_connected": 8}
    assert all(n.inputs[1].bits == 8 for n in graph.nodes if n.op == "conv2d"), "the model given is unchanged"
    assert for_accelerator(graph, find_accelerator("qvanilla")) is graph
    dla = for_accelerator(graph, find_accelerator("dla:weight_bits=2"))  # the DLA takes the dense layer too
    assert {n.inputs[1].bits for n in dla.nodes if n.op in ("conv2d", "fully_connected")} == {2}


def test_a_width_no_mode_takes_is_an_error() -> None:
    from mote.accel.dla.accelerator import Dla
    from mote.accel.dla.config import DlaConfig
    from mote.accel.packing import OperandBits

    class Int8Only(Dla):
        def operand_bits(self) -> OperandBits:
            return OperandBits()

    with pytest.raises(MoteError, match="weight_bits=4"):
        for_accelerator(load(MLPERF_TINY / "kws_ref_model.tflite"), Int8Only(DlaConfig(weight_bits=4)))


def test_a_partly_narrowed_model_is_bit_exact_on_the_host(tmp_path: Path) -> None:
    graph = load(MLPERF_TINY / "kws_ref_model.tflite")
    convs = {n for n in graph.nodes if n.op == "conv2d"}
    narrowed = narrow_nodes(graph, 4, convs)
    assert {n.op for n in narrowed.nodes if n.op in ("conv2d", "depthwise_conv2d") and n.inputs[1].bits == 4} == \
        {"conv2d"}
    binary = build_host(compile_graph(narrowed), tmp_path / "project")
    for seed in range(2):
        inputs = random_inputs(narrowed, seed)
        assert_same(binary.run(inputs)[0], interpret(narrowed, inputs), f"kws with int4 convolutions, seed {seed}")
