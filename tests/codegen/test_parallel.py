"""How mote.codegen.parallel splits a layer: ranges that cover the output once, in whole granules, balanced; a
convolution's parts whose windows read exactly the input rows of the whole layer's; one core: no split."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mote.codegen.parallel import ranges, split
from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS


@pytest.mark.parametrize("n,cores,granule", [(25, 8, 1), (36, 8, 4), (9, 8, 4), (7, 3, 1), (100, 8, 16), (3, 8, 1)])
def test_ranges_cover_once_in_granules(n: int, cores: int, granule: int) -> None:
    parts = ranges(n, cores, granule)
    assert parts[0][0] == 0 and parts[-1][1] == n and len(parts) <= cores
    assert all(a < b for a, b in parts) and all(parts[i][1] == parts[i + 1][0] for i in range(len(parts) - 1))
    assert all(a % granule == 0 for a, _ in parts)
    units = [-(-(b - a) // granule) for a, b in parts]
    assert max(units) - min(units) <= 1  # balanced to a granule


def _conv(h: int, w: int, stride: int, filt: int, padding: str) -> Node:
    rng = np.random.default_rng(0)
    x = Tensor("x", (1, h, w, 3), DType.INT8, Quant((0.05,), (-3,)))
    weights = Tensor("w", (8, filt, filt, 3), DType.INT8, Quant((0.01,) * 8, (0,) * 8, 0),
                     rng.integers(-100, 100, (8, filt, filt, 3)).astype(np.int8))
    oh = -(-h // stride) if padding == "SAME" else (h - filt) // stride + 1
    ow = -(-w // stride) if padding == "SAME" else (w - filt) // stride + 1
    y = Tensor("y", (1, oh, ow, 8), DType.INT8, Quant((0.1,), (0,)))
    return Node("conv2d", "c", [x, weights, None], [y],
                {"stride": (stride, stride), "dilation": (1, 1), "padding": padding, "activation": "NONE"})


def _input_rows(p: object, row: int) -> list[int]:
    """The input rows (maybe padding: outside 0..in_h-1) the windows of output row `row` read."""
    return [row * p.stride_h - p.pad_top + k * p.dilation_h for k in range(p.filter_h)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("stride,filt,padding", [(1, 3, "SAME"), (2, 3, "SAME"), (2, 4, "SAME"), (1, 3, "VALID"),
                                                 (2, 5, "VALID")])
def test_conv_parts_read_the_whole_layers_rows(stride: int, filt: int, padding: str) -> None:
    node = _conv(17, 6, stride, filt, padding)
    whole = OPS["conv2d"].prepare(node)
    parts = split(node, whole, 4)
    assert parts is not None and sum(part.params.out_h for part in parts) == whole.out_h
    row = 0
    for part in parts:
        p = part.params
        skip, out_at = part.offsets[0] // (whole.in_w * whole.in_ch), part.offsets[1] // (whole.out_w * whole.out_ch)
        assert out_at == row and part.offsets[0] % (whole.in_w * whole.in_ch) == 0
        assert p.pad_top >= 0 and p.in_h == whole.in_h - skip
        for r in range(p.out_h):  # in the whole layer's rows: the same input rows, the same padding
            local = [skip + i if 0 <= i < p.in_h else None for i in _input_rows(p, r)]
            want = [i if 0 <= i < whole.in_h else None for i in _input_rows(whole, row + r)]
            assert local == want
        row += p.out_h


def test_one_core_or_an_unsplit_op_is_not_split() -> None:
    node = _conv(17, 6, 1, 3, "SAME")
    p = OPS["conv2d"].prepare(node)
    assert split(node, p, 1) is None
    assert split(dataclasses.replace(node, op="concatenation"), p, 8) is None


def _depthwise(h: int, w: int, channels: int, padding: str) -> Node:
    rng = np.random.default_rng(1)
    x = Tensor("x", (1, h, w, channels), DType.INT8, Quant((0.05,), (-3,)))
    weights = Tensor("w", (1, 3, 3, channels), DType.INT8, Quant((0.01,) * channels, (0,) * channels, 3),
                     rng.integers(-100, 100, (1, 3, 3, channels)).astype(np.int8))
    oh, ow = (h, w) if padding == "SAME" else (h - 2, w - 2)
    y = Tensor("y", (1, oh, ow, channels), DType.INT8, Quant((0.1,), (0,)))
    return Node("depthwise_conv2d", "d", [x, weights, None], [y],
                {"stride": (1, 1), "dilation": (1, 1), "padding": padding, "activation": "NONE",
                 "depth_multiplier": 1})


def test_a_padded_depthwise_layer_takes_the_channels_when_they_balance_as_well() -> None:
    """KWS's depthwise layers (25x5 pixels, 64 channels, 3x3 SAME) on 8 cores: rows would give one core four
    rows and the others three, and the first and last part the padded edges; channels give each core eight.
    The same balance without padding keeps the rows (no staging copies)."""
    node = _depthwise(25, 5, 64, "SAME")
    parts = split(node, OPS["depthwise_conv2d"].prepare(node), 8)
    assert parts is not None and len(parts) == 8
    assert all(part.columns is not None and part.params.in_ch == 8 for part in parts)
    valid = _depthwise(27, 7, 64, "VALID")  # the same 25x5 output, no padding
    parts = split(valid, OPS["depthwise_conv2d"].prepare(valid), 8)
    assert parts is not None and all(part.columns is None for part in parts)
    assert sorted(part.params.out_h for part in parts) == [3] * 7 + [4]
