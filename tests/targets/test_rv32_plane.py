"""The scalar kernels for real-model layer shapes on the rv32 virtual platform against TFLite Micro: the depthwise
plane (micro_speech's layer, sliding blocks of eight, two lanes at stride 2, the fixed 3x3 and 5x5 stride-2
blocks on four interleaved channels), the 3x3 rows kernel on small frames, a one-channel convolution as a
depthwise one, and fully connected layers whose rows are not a multiple of sixteen (two rows' products per
multiply, mote_fully_connected_row_pairs_s8, and the blocked kernel where a weight -128 keeps that from it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case as ConvCase
from tests.ops.test_conv2d import conv_model
from tests.ops.test_depthwise_conv2d import Case as DepthwiseCase
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_fully_connected import Case as FcCase
from tests.ops.test_fully_connected import fc_model

MODELS = {
    "micro_speech": (lambda rng: depthwise_model(DepthwiseCase(1, (49, 40), 1, 8, (10, 8), (2, 2), (1, 1), "SAME",
                                                               "RELU", True, True), rng),
                     "mote_depthwise_conv_plane_s8"),
    "slide8": (lambda rng: depthwise_model(DepthwiseCase(1, (11, 19), 5, 1, (5, 5), (1, 1), (1, 1), "SAME",
                                                         "RELU6", True, True), rng), "mote_depthwise_conv_plane_s8"),
    "two_lanes_stride2": (lambda rng: depthwise_model(DepthwiseCase(1, (13, 14), 3, 2, (4, 3), (2, 2), (1, 1), "SAME",
                                                                    "NONE", True, True), rng),
                          "mote_depthwise_conv_plane_s8"),
    "fixed_3x3_two_lanes": (lambda rng: depthwise_model(DepthwiseCase(1, (7, 13), 6, 2, (3, 3), (1, 1), (1, 1),
                                                                      "SAME", "RELU", True, True), rng),
                            "mote_depthwise_conv_plane_s8"),
    "fixed_5x5_stride2": (lambda rng: depthwise_model(DepthwiseCase(1, (9, 19), 5, 1, (5, 5), (2, 2), (1, 1), "SAME",
                                                                    "RELU6", True, True), rng),
                          "mote_depthwise_conv_plane_s8"),
    "rows_small_stride2": (lambda rng: depthwise_model(DepthwiseCase(2, (6, 7), 9, 1, (3, 3), (2, 2), (1, 1), "SAME",
                                                                     "RELU6", True, True), rng),
                           "mote_depthwise_conv_rows_s8"),
    "rows_small_stride1": (lambda rng: depthwise_model(DepthwiseCase(2, (5, 6), 11, 1, (3, 3), (1, 1), (1, 1), "VALID",
                                                                     "NONE", True, True), rng),
                           "mote_depthwise_conv_rows_s8"),
    "one_channel_conv": (lambda rng: conv_model(ConvCase(1, (15, 17), 1, 8, (3, 3), 1, (1, 1), (1, 1), "SAME",
                                                         "RELU", True, True), rng), "mote_conv_plane_s8"),
    "fc_13_rows": (lambda rng: fc_model(FcCase((1, 251), 251, 13, False, "RELU", True, 0, True), rng),
                   "mote_fully_connected_row_pairs_s8"),
    "fc_2_rows_vww": (lambda rng: fc_model(FcCase((1, 256), 256, 2, False, "NONE", True, 0, True), rng),
                      "mote_fully_connected_row_pairs_s8"),
    "fc_6_rows_depth_13": (lambda rng: fc_model(FcCase((3, 13), 13, 6, False, "RELU", False, 0, True), rng),
                           "mote_fully_connected_row_pairs_s8"),
    "fc_3_rows": (lambda rng: fc_model(FcCase((2, 100), 100, 3, False, "NONE", False, -3, True), rng),
                  "mote_fully_connected_row_pairs_s8"),
    "fc_3_rows_blocked": (lambda rng: fc_model(FcCase((2, 100), 100, 3, False, "NONE", False, -3, True), rng),
                          "mote_fully_connected_blocked_s8"),
}
# Models whose kernel comes after another that would take them first.
SKIP = {"fc_3_rows_blocked": frozenset({"mote_fully_connected_row_pairs_s8"})}


@pytest.mark.parametrize("name", list(MODELS))
def test_scalar_kernels_match_tflm_on_rv32(name: str, tmp_path: Path) -> None:
    build, kernel = MODELS[name]
    data = build(np.random.default_rng(len(name)))
    graph = load_tflite(data, name)
    skip = SKIP.get(name, frozenset())
    compiled = compile_graph(graph, core=Core.SCALAR, compact={node.name: skip for node in graph.nodes})
    assert chosen(compiled.graph.nodes[0], Core.SCALAR, skip) == kernel
    firmware = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs),
                    f"rv32 firmware, seed {seed}")
