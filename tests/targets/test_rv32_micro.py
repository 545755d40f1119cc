"""The rv32 assembly inner loops (mote.targets.rv32.micro) on the virtual platform against TFLite Micro:
the ring kernel at both strides across and the blocked one (pointwise growing and shrinking in place,
other filters), with partial sets of four channels and short blocks of pixels, over weights whose
groups all share roundings or some do, and through every path of the output stage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops import OPS
from mote.ops.conv2d_kernels import ring_fits
from mote.ops.conv2d_params import ConvParams
from mote.ops.output_stage import INT32_MAX, output_shortcuts
from mote.ops.pair_groups import fits, ring_kinds
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case, conv_chain_model

# With a left shift the output scales shrink down the chain: RELU6 comes first, where 6 / scale fits int32.
CHAIN = [
    Case(1, (9, 13), 6, 10, (3, 3), 6, (1, 1), (1, 1), "SAME", "RELU6", True, True),  # ring, stride 1
    Case(1, (9, 13), 10, 65, (2, 3), 10, (2, 2), (1, 1), "VALID", "NONE", True, True),  # ring, stride 2
    # pointwise, growing then shrinking (over 64 input channels: fewer take mote_conv_pointwise_s8,
    # tests/ops/test_conv_pointwise.py)
    Case(1, (4, 6), 65, 66, (1, 1), 65, (1, 1), (1, 1), "VALID", "RELU", True, False),
    Case(1, (4, 6), 66, 6, (1, 1), 66, (1, 1), (1, 1), "VALID", "NONE", False, True),
    Case(1, (4, 6), 6, 5, (2, 2), 6, (1, 1), (1, 1), "SAME", "RELU", True, True),  # blocked, 2x2
    Case(1, (4, 6), 5, 9, (1, 3), 5, (1, 2), (1, 1), "SAME", "NONE", True, True),  # blocked, odd channels
]
KERNELS = ["mote_conv_ring_s8"] * 2 + ["mote_conv_blocked_s8"] * 4


def scalar_params(graph: Graph) -> list[ConvParams]:
    return [OPS["conv2d"].prepare(node) for node in graph.nodes]


def shared_groups(p: ConvParams) -> set[int]:
    """How the layer's groups of four taps share roundings, as the kernel groups them (four filters of
    a quad, the layer padded with zero filters to whole quads): the ring kernel's kinds
    (mote.ops.pair_groups.RING_KINDS, 0 for none) or whether a blocked group shares (1) or not (0)."""
    quads = -(-p.out_ch // 4)
    w = np.zeros((quads * 4, *p.weights.shape[1:]), np.int64)
    w[:p.out_ch] = p.weights
    if ring_fits(p) is None:  # the ring kernel (the chain's kernels are checked in the test below)
        return set(np.unique(ring_kinds(w, p.stride_w)).tolist())
    taps = w.reshape(quads * 4, -1)
    taps = np.pad(taps, ((0, 0), (0, -taps.shape[1] % 4)))
    return set(np.unique(fits(taps.reshape(quads, 4, -1, 4)).all(axis=1)).astype(int).tolist())


def output_paths(p: ConvParams) -> set[str]:
    """The output stage's paths the layer's channels take (mote.ops.output_stage): "fast" (one multiply,
    inline), "wide" (out of line, shifted twice) or "full" (TFLite's two roundings)."""
    cuts = output_shortcuts(np.atleast_1d(p.multiplier), np.atleast_1d(p.shift), p.output_offset, p.act_min,
                            p.act_max)
    return {"fast" if after != INT32_MAX else "wide" if shift else "full"
            for after, shift in zip(cuts.fast_after, cuts.shift)}


SHARED = [{1}, {1}, {1}, {1}, {1}, {1}]  # the ring's first kind where it fits, every blocked group
MIXED = [{0, 1, 2}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}]  # every kind at stride 1 and 2, both runs


@pytest.mark.parametrize(("seed", "limit", "gain", "bias_max", "groups", "paths"), [
    (15, 15, 0.0, 20000, SHARED, {"fast"}),
    (90, 90, 0.0, 20000, MIXED, {"fast"}),
    (127, 127, 3.0, 20000, MIXED, {"full"}),
    (0, 127, 2.0**-26, 2**29, MIXED, {"fast", "wide"}),
], ids=["small-weights", "mixed", "full-weights-left-shift", "wide-channels"])
def test_micro_kernels_match_tflm(seed: int, limit: int, gain: float, bias_max: int, groups: list[set[int]],
                                  paths: set[str], tmp_path: Path) -> None:
    """A tiny multiplier (gain) with large biases makes wide channels: outputs that still vary."""
    rng = np.random.default_rng(seed)
    data = conv_chain_model(CHAIN, rng, gain, -limit, limit, bias_max)
    compiled = compile_graph(load_tflite(data, "chain"))
    params = scalar_params(compiled.graph)
    # The weights and scales take the kernels down the paths the case is named for, ring and blocked alike.
    assert [chosen(node, Core.SCALAR) for node in compiled.graph.nodes] == KERNELS
    assert [shared_groups(p) for p in params] == groups
    ring, blocked = params[:2], params[2:]
    assert set().union(*map(output_paths, ring)) == paths and set().union(*map(output_paths, blocked)) == paths

    firmware = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs),
                    f"rv32 firmware, seed {seed}")
