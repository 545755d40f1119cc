"""Tiling a layer into the DLA's SRAM: output channels x spatial rows, chosen by exact search.

A layer is cut into channel tiles (output channels; for depthwise and pooling, the channels they
share with the input) and row tiles (output rows; each input tile carries the halo its windows
need: (rows - 1) * stride + (kernel - 1) * dilation + 1 input rows). Channel tiles are the outer
loop, so a channel tile's weights are loaded once for all its row tiles.

Buffers: with one row tile the input is loaded once (when it does not depend on the channel tile)
and kept; with one channel tile the weights likewise; everything else has two copies, so that the
DMA of the next tile overlaps the compute of this one (double buffering). A serial variant keeps
one copy of everything (no overlap) for the tightest SRAM budgets.

Choice: every candidate (distinct channel tile size ceil(C / k) for k = 1..C, distinct row tile
size ceil(H / k) for k = 1..H, double-buffered or serial) is evaluated with the estimate below, in
one vectorized numpy pass, and the fitting candidate with the fewest estimated cycles wins (an exact
search over the candidates; no solver). The estimate is the cost model's pipeline in closed form:
    double-buffered: R + W + n * max(C, R + W)        serial: n * (R + C + W)
where n is the number of tiles and R, C, W the average read, compute and write cycles of one tile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.accel.dla.config import DlaConfig
from mote.accel.dla.cost import COMMAND_OVERHEAD, DMA_SETUP
from mote.accel.packing import row_bytes
from mote.errors import MoteError
from mote.ints import ceil_div, round_up

ALIGN = 16


@dataclass(frozen=True)
class Layer:
    """A node's geometry as the DLA sees it. kind: conv, matmul, depth, emulated, pool, add."""

    kind: str
    name: str
    in_h: int
    in_w: int
    in_c: int
    out_h: int
    out_w: int
    out_c: int
    kh: int = 1
    kw: int = 1
    sh: int = 1
    sw: int = 1
    dh: int = 1
    dw: int = 1
    pad_top: int = 0
    pad_left: int = 0
    multiplier: int = 1  # depth multiplier
    maximum: bool = False  # max pooling (else average)
    weight_bits: int = 8  # the weights' width: 8, or 4 and 2, packed (mote.accel.dla.isa, W_BITS)

    @property
    def lanes(self) -> int:
        """MACs a PE does per cycle in this layer's weight mode (mote.accel.dla.cost): 8 / weight_bits
        for conv and matmul, whose lanes share one activation; 1 for depthwise (each channel its own)."""
        return 8 // self.weight_bits if self.kind in ("conv", "matmul") else 1

    @property
    def channel_tiled_input(self) -> bool:
        """The input tile holds only the channel tile's channels (depthwise, pooling)."""
        return self.kind in ("depth", "emulated", "pool")

    def in_rows(self, rows: int) -> int:
        return min(self.in_h, (rows - 1) * self.sh + (self.kh - 1) * self.dh + 1)


@dataclass(frozen=True)
class Tiling:
    channels: int  # channel tile (output channels; input channels for depthwise and pooling)
    rows: int  # output rows per tile
    double: bool  # double-buffered (else serial)
    sram: int  # bytes it needs
    estimate: int  # estimated cycles

    def counts(self, layer: Layer) -> tuple[int, int]:
        return ceil_div(channels_of(layer), self.channels), ceil_div(layer.out_h, self.rows)


def channels_of(layer: Layer) -> int:
    return layer.in_c if layer.channel_tiled_input else layer.out_c


def _candidates(n: int) -> np.ndarray:
    return np.unique(ceil_div(n, np.arange(1, n + 1)))  # ceil_div works elementwise on arrays


def sizes(layer: Layer, ct: np.ndarray, rt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bytes of one input tile (both inputs for add), one weights+parameters tile and one output tile."""
    taps = layer.kh * layer.kw
    in_rows = np.minimum(layer.in_h, (rt - 1) * layer.sh + (layer.kh - 1) * layer.dh + 1)
    if layer.kind == "add":
        return 2 * align_arr(rt * layer.in_c), np.zeros_like(ct), align_arr(rt * layer.out_c) + 0 * ct
    bits = layer.weight_bits
    if layer.channel_tiled_input:
        out_ch = ct * layer.multiplier
        inp = align_arr(in_rows * layer.in_w * ct)
        if layer.kind == "pool":
            w = np.zeros_like(ct)
        else:  # packed rows: one per tap (native: [K_H*K_W] rows of the channels), one per filter (emulated)
            packed = taps * row_bytes(out_ch, bits) if layer.kind == "depth" else out_ch * row_bytes(taps, bits)
            w = align_arr(packed) + align_arr(12 * out_ch)
        return inp, w, align_arr(rt * layer.out_w * out_ch)
    inp = align_arr(in_rows * layer.in_w * layer.in_c) + 0 * ct
    w = align_arr(ct * row_bytes(taps * layer.in_c, bits)) + align_arr(12 * ct)
    return inp, w, align_arr(rt * layer.out_w * ct)


def align_arr(a: np.ndarray) -> np.ndarray:
    return round_up(a, ALIGN)


def _cdiv(a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    return ceil_div(np.asarray(a), b)


def _compute(layer: Layer, ct: np.ndarray, rt: np.ndarray, config: DlaConfig) -> np.ndarray:
    """Compute cycles of one tile, as mote.accel.dla.cost charges them."""
    p, taps = config.pes, layer.kh * layer.kw
    pixels = rt * layer.out_w
    if layer.kind in ("conv", "matmul"):
        lanes = layer.lanes
        per = layer.in_c * _cdiv(ct, p * lanes) if config.mode == "output" else \
            _cdiv(ct, lanes) * _cdiv(layer.in_c, p)
        return pixels * taps * per + _cdiv(pixels * ct, p) + COMMAND_OVERHEAD
    if layer.kind == "depth":
        out_ch = ct * layer.multiplier
        return pixels * taps * _cdiv(out_ch, p) + _cdiv(pixels * out_ch, p) + COMMAND_OVERHEAD
    if layer.kind == "emulated":  # one OP_CONV per filter, one filter at a time
        out_ch = ct * layer.multiplier
        return out_ch * (pixels * taps + _cdiv(pixels, p) + COMMAND_OVERHEAD)
    if layer.kind == "pool":
        return pixels * taps * _cdiv(ct, p) + COMMAND_OVERHEAD
    return 2 * _cdiv(rt * layer.out_c, p) + COMMAND_OVERHEAD + 0 * ct  # add


def _dma(nbytes: np.ndarray, rows: np.ndarray | int, config: DlaConfig) -> np.ndarray:
    return DMA_SETUP + rows * _cdiv(_cdiv(nbytes, rows), config.dma_bytes_per_cycle)


def choose(layer: Layer, config: DlaConfig, budget: int | None = None, input_resident: bool = False,
           output_kept: bool = False) -> Tiling:
    """The tiling with the fewest estimated cycles whose buffers fit `budget` bytes (default: all of
    the SRAM). A resident input is read where the previous job left it, and a kept output is written
    whole where the next job reads it: neither takes tile buffers or DMA."""
    budget = config.sram if budget is None else budget
    channels = channels_of(layer)
    cts, rts = _candidates(channels), _candidates(layer.out_h)
    if layer.kind == "add":
        cts = np.array([channels])
    ct, rt = (a.reshape(-1) for a in np.meshgrid(cts, rts, indexing="ij"))
    n_ct, n_rt = _cdiv(channels, ct), _cdiv(layer.out_h, rt)
    n = n_ct * n_rt
    inp, w, out = sizes(layer, ct, rt)
    inp, out = inp * (not input_resident), out * (not output_kept)
    input_once = (n_rt == 1) & (not layer.channel_tiled_input)
    in_copies = np.where(input_once | (n == 1), 1, 2)
    w_copies = np.where(n_ct == 1, 1, 2)
    out_copies = np.where(n == 1, 1, 2)
    double_need = in_copies * inp + w_copies * w + out_copies * out
    serial_need = inp + w + out
    # Average DMA per tile: strided channel tiles move short rows, one burst per pixel.
    pixels_in = np.minimum(layer.in_h, (rt - 1) * layer.sh + (layer.kh - 1) * layer.dh + 1) * layer.in_w
    in_rows = np.where(layer.channel_tiled_input & (ct < channels), pixels_in, 1)
    out_rows = np.where(ct < channels, rt * layer.out_w, 1) if layer.kind != "add" else np.ones_like(rt)
    reads_in = np.where(input_once, _dma(inp, 1, config) / n, _dma(inp, in_rows, config)) * (not input_resident)
    reads_w = np.where(w > 0, _dma(w, 1, config) * n_ct / n, 0)
    r = reads_in + reads_w
    wr = _dma(out, out_rows, config) * (not output_kept)
    c = _compute(layer, ct, rt, config)
    double_est = r + wr + n * np.maximum(c, r + wr)
    serial_est = n * (r + c + wr)
    need = np.concatenate([double_need, serial_need])
    est = np.concatenate([double_est, serial_est])
    fits = need <= budget
    if not fits.any():
        raise MoteError(f"dla: layer {layer.name!r} does not fit {budget} bytes of SRAM with any tiling; "
                        f"it needs at least {int(need.min())} bytes (sram={int(need.min())})")
    best = int(np.argmin(np.where(fits, est, np.inf)))
    i = best % ct.size
    return Tiling(int(ct[i]), int(rt[i]), best < ct.size, int(need[best]), int(est[best]))
