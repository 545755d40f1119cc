"""mote_depthwise_band_s8 on rv32 for a small frame (mote.ops.depthwise_band.frame_shape): one straight-line
routine per frame shape of the project's layers computes a channel's whole frame, chosen once a call by the
params' frame_id. Each output sums only its taps inside the input (a load from an immediate offset, a
multiply and an add each); the taps outside read the zero point: zero_point times their weights' sum, added
to the bias. No bands, rows or columns to step: per channel the weights, bias and output stage, per output
its taps, the output stage and the output's address.

A legacy uint8 layer's frame (int16 weights, up to mote.ops.depthwise_band.WIDE_FRAME_OUTPUTS outputs) gets such a
routine too: its input and output pointers move on as the offsets outgrow a load's, and the start of outputs
whose taps outside the input are the same (a row or a column of the frame's border) is computed once.

Registers: s0-s8 the weights, s9 the bias, t0-t5 the output stage (as in mote.targets.rv32.micro_depthwise),
t6 the accumulator; a0 the channel's input, s10 a second pointer 4095 bytes on (a wide frame's: a shared
start), a1 its output, a2-a4 its weights, bias and output-stage row, a5 the output's address, a6 the zero
point, a7 and ra scratch; s11 the return address of the shared out-of-line paths."""

from __future__ import annotations

from collections.abc import Sequence

from mote.ops.depthwise_band import frame_id, frame_taps
from mote.targets.rv32.micro_depthwise import (
    ACC,
    BIAS,
    FAST_AFTER,
    IMM,
    K9,
    M2,
    MAX_ABOVE,
    MIN_BELOW,
    OUT,
    PARAMS,
    ROW_BYTES,
    SHIFT,
    K,
    P,
    S,
    X,
    add_const,
)

# mote_depthwise_conv_band_params.frame_id (rv32 ABI)
FRAME_ID = PARAMS["frame_id"]
FAR = "s10"  # the input 4095 bytes on
FAR_AT = 4095
RET = "s11"
HELD = "s10"  # a wide frame's routine (which needs no second pointer): a start shared by outputs


def dispatch(shapes: Sequence[tuple[int, ...]]) -> list[str]:
    """At the call's start (a0 the params): the routine laid out for the params' frame_id, if any."""
    if not shapes:
        return []
    out = [f"lw t1, {FRAME_ID}(a0)"]
    for i, shape in enumerate(shapes):
        out += [f"li t2, {frame_id(shape[1:])}", "bne t1, t2, 1f", f"j .Ldw_frame{i}", "1:"]
    return out


def _address(offset: int) -> str:
    """An input byte at `offset` from the channel's first: from a0, or from the second pointer."""
    return f"{offset}(a0)" if offset <= IMM else f"{offset - FAR_AT}({FAR})"


class Moving:
    """A pointer register a wide frame's routine moves as its offsets grow (its base: the offset from the
    channel's first byte it points at), so that every access is one load or store at an immediate offset."""

    def __init__(self, reg: str) -> None:
        self.reg, self.base = reg, 0

    def fits(self, offset: int) -> bool:
        return -2048 <= offset - self.base <= IMM

    def to(self, base: int) -> list[str]:
        """Moved to point at `base` (a7 the step when it takes more than an immediate)."""
        step, self.base = base - self.base, base
        return add_const(self.reg, self.reg, step) if step else []

    def at(self, offsets: Sequence[int]) -> list[str]:
        """Moved, if need be, so that all `offsets` fit, or at least the first (then each its own)."""
        if all(self.fits(offset) for offset in offsets):
            return []
        return self.to(min(offsets) + 2048 if max(offsets) - min(offsets) <= 2 * IMM + 1 else offsets[0] + 2048)

    def address(self, offset: int) -> tuple[list[str], str]:
        move = [] if self.fits(offset) else self.to(offset + 2048)
        return move, f"{offset - self.base}({self.reg})"


def frame_routine(shape: tuple[int, ...], index: int) -> list[str]:
    """A frame shape's routine: every channel, then to the function's return (.Ldw_done). A wide shape's
    (int16 weights, mote.ops.depthwise_band.WIDE last) moves its input and output pointers as it goes."""
    tag = f".Ldw_frame{index}"
    wide = len(shape) > 13
    taps = frame_taps(shape[1:])
    far = not wide and any(offset > IMM for _, inside, _ in taps for _, offset in inside)
    weights = [f"lh {K9[t]}, {2 * t}(a2)" for t in range(9)] if wide else [f"lb {K9[t]}, {t}(a2)" for t in range(9)]
    out = [f"{tag}:", f"lw a0, {S['cin']}(sp)", f"lw a1, {S['cout']}(sp)", f"lw a2, {S['w']}(sp)",
           f"lw a3, {S['bias']}(sp)", f"lw a4, {S['stage']}(sp)", f"lw a6, {S['zp']}(sp)",
           f"{tag}_channel:", *weights, f"lw {BIAS}, 0(a3)",
           f"lw t5, {MIN_BELOW}(a4)", f"lw t0, {FAST_AFTER}(a4)", f"lw t1, {MAX_ABOVE}(a4)", f"lw t2, {M2}(a4)",
           f"lw t3, {K}(a4)", f"lw t4, {SHIFT}(a4)", *([f"li {FAR}, {FAR_AT}", f"add {FAR}, a0, {FAR}"] if far else [])]
    source, dest = Moving("a0"), Moving("a1")

    def load(offset: int) -> tuple[list[str], str]:
        return source.address(offset) if wide else ([], _address(offset))

    stubs: list[str] = []
    held: tuple[int, ...] | None = None  # the taps outside whose start (bias + zero point * weights) HELD has
    for n, (at, inside, outside) in enumerate(taps):
        o = f"{tag}_o{n}"
        first = BIAS
        if wide and outside and (tuple(outside) == held or any(later[2] == outside for later in taps[n + 1:])):
            if tuple(outside) != held:  # a start a later output shares (a row or column of the frame's border)
                held = tuple(outside)
                out += [f"mv {P}, {K9[outside[0]]}", *[f"add {P}, {P}, {K9[k]}" for k in outside[1:]],
                        f"mul {P}, {P}, a6", f"add {HELD}, {BIAS}, {P}"]
            first, outside = HELD, []
        if wide:
            out += source.at([offset for _, offset in inside])
        for i, (k, offset) in enumerate(inside):
            move, address = load(offset)
            out += [*move, f"lb {X}, {address}", f"mul {X}, {X}, {K9[k]}",
                    f"add {ACC}, {first if i == 0 else ACC}, {X}"]
        if outside:
            out += [f"mv {P}, {K9[outside[0]]}", *[f"add {P}, {P}, {K9[k]}" for k in outside[1:]],
                    f"mul {P}, {P}, a6", f"add {ACC}, {ACC}, {P}"]
        if wide:
            out += dest.at([at])
        store = ([f"sb {X}, {at - dest.base}(a1)"] if dest.fits(at) else
                 [f"li {P}, {at}", f"add {P}, a1, {P}", f"sb {X}, 0({P})"])
        out += [f"ble {ACC}, t0, {o}_cold", f"blt t1, {ACC}, {o}_cold",
                f"mulhu {X}, {ACC}, t2", f"mul {P}, {ACC}, t2", f"srli {P}, {P}, 31", f"add {X}, {X}, {P}",
                f"add {X}, {X}, t3", f"sra {X}, {X}, t4", *store, f"{o}_done:"]
        stubs += [f"{o}_cold:", *add_const(OUT, "a1", at - dest.base), f"jal {RET}, .Ldw_frame_cold", f"j {o}_done"]
    out += [*add_const("a0", "a0", 1 - source.base), *add_const("a1", "a1", 1 - dest.base),
            f"addi a2, a2, {18 if wide else 9}", "addi a3, a3, 4", f"addi a4, a4, {ROW_BYTES}",
            f"lw {X}, {S['left']}(sp)", f"addi {X}, {X}, -1", f"sw {X}, {S['left']}(sp)", f"bnez {X}, {tag}_channel",
            "j .Ldw_done", *stubs]
    return out


def shared() -> list[str]:
    """The out-of-line path of the frame routines' outputs (return address in s11, the output's address in
    a5): below min_below act_min (the shortcuts are exact: an accumulator also above max_above gives the
    same, act_min == act_max), else above fast_after act_max; otherwise the negative path, or
    mote_output_rest_s8 (.Ldw_other, through ra)."""
    return [".Ldw_frame_cold:", f"blt {ACC}, t5, .Ldw_frame_low", f"bge t0, {ACC}, .Ldw_frame_rest",
            f"lw {X}, {S['hi']}(sp)", f"sb {X}, 0({OUT})", f"jr {RET}",
            ".Ldw_frame_rest:", f"addi {X}, t0, 1", f"bltz {X}, .Ldw_frame_other",
            f"mulhsu {X}, {ACC}, t2", f"mul {P}, {ACC}, t2", f"srli {P}, {P}, 31", f"add {X}, {X}, {P}",
            f"srli {P}, {X}, 31", f"sub {X}, {X}, {P}", f"add {X}, {X}, t3", f"sra {X}, {X}, t4",
            f"lw {P}, {S['hi']}(sp)", f"bge {P}, {X}, 1f", f"mv {X}, {P}",
            "1:", f"sb {X}, 0({OUT})", f"jr {RET}",
            ".Ldw_frame_low:", f"lw {X}, {S['lo']}(sp)", f"sb {X}, 0({OUT})", f"jr {RET}",
            ".Ldw_frame_other:", f"mv {P}, {RET}", "j .Ldw_other"]


def routines(shapes: Sequence[tuple[int, ...]]) -> list[str]:
    """The frame routines of the given frame shapes (0 then the frame's fields) and their shared paths."""
    if not shapes:
        return []
    return [line for i, shape in enumerate(shapes) for line in frame_routine(shape, i)] + shared()
