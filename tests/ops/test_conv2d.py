"""CONV_2D against TFLite Micro: random geometry and quantization, each kernel variant (1x1, im2col,
rows, general), grouped filters, left-shifting requantization; and the fast kernels' output stage and
vectorization on the host compiler."""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ints import round_up
from mote.ops import OPS
from mote.ops.accumulator_range import accumulator_bounds
from mote.ops.conv2d_kernels import IM2COL_MAX_TAPS
from mote.ops.output_stage import output_multipliers
from mote.ops.registry import Core
from mote.targets.host import find_cc, host_core
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
    """The kernel each core's ungrouped convolutions take: on a scalar core the ring of packed rows for
    three filter columns at stride 1 or 2 over channel pairs, else register-blocked windows; VNNI on
    a host with it."""
    if core is Core.VNNI:
        return "mote_conv_vnni_s8"
    ring = case.filt[1] == 3 and case.stride[1] in (1, 2) and case.dilation == (1, 1) and case.in_ch % 2 == 0
    return "mote_conv_ring_s8" if ring else "mote_conv_blocked_s8"


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.value)
@pytest.mark.parametrize("seed", [i for i, (name, _) in enumerate(CASES) if not name.startswith("random1")],
                         ids=[name for name, _ in CASES if not name.startswith("random1")])
def test_conv2d_core_kernels_match_tflm(seed: int, core: Core, check_model: Callable[..., object]) -> None:
    """The scalar-core and VNNI kernels on the same cases (built for the host, sanitized)."""
    rng = np.random.default_rng(1000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(conv_model(case, rng), seeds=2, sanitize=True, core=core)
    node = graph.nodes[0]
    assert chosen(node, core) == ("mote_conv_s8" if case.filter_in_ch != case.in_ch else core_kernel(case, core))


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.value)
def test_conv2d_core_kernels_left_shift_chain(core: Core, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(21)
    graph = check_model(conv_chain_model(CHAIN, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2, sanitize=True,
                        core=core)
    assert [chosen(n, core) for n in graph.nodes] == [
        core_kernel(case, core) for case in CHAIN]


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
    assert chosen(node, Core.SCALAR) == core_kernel(
        case, Core.SCALAR)


def test_conv2d_scalar_weights_at_minus_128_fall_back(check_model: Callable[..., object]) -> None:
    """The blocked kernel's paired products need weights >= -127: a filter with -128 (outside TFLite's
    spec, but loadable) runs on the one-row kernel instead, still exact."""
    rng = np.random.default_rng(26)
    case = Case(1, (6, 7), 8, 6, (3, 3), 8, (1, 1), (1, 1), "SAME", "RELU", True, True)
    graph = check_model(conv_model(case, rng, weight_min=-128), seeds=2, sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    assert int(OPS["conv2d"].prepare(node).weights.min()) == -128
    assert chosen(node, Core.SCALAR) == expected_kernel(case)


PAIR_DOT_TEST = r"""
#include <stdio.h>
#include "mote_conv_common.h"

int main(void) {
  static const int32_t ws[] = {-127, -126, -65, -64, -1, 0, 1, 2, 63, 64, 126, 127};
  const int n = (int)(sizeof ws / sizeof ws[0]);
  long bad = 0;
  for (int32_t x0 = -128; x0 < 128; ++x0) {
    for (int32_t x1 = -128; x1 < 128; ++x1) {
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          const int32_t w0 = ws[a], w1 = ws[b];
          const int32_t got = mote_pair_dot(x0 * 65536 + x1, w0 + w1 * 65536);
          if (got != x0 * w0 + x1 * w1 && bad++ < 5) printf("%d %d %d %d: %d\n", x0, x1, w0, w1, got);
        }
      }
    }
  }
  printf("%ld mismatches\n", bad);
  return bad != 0;
}
"""


def test_pair_dot_is_exact(tmp_path: Path) -> None:
    """mote_pair_dot (two products per multiply) on every pair of int8 inputs against the weights at
    and around the limits, signs and powers of two, under UBSan."""
    runtime = Path(str(resources.files("mote.runtime")))
    (tmp_path / "t.c").write_text(PAIR_DOT_TEST)
    build = [find_cc(), "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsanitize=undefined",
             "-fno-sanitize-recover=all", f"-I{runtime}", "-o", str(tmp_path / "t"), str(tmp_path / "t.c")]
    subprocess.run(build, check=True, capture_output=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


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


OUTPUT_STAGE_TEST = r"""
#include <stdio.h>
#include "mote_conv_common.h"
#include "mote_fixedpoint.h"

static uint32_t state = 12345u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

int main(void) {
  static const int32_t specials[] = {0, 1, -1, 2, -2, 127, -128, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN + 1,
                                     INT32_MIN, 1 << 20, -(1 << 20) - 1, 1 << 15, -(1 << 15)};
  long bad = 0;
  for (long i = 0; i < 3000000; ++i) {
    const uint32_t kind = next() % 4;
    const int32_t multiplier = kind == 0 ? 0 : kind == 1 ? INT32_MAX : (int32_t)(0x40000000u + (next() & 0x3fffffffu));
    const int32_t shift = (int32_t)(next() % 62) - 31;
    const uint32_t pick = next() % 4;
    const int32_t acc = pick == 0 ? specials[next() % 16] : pick == 1 ? (int32_t)next()
                      : pick == 2 ? (int32_t)(next() % 4000001) - 2000000 : (int32_t)(next() % 513) - 256;
    const int32_t offset = (int32_t)(next() % 256) - 128;
    const uint32_t left_mul = 1u << (shift > 0 ? shift : 0), right_mul = 1u << (31 - (shift > 0 ? 0 : -shift));
    int32_t want = (int32_t)((uint32_t)mote_requantize(acc, multiplier, shift) + (uint32_t)offset);
    want = mote_clamp(want, -128, 127);
    const int8_t got = mote_conv_requantize(acc, (uint32_t)multiplier, left_mul, right_mul, (uint32_t)offset, -128,
                                            127);
    if (got != want && bad++ < 5) printf("acc %d mul %d shift %d: %d, want %d\n", acc, multiplier, shift, got, want);
  }
  printf("%ld mismatches\n", bad);
  return bad != 0;
}
"""


def test_output_stage_matches_requantize(tmp_path: Path) -> None:
    """The fast kernels' output stage (mote_conv_requantize) against mote_requantize (TFLite's
    MultiplyByQuantizedMultiplier, checked against TFLite Micro through every model test) on random
    and extreme accumulators, every shift and multiplier range, under UBSan."""
    runtime = Path(str(resources.files("mote.runtime")))
    (tmp_path / "t.c").write_text(OUTPUT_STAGE_TEST)
    cc = find_cc()
    build = [cc, "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsanitize=undefined",
             "-fno-sanitize-recover=all", f"-I{runtime}", "-o", str(tmp_path / "t"), str(tmp_path / "t.c")]
    subprocess.run(build, check=True, capture_output=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_output_multipliers() -> None:
    left, right = output_multipliers(np.array([3, 0, -1, -31, 30]))
    assert left.tolist() == [8, 1, 1, 1, 2**30]
    assert right.view(np.uint32).tolist() == [2**31, 2**31, 2**30, 1, 2**31]


def main_loops(header: str) -> dict[str, int]:
    """The line of each dot product's main (n16) loop in mote_conv_common.h, by function name."""
    lines = header.splitlines()
    found, current = {}, None
    for number, line in enumerate(lines, start=1):
        m = re.match(r"static inline \w+ (mote_dot_\w+)\(", line)
        if m:
            current = m.group(1)
        if current and "k < n16;" in line and current not in found:
            found[current] = number
    return found


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="checks gcc's x86-64 vectorizer")
def test_fast_kernels_vectorize_at_O2(tmp_path: Path) -> None:
    """The host speed of the fast kernels rests on gcc -O2 vectorizing their dot products and output
    stages without runtime checks; a harmless-looking edit (a loop bound computed inside a loop) can
    silently undo that. gcc reports each vectorized loop with -fopt-info-vec-optimized."""
    cc = find_cc()
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    if "gcc" not in version.lower() and "free software foundation" not in version.lower():
        pytest.skip("needs gcc")
    runtime = Path(str(resources.files("mote.runtime")))
    loops = main_loops((runtime / "mote_conv_common.h").read_text())
    expected = {
        "mote_conv_1x1_s8.c": ["mote_dot_4x2", "mote_dot_1x4", "output"],
        "mote_conv_rows_s8.c": ["mote_dot_4x2", "mote_dot_2x4", "mote_dot_offset_1x4", "output"],
        "mote_conv_im2col_s8.c": ["mote_dot_4x2", "output"],
        "mote_fully_connected_s8.c": ["mote_dot_1x4", "output"],
        "mote_depthwise_conv_3x3_s8.c": ["output"],
    }
    output_line = next(i for i, line in enumerate((runtime / "mote_output_stage.h").read_text().splitlines(), 1)
                       if "for (int32_t j = 0; j < 16; ++j) {" in line)
    for source, wanted in expected.items():
        proc = subprocess.run([cc, "-O2", "-std=c99", f"-I{runtime}", "-c", str(runtime / source), "-o",
                               str(tmp_path / "k.o"), "-fopt-info-vec-optimized"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        vectorized = set(re.findall(r"(mote_\w+\.h:\d+):\d+: optimized: loop vectorized", proc.stderr))
        for name in wanted:
            where = (f"mote_output_stage.h:{output_line}" if name == "output"
                     else f"mote_conv_common.h:{loops[name]}")
            assert where in vectorized, f"{source}: the loop at {where} ({name}) is scalar"


def test_conv2d_macs() -> None:
    rng = np.random.default_rng(3)
    case = Case(1, (8, 8), 6, 4, (3, 3), 3, (1, 1), (1, 1), "SAME", "NONE", False, False)
    node = load_tflite(conv_model(case, rng), "m").nodes[0]
    assert OPS["conv2d"].macs(node) == 8 * 8 * 4 * 3 * 3 * 3
