"""FULLY_CONNECTED against TFLite Micro: per-tensor (with a filter zero point) and per-channel weights,
wide layers (blocks of 16 outputs, vectorized depth), left-shifting requantization."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from mote.ops.registry import Core
from tests.ops.kernel_util import chosen

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


@dataclass
class Case:
    in_shape: tuple[int, ...]
    accum_depth: int
    out_depth: int
    keep_num_dims: bool
    activation: str
    per_channel: bool
    filter_zp: int  # per-tensor weights only
    bias: bool

    @property
    def out_shape(self) -> tuple[int, ...]:
        if self.keep_num_dims:
            return (*self.in_shape[:-1], self.out_depth)
        return (int(np.prod(self.in_shape)) // self.accum_depth, self.out_depth)


def random_case(rng: np.random.Generator) -> Case:
    depth = int(rng.integers(1, 65))
    keep = bool(rng.integers(2))
    lead = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 3))))
    if keep or rng.integers(2):
        in_shape = (*lead, depth)
    else:  # a feature map flattened by the op itself: [1, h, w, c] with h * w * c == rows * depth
        rows = int(rng.integers(1, 4))
        in_shape = (1, rows, depth) if depth % 2 else (1, rows, 2, depth // 2)
    per_channel = bool(rng.integers(2))
    filter_zp = 0 if per_channel or rng.integers(2) else int(rng.integers(-20, 21))
    return Case(in_shape, depth, int(rng.integers(1, 17)), keep, str(rng.choice(ACTIVATIONS)), per_channel,
                filter_zp, bool(rng.integers(4)))


def wide_case(rng: np.random.Generator) -> Case:
    """Depth >= 16 (the vectorized loop and its tail) and 16 outputs or more (blocks of 16, 4 and 1)."""
    depth = int(rng.integers(16, 200))
    rows = int(rng.integers(1, 4))
    return replace(random_case(rng), in_shape=(rows, depth), accum_depth=depth, out_depth=int(rng.integers(16, 60)),
                   keep_num_dims=False)


def fc_model(case: Case, rng: np.random.Generator, gain: float = 0.0, weight_max: int = 127) -> bytes:
    """A single FULLY_CONNECTED model with random weights, bias and quantization for `case`. With gain > 0
    the output scale is input scale * filter scale / gain: a left-shifting multiplier. The weights less the
    filter zero point lie in [-weight_max, weight_max]."""
    mb = ModelBuilder()
    in_scale, in_zp = float(rng.uniform(0.005, 0.05)), int(rng.integers(-128, 128))
    w_scales = rng.uniform(0.002, 0.02, case.out_depth if case.per_channel else 1)
    out_scale = float(in_scale * w_scales.mean() * 128 * np.sqrt(case.accum_depth) * rng.uniform(0.5, 2.5))
    if gain > 0:
        out_scale = float(in_scale * w_scales.min() / gain)
    x = mb.tensor("x", case.in_shape, "int8", scale=in_scale, zero_point=in_zp)
    lo, hi = max(-128, -weight_max + case.filter_zp), min(127, weight_max + case.filter_zp)
    w = mb.tensor("w", [case.out_depth, case.accum_depth], "int8", scale=list(w_scales), zero_point=case.filter_zp,
                  axis=0, data=rng.integers(lo, hi + 1, (case.out_depth, case.accum_depth)))
    inputs = [x, w]
    if case.bias:
        # TFLM checks that a per-tensor bias scale is input_scale * filter_scale.
        b_scales = in_scale * np.broadcast_to(w_scales, case.out_depth if case.per_channel else 1)
        inputs.append(mb.tensor("b", [case.out_depth], "int32", scale=list(b_scales), zero_point=0,
                                data=rng.integers(-20000, 20000, case.out_depth)))
    y = mb.tensor("y", case.out_shape, "int8", scale=out_scale, zero_point=int(rng.integers(-100, 80)))
    mb.op("FULLY_CONNECTED", inputs, [y], fused_activation_function=case.activation,
          keep_num_dims=case.keep_num_dims)
    return mb.build([x], [y])


@pytest.mark.parametrize("seed", range(20))
def test_fully_connected_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(3000 + seed)
    check_model(fc_model(random_case(rng), rng), seeds=2)


@pytest.mark.parametrize("seed", range(4))
def test_fully_connected_wide_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(3100 + seed)
    check_model(fc_model(wide_case(rng), rng), seeds=2)


def test_fully_connected_left_shift(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(15)
    case = Case((2, 40), 40, 21, False, "NONE", False, 3, True)
    graph = check_model(fc_model(case, rng, gain=float(rng.uniform(1.5, 6.0))), seeds=2)
    assert OPS["fully_connected"].prepare(graph.nodes[0]).shift.min() > 0


def test_fully_connected_wide_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(16)
    check_model(fc_model(Case((3, 70), 70, 37, False, "RELU6", False, -5, True), rng), seeds=1, sanitize=True)


def test_fully_connected_filter_zero_point(check_model: Callable[..., object]) -> None:
    """Per-tensor weights keep TFLM's filter offset: a nonzero one must change nothing between the three."""
    rng = np.random.default_rng(11)
    case = Case((3, 37), 37, 7, False, "NONE", False, -9, True)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True)
    assert OPS["fully_connected"].prepare(graph.nodes[0]).filter_offset == 9


def test_fully_connected_per_channel_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(12)
    check_model(fc_model(Case((2, 2, 21), 21, 9, True, "RELU", True, 0, True), rng), seeds=1, sanitize=True)


# The blocked kernel past the row-pairs one, which takes most of these layers first.
ROW_PAIRS = frozenset({"mote_fully_connected_row_pairs_s8"})


@pytest.mark.parametrize("seed", range(8))
def test_fully_connected_blocked_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    """The scalar-core kernel (built for the host, sanitized) on random and wide layers."""
    rng = np.random.default_rng(3200 + seed)
    case = wide_case(rng) if seed % 2 else random_case(rng)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR, skip=ROW_PAIRS)
    assert chosen(graph.nodes[0], Core.SCALAR, ROW_PAIRS) == "mote_fully_connected_blocked_s8"


@pytest.mark.parametrize("out_depth", [1, 3, 5, 8, 13, 16, 17, 30, 47, 50])
def test_fully_connected_blocked_every_block_width(out_depth: int, check_model: Callable[..., object]) -> None:
    """Blocks of sixteen rows, then of 8, 4 and the last 1 to 3 (each width a loop of its own; these take all
    six), odd and even depths (sanitized)."""
    rng = np.random.default_rng(3300 + out_depth)
    depth = 30 + out_depth % 2  # odd depths for odd widths: the loop's single-input tail
    graph = check_model(fc_model(Case((2, depth), depth, out_depth, False, "RELU", out_depth % 3 == 0, 0, True), rng),
                        seeds=2, sanitize=True, core=Core.SCALAR, skip=ROW_PAIRS)
    assert chosen(graph.nodes[0], Core.SCALAR, ROW_PAIRS) == "mote_fully_connected_blocked_s8"


def test_fully_connected_blocked_filter_zero_point_and_left_shift(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(17)
    check_model(fc_model(Case((3, 37), 37, 19, False, "NONE", False, -9, True), rng, gain=2.5), seeds=2,
                sanitize=True, core=Core.SCALAR, skip=ROW_PAIRS)


def test_fully_connected_shapes_and_macs() -> None:
    rng = np.random.default_rng(4)
    for keep, out_shape in ((True, (2, 3, 5)), (False, (6, 5))):
        graph = load_tflite(fc_model(Case((2, 3, 8), 8, 5, keep, "NONE", True, 0, False), rng), "m")
        node = graph.nodes[0]
        assert OPS["fully_connected"].shape(node) == [out_shape]
        assert OPS["fully_connected"].macs(node) == 6 * 5 * 8
