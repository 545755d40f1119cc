"""DEPTHWISE_CONV_2D against TFLite Micro: random geometry and quantization, and the 3x3 fast path
(blocks of 16 channels, stride-1 pixel pairs, borders, left-shifting requantization)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS, depthwise_band, depthwise_plane
from mote.ops.depthwise_conv2d import frame, pack_3x3
from mote.ops.registry import Core
from tests.ops.kernel_util import chosen

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


@dataclass
class Case:
    batches: int
    in_hw: tuple[int, int]
    in_ch: int
    multiplier: int
    filt: tuple[int, int]
    stride: tuple[int, int]
    dilation: tuple[int, int]
    padding: str
    activation: str
    per_channel: bool
    bias: bool


def random_case(rng: np.random.Generator) -> Case:
    filt = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    in_hw = tuple(int(rng.integers((f - 1) * d + 1, 13)) for f, d in zip(filt, dilation))
    return Case(int(rng.integers(1, 3)), (in_hw[0], in_hw[1]), int(rng.integers(1, 9)), int(rng.choice([1, 1, 2, 3])),
                filt, (int(rng.integers(1, 4)), int(rng.integers(1, 4))), dilation,
                str(rng.choice(["SAME", "VALID"])), str(rng.choice(ACTIVATIONS)), bool(rng.integers(2)),
                bool(rng.integers(4)))


def fast_path_case(rng: np.random.Generator) -> Case:
    """3x3, multiplier 1, dilation 1, any stride and padding; inputs down to 1x1 (no interior at all)."""
    padding = str(rng.choice(["SAME", "VALID"]))
    low = 1 if padding == "SAME" else 3
    return Case(int(rng.integers(1, 3)), (int(rng.integers(low, 13)), int(rng.integers(low, 13))),
                int(rng.integers(1, 17)), 1, (3, 3), (int(rng.integers(1, 4)), int(rng.integers(1, 4))), (1, 1),
                padding, str(rng.choice(ACTIVATIONS)), bool(rng.integers(2)), bool(rng.integers(4)))


def out_len(size: int, filt: int, stride: int, dilation: int, padding: str) -> int:
    effective = (filt - 1) * dilation + 1
    return (size + stride - 1) // stride if padding == "SAME" else (size - effective) // stride + 1


def depthwise_model(case: Case, rng: np.random.Generator, gain: float = 0.0) -> bytes:
    """A single DEPTHWISE_CONV_2D model with random weights, bias and quantization for `case`. With
    gain > 0 the output scale is input scale * filter scale / gain: a left-shifting multiplier."""
    mb = ModelBuilder()
    out_ch = case.in_ch * case.multiplier
    in_scale, in_zp = float(rng.uniform(0.005, 0.05)), int(rng.integers(-128, 128))
    w_scales = rng.uniform(0.002, 0.02, out_ch if case.per_channel else 1)
    taps = case.filt[0] * case.filt[1]
    # An output scale that keeps most results inside int8, with some saturating.
    out_scale = float(in_scale * w_scales.mean() * 128 * np.sqrt(taps) * rng.uniform(0.5, 2.5))
    if gain > 0:
        out_scale = float(in_scale * w_scales.min() / gain)
    x = mb.tensor("x", [case.batches, *case.in_hw, case.in_ch], "int8", scale=in_scale, zero_point=in_zp)
    w = mb.tensor("w", [1, *case.filt, out_ch], "int8", scale=list(w_scales), zero_point=0, axis=3,
                  data=rng.integers(-127, 128, (1, *case.filt, out_ch)))
    inputs = [x, w]
    if case.bias:
        b_scales = in_scale * np.broadcast_to(w_scales, out_ch)
        inputs.append(mb.tensor("b", [out_ch], "int32", scale=list(b_scales), zero_point=0,
                                data=rng.integers(-20000, 20000, out_ch)))
    (sh, sw), (dh, dw) = case.stride, case.dilation
    oh = out_len(case.in_hw[0], case.filt[0], sh, dh, case.padding)
    ow = out_len(case.in_hw[1], case.filt[1], sw, dw, case.padding)
    y = mb.tensor("y", [case.batches, oh, ow, out_ch], "int8", scale=out_scale,
                  zero_point=int(rng.integers(-100, 80)))
    mb.op("DEPTHWISE_CONV_2D", inputs, [y], padding=case.padding, stride_h=sh, stride_w=sw,
          depth_multiplier=case.multiplier, dilation_h_factor=dh, dilation_w_factor=dw,
          fused_activation_function=case.activation)
    return mb.build([x], [y])


def wide_3x3_case(rng: np.random.Generator) -> Case:
    """The 3x3 path with blocks of 16 channels and a remainder, strides 1 (pixel pairs) and 2."""
    c = fast_path_case(rng)
    return replace(c, in_hw=(int(rng.integers(3, 9)), int(rng.integers(3, 12))), in_ch=int(rng.integers(16, 41)),
                   stride=(int(rng.integers(1, 3)), int(rng.integers(1, 3))))


CASES: list[tuple[str, Callable[[np.random.Generator], Case]]] = [
    *[(f"random{s}", random_case) for s in range(14)],
    *[(f"3x3_{s}", fast_path_case) for s in range(10)],
    *[(f"3x3_wide{s}", wide_3x3_case) for s in range(4)],
]


@pytest.mark.parametrize("seed", range(len(CASES)), ids=[name for name, _ in CASES])
def test_depthwise_conv2d_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(2000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(depthwise_model(case, rng), seeds=2)
    kernel = OPS["depthwise_conv2d"].prepare(graph.nodes[0])
    fast = case.filt == (3, 3) and case.multiplier == 1 and case.dilation == (1, 1)
    assert (kernel.folded_bias is not None) == fast
    other = "mote_depthwise_conv_channels_s8" if case.multiplier == 1 else "mote_depthwise_conv_multiplier_s8"
    assert chosen(graph.nodes[0]) == ("mote_depthwise_conv_3x3_s8" if fast else other)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_depthwise_conv2d_3x3_sanitized(padding: str, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(9)
    case = Case(2, (7, 8), 5, 1, (3, 3), (2, 1), (1, 1), padding, "RELU6", True, True)
    check_model(depthwise_model(case, rng), seeds=1, sanitize=True)


def test_depthwise_conv2d_3x3_wide_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(13)
    case = Case(2, (6, 9), 35, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True)
    check_model(depthwise_model(case, rng), seeds=1, sanitize=True)


def test_depthwise_conv2d_3x3_left_shift(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(14)
    case = Case(1, (5, 8), 33, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True)
    graph = check_model(depthwise_model(case, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2)
    kernel = OPS["depthwise_conv2d"].prepare(graph.nodes[0])
    assert kernel.folded_bias is not None and kernel.shift.min() > 0


@pytest.fixture
def rows_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layers mote_depthwise_conv_band_s8 would take go to the rows kernel it comes before, which
    still serves the layers it declines (several images, strides above 2, wide padding)."""
    monkeypatch.setattr(depthwise_band, "band_fits", lambda p: "declined by the test")


@pytest.mark.parametrize("seed", [i for i, (name, _) in enumerate(CASES) if name.startswith("3x3")],
                         ids=[name for name, _ in CASES if name.startswith("3x3")])
def test_depthwise_conv2d_rows_matches_tflm(seed: int, check_model: Callable[..., object],
                                           rows_kernel: None) -> None:
    """The scalar-core kernel on the 3x3 cases (built for the host, sanitized)."""
    rng = np.random.default_rng(2000 + seed)
    graph = check_model(depthwise_model(CASES[seed][1](rng), rng), seeds=2, sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    assert chosen(node, Core.SCALAR) == "mote_depthwise_conv_rows_s8"


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_depthwise_conv2d_rows_left_shift_and_batches(padding: str, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(15)
    case = Case(2, (7, 8), 5, 1, (3, 3), (2, 1), (1, 1), padding, "RELU6", True, True)
    check_model(depthwise_model(case, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2, sanitize=True,
                core=Core.SCALAR)


@pytest.mark.parametrize("case", [
    Case(1, (4, 150), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),
    Case(1, (5, 141), 2, 1, (3, 3), (2, 2), (1, 1), "VALID", "NONE", False, True),
], ids=["stride1", "stride2"])
def test_depthwise_conv2d_rows_in_strips(case: Case, check_model: Callable[..., object],
                                         rows_kernel: None) -> None:
    """Rows longer than the kernel's run of accumulators (MOTE_DEPTHWISE_ROWS_RUN, 64) go in strips:
    150 and 70 output columns, the last strip short."""
    rng = np.random.default_rng(16)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    assert chosen(node, Core.SCALAR) == "mote_depthwise_conv_rows_s8"


SMALL_FRAMES = [
    Case(1, (6, 6), 5, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),
    Case(2, (5, 7), 3, 1, (3, 3), (1, 1), (1, 1), "VALID", "NONE", True, True),
    Case(1, (6, 6), 4, 1, (3, 3), (2, 2), (1, 1), "SAME", "RELU6", True, True),
    Case(2, (7, 5), 3, 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", True, False),  # tall: the frame is transposed
    Case(1, (8, 9), 3, 1, (3, 3), (2, 2), (1, 1), "VALID", "NONE", False, True),  # rows and columns left over
    Case(1, (3, 3), 7, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),
    Case(1, (1, 5), 2, 1, (3, 3), (1, 2), (1, 1), "SAME", "NONE", True, True),  # one row, both borders
    Case(1, (5, 14), 3, 1, (3, 3), (2, 1), (1, 1), "SAME", "RELU", True, True),  # plane columns at their limit
]


@pytest.mark.parametrize("case", SMALL_FRAMES,
                         ids=lambda c: f"{c.in_hw[0]}x{c.in_hw[1]}s{c.stride[0]}{c.stride[1]}{c.padding}")
def test_depthwise_conv2d_rows_small_frames(case: Case, check_model: Callable[..., object],
                                           rows_kernel: None) -> None:
    """Frames whose windows fit the rows kernel's plane on the stack (mote_depthwise_conv_rows_small.h)."""
    rng = np.random.default_rng(17)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_depthwise_conv_rows_s8"


def test_pack_3x3() -> None:
    """Blocks of 16 channels as [tap][16], then the remaining channels as [tap][C % 16]."""
    weights = np.arange(3 * 3 * 20).reshape(3, 3, 20) % 100
    packed = pack_3x3(weights.astype(np.int8))
    taps = weights.reshape(9, 20)
    assert packed[:144].tolist() == taps[:, :16].reshape(-1).tolist()
    assert packed[144:].tolist() == taps[:, 16:].reshape(-1).tolist()


@pytest.mark.parametrize("in_hw", [(25, 5), (5, 25), (6, 6)])
def test_rows_frame_walks_the_longer_axis(in_hw: tuple[int, int]) -> None:
    """Tall images run transposed (rows become columns, filters transposed, steps swapped)."""
    rng = np.random.default_rng(4)
    case = Case(1, in_hw, 4, 1, (3, 3), (2, 1), (1, 1), "SAME", "RELU", True, True)
    node = load_tflite(depthwise_model(case, rng), "m").nodes[0]
    p = OPS["depthwise_conv2d"].prepare(node)
    f = frame(p)
    assert f.out_w >= f.out_h
    if p.out_h > p.out_w:
        assert (f.in_h, f.in_w, f.out_h, f.out_w, f.stride_h, f.stride_w) == (
            p.in_w, p.in_h, p.out_w, p.out_h, p.stride_w, p.stride_h)
        assert (f.in_row_step, f.in_col_step, f.out_row_step, f.out_col_step) == (4, 4 * p.in_w, 4, 4 * p.out_w)
        assert np.array_equal(f.weights, p.weights.transpose(1, 0, 2))
    else:
        assert (f.in_row_step, f.in_col_step) == (4 * p.in_w, 4) and f.weights is p.weights


def test_depthwise_conv2d_general_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(10)
    case = Case(1, (6, 9), 3, 2, (2, 3), (1, 2), (2, 2), "SAME", "NONE", False, True)
    check_model(depthwise_model(case, rng), seeds=1, sanitize=True)


@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR], ids=lambda c: c.value)
def test_depthwise_conv2d_channels_sanitized(core: Core, check_model: Callable[..., object]) -> None:
    """Depth multiplier 1 with a filter the 3x3 kernels do not take: dilated 5x3, two images."""
    rng = np.random.default_rng(11)
    case = Case(2, (9, 10), 21, 1, (5, 3), (2, 1), (2, 1), "SAME", "RELU", True, True)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=core)
    assert chosen(graph.nodes[0], core) == ("mote_depthwise_conv_channels_s8" if core is Core.VECTOR
                                            else "mote_depthwise_conv_plane_s8")


@pytest.mark.parametrize("case", [
    Case(1, (49, 40), 1, 8, (10, 8), (2, 2), (1, 1), "SAME", "RELU", True, True),  # micro_speech's shape
    Case(2, (7, 9), 3, 11, (3, 2), (1, 2), (2, 1), "SAME", "RELU6", True, False),  # 8 + 3 per channel, dilated
    Case(1, (6, 6), 5, 2, (1, 4), (2, 1), (1, 1), "VALID", "NONE", False, True),
], ids=["micro_speech", "eleven_dilated", "two_valid"])
@pytest.mark.parametrize("core", [Core.VECTOR, Core.SCALAR], ids=lambda c: c.value)
def test_depthwise_conv2d_multiplier_sanitized(case: Case, core: Core, check_model: Callable[..., object]) -> None:
    """Depth multipliers above 1: the multiplier kernel, blocks of eight outputs and a remainder (the plane
    kernel on a scalar core)."""
    rng = np.random.default_rng(case.multiplier)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=core)
    assert chosen(graph.nodes[0], core) == ("mote_depthwise_conv_multiplier_s8" if core is Core.VECTOR
                                            else "mote_depthwise_conv_plane_s8")


PLANE_CASES = [
    *[Case(1, (6, 4 + fw), 3, 1, (2, fw), (1, 1), (1, 1), "SAME", "RELU", True, True) for fw in range(1, 10)],
    Case(2, (9, 11), 4, 1, (5, 5), (1, 1), (1, 1), "VALID", "NONE", True, True),  # sliding rows, two images
    Case(1, (7, 4), 2, 1, (2, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),  # rows of four: blocks of four
    Case(1, (8, 21), 3, 1, (7, 7), (1, 1), (1, 1), "SAME", "RELU6", True, True),  # blocks of eight, a short one
    Case(1, (9, 13), 3, 1, (4, 4), (2, 2), (1, 1), "SAME", "RELU6", False, True),  # stride 2, even filter
    Case(1, (10, 14), 2, 1, (3, 5), (3, 3), (1, 1), "SAME", "NONE", True, False),  # stride 3
    Case(1, (9, 12), 3, 1, (3, 3), (1, 1), (2, 2), "SAME", "RELU", True, True),  # dilated 3x3
    Case(1, (12, 10), 1, 4, (7, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),  # two lanes, stride 1
    Case(2, (12, 11), 2, 6, (4, 4), (2, 2), (1, 2), "SAME", "NONE", True, True),  # two lanes, stride 2, dilated
    Case(1, (11, 13), 2, 2, (2, 3), (3, 3), (1, 1), "VALID", "RELU6", False, True),  # two lanes, stride 3
    Case(1, (8, 9), 2, 3, (3, 3), (1, 2), (1, 1), "SAME", "RELU_N1_TO_1", True, True),  # three: one lane
]


@pytest.mark.parametrize("case", PLANE_CASES, ids=[f"case{i}" for i in range(len(PLANE_CASES))])
def test_depthwise_conv2d_plane_matches_tflm(case: Case, check_model: Callable[..., object]) -> None:
    """The scalar core's plane kernel (sanitized on the host): every filter width from 1 to 9 at stride 1 (the
    sliding rows, blocks of eight and four, partial ones), strides 2 and 3, dilation, one, two and four lanes."""
    rng = np.random.default_rng(case.in_hw[1] * 7 + case.multiplier)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_depthwise_conv_plane_s8"


FIXED_CASES = [
    Case(1, (3, 8), 5, 2, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),  # one block a row, a channel alone
    Case(1, (1, 13), 4, 2, (3, 3), (2, 1), (1, 1), "SAME", "NONE", True, False),  # one row; the last block overlaps
    Case(1, (3, 11), 6, 4, (3, 3), (1, 1), (1, 1), "VALID", "RELU6", False, True),  # two groups of two lanes
    Case(2, (9, 17), 3, 2, (3, 3), (1, 1), (2, 1), "SAME", "RELU6", True, True),  # dilated down, two images
    Case(1, (7, 16), 9, 1, (5, 5), (2, 2), (1, 1), "SAME", "RELU", True, True),  # even width: eight outputs
    Case(1, (5, 19), 4, 1, (5, 5), (2, 2), (1, 1), "VALID", "NONE", True, True),  # odd width, one output row
    Case(1, (3, 30), 2, 1, (5, 5), (1, 2), (1, 1), "SAME", "RELU_N1_TO_1", True, True),  # 15 across, 3 down
    Case(2, (8, 17), 2, 3, (5, 5), (2, 2), (1, 1), "SAME", "RELU", False, True),  # three lanes of one
]


@pytest.mark.parametrize("case", FIXED_CASES, ids=[f"case{i}" for i in range(len(FIXED_CASES))])
def test_depthwise_conv2d_plane_fixed_matches_tflm(case: Case, check_model: Callable[..., object]) -> None:
    """The plane kernel's fixed filters (3x3 at stride 1 by two lanes, 5x5 at stride 2 by one) on a plane of four
    interleaved channels (sanitized on the host): channel counts with a partial group of four, rows of eight
    outputs and longer ones whose last block overlaps, one to nine rows, VALID and SAME, odd and even widths,
    vertical strides and dilation, two images."""
    rng = np.random.default_rng(case.in_hw[1] * 11 + case.in_ch)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_depthwise_conv_plane_s8"
    p = OPS["depthwise_conv2d"].prepare(graph.nodes[0])
    assert depthwise_plane.fixed(p) and depthwise_plane.plane_group(p) == 4


@pytest.mark.parametrize("case", [
    Case(1, (5, 3), 3, 2, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),  # three across: blocks of four
    Case(1, (6, 9), 5, 1, (5, 5), (1, 2), (1, 1), "SAME", "NONE", True, True),  # five across at stride 2
    Case(1, (4, 12), 2, 2, (3, 3), (1, 1), (1, 2), "SAME", "RELU6", True, True),  # dilated across
], ids=["narrow", "five_across", "dilated_across"])
def test_depthwise_conv2d_plane_short_rows_not_fixed(case: Case, check_model: Callable[..., object]) -> None:
    """Rows of fewer than eight outputs, or taps not adjacent across, keep the plane's general blocks."""
    rng = np.random.default_rng(case.in_hw[1] * 13 + case.in_ch)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_depthwise_conv_plane_s8"
    p = OPS["depthwise_conv2d"].prepare(graph.nodes[0])
    assert not depthwise_plane.fixed(p) and depthwise_plane.plane_group(p) == 1


def test_depthwise_conv2d_plane_left_shift(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(17)
    case = Case(1, (7, 9), 3, 2, (5, 4), (1, 1), (1, 1), "SAME", "NONE", True, True)
    graph = check_model(depthwise_model(case, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_depthwise_conv_plane_s8"


def test_depthwise_conv2d_macs() -> None:
    rng = np.random.default_rng(3)
    case = Case(1, (8, 8), 4, 2, (3, 3), (1, 1), (1, 1), "SAME", "NONE", False, False)
    node = load_tflite(depthwise_model(case, rng), "m").nodes[0]
    assert OPS["depthwise_conv2d"].macs(node) == 8 * 8 * 8 * 3 * 3
