"""mote_depthwise_conv_band_s8's assembly (mote/targets/rv32/micro_depthwise.py) on the virtual platform against
TFLite Micro: chains of depthwise layers through the edge shapes of the host tests (widths 1 to 3, channel
counts not a multiple of four, stride 2 on odd and even sizes, SAME and VALID, transposed frames), and
the output stage's paths (shortcuts, the negative path, wide channels, TFLite's full rounding); with TFLite's
table rows and with one-multiply rows (mote_depthwise_conv_band_single_s8; a chain whose layers without an
activation keep TFLite's rows carries both bodies)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32, firmware, micro, micro_depthwise
from tests.ops.kernel_util import chosen
from tests.ops.test_depthwise_band import BAND_KERNELS, band_form
from tests.ops.test_depthwise_conv2d import out_len

# (stride (h, w), padding, activation) of each layer; the chain's input shape and channels.
CHAINS = {
    "odd_then_even": ((7, 9), 5, [((2, 2), "SAME", "RELU"), ((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "RELU6"),
                                  ((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "NONE"), ((1, 1), "SAME", "RELU")]),
    "valid_and_tall": ((11, 10), 6, [((2, 2), "VALID", "NONE"), ((1, 1), "VALID", "RELU"), ((1, 2), "SAME", "NONE"),
                                     ((1, 1), "SAME", "RELU6"), ((2, 1), "SAME", "NONE")]),
    "even_valid": ((8, 12), 7, [((2, 2), "VALID", "NONE"), ((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "RELU"),
                                ((1, 1), "SAME", "NONE")]),
    "one_pixel": ((1, 1), 3, [((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "RELU")]),
    # rows 1200 bytes apart: the laid-out loops reach the bottom row from a second pointer
    "wide_rows": ((8, 100), 12, [((1, 1), "SAME", "RELU"), ((2, 2), "SAME", "NONE")]),
    # small frames (at most 9 outputs) take routines of their own: 7x7 -> 3x3 -> 3x3 -> 2x2 -> 2x2 -> 1x1 -> 1x1
    "small_frames": ((7, 7), 5, [((2, 2), "VALID", "RELU"), ((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "RELU6"),
                                 ((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "NONE"), ((1, 1), "SAME", "RELU")]),
    # 5x4 -> 3x2 -> 3x1 (transposed) -> 3x1; 6x6 with 120 channels -> 3x3, reading from a second pointer
    "small_tall": ((5, 4), 3, [((2, 2), "SAME", "NONE"), ((1, 2), "SAME", "RELU"), ((1, 1), "SAME", "NONE")]),
    "small_far": ((6, 6), 120, [((2, 2), "SAME", "RELU"), ((1, 1), "SAME", "NONE"), ((1, 1), "VALID", "RELU6")]),
}
# the chains whose layers include small frames, and how many frame shapes each has
FRAMES = {"one_pixel": 2, "odd_then_even": 4, "small_frames": 6, "small_tall": 3, "small_far": 3}


def depthwise_chain(in_hw: tuple[int, int], channels: int, layers: list[tuple[tuple[int, int], str, str]],
                    rng: np.random.Generator, gain: float = 0.0, bias_max: int = 20000) -> bytes:
    """3x3 DEPTHWISE_CONV_2D layers in sequence, random per-channel scales; with gain > 0 each output
    scale is its input scale * the smallest filter scale / gain. Every layer's output is a model output,
    so that a wrong value shows even where later layers would squash it."""
    mb = ModelBuilder()
    scale = float(rng.uniform(0.005, 0.05))
    x = mb.tensor("x", [1, *in_hw, channels], "int8", scale=scale, zero_point=int(rng.integers(-128, 128)))
    y, hw, outputs = x, in_hw, []
    for i, (stride, padding, activation) in enumerate(layers):
        w_scales = rng.uniform(0.002, 0.02, channels)
        out_scale = float(scale * w_scales.mean() * 128 * 3 * rng.uniform(0.5, 2.5))
        if gain > 0:
            out_scale = float(scale * w_scales.min() / gain)
        w = mb.tensor(f"w{i}", [1, 3, 3, channels], "int8", scale=list(w_scales), zero_point=0, axis=3,
                      data=rng.integers(-127, 128, (1, 3, 3, channels)))
        b = mb.tensor(f"b{i}", [channels], "int32", scale=list(scale * w_scales), zero_point=0,
                      data=rng.integers(-bias_max, bias_max, channels))
        hw = (out_len(hw[0], 3, stride[0], 1, padding), out_len(hw[1], 3, stride[1], 1, padding))
        out = mb.tensor(f"y{i}", [1, *hw, channels], "int8", scale=out_scale, zero_point=int(rng.integers(-100, 80)))
        mb.op("DEPTHWISE_CONV_2D", [y, w, b], [out], padding=padding, stride_h=stride[0], stride_w=stride[1],
              depth_multiplier=1, fused_activation_function=activation)
        y, scale = out, out_scale
        outputs.append(out)
    return mb.build([x], outputs)


def run_on_rv32(data: bytes, name: str, tmp_path: Path, form: str | None = "full") -> None:
    """The chain on rv32 against TFLite Micro; every layer on the band kernel, with `form` "single" some on its
    one-multiply form, with "full" none (None: either)."""
    compiled = compile_graph(load_tflite(data, name), core=Core.SCALAR)
    kernels = {chosen(node, Core.SCALAR) for node in compiled.graph.nodes}
    assert kernels <= set(BAND_KERNELS.values())
    assert form is None or (BAND_KERNELS["single"] in kernels) == (form == "single")
    firmware = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs),
                    f"rv32 firmware, seed {seed}")


@pytest.mark.parametrize(("laid_out", "form"), [(True, "full"), (False, "full"), (True, "single"), (False, "single")],
                         ids=["laid-out", "generic", "laid-out-single", "generic-single"])
@pytest.mark.parametrize("name", list(CHAINS))
def test_band_chains_match_tflm_on_rv32(name: str, laid_out: bool, form: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the row loops laid out for the layers' band shapes, and with the generic loops only (what a
    shape gets whose rows are too far apart for immediate offsets); with TFLite's rows only, and with
    one-multiply rows where a layer has them."""
    band_form(form, monkeypatch)
    if not laid_out:
        monkeypatch.setattr(firmware, "_band_shapes", lambda model, body=firmware.BAND_BODY: [])
    in_hw, channels, layers = CHAINS[name]
    if name == "wide_rows" and laid_out and form == "full":
        graph = load_tflite(depthwise_chain(in_hw, channels, layers, np.random.default_rng(0)), name)
        src = micro.source(["mote_depthwise_band_s8"], firmware._band_shapes(compile_graph(graph, core=Core.SCALAR)))
        assert "lb a7, 0(a1)" in src and "lb ra, 12(a1)" in src  # the bottom row from the second pointer
    if name in FRAMES and laid_out and form == "full":
        graph = load_tflite(depthwise_chain(in_hw, channels, layers, np.random.default_rng(0)), name)
        src = micro.source(["mote_depthwise_band_s8"], firmware._band_shapes(compile_graph(graph, core=Core.SCALAR)))
        assert len(re.findall(r"^\.Ldw_frame\d+:$", src, re.M)) == FRAMES[name]
        assert (name == "small_far") == ("(s10)" in src)  # bytes past 2047 from the second pointer
    run_on_rv32(depthwise_chain(in_hw, channels, layers, np.random.default_rng(len(name))), name, tmp_path, form)


@pytest.mark.parametrize("form", list(BAND_KERNELS))
@pytest.mark.parametrize("in_hw", [(6, 9), (5, 5)], ids=["bands", "frames"])
@pytest.mark.parametrize(("gain", "bias_max"), [(2.0, 20000), (2.0**-24, 2**27)], ids=["left-shift", "wide-channels"])
def test_band_output_paths_on_rv32(gain: float, bias_max: int, in_hw: tuple[int, int], form: str, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Left-shifting multipliers (TFLite's full rounding out of line) and tiny ones with big biases
    (wide channels), with and without ReLU (negative accumulators past the clamp); in the row loops, and
    (5x5 -> 5x5 -> 3x3 -> 3x3) in the small frames' routines; with one-multiply rows where a layer has them."""
    band_form(form, monkeypatch)
    layers = [((1, 1), "SAME", "NONE"), ((2, 2), "SAME", "RELU"), ((1, 1), "SAME", "NONE")]
    data = depthwise_chain(in_hw, 5, layers, np.random.default_rng(7), gain, bias_max)
    run_on_rv32(data, "paths", tmp_path, None if form == "single" else form)


def test_band_shapes_get_their_loops() -> None:
    """Shapes whose rows (and, at stride 2, next column) are within a load's offset of at most two pointers
    get a loop of their own, the others none: stride 1 with its rows too far apart, a column step beyond
    the offsets, stride 1 with long rows (micro_depthwise.LONG_ROW)."""
    shapes = [(1, 16, 768, 1536, 1, 1, 768, 768, 16, 96), (2, 32, 1536, 3072, 0, 1, 3072, 768, 32, 736),
              (1, 64, 3000, 6000, 1, 1, 3000, 3000, 64, 2880), (2, 2100, 4200, 8400, 0, 1, 8400, 2100, 2100, 0),
              (1, 16, 768, 1536, 1, 1, 768, 768, 16, 16 * (micro_depthwise.LONG_ROW + 1))]
    src = micro.source(["mote_depthwise_band_s8"], shapes)
    assert set(re.findall(r"^(\.Ldw_row\dv\d+):$", src, re.M)) == {".Ldw_row1v0", ".Ldw_row2v3"}  # sorted shapes
    assert "lb a7, 1536(a0)" in src  # the bottom row of the first shape from the top row's pointer
    assert "lb ra, 1568(a0)" in src  # the middle row's next column in the second


def test_single_rows_at_the_inputs_extremes_on_rv32(tmp_path: Path) -> None:
    """One-multiply rows are proven on every accumulator a window can reach (mote.ops.depthwise_band.single_stages):
    inputs all -128, all 127, and alternating the two by column and by row push the accumulators to the ends."""
    data = depthwise_chain((7, 9), 6, [((1, 1), "SAME", "RELU"), ((2, 2), "SAME", "RELU6")], np.random.default_rng(3))
    compiled = compile_graph(load_tflite(data, "extremes"), core=Core.SCALAR)
    assert {chosen(node, Core.SCALAR) for node in compiled.graph.nodes} == {BAND_KERNELS["single"]}
    fw = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    (x,) = compiled.graph.inputs
    columns = np.where(np.arange(x.shape[2]) % 2 == 0, 127, -128)[None, None, :, None]
    rows = np.where(np.arange(x.shape[1]) % 2 == 0, -128, 127)[None, :, None, None]
    for pattern in (np.full(x.shape, -128), np.full(x.shape, 127), np.broadcast_to(columns, x.shape),
                    np.broadcast_to(rows, x.shape)):
        inputs = {x.name: np.ascontiguousarray(pattern, np.int8)}
        assert_same(fw.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs), "extreme inputs")
