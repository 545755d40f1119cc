"""The cluster with its L1 (mote.codegen.l1_tiles on several cores): a small model of every tiled op, tiled
into a 4 KiB L1 and run on 1, 2 and 8 cores, equals the reference interpreter whatever the core count; the
tiles' buffers (each core's scratch included) fit the L1; each tile's compute is spread over the cores; the run
reports the DMA's jobs and its exposed cycles on the cluster's critical path, per layer and in all."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.sim.platforms import Platform, builtin
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.targets.test_rv32_cluster_layers import _model, _small_image_model

L1 = 4096


def _platform(cores: int, l1: int = L1) -> Platform:
    p = builtin("cluster8").with_cores(cores)
    return dataclasses.replace(p, memories=tuple(dataclasses.replace(m, bytes=l1) if m.kind == "l1" else m
                                                 for m in p.memories))


@pytest.fixture(scope="module")
def graph():  # type: ignore[no-untyped-def]
    return load_tflite(_model(), "cluster_l1")


@pytest.mark.parametrize("cores", [1, 2, 8])
def test_tiles_split_across_cores_bit_exact(graph, tmp_path, cores: int) -> None:  # type: ignore[no-untyped-def]
    compiled = compile_graph(graph, core=Core.SCALAR).for_target(Core.SCALAR, L1, cores)
    tiled = compiled.tiled or {}
    ops = {compiled.layers[i].op for i, plan in tiled.items() if len(plan.tiles) > 1}
    assert ops >= {"conv2d", "depthwise_conv2d", "max_pool2d", "avg_pool2d"}  # several tiles each
    assert all(plan.l1_bytes <= L1 for plan in tiled.values()) and 0 < compiled.l1_bytes <= L1
    split = {compiled.layers[i].op for i in tiled if compiled.layers[i].parts}
    if cores > 1:  # every tiled op's tiles are forked across the cores
        assert split >= {"conv2d", "depthwise_conv2d", "max_pool2d", "avg_pool2d", "add", "fully_connected"}
        assert "mote_fork(" in compiled.sources[compiled.names.source]
    else:
        assert not split
    inputs = random_inputs(graph, 1)
    result = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig", platform=_platform(cores),
                                                              cores=cores)).run(inputs)
    for name, value in interpret(graph, inputs).items():
        assert np.array_equal(result.outputs[name], value), name
    dma = result.dma
    assert dma is not None and dma.jobs > 2 * len(tiled)  # several tiles' copies per layer
    assert 0 <= dma.exposed_cycles <= dma.busy_cycles
    layers = [layer for layer in result.layers if layer.dma is not None]
    assert sum(layer.dma.exposed_cycles for layer in layers) == dma.exposed_cycles
    assert all(layer.cycles >= layer.dma.exposed_cycles for layer in layers)
    assert 0 < result.peak_bytes["l1"] <= L1
    if cores > 1:
        for i in tiled:
            if compiled.layers[i].parts:
                layer = next(x for x in result.layers if x.index == i)
                assert sum(n > 0 for n in layer.core_instructions) >= 2  # the tiles' work spread over cores


def test_a_tile_too_large_for_every_cores_share_splits_across_fewer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """In 1152 bytes of L1 the small image's layers fit on one core, not with 8 cores' scratch and staging
    buffers each: such a layer's tiles are split across the most cores for which they fit."""
    g = load_tflite(_small_image_model(), "small")
    l1 = 1152
    compiled = compile_graph(g, core=Core.SCALAR).for_target(Core.SCALAR, l1, 8)
    tiled = compiled.tiled or {}
    assert len(tiled) == 4 and all(plan.l1_bytes <= l1 for plan in tiled.values())
    widths = [len({id(p) for p in compiled.layers[i].parts}) for i in sorted(tiled)]
    assert 0 in widths and any(0 < w < 8 for w in widths)  # one layer on core 0 alone, one on fewer cores
    inputs = random_inputs(g, 4)
    result = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig", platform=_platform(8, l1),
                                                              cores=8)).run(inputs)
    for name, value in interpret(g, inputs).items():
        assert np.array_equal(result.outputs[name], value), name
    assert 0 < result.peak_bytes["l1"] <= l1
