"""The blocked 16x8 and float32 kernels of the scalar core (mote.ops.blocked_16x8, mote.ops.blocked_f32) and the
int8 BATCH_MATMUL of two activations, and int8 FULLY_CONNECTED in pair words, on the virtual MCU:
padded windows, strides, dilation, border pixels and channels or rows past a set of four, bit-exact
with the reference (float32 with the F extension). The int8 blocked convolution on windows of an odd number of
taps a row (pairs spanning two filter rows) inside the input and at its borders, four a row and fewer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote import pipeline
from mote.targets.rv32 import Rv32, Rv32Config
from tests.ops import test_batch_matmul as matmul
from tests.ops import test_conv2d as conv_s8
from tests.ops import test_conv2d_f32 as conv_f32
from tests.ops import test_fully_connected as fc_s8
from tests.ops import test_fully_connected_f32 as fc_f32
from tests.ops import test_weighted_16x8 as wide

MODELS: dict[str, tuple[Callable[[], bytes], str, str]] = {
    "conv_s16": (lambda: wide.conv_model("CONV_2D", np.random.default_rng(1), dilation=2, activation="RELU"),
                 "rv32imc", "mote_conv_blocked_s16"),
    "depthwise_s16": (lambda: wide.conv_model("DEPTHWISE_CONV_2D", np.random.default_rng(2), channels=9),
                      "rv32imc", "mote_depthwise_conv_blocked_s16"),
    "fully_connected_s16": (lambda: wide.fc_model(np.random.default_rng(3), out=11), "rv32imc",
                            "mote_fully_connected_blocked_s16"),
    "conv_f32": (lambda: conv_f32.window_model("CONV_2D", conv_f32.CONV_CASES[:1] + conv_f32.CONV_CASES[4:],
                                               np.random.default_rng(4), 1.0), "rv32imfc", "mote_conv_blocked_f32"),
    "depthwise_f32": (lambda: conv_f32.window_model("DEPTHWISE_CONV_2D", conv_f32.BLOCKED_DEPTHWISE_CASES[:4],
                                                    np.random.default_rng(5), 1.0), "rv32imfc",
                      "mote_depthwise_conv_blocked_f32"),
    "fully_connected_f32": (lambda: fc_f32.fc_model(np.random.default_rng(6), 1.0), "rv32imfc",
                            "mote_fully_connected_blocked_f32"),
    "fully_connected_pairs_s8": (lambda: fc_s8.fc_model(fc_s8.Case((2, 96), 96, 48, False, "RELU", True, 0, True),
                                                        np.random.default_rng(7), weight_max=90), "rv32imc",
                                 "mote_fully_connected_pairs_s8"),
    # VWW's first layer, smaller: 3x3 at stride 2 over 3 channels (9 taps a filter row), SAME
    "conv_s8_windows": (lambda: conv_s8.conv_model(conv_s8.Case(1, (19, 22), 3, 8, (3, 3), 3, (2, 2), (1, 1), "SAME",
                                                                "RELU6", True, True), np.random.default_rng(8)),
                        "rv32imc", "mote_conv_blocked_s8"),
    # 15 taps a filter row, VALID at stride 1: rows of 5 outputs, blocks of four across rows
    "conv_s8_windows_valid": (lambda: conv_s8.conv_model(conv_s8.Case(1, (7, 9), 5, 6, (2, 3), 5, (1, 1), (1, 1),
                                                                      "VALID", "NONE", True, False),
                                                         np.random.default_rng(9)), "rv32imc", "mote_conv_blocked_s8"),
    "batch_matmul_s8": (lambda: matmul.int8_model([2, 9, 7], [2, 7, 10], -3, 7), "rv32imc",
                        "mote_batch_matmul_blocked_s8"),
    "batch_matmul_pairs_single_s8": (lambda: matmul.int8_model([2, 8, 9], [2, 12, 9], -3, 7, adj_y=True,
                                                               out_scale=0.2, out_zero_point=-1), "rv32imc",
                                     "mote_batch_matmul_pairs_single_s8"),
    "batch_matmul_pairs_s8": (lambda: matmul.int8_model([3, 4, 7], [3, 7, 8], -1, -1), "rv32imc",
                              "mote_batch_matmul_pairs_s8"),
    # depths a multiple of 4 (both operands packed four lines a step, B's columns adjacent), an even and an odd
    # number of groups of four
    "batch_matmul_pairs_single_s8_packed": (lambda: matmul.int8_model([2, 8, 16], [2, 16, 12], -3, 7, out_scale=0.2,
                                                                      out_zero_point=-1), "rv32imc",
                                            "mote_batch_matmul_pairs_single_s8"),
    "batch_matmul_pairs_single_s8_odd": (lambda: matmul.int8_model([2, 12, 12], [2, 8, 12], -3, 7, adj_y=True,
                                                                   out_scale=0.2, out_zero_point=-1), "rv32imc",
                                         "mote_batch_matmul_pairs_single_s8"),
    "batch_matmul_s8_one_row": (lambda: matmul.int8_model([4, 1, 16], [4, 23, 16], 5, -7, adj_y=True), "rv32imc",
                                "mote_batch_matmul_blocked_s8"),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_blocked_kernels_on_rv32(name: str, tmp_path: Path) -> None:
    build, isa, kernel = MODELS[name]
    model = tmp_path / f"{name}.tflite"
    model.write_bytes(build())
    report = pipeline.run(model, target=Rv32(Rv32Config(cc="zig", isa=isa)), work_dir=tmp_path / "fw").to_json()
    assert report["bit_exact"]
    assert {layer["kernel"] for layer in report["layers"]} == {kernel}
