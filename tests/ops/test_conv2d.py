"""CONV_2D against TFLite Micro: random geometry and quantization, each kernel variant (1x1, im2col,
rows, general, and the scalar and VNNI cores' kernels), grouped filters, left-shifting requantization.
The kernels' C arithmetic on its own is tests/ops/test_conv_arithmetic.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ints import round_up
from mote.ops import OPS
from mote.ops.accumulator_range import accumulator_bounds
from mote.ops.conv2d_kernels import IM2COL_MAX_TAPS
from mote.ops.registry import Core
from mote.targets.host import host_core
from tests.ops.kernel_util import chosen

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


@dataclass
class Case:
    batches: int
    in_hw: tuple[int, int]
    in_ch: int
    out_ch: int
    filt: tuple[int, int]
    filter_in_ch: int
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
    groups = int(rng.choice([1, 1, 2, 3]))
    filter_in_ch = int(rng.integers(1, 7))
    out_ch = groups * int(rng.integers(1, 6))
    return Case(int(rng.integers(1, 3)), (in_hw[0], in_hw[1]), groups * filter_in_ch, out_ch, filt, filter_in_ch,
                (int(rng.integers(1, 4)), int(rng.integers(1, 4))), dilation, str(rng.choice(["SAME", "VALID"])),
                str(rng.choice(ACTIVATIONS)), bool(rng.integers(2)), bool(rng.integers(4)))


def conv_model(case: Case, rng: np.random.Generator, gain: float = 0.0, weight_min: int = -127,
               weight_max: int = 127) -> bytes:
    """A single CONV_2D model with random weights, bias and quantization for `case`. With gain > 0 the
    output scale is input scale * filter scale / gain: a multiplier above 1, i.e. a left shift."""
    return conv_chain_model([case], rng, gain, weight_min, weight_max)


def conv_chain_model(cases: list[Case], rng: np.random.Generator, gain: float = 0.0, weight_min: int = -127,
                     weight_max: int = 127, bias_max: int = 20000) -> bytes:
    """CONV_2D layers in sequence (each case's input shape is the previous one's output shape), biases
    in [-bias_max, bias_max)."""
    mb = ModelBuilder()
    in_scale, in_zp = float(rng.uniform(0.005, 0.05)), int(rng.integers(-128, 128))
    first = cases[0]
    x = mb.tensor("x", [first.batches, *first.in_hw, first.in_ch], "int8", scale=in_scale, zero_point=in_zp)
    y = x
    for i, case in enumerate(cases):
        y, in_scale = add_conv(mb, case, rng, y, in_scale, f"{i}", gain, weight_min, weight_max, bias_max)
    return mb.build([x], [y])


def add_conv(mb: ModelBuilder, case: Case, rng: np.random.Generator, x: int, in_scale: float, name: str,
             gain: float, weight_min: int = -127, weight_max: int = 127, bias_max: int = 20000) -> tuple[int, float]:
    """Appends one CONV_2D reading tensor x (scale in_scale); returns its output tensor and scale.
    Weights are in [weight_min, weight_max]: TFLite's int8 spec stops at -127; small weights let the
    scalar kernels share roundings (mote.ops.pair_groups)."""
    w_scales = rng.uniform(0.002, 0.02, case.out_ch if case.per_channel else 1)
    taps = case.filt[0] * case.filt[1] * case.filter_in_ch
    # An output scale that keeps most results inside int8, with some saturating.
    out_scale = float(in_scale * w_scales.mean() * 128 * np.sqrt(taps) * rng.uniform(0.5, 2.5))
    if gain > 0:
        out_scale = float(in_scale * w_scales.min() / gain)
    w = mb.tensor(f"w{name}", [case.out_ch, *case.filt, case.filter_in_ch], "int8", scale=list(w_scales),
                  zero_point=0, axis=0,
                  data=rng.integers(weight_min, weight_max + 1, (case.out_ch, *case.filt, case.filter_in_ch)))
    inputs = [x, w]
    if case.bias:
        b_scales = in_scale * np.broadcast_to(w_scales, case.out_ch)
        inputs.append(mb.tensor(f"b{name}", [case.out_ch], "int32", scale=list(b_scales), zero_point=0,
                                data=rng.integers(-bias_max, bias_max, case.out_ch)))
    (sh, sw), (dh, dw) = case.stride, case.dilation
    oh = out_len(case.in_hw[0], case.filt[0], sh, dh, case.padding)
    ow = out_len(case.in_hw[1], case.filt[1], sw, dw, case.padding)
    y = mb.tensor(f"y{name}", [case.batches, oh, ow, case.out_ch], "int8", scale=out_scale,
                  zero_point=int(rng.integers(-100, 80)))
    mb.op("CONV_2D", inputs, [y], padding=case.padding, stride_h=sh, stride_w=sw, dilation_h_factor=dh,
          dilation_w_factor=dw, fused_activation_function=case.activation)
    return y, out_scale


def out_len(size: int, filt: int, stride: int, dilation: int, padding: str) -> int:
    effective = (filt - 1) * dilation + 1
    return (size + stride - 1) // stride if padding == "SAME" else (size - effective) // stride + 1


def fast_path_case(rng: np.random.Generator) -> Case:
    """1x1, stride 1, one group: the matrix-product kernel (odd pixel and channel counts hit the remainders)."""
    c = random_case(rng)
    in_ch = int(rng.integers(1, 17))
    return Case(c.batches, c.in_hw, in_ch, int(rng.integers(1, 17)), (1, 1), in_ch, (1, 1), c.dilation, c.padding,
                c.activation, c.per_channel, c.bias)


def wide_1x1_case(rng: np.random.Generator) -> Case:
    """1x1, stride 1 with enough channels for the vectorized main loop (in_ch >= 16) and the blocks of
    16 output channels, plus remainders of both."""
    c = fast_path_case(rng)
    in_ch = int(rng.integers(16, 71))
    return replace(c, in_ch=in_ch, filter_in_ch=in_ch, out_ch=int(rng.integers(1, 41)))


def im2col_case(rng: np.random.Generator) -> Case:
    """One group, filter rows shorter than 16 bytes (few input channels): gathered windows."""
    c = random_case(rng)
    in_ch = int(rng.integers(1, 4))
    filt = (int(rng.integers(1, 6)), int(rng.integers(1, 5)))
    stride = c.stride if filt != (1, 1) else (int(rng.integers(2, 4)), c.stride[1])
    in_hw = tuple(max(s, (f - 1) * d + 1) for s, f, d in zip(c.in_hw, filt, c.dilation))
    return replace(c, in_hw=(in_hw[0], in_hw[1]), in_ch=in_ch, filter_in_ch=in_ch, out_ch=int(rng.integers(1, 41)),
                   filt=filt, stride=stride)


def rows_case(rng: np.random.Generator) -> Case:
    """One group, in_ch >= 16: dot products along the input rows, border pixels over their valid taps."""
    c = im2col_case(rng)
    in_ch = int(rng.integers(16, 41))
    filt = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    stride = c.stride if filt != (1, 1) else (c.stride[0], int(rng.integers(2, 4)))
    in_hw = tuple(max(s, (f - 1) * d + 1) for s, f, d in zip(c.in_hw, filt, c.dilation))
    return replace(c, in_hw=(in_hw[0], in_hw[1]), in_ch=in_ch, filter_in_ch=in_ch, filt=filt, stride=stride)


def expected_kernel(case: Case) -> str:
    """The kernel mote.ops.conv2d picks for `case` (its accumulator bounds hold for these biases)."""
    if case.filter_in_ch != case.in_ch:
        return "mote_conv_s8"
    if case.filt == (1, 1) and case.stride == (1, 1):
        return "mote_conv_1x1_s8"
    run = case.filt[1] * case.in_ch if case.dilation[1] == 1 else case.in_ch
    taps = case.filt[0] * case.filt[1] * case.in_ch
    if run < 16 and round_up(taps, 16) <= IM2COL_MAX_TAPS:
        return "mote_conv_im2col_s8"
    return "mote_conv_rows_s8"


CASES: list[tuple[str, Callable[[np.random.Generator], Case]]] = [
    *[(f"random{s}", random_case) for s in range(16)],
    *[(f"1x1_{s}", fast_path_case) for s in range(6)],
    *[(f"1x1_wide{s}", wide_1x1_case) for s in range(2)],
    *[(f"im2col{s}", im2col_case) for s in range(3)],
    *[(f"rows{s}", rows_case) for s in range(4)],
]


@pytest.mark.parametrize("seed", range(len(CASES)), ids=[name for name, _ in CASES])
def test_conv2d_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(1000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(conv_model(case, rng), seeds=2)
    node = graph.nodes[0]
    assert chosen(node) == expected_kernel(case)


# Layers in sequence, one per fast kernel: im2col (pixels % 4 != 0), rows (dilated, strided, borders),
# 1x1 (tails of channels and pixels everywhere).
CHAIN = [Case(2, (7, 6), 3, 17, (3, 3), 3, (2, 1), (1, 2), "SAME", "RELU", True, True),
         Case(2, (4, 6), 17, 18, (2, 3), 17, (1, 2), (2, 2), "SAME", "RELU6", False, True),
         Case(2, (4, 3), 18, 35, (1, 1), 18, (1, 1), (1, 1), "VALID", "NONE", True, False)]


def test_conv2d_left_shift(check_model: Callable[..., object]) -> None:
    """Multipliers above 1 (output scale below input scale * filter scale): the requantization shifts left."""
    rng = np.random.default_rng(21)
    graph = check_model(conv_chain_model(CHAIN, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2)
    for node, case in zip(graph.nodes, CHAIN):
        assert chosen(node) == expected_kernel(case) and OPS["conv2d"].prepare(node).shift.min() > 0
    assert {chosen(node) for node in graph.nodes} == {
        "mote_conv_im2col_s8", "mote_conv_rows_s8", "mote_conv_1x1_s8"}


def test_conv2d_large_bias_falls_back(check_model: Callable[..., object]) -> None:
    """A bias this close to the int32 limit leaves the fast kernels no headroom: the general one runs."""
    rng = np.random.default_rng(22)
    case = Case(1, (5, 5), 16, 3, (3, 3), 16, (1, 1), (1, 1), "SAME", "NONE", True, True)
    mb = load_tflite(conv_model(case, rng), "m")
    node = mb.nodes[0]
    bias = node.inputs[2]
    assert bias is not None and bias.data is not None
    # As close as TFLite Micro's own int32 sum allows (mote.ops.accumulator_range): one more overflows.
    _, greatest = accumulator_bounds(node.inputs[1].data.reshape(case.out_ch, -1), -node.inputs[0].zero_point)
    bias.data = (2**31 - 1 - greatest).astype(np.int32)
    assert chosen(node) == "mote_conv_s8"
    bias.data = bias.data + 1
    with pytest.raises(UnsupportedError, match="overflows int32"):
        OPS["conv2d"].prepare(node)


def test_conv2d_1x1_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(7)
    check_model(conv_model(fast_path_case(rng), rng), seeds=1, sanitize=True)


def test_conv2d_general_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(8)
    case = Case(2, (7, 6), 6, 4, (3, 2), 3, (2, 1), (2, 1), "SAME", "RELU", True, True)
    check_model(conv_model(case, rng), seeds=1, sanitize=True)


def test_conv2d_fast_kernels_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(23)
    graph = check_model(conv_chain_model(CHAIN, rng), seeds=1, sanitize=True)
    assert [chosen(node) for node in graph.nodes] == [expected_kernel(c) for c in CHAIN]


needs_vnni = pytest.mark.skipif(host_core() is not Core.VNNI, reason="needs an x86-64 host with AVX-512 VNNI")
CORES = [Core.SCALAR, pytest.param(Core.VNNI, marks=needs_vnni)]


def core_kernel(case: Case, core: Core) -> str:
    """The kernel each core's ungrouped convolutions take: on a scalar core the depthwise plane for a
    one-channel input into fewer than 32 channels, the ring of packed rows for three filter columns at
    stride 1 or 2 over channel pairs, else register-blocked windows; VNNI on a host with it."""
    if core is Core.VNNI:
        return "mote_conv_vnni_s8"
    if case.in_ch == 1 and case.out_ch < 32:  # a depthwise convolution in disguise
        return "mote_conv_plane_s8"
    ring = case.filt[1] == 3 and case.stride[1] in (1, 2) and case.dilation == (1, 1) and case.in_ch % 2 == 0
    return "mote_conv_ring_s8" if ring else "mote_conv_blocked_s8"


def core_kernels(case: Case, core: Core) -> set[str]:
    """core_kernel, and on a scalar core for a pointwise layer with up to 64 input channels the pointwise kernel,
    which takes it where each channel has a one-multiply output stage (mote.ops.output_single)."""
    kernel = core_kernel(case, core)
    few = case.filt == (1, 1) and case.stride == (1, 1) and case.in_ch <= 64 and kernel == "mote_conv_blocked_s8"
    return {kernel, "mote_conv_pointwise_s8"} if few else {kernel}


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.value)
@pytest.mark.parametrize("seed", [i for i, (name, _) in enumerate(CASES) if not name.startswith("random1")],
                         ids=[name for name, _ in CASES if not name.startswith("random1")])
def test_conv2d_core_kernels_match_tflm(seed: int, core: Core, check_model: Callable[..., object]) -> None:
    """The scalar-core and VNNI kernels on the same cases (built for the host, sanitized)."""
    rng = np.random.default_rng(1000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(conv_model(case, rng), seeds=2, sanitize=True, core=core)
    node = graph.nodes[0]
    assert chosen(node, core) in ({"mote_conv_s8"} if case.filter_in_ch != case.in_ch else core_kernels(case, core))


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.value)
def test_conv2d_core_kernels_left_shift_chain(core: Core, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(21)
    graph = check_model(conv_chain_model(CHAIN, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2, sanitize=True,
                        core=core)
    assert all(chosen(n, core) in core_kernels(case, core) for n, case in zip(graph.nodes, CHAIN))


def ring_case(rng: np.random.Generator) -> Case:
    """Three filter columns at stride 1 or 2 across, over channel pairs (mote_conv_ring_s8 on a scalar
    core): one to four filter rows, strides down to 3, rows whose last block of four pixels is short."""
    fh = int(rng.integers(1, 5))
    in_ch = 2 * int(rng.integers(1, 9))
    in_hw = (int(rng.integers(fh, 12)), int(rng.integers(3, 15)))
    return Case(int(rng.integers(1, 3)), in_hw, in_ch, int(rng.integers(1, 14)), (fh, 3), in_ch,
                (int(rng.integers(1, 4)), int(rng.integers(1, 3))), (1, 1), str(rng.choice(["SAME", "VALID"])),
                str(rng.choice(ACTIVATIONS)), bool(rng.integers(2)), bool(rng.integers(4)))


@pytest.mark.parametrize("shared", [False, True], ids=["full-weights", "small-weights"])
@pytest.mark.parametrize("seed", range(5))
def test_conv2d_ring_matches_tflm(seed: int, shared: bool, check_model: Callable[..., object]) -> None:
    """The ring kernel against TFLite Micro (built for the host, sanitized): with full-range weights
    its filter columns keep their own roundings; with small ones they share them."""
    rng = np.random.default_rng(3000 + seed)
    case = ring_case(rng)
    limit = 15 if shared else 127
    graph = check_model(conv_model(case, rng, weight_min=-limit, weight_max=limit), seeds=2, sanitize=True,
                        core=Core.SCALAR)
    node = graph.nodes[0]
    assert chosen(node, Core.SCALAR) == "mote_conv_ring_s8"


@pytest.mark.parametrize("seed", [i for i, (name, _) in enumerate(CASES) if name[:3] in ("1x1", "im2")],
                         ids=[name for name, _ in CASES if name[:3] in ("1x1", "im2")])
def test_conv2d_blocked_shared_roundings(seed: int, check_model: Callable[..., object]) -> None:
    """The register-blocked kernel with small weights, whose groups of four taps share roundings."""
    rng = np.random.default_rng(1000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(conv_model(case, rng, weight_min=-20, weight_max=20), seeds=2, sanitize=True,
                        core=Core.SCALAR)
    node = graph.nodes[0]
    assert chosen(node, Core.SCALAR) in core_kernels(case, Core.SCALAR)


@pytest.mark.parametrize("case", [
    Case(1, (6, 7), 8, 6, (3, 3), 8, (1, 1), (1, 1), "SAME", "RELU", True, True),
    Case(1, (5, 3), 12, 37, (1, 1), 12, (1, 1), (1, 1), "VALID", "NONE", False, True),  # pointwise, 15 pixels
], ids=["3x3", "1x1"])
def test_conv2d_scalar_weights_at_minus_128_split(case: Case, check_model: Callable[..., object]) -> None:
    """The blocked kernel's paired products need weights >= -127: a filter with -128 (outside TFLite's
    spec, but loadable) runs on the split-weights kernel (w = v + s, v in [-127, 128]), exact; the vector
    cores keep their kernels."""
    rng = np.random.default_rng(26)
    graph = check_model(conv_model(case, rng, weight_min=-128), seeds=2, sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    assert int(OPS["conv2d"].prepare(node).weights.min()) == -128
    assert chosen(node, Core.SCALAR) == "mote_conv_blocked_wide_s8"
    assert chosen(node, Core.VECTOR) == expected_kernel(case)


ONE_CHANNEL = [
    Case(1, (12, 11), 1, 8, (3, 3), 1, (1, 1), (1, 1), "SAME", "RELU", True, True),  # fixed 3x3: two lanes
    Case(1, (2, 19), 1, 6, (3, 3), 1, (1, 1), (1, 1), "SAME", "RELU", True, True),  # fixed: three groups, two rows
    Case(2, (5, 10), 1, 4, (3, 3), 1, (2, 1), (1, 1), "VALID", "RELU6", True, True),  # fixed: 8 across, stride 2 down
    Case(1, (4, 9), 1, 8, (3, 3), 1, (1, 1), (1, 1), "VALID", "NONE", True, True),  # seven across: four lanes
    Case(2, (13, 12), 1, 8, (5, 5), 1, (2, 2), (1, 1), "SAME", "RELU6", True, True),  # four lanes, stride 2
    Case(1, (11, 14), 1, 6, (4, 4), 1, (2, 2), (1, 1), "SAME", "NONE", False, True),  # two lanes, even filter
    Case(1, (9, 15), 1, 5, (1, 7), 1, (1, 1), (1, 1), "SAME", "RELU", True, False),  # one lane: sliding rows
    Case(1, (10, 9), 1, 3, (3, 1), 1, (1, 3), (2, 1), "VALID", "RELU_N1_TO_1", True, True),  # stride 3, dilated
    Case(1, (14, 13), 1, 12, (2, 3), 1, (3, 1), (1, 2), "SAME", "NONE", True, True),  # dilated across
]


@pytest.mark.parametrize("case", ONE_CHANNEL, ids=[f"case{i}" for i in range(len(ONE_CHANNEL))])
def test_conv2d_one_channel_plane_matches_tflm(case: Case, check_model: Callable[..., object]) -> None:
    """A one-channel input on a scalar core runs as a depthwise convolution (mote_conv_plane_s8): blocks of
    one, two and four output channels, strides 1 to 3, dilation, partial blocks of four pixels, the fixed 3x3
    blocks of eight (sanitized)."""
    rng = np.random.default_rng(case.out_ch * 31 + case.filt[0])
    graph = check_model(conv_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_conv_plane_s8"


def test_conv2d_one_channel_into_32_channels_stays_blocked() -> None:
    """From 32 output channels on, the blocked kernel's paired products are as fast (KWS's first layer: faster)."""
    rng = np.random.default_rng(28)
    case = Case(1, (12, 10), 1, 32, (3, 3), 1, (1, 1), (1, 1), "SAME", "RELU", True, True)
    node = load_tflite(conv_model(case, rng), "m").nodes[0]
    assert chosen(node, Core.SCALAR) == "mote_conv_blocked_s8"


def test_conv2d_one_channel_plane_left_shift_and_minus_128(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(27)
    case = Case(1, (9, 10), 1, 4, (3, 5), 1, (1, 1), (1, 1), "SAME", "NONE", True, True)
    graph = check_model(conv_model(case, rng, gain=float(rng.uniform(1.5, 6.0)), weight_min=-128), seeds=2,
                        core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_conv_plane_s8"


@needs_vnni
@pytest.mark.parametrize("case", [
    Case(2, (12, 15), 8, 20, (3, 3), 8, (1, 2), (2, 2), "SAME", "RELU", True, True),
    Case(1, (11, 13), 4, 36, (2, 3), 4, (2, 1), (1, 3), "VALID", "NONE", True, False),
    Case(1, (9, 9), 12, 16, (1, 1), 12, (1, 1), (1, 1), "VALID", "RELU6", False, True),
], ids=["dilated-strided-same", "dilated-valid", "1x1"])
def test_conv2d_vnni_strides_dilation_and_batches(case: Case, check_model: Callable[..., object]) -> None:
    """Windows read in the padded plane with their stride and dilation, rows whose last block of four
    is short, two images."""
    rng = np.random.default_rng(25)
    check_model(conv_model(case, rng), seeds=2, sanitize=True, core=Core.VNNI)


def test_conv2d_macs() -> None:
    rng = np.random.default_rng(3)
    case = Case(1, (8, 8), 6, 4, (3, 3), 3, (1, 1), (1, 1), "SAME", "NONE", False, False)
    node = load_tflite(conv_model(case, rng), "m").nodes[0]
    assert OPS["conv2d"].macs(node) == 8 * 8 * 4 * 3 * 3 * 3
