"""mote_depthwise_band_s8's whole function as rv32 assembly (and its one-multiply twin's): the stack frame, the
per-call dispatch of each band to its row loop (generic, or laid out for its shape), the loops over channels and
bands around the row loops of mote.targets.rv32.micro_depthwise, which documents the registers and the loops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mote.targets.rv32.micro_depthwise import (
    BAND,
    BAND_BYTES,
    BANDS,
    FAST_AFTER,
    GENERIC,
    M2,
    MAX_ABOVE,
    MIN_BELOW,
    PARAMS,
    ROW_BYTES,
    SAVED,
    SHIFT,
    SINGLE_ROW_BYTES,
    SIZE,
    K,
    Layout,
    S,
    Shape,
    band_setup,
    fixed_layout,
    other,
    rest,
    stride1,
    stride2,
    wide_weights,
)

# the Shape fields a laid-out loop's dispatch compares: registers the band's setup loaded, then stack slots
SHAPE_AT = ("a4", "a3", "a1", "a2", "pad_left", "pad_right", "in_row_step", "out_row_step", "out_col_step", "span")


def _differs(field: int, value: int, skip: str) -> list[str]:
    """A branch to `skip` when the band's Shape field `field` is not `value`."""
    at = SHAPE_AT[field]
    if field < 4:
        return [f"li ra, {value}", f"bne {at}, ra, {skip}"]
    return [f"lw t0, {S[at]}(sp)", f"li ra, {value}", f"bne t0, ra, {skip}"]


def dispatch(shapes: Sequence[Shape], layouts: Sequence[Layout | None]) -> list[str]:
    """Each band's row loop, once a call, into the `targets` slots: the generic one of its stride, or the
    one laid out for its shape (every field equal; the fields the laid-out shapes of a stride share compared once
    for them)."""
    out = [f"lw a4, {S['stride']}(sp)", f"lw a3, {S['col_step']}(sp)", f"lw a0, {S['p']}(sp)",
           f"addi a0, a0, {PARAMS['bands']}", f"addi a5, sp, {S['targets']}",
           f"addi a7, sp, {S['targets'] + 4 * BANDS}",
           ".Ldw_dispatch:", f"lw a1, {BAND['d_mid']}(a0)", f"lw a2, {BAND['d_bottom']}(a0)",
           "la a6, .Ldw_row1", "li ra, 1", "beq a4, ra, 1f", "la a6, .Ldw_row2", "1:"]
    laid = [(shape, layout) for shape, layout in zip(shapes, layouts) if layout is not None]
    for stride in sorted({shape[0] for shape, _ in laid}):
        group = [(shape, layout) for shape, layout in laid if shape[0] == stride]
        common = [f for f in range(len(SHAPE_AT)) if len({shape[f] for shape, _ in group}) == 1]
        for f in common:
            out += _differs(f, group[0][0][f], "8f")
        for shape, layout in group:
            for f in range(len(SHAPE_AT)):
                out += [] if f in common else _differs(f, shape[f], "9f")
            out += [f"la a6, .Ldw_row{shape[0]}{layout.tag}", "9:"]
        out.append("8:")
    return out + ["sw a6, 0(a5)", f"addi a0, a0, {BAND_BYTES}", "addi a5, a5, 4", "bne a5, a7, .Ldw_dispatch"]


def band_function(shapes: Sequence[Shape] = (), frames: tuple[Sequence[str], Sequence[str]] = ((), ()),
                  wide: bool = False, single: bool = False) -> list[str]:
    """The function's body (mote_depthwise_band_s8(p a0, input a1, output a2)), with row loops laid out
    for the band shapes (Shape) of the project's layers besides the generic ones; `frames`: the code
    choosing a routine laid out for a small frame once the params are in the stack frame (a0 still the
    params), and those routines (mote.targets.rv32.micro_depthwise_frame); `wide`: whether a layer of the
    project has wide_weights (without, their code is left out: int8 projects keep its flash and cycles);
    `single`: mote_depthwise_band_single_s8's body, each output through its channel's one-multiply row
    (mote_output_single.h, SINGLE_ROW_BYTES a row; never wide), act_min and act_max in t3 and t4 for the call."""
    assert not (wide and single)
    shapes = sorted(set(shapes))
    layouts = [fixed_layout(shape, i) for i, shape in enumerate(shapes)]
    if single:  # act_min is in t3: no register of a laid-out loop keeps it
        layouts = [None if lay is None else replace(lay, lo=None) for lay in layouts]
    loops: list[str] = []
    for stride, layout in [(1, GENERIC), (2, GENERIC),
                           *[(shape[0], lay) for shape, lay in zip(shapes, layouts) if lay is not None]]:
        code, paths = (stride1 if stride == 1 else stride2)(layout, single)
        loops += [*code, *paths]  # each loop's out-of-line paths within a branch's reach of it
    save = [f"addi sp, sp, -{SIZE}", *[f"sw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)]]
    restore = [*[f"lw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)], f"addi sp, sp, {SIZE}", "ret"]
    head = [f"sw a0, {S['p']}(sp)", f"sw a1, {S['cin']}(sp)", f"sw a2, {S['cout']}(sp)",
            f"lw t0, {PARAMS['channels']}(a0)", "beqz t0, .Ldw_done", f"sw t0, {S['left']}(sp)"]
    for field, slot in (("weights", "w"), ("folded_bias", "bias"), ("output_stage", "stage"),
                        ("output_offset", "offset"), ("act_min", "lo"), ("act_max", "hi"), ("zero_point", "zp"),
                        ("col_step", "col_step"), ("out_col_step", "out_col_step"), ("in_row_step", "in_row_step"),
                        ("out_row_step", "out_row_step"), ("pad_left", "pad_left"), ("pad_right", "pad_right"),
                        ("stride", "stride")):
        if not (single and slot == "offset"):  # only mote_output_rest_s8 (.Ldw_other) reads it
            head += [f"lw t1, {PARAMS[field]}(a0)", f"sw t1, {S[slot]}(sp)"]
    if wide:
        head += [f"lw t1, {PARAMS['wide_weights']}(a0)", f"sw t1, {S['wide']}(sp)", "li t2, 9", "beqz t1, 1f",
                 f"sw t1, {S['w']}(sp)", "li t2, 18", "1:", f"sw t2, {S['w_step']}(sp)"]
    head += [f"lw t1, {PARAMS['count']}(a0)", f"lw t2, {PARAMS['out_col_step']}(a0)", "mul t1, t1, t2",
             f"sw t1, {S['span']}(sp)"]
    head += [*frames[0], *dispatch(shapes, layouts)]
    if single:
        channel = [f"lw t3, {S['lo']}(sp)", f"lw t4, {S['hi']}(sp)", ".Ldw_channel:", f"lw ra, {S['stage']}(sp)",
                   *[f"lw t{k}, {4 * k}(ra)" for k in range(3)]]
    else:
        channel = [".Ldw_channel:", f"lw ra, {S['stage']}(sp)", f"lw t5, {MIN_BELOW}(ra)", f"lw t0, {FAST_AFTER}(ra)",
                   f"lw t1, {MAX_ABOVE}(ra)", f"lw t2, {M2}(ra)", f"lw t3, {K}(ra)", f"lw t4, {SHIFT}(ra)"]
    channel += [f"lw a0, {S['p']}(sp)", f"addi a0, a0, {PARAMS['bands']}", f"sw a0, {S['band']}(sp)",
               f"addi a0, sp, {S['targets']}", f"sw a0, {S['target']}(sp)"]
    tail = [".Ldw_band_next:", f"lw a0, {S['target']}(sp)", "addi a0, a0, 4", f"sw a0, {S['target']}(sp)",
            f"lw a0, {S['band']}(sp)", f"addi a0, a0, {BAND_BYTES}", f"sw a0, {S['band']}(sp)",
            f"lw a1, {S['p']}(sp)", f"addi a1, a1, {PARAMS['bands'] + BANDS * BAND_BYTES}", "bne a0, a1, .Ldw_band",
            ".Ldw_channel_next:", "/* the next channel (the bands in use come first) */"]
    tail += ([f"lw a0, {S['w']}(sp)", f"lw a1, {S['w_step']}(sp)", "add a0, a0, a1", f"sw a0, {S['w']}(sp)"]
             if wide else [f"lw a0, {S['w']}(sp)", "addi a0, a0, 9", f"sw a0, {S['w']}(sp)"])
    for slot, size in (("bias", 4), ("stage", SINGLE_ROW_BYTES if single else ROW_BYTES), ("cin", 1), ("cout", 1),
                       ("left", -1)):
        tail += [f"lw a0, {S[slot]}(sp)", f"addi a0, a0, {size}", f"sw a0, {S[slot]}(sp)"]
    tail += ["bnez a0, .Ldw_channel", ".Ldw_done:", "li a0, 0"]
    return [*save, *head, *channel, ".Ldw_band:", *band_setup(wide), *tail, *restore,
            *(wide_weights() if wide else []), *loops, *frames[1], *([] if single else [*rest(), *other()])]


DOC = """mote_depthwise_band_s8 (mote_depthwise_conv_band_s8.h): per output at stride 1, 3 byte loads,
18 multiplies and adds, 9 instructions of output stage through the shortcuts (5 when the clamp
decides) and 3 to 5 to step and loop; at stride 2, 6 loads, the same 18 and 9, and 4 to 8 to step and
loop; per row about 10 (laid out) to 25 (generic) and the columns read before the first window completes;
per band of a channel about 45."""

DOC_SINGLE = """mote_depthwise_band_single_s8 (mote_depthwise_conv_band_single_s8.h): mote_depthwise_band_s8's loops
with each output through its channel's one-multiply row, 4 instructions (2 compares, mulh, a byte store; a clamped
output 3 and its loop step, out of line) where TFLite's shortcuts take 9."""
