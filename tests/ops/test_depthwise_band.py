"""mote_depthwise_conv_band_s8 (mote.ops.depthwise_band): the column scheme and the bands of rows against
the windows they stand for, and the kernel's C twin on the host (sanitized) against TFLite Micro on edge
shapes: widths 1 to 3, channel counts not a multiple of four, stride 2 on odd and even sizes, SAME and
VALID, transposed frames, every output-stage path; each with TFLite's table rows and with one-multiply rows
(mote_depthwise_conv_band_single_s8). The assembly twin: tests/targets/test_rv32_depthwise_band.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.ir import Graph, Node
from mote.ops import OPS, depthwise_band
from mote.ops.depthwise_band import (
    BANDS,
    FRAME_OUTPUTS,
    band_fits,
    frame,
    frame_id,
    frame_shape,
    frame_taps,
    row_bands,
    window_columns,
)
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import Core
from tests.ops.kernel_util import chosen
from tests.ops.test_depthwise_conv2d import Case, depthwise_model


def _scheme(stride: int, pad_left: int, in_w: int, out_w: int) -> tuple[int, int] | None:
    """What the kernel can walk, from the windows themselves: window j covers columns stride * j -
    pad_left .. + 2; the first `count` have every column inside but for the first window's first when
    pad_left is 1; then at most one more, whose last column is the first past the input and whose others
    are as in the first `count`; at stride 1 without left padding two columns are read before the first
    window completes."""
    if pad_left > 1:
        return None

    def inside(w: list[int], j: int) -> bool:
        return all(0 <= q < in_w or (fx == 0 and j == 0 and pad_left == 1 and q == -1) for fx, q in enumerate(w))

    windows = [[stride * j - pad_left + fx for fx in range(3)] for j in range(out_w)]
    count = 0
    while count < out_w and inside(windows[count], count):
        count += 1
    rest = windows[count:]
    if len(rest) > 1 or (rest and (rest[0][2] != in_w or not inside([*rest[0][:2], 0], count))):
        return None
    if stride == 1 and pad_left == 0 and in_w < 2:
        return None
    return count, out_w - count


@pytest.mark.parametrize("stride", [1, 2])
def test_window_columns_cover_every_window(stride: int) -> None:
    """For every width, padding and output width, the scheme mote.ops.depthwise_band accepts is the one
    the windows allow."""
    accepted = 0
    for in_w in range(1, 12):
        for pad_left in range(0, 3):
            for out_w in range(1, 8):
                expected = _scheme(stride, pad_left, in_w, out_w)
                assert window_columns(stride, pad_left, in_w, out_w) == expected, (stride, pad_left, in_w, out_w)
                accepted += expected is not None
    assert accepted > 20


def _params(case: Case) -> tuple[Node, DepthwiseParams]:
    rng = np.random.default_rng(0)
    graph: Graph = load_tflite(depthwise_model(case, rng), "dw")
    node = graph.nodes[0]
    return node, OPS["depthwise_conv2d"].prepare(node)


@pytest.mark.parametrize("case", [
    Case(1, (9, 13), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True),
    Case(1, (9, 13), 3, 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", True, True),
    Case(1, (8, 12), 3, 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", True, True),
    Case(1, (9, 13), 3, 1, (3, 3), (2, 2), (1, 1), "VALID", "NONE", True, True),
    Case(1, (2, 5), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True),
    Case(1, (1, 1), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True),
], ids=["s1same", "s2same_odd", "s2same_even", "s2valid", "two_rows", "one_pixel"])
def test_row_bands_cover_every_row_once(case: Case) -> None:
    """Each output row lies in exactly one band, whose rows read the window's filter rows inside the
    input at the right places and mark the others clipped."""
    _, p = _params(case)
    f = frame(p)
    bands = row_bands(f)
    assert bands is not None and 1 <= len(bands) <= BANDS
    seen = []
    for band in bands:
        for r in range(band["rows"]):
            oy = (band["out_start"] + r * f.out_row_step) // f.out_row_step
            seen.append(oy)
            top = band["in_start"] + r * f.stride_h * f.in_row_step
            rows = [top, top + band["d_mid"], top + band["d_bottom"]]
            assert all(0 <= row // f.in_row_step < f.in_h for row in rows)
            for fy in range(3):
                iy = oy * f.stride_h - f.pad_top + fy
                inside = 0 <= iy < f.in_h
                assert bool(band["clip"] >> fy & 1) == (not inside)
                if inside:  # the row read that meets filter row fy
                    assert rows[fy - band["shift"]] == iy * f.in_row_step
    assert seen == list(range(f.out_h))


def test_band_declines_what_it_cannot_walk() -> None:
    assert band_fits(_params(Case(2, (6, 6), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True))[1]) \
        == "more than one image"
    assert band_fits(_params(Case(1, (9, 9), 3, 1, (3, 3), (3, 3), (1, 1), "SAME", "NONE", True, True))[1]) is not None


EDGE = [
    Case(1, (6, 1), 5, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU", True, True),  # width 1 (transposed: one row)
    Case(1, (1, 1), 3, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True),  # one pixel, four borders
    Case(1, (5, 2), 6, 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", True, True),  # width 2
    Case(1, (3, 3), 7, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, False),  # 3x3 frame, no bias
    Case(1, (3, 7), 6, 1, (3, 3), (1, 1), (1, 1), "VALID", "NONE", True, True),  # one row of windows, VALID
    Case(1, (7, 9), 5, 1, (3, 3), (2, 2), (1, 1), "SAME", "RELU", True, True),  # stride 2, odd: both sides padded
    Case(1, (8, 10), 3, 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", False, True),  # stride 2, even: right padded
    Case(1, (9, 11), 6, 1, (3, 3), (2, 2), (1, 1), "VALID", "RELU6", True, True),  # stride 2, VALID, odd
    Case(1, (8, 10), 7, 1, (3, 3), (2, 2), (1, 1), "VALID", "NONE", True, True),  # stride 2, VALID, column left
    Case(1, (3, 2), 5, 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", True, True),  # stride 2, width 2
    Case(1, (11, 4), 3, 1, (3, 3), (1, 2), (1, 1), "SAME", "RELU", True, True),  # tall: the frame is transposed
    Case(1, (6, 7), 9, 1, (3, 3), (2, 1), (1, 1), "SAME", "NONE", True, True),  # stride 2 down, 1 across
]


def edge_id(c: Case) -> str:
    return f"{c.in_hw[0]}x{c.in_hw[1]}x{c.in_ch}s{c.stride[0]}{c.stride[1]}{c.padding}"


BAND_KERNELS = {"single": "mote_depthwise_conv_band_single_s8", "full": "mote_depthwise_conv_band_s8"}


def band_form(form: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The band kernel a test wants: "single" (one-multiply rows, the first choice where every channel has
    them) or "full" (TFLite's table rows: no layer gets one-multiply rows). Returns the kernel's name."""
    if form == "full":
        monkeypatch.setattr(depthwise_band, "single_stages", lambda p: None)
    return BAND_KERNELS[form]


@pytest.mark.parametrize("form", list(BAND_KERNELS))
@pytest.mark.parametrize("case", EDGE, ids=edge_id)
def test_band_matches_tflm_on_edge_shapes(case: Case, form: str, check_model: Callable[..., object],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Single: every layer with a clamp on one side (ReLU, ReLU6) takes one-multiply rows; one without an
    activation reaches both ends of int8, which one multiply does not fit, and keeps TFLite's rows."""
    kernel = band_form(form, monkeypatch)
    rng = np.random.default_rng(31 + EDGE.index(case))
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    has_single = depthwise_band.single_stages(OPS["depthwise_conv2d"].prepare(graph.nodes[0])) is not None
    assert chosen(graph.nodes[0], Core.SCALAR) == (kernel if has_single or form == "full" else BAND_KERNELS["full"])
    assert has_single == (form == "single" and case.activation != "NONE")


@pytest.mark.parametrize("form", list(BAND_KERNELS))
@pytest.mark.parametrize("gain", [2.0, 2.0**-20], ids=["left-shift", "tiny-multiplier"])
def test_band_output_paths(gain: float, form: str, check_model: Callable[..., object],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A left-shifting multiplier (outputs past the shortcuts; no one-multiply rows) and a tiny one with big
    accumulators (one-multiply rows where they are the first choice)."""
    kernel = band_form(form, monkeypatch)
    rng = np.random.default_rng(41)
    case = Case(1, (6, 9), 5, 1, (3, 3), (1, 2), (1, 1), "SAME", "NONE", True, True)
    graph = check_model(depthwise_model(case, rng, gain=gain), seeds=2, sanitize=True, core=Core.SCALAR)
    has_single = depthwise_band.single_stages(OPS["depthwise_conv2d"].prepare(graph.nodes[0])) is not None
    assert has_single == (form == "single" and gain < 1)
    assert chosen(graph.nodes[0], Core.SCALAR) == (kernel if has_single or form == "full" else BAND_KERNELS["full"])


SMALL = [(h, w, s, pad) for h, w in [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (3, 1), (2, 5), (6, 3)]
         for s in (1, 2) for pad in ("SAME", "VALID") if pad == "SAME" or min(h, w) >= 3]


@pytest.mark.parametrize(("h", "w", "stride", "padding"), SMALL, ids=[f"{h}x{w}s{s}{p}" for h, w, s, p in SMALL])
def test_frame_taps_give_the_accumulators(h: int, w: int, stride: int, padding: str) -> None:
    """A small frame's straight-line sums (frame_taps: the taps inside, the zero point times the weights
    outside, the folded bias) are TFLite's accumulators of every output, computed here from the input
    padded with its zero point; a frame of more than FRAME_OUTPUTS outputs takes the bands."""
    _, p = _params(Case(1, (h, w), 4, 1, (3, 3), (stride, stride), (1, 1), padding, "NONE", True, True))
    shape = frame_shape(p)
    assert (shape is not None) == (p.out_h * p.out_w <= FRAME_OUTPUTS)
    if shape is None:
        return
    assert frame_id(shape) % 2 == 1 and frame_id(shape) != frame_id((*shape[:-1], shape[-1] + 1))
    f = frame(p)
    rng = np.random.default_rng(h * 31 + w)
    x = rng.integers(-128, 128, (p.in_h, p.in_w, p.in_ch))
    zp = -p.input_offset
    padded = np.full((p.in_h + 4, p.in_w + 4, p.in_ch), zp)
    padded[2:2 + p.in_h, 2:2 + p.in_w] = x
    bias = p.bias if p.bias is not None else np.zeros(p.in_ch, np.int64)
    taps = frame_taps(shape)
    assert len(taps) == p.out_h * p.out_w
    flat = x.reshape(-1)  # NHWC bytes of one image
    assert p.folded_bias is not None
    for c in range(p.in_ch):
        k = f.weights[:, :, c].reshape(-1).astype(np.int64)
        got = {}
        for at, inside, outside in taps:
            assert sorted([t for t, _ in inside] + outside) == list(range(9))
            got[at] = int(p.folded_bias[c]) + sum(int(k[t]) * int(flat[c + off]) for t, off in inside) \
                + zp * int(sum(k[t] for t in outside))
        for oy in range(p.out_h):
            for ox in range(p.out_w):
                y0, x0 = oy * p.stride_h - p.pad_top + 2, ox * p.stride_w - p.pad_left + 2
                window = padded[y0:y0 + 3, x0:x0 + 3, c].astype(np.int64) + p.input_offset
                want = int(bias[c]) + int((window * p.weights[:, :, c]).sum())
                assert got[(oy * p.out_w + ox) * p.in_ch] == want, (oy, ox, c)
