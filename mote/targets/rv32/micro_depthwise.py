"""mote_depthwise_band_s8, the body of mote_depthwise_conv_band_s8, as rv32 assembly (its C twin: mote/runtime/
mote_depthwise_band_s8.c; the contract: mote_depthwise_conv_band_s8.h).

The nine weights stay in s0-s8 and the bias in s9 for a band of rows of a channel; the channel's output
stage (fast_after, max_above, m2, k, shift, min_below) in t0-t5 for all its bands. Per output at stride 1:
three byte loads, nine multiplies and nine adds carrying the column to the three windows it belongs to,
then the output stage straight from the accumulator (9 instructions through the shortcuts, 5 when the
clamp decides) and the steps and loop. At stride 2 two columns a window (six loads).
Two kinds of row loops:
  - generic: any band; the rows read through three pointers (a0-a2) stepped by the column step (a3), at
    stride 2 the next column one add away; per output 5 (stride 1) or 8 (stride 2) to step and loop;
  - laid out when the project is built for a band shape of its layers (mote.ops.depthwise_band.band_shapes):
    the rows and the next column at immediate offsets from one or two pointers, the steps, paddings and
    row span constants, the row's top and outputs in registers: per output 3 or 4 to step and loop.
A layer whose frame has at most nine outputs (a legacy uint8 layer's, with int16 weights: at most 36) takes
instead a straight-line routine laid out for its frame (mote.targets.rv32.micro_depthwise_frame), chosen at
the call's start by the params' frame_id.
Once a call each band gets its loop (the `targets` slots); each loop's out-of-line paths follow it, within
a conditional branch's reach. Registers in the row loops:
  s0-s8 k0-k8 (loaded per band: int8 weights, or a legacy uint8 layer's int16 wide_weights out of line),
  s9 bias, s10 next (stride 1) or carry (stride 2), s11 after (stride 1) or two column steps;
  a0-a2 the rows at the next column, a3 the column step, a4 the output step, a5 the output, a6 its end for
  the row, a7 and ra the loaded byte and the products, t6 the accumulator (laid-out loops use the registers
  they free for the row's top, first and end outputs and act_min).
Everything else lives in the stack frame.
"""

from __future__ import annotations

from dataclasses import dataclass

# mote_depthwise_conv_band_params and mote_depthwise_band (rv32 ABI): tests/targets/test_asm_offsets.py
# checks each with offsetof.
PARAMS = {"channels": 0, "zero_point": 4, "in_row_step": 8, "col_step": 12, "out_row_step": 16, "out_col_step": 20,
          "stride": 24, "pad_left": 28, "count": 32, "pad_right": 36, "output_offset": 40, "act_min": 44,
          "act_max": 48, "weights": 52, "folded_bias": 56, "output_stage": 60, "bands": 64, "wide_weights": 176,
          "frame_id": 180}
BAND = {"rows": 0, "in_start": 4, "d_mid": 8, "d_bottom": 12, "out_start": 16, "clip": 20, "shift": 24}
BAND_BYTES, BANDS = 28, 4
STRUCT_OFFSETS = {**{("mote_depthwise_conv_band_params", name): at for name, at in PARAMS.items()},
                  **{("mote_depthwise_band", name): at for name, at in BAND.items()}}
STRUCT_HEADERS = {"mote_depthwise_conv_band_params": "mote_depthwise_conv_band_s8.h",
                  "mote_depthwise_band": "mote_depthwise_conv_band_s8.h"}
# An output-stage table row: min_below, fast_after, max_above, m2, k, shift from its third word.
ROW_BYTES = 32
SINGLE_ROW_BYTES = 16  # a one-multiply row (mote_output_single.h): low, high, multiplier, 0
MIN_BELOW, FAST_AFTER, MAX_ABOVE, M2, K, SHIFT = 8, 12, 16, 20, 24, 28

K9 = [f"s{i}" for i in range(9)]
BIAS, NEXT, AFTER = "s9", "s10", "s11"
TOP, MID, BOT, STEP, OSTEP, OUT, END, X, P, ACC = "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "t6"
SLOTS = ("p", "cin", "cout", "left", "w", "bias", "stage", "band", "rowend", "top", "rowout", "start", "zc", "lo",
         "hi", "offset", "res", "zp", "col_step", "out_col_step", "span", "in_row_step", "out_row_step", "pad_left",
         "pad_right", "stride", "d_mid", "d_bottom", "target", "targets", "targets1", "targets2", "targets3",
         "wide", "w_step")
CALL_SAVED = ["ra", *[f"t{i}" for i in range(7)], *[f"a{i}" for i in range(8)]]
SAVED = ["ra", *[f"s{i}" for i in range(12)]]
S = {name: 4 * k for k, name in enumerate(SLOTS)}
KEEP = 4 * len(SLOTS)  # the caller-saved registers around a call, then the callee-saved ones
SIZE = -(-(KEEP + 4 * len(CALL_SAVED) + 4 * len(SAVED)) // 16) * 16


def output(tag: str, tail: list[str] | None = None, lo: str | None = None,
           single: bool = False) -> tuple[list[str], list[str]]:
    """The output of the accumulator t6 to 0(a5), and its out-of-line paths. A clamped output's path
    ends with `tail` (the loop's step and branch, then a jump past the loop) when given, else jumps back.
    `single`: through the channel's one-multiply row (t0 low, t1 high, t2 the multiplier, t3 and t4 act_min
    and act_max): two compares, the high word of one product and its low byte stored."""
    back = tail or [f"j {tag}_done"]
    if single:  # the two clamps share the tail (act_max's one jump more: in flash it costs more than the tail)
        return ([f"blt {ACC}, t0, {tag}_low", f"bge {ACC}, t1, {tag}_high", f"mulh {X}, {ACC}, t2",
                 f"sb {X}, 0({OUT})", f"{tag}_done:"],
                [f"{tag}_high:", f"sb t4, 0({OUT})", *([f"j {tag}_clamped"] if tail else back), f"{tag}_low:",
                 f"sb t3, 0({OUT})", f"{tag}_clamped:", *back])
    hot = [f"ble {ACC}, t0, {tag}_rest", f"blt t1, {ACC}, {tag}_high", f"mulhu {X}, {ACC}, t2", f"mul {P}, {ACC}, t2",
           f"srli {P}, {P}, 31", f"add {X}, {X}, {P}", f"add {X}, {X}, t3", f"sra {X}, {X}, t4", f"sb {X}, 0({OUT})",
           f"{tag}_done:"]
    cold = [f"{tag}_high:", f"lw {X}, {S['hi']}(sp)", f"sb {X}, 0({OUT})", *back,
            f"{tag}_rest:", f"blt {ACC}, t5, {tag}_low", f"jal {P}, .Ldw_rest", f"j {tag}_done",
            f"{tag}_low:", *([f"sb {lo}, 0({OUT})"] if lo else [f"lw {X}, {S['lo']}(sp)", f"sb {X}, 0({OUT})"]), *back]
    return hot, cold


def rest() -> list[str]:
    """The row loops' shared out-of-line path (return address in ra) of an accumulator t6 at most fast_after
    and at least min_below to 0(a5): a wide channel's or one's without shortcuts through .Ldw_other, else the
    negative path; t6 is free after."""
    return [".Ldw_rest:", "/* fast_after INT32_MAX: a wide channel or one without shortcuts */",
            f"addi {X}, t0, 1", f"bltz {X}, .Ldw_other",
            "/* a negative accumulator: (v - [v < 0] + k) >> shift, at most act_max */",
            f"mulhsu {X}, {ACC}, t2", f"mul {ACC}, {ACC}, t2", f"srli {ACC}, {ACC}, 31", f"add {X}, {X}, {ACC}",
            f"srli {ACC}, {X}, 31", f"sub {X}, {X}, {ACC}", f"add {X}, {X}, t3", f"sra {X}, {X}, t4",
            f"lw {ACC}, {S['hi']}(sp)", f"bge {ACC}, {X}, 1f", f"mv {X}, {ACC}",
            "1:", f"sb {X}, 0({OUT})", f"jr {P}"]


def other() -> list[str]:
    """The shared out-of-line routine (return address in ra): mote_output_rest_s8 of t6 to 0(a5)."""
    keep = [f"sw {r}, {KEEP + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
    back = [f"lw {r}, {KEEP + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
    return [".Ldw_other:", *keep, f"mv a0, {ACC}", f"lw a1, {S['stage']}(sp)", f"lw a2, {S['offset']}(sp)",
            f"lw a3, {S['lo']}(sp)", f"lw a4, {S['hi']}(sp)", "call mote_output_rest_s8", f"sw a0, {S['res']}(sp)",
            *back, f"lw {X}, {S['res']}(sp)", f"sb {X}, 0({OUT})", f"jr {P}"]


@dataclass(frozen=True)
class Layout:
    """Where a row loop reads: each filter row's byte at the column (x) as "offset(pointer)", at stride 2
    the next column's (y; None: one add from x's pointer, the column step not known here), the pointers
    to step, and how they are set from a0 (the top row) at the start of a row."""
    tag: str
    x: tuple[str, str, str]
    y: tuple[str, str, str] | None
    pointers: tuple[str, ...]
    setup: tuple[str, ...]
    shape: Shape | None = None  # a laid-out loop's band shape; None: the generic loop
    kept: tuple[str, ...] = ()  # a laid-out loop's registers for the top row, first and end outputs of its row
    lo: str | None = None  # a laid-out loop's register for act_min, where one is free


# (stride, col_step, d_mid, d_bottom, pad_left, pad_right, in_row_step, out_row_step, out_col_step, span)
Shape = tuple[int, int, int, int, int, int, int, int, int, int]
GENERIC = Layout("", ("0(a0)", "0(a1)", "0(a2)"), None, (TOP, MID, BOT),
                 (f"lw {MID}, {S['d_mid']}(sp)", f"add {MID}, {TOP}, {MID}", f"lw {BOT}, {S['d_bottom']}(sp)",
                  f"add {BOT}, {TOP}, {BOT}"))
IMM = 2047  # the largest offset a load takes
# Stride-1 rows of more outputs than this keep the generic loop: it costs them 2 instructions an output more
# and about 15 a row (0.3 to 0.45 per MAC for 3x3 filters), where such layers' per-row costs are spread thin,
# and each laid-out loop is about 500 bytes of flash (VWW's layers of 48, 24 and 12 outputs a row: 3.41, 3.42,
# 3.50 -> 3.72, 3.77, 3.95 instructions per MAC; its 6-output rows keep theirs at 3.9 to 4.1).
LONG_ROW = 8


def fixed_layout(shape: Shape, index: int) -> Layout | None:
    """The layout for a band shape known when the project is built: rows at immediate offsets from at most
    two pointers (at stride 2 the next column too), the steps and paddings constants, the row's top, first
    and end outputs kept in registers; or None when the shape does not allow it (the generic loop then)."""
    stride, col_step, d_mid, d_bottom = shape[:4]
    extra = col_step if stride == 2 else 0
    if stride * col_step > IMM or shape[8] > IMM or (stride == 1 and shape[9] > LONG_ROW * shape[8]):
        return None
    bases: list[int] = []
    place: list[tuple[int, int]] = []
    for row in (0, d_mid, d_bottom):
        for b, base in enumerate(bases):
            if 0 <= row - base and row - base + extra <= IMM:
                place.append((b, row - base))
                break
        else:
            bases.append(row)
            place.append((len(bases) - 1, 0))
    if len(bases) == 3 or not all(0 <= row for row in (d_mid, d_bottom)):
        return None
    regs = (TOP, MID, BOT)
    setup = []
    for b, base in enumerate(bases[1:], 1):
        setup += [f"li {regs[b]}, {base}", f"add {regs[b]}, {TOP}, {regs[b]}"]
    x = tuple(f"{off}({regs[b]})" for b, off in place)
    y = tuple(f"{off + col_step}({regs[b]})" for b, off in place) if stride == 2 else None
    kept = ((MID, BOT, STEP) if len(bases) == 1 else (BOT, STEP, OSTEP))
    lo = OSTEP if len(bases) == 1 else AFTER if stride == 2 else None
    return Layout(f"v{index}", x, y, regs[:len(bases)], tuple(setup), shape, kept, lo)  # type: ignore[arg-type]


def add_const(reg: str, src: str, value: int) -> list[str]:
    """reg = src + value (a7 the constant when it takes more than an immediate)."""
    return [f"addi {reg}, {src}, {value}"] if -2048 <= value <= IMM else [f"li {X}, {value}", f"add {reg}, {src}, {X}"]


def fixed_row(layout: Layout, tag: str, body: list[str], peel: list[str], right: list[str], first: str) -> list[str]:
    """A laid-out loop's band: the kept registers from the frame, then per row its pointers, `first` (the
    state before the peel), the peel, the loop when the row has windows to it, the padded last window,
    and the next row."""
    assert layout.shape is not None
    stride, _, _, _, pad_left, pad_right, in_step, out_step, _, span = layout.shape
    rt, ro, re = layout.kept
    out = [f"{tag}:", f"lw {rt}, {S['top']}(sp)", f"lw {ro}, {S['rowout']}(sp)", f"lw {re}, {S['rowend']}(sp)",
           *([f"lw {layout.lo}, {S['lo']}(sp)"] if layout.lo else []),
           f"{tag}_row:", f"mv {TOP}, {rt}", *layout.setup, f"mv {OUT}, {ro}", *add_const(END, OUT, span), first,
           *(peel * ((2 - pad_left) if stride == 1 else (1 - pad_left)))]
    if span:
        out += [f"{tag}_loop:", *body, f"{tag}_exit:"]
    if pad_right:
        out += right
    return out + [*add_const(rt, rt, in_step), *add_const(ro, ro, out_step), f"bne {ro}, {re}, {tag}_row",
                  "j .Ldw_band_next"]


def fixed_cold(layout: Layout, loop: list[str], right: list[str]) -> list[str]:
    """The out-of-line paths of a laid-out loop's outputs it has: in the loop, at the padded last window."""
    assert layout.shape is not None
    return [*(loop if layout.shape[9] else []), *(right if layout.shape[5] else [])]


def step_rows(layout: Layout, step: str, columns: int = 1) -> list[str]:
    """The pointers on by `columns` columns: by the register `step` (the generic loop), or by a constant."""
    if layout.shape is not None:
        return [f"addi {r}, {r}, {columns * layout.shape[1]}" for r in layout.pointers]
    return [f"add {r}, {r}, {step}" for r in layout.pointers]


def step_out(layout: Layout) -> str:
    return f"addi {OUT}, {OUT}, {layout.shape[8]}" if layout.shape is not None else f"add {OUT}, {OUT}, {OSTEP}"


def carry1(addr: str, fy: int, first: bool) -> list[str]:
    """Stride 1: the byte of a row at the column, into next (filter column 1) and after (column 0)."""
    k0, k1 = K9[3 * fy], K9[3 * fy + 1]
    if first:
        return [f"lb {X}, {addr}", f"mul {NEXT}, {X}, {k1}", f"add {NEXT}, {NEXT}, {AFTER}",
                f"mul {AFTER}, {X}, {k0}", f"add {AFTER}, {AFTER}, {BIAS}"]
    return [f"lb {X}, {addr}", f"mul {P}, {X}, {k1}", f"add {NEXT}, {NEXT}, {P}", f"mul {P}, {X}, {k0}",
            f"add {AFTER}, {AFTER}, {P}"]


def column1(addr: str, fy: int, first: bool) -> list[str]:
    """Stride 1: the byte of a row at the column, completing the accumulator (filter column 2) first."""
    k2 = K9[3 * fy + 2]
    head = ([f"lb {X}, {addr}", f"mul {ACC}, {X}, {k2}", f"add {ACC}, {ACC}, {NEXT}"] if first else
            [f"lb {X}, {addr}", f"mul {P}, {X}, {k2}", f"add {ACC}, {ACC}, {P}"])
    return head + carry1(addr, fy, first)[1:]


def column2(layout: Layout, fy: int) -> list[str]:
    """Stride 2: the row's bytes at the column (filter column 1) and the next (column 2, and column 0
    of the next window's carry)."""
    k0, k1, k2 = K9[3 * fy:3 * fy + 3]
    carry = ([f"mul {NEXT}, {P}, {k0}", f"add {NEXT}, {NEXT}, {BIAS}"] if fy == 0 else
             [f"mul {P}, {P}, {k0}", f"add {NEXT}, {NEXT}, {P}"])
    first = [f"mul {X}, {X}, {k1}", f"add {ACC}, {NEXT}, {X}"] if fy == 0 else [f"mul {X}, {X}, {k1}",
                                                                              f"add {ACC}, {ACC}, {X}"]
    x = layout.x[fy]
    pointer, offset = x[x.index("(") + 1:-1], x[:x.index("(")]
    y = [f"lb {P}, {layout.y[fy]}"] if layout.y else [f"add {P}, {pointer}, {STEP}", f"lb {P}, {offset}({P})"]
    return [f"lb {X}, {x}", *y, *first, f"mul {X}, {P}, {k2}", f"add {ACC}, {ACC}, {X}", *carry]


def band_setup(wide: bool = False) -> list[str]:
    """The band at `band`: its rows, the channel's weights with the band's clipped filter rows zeroed
    and their zero-point taps in the bias, start (bias, plus za after a padded first column), zc, its row
    first and last rows' outputs; then on to its row loop. `wide`: some layer may have wide_weights."""
    to_wide = [f"lw a3, {S['wide']}(sp)", "bnez a3, .Ldw_wide"] if wide else []
    out = [f"lw a0, {S['band']}(sp)", f"lw a1, {BAND['rows']}(a0)", "beqz a1, .Ldw_channel_next",
           f"lw a2, {S['out_row_step']}(sp)", "mul a1, a1, a2", f"lw a2, {S['w']}(sp)",
           *to_wide, *[f"lb {K9[t]}, {t}(a2)" for t in range(9)],
           ".Ldw_weights:", f"lw a2, {S['bias']}(sp)", f"lw {BIAS}, 0(a2)",
           f"lw a5, {BAND['clip']}(a0)", f"lw a3, {S['zp']}(sp)", "beqz a5, .Ldw_unshifted"]
    for fy in range(3):
        ks = K9[3 * fy:3 * fy + 3]
        out += [f"andi a2, a5, {1 << fy}", f"beqz a2, .Ldw_keep{fy}", f"add a2, {ks[0]}, {ks[1]}",
                f"add a2, a2, {ks[2]}", "mul a2, a2, a3", f"add {BIAS}, {BIAS}, a2",
                *[f"mv {k}, zero" for k in ks], f".Ldw_keep{fy}:"]
    up = [f"mv {K9[t]}, {K9[t + 3]}" for t in range(6)] + [f"mv {K9[t]}, zero" for t in range(6, 9)]
    down = [f"mv {K9[t]}, {K9[t - 3]}" for t in range(8, 2, -1)] + [f"mv {K9[t]}, zero" for t in range(3)]
    out += ["/* a band without rows outside the input reads them where the window is */",
            f"lw a2, {BAND['shift']}(a0)", "beqz a2, .Ldw_unshifted", "bltz a2, .Ldw_down",
            "/* the rows read one below the window's: each meets the next filter row */", *up, "j .Ldw_unshifted",
            ".Ldw_down:", "/* one above: each meets the filter row before */", *down, ".Ldw_unshifted:"]
    out += [f"add a2, {K9[0]}, {K9[3]}", f"add a2, a2, {K9[6]}", "mul a2, a2, a3",
            f"add a4, {K9[2]}, {K9[5]}", f"add a4, a4, {K9[8]}", "mul a4, a4, a3", f"sw a4, {S['zc']}(sp)",
            f"lw a5, {S['pad_left']}(sp)", f"mv a6, {BIAS}", "beqz a5, .Ldw_unpadded", "add a6, a6, a2",
            ".Ldw_unpadded:", f"sw a6, {S['start']}(sp)",
            f"lw a4, {S['cin']}(sp)", f"lw a2, {BAND['in_start']}(a0)", "add a4, a4, a2", f"sw a4, {S['top']}(sp)",
            f"lw a4, {S['cout']}(sp)", f"lw a2, {BAND['out_start']}(a0)", "add a4, a4, a2",
            f"sw a4, {S['rowout']}(sp)", "add a4, a4, a1", f"sw a4, {S['rowend']}(sp)",
            f"lw a5, {S['target']}(sp)", "lw a5, 0(a5)", "jr a5"]
    return out


def wide_weights() -> list[str]:
    """The channel's weights as int16 (wide_weights: a legacy uint8 layer's), out of line."""
    return [".Ldw_wide:", *[f"lh {K9[t]}, {2 * t}(a2)" for t in range(9)], "j .Ldw_weights"]


def row_setup(layout: Layout, tag: str) -> list[str]:
    """The generic loop's band: its row distances and the steps; then per row its pointers and loop end."""
    return [f"{tag}:", f"lw a4, {S['band']}(sp)", f"lw a1, {BAND['d_mid']}(a4)", f"sw a1, {S['d_mid']}(sp)",
            f"lw a1, {BAND['d_bottom']}(a4)", f"sw a1, {S['d_bottom']}(sp)", f"lw {STEP}, {S['col_step']}(sp)",
            f"lw {OSTEP}, {S['out_col_step']}(sp)",
            f"{tag}_row:", f"lw {TOP}, {S['top']}(sp)", *layout.setup, f"lw {OUT}, {S['rowout']}(sp)",
            f"lw {END}, {S['span']}(sp)", f"add {END}, {END}, {OUT}"]


def row_end(tag: str) -> list[str]:
    """The next row of the band, if any, else the next band."""
    return [f"{tag}_end:", f"lw a0, {S['top']}(sp)", f"lw a1, {S['in_row_step']}(sp)", "add a0, a0, a1",
            f"sw a0, {S['top']}(sp)",
            f"lw a0, {S['rowout']}(sp)", f"lw a1, {S['out_row_step']}(sp)", "add a0, a0, a1",
            f"sw a0, {S['rowout']}(sp)", f"lw a1, {S['rowend']}(sp)", f"bne a0, a1, {tag}_row", "j .Ldw_band_next"]


def stride1(layout: Layout, single: bool = False) -> tuple[list[str], list[str]]:
    tag = f".Ldw_row1{layout.tag}"
    x = layout.x
    peel = [*carry1(x[0], 0, True), *carry1(x[1], 1, False), *carry1(x[2], 2, False), *step_rows(layout, STEP)]
    loop = [*step_rows(layout, STEP), step_out(layout), f"bne {OUT}, {END}, {tag}_loop"]
    out, cold = output(f"{tag}_o", [*loop, f"j {tag}_exit"], layout.lo, single)
    right, cold_r = output(f"{tag}_r", lo=layout.lo, single=single)
    body = [*column1(x[0], 0, True), *column1(x[1], 1, False), *column1(x[2], 2, False), *out, *loop]
    if layout.shape is not None:
        last = [f"lw {P}, {S['zc']}(sp)", f"add {ACC}, {NEXT}, {P}", *right]
        return (fixed_row(layout, tag, body, peel, last, f"lw {AFTER}, {S['start']}(sp)"),
                fixed_cold(layout, cold, cold_r))
    code = [*row_setup(layout, tag), f"lw {AFTER}, {S['start']}(sp)", f"lw {P}, {S['pad_left']}(sp)",
            f"bnez {P}, {tag}_peeled", *peel, f"{tag}_peeled:", *peel, f"beq {OUT}, {END}, {tag}_exit",
            f"{tag}_loop:", *body,
            f"{tag}_exit:", f"lw {P}, {S['pad_right']}(sp)", f"beqz {P}, {tag}_end",
            f"lw {P}, {S['zc']}(sp)", f"add {ACC}, {NEXT}, {P}", *right, *row_end(tag)]
    return code, cold + cold_r


def stride2(layout: Layout, single: bool = False) -> tuple[list[str], list[str]]:
    tag = f".Ldw_row2{layout.tag}"
    x = layout.x
    loop = [*step_rows(layout, AFTER, 2), step_out(layout), f"bne {OUT}, {END}, {tag}_loop"]
    out, cold = output(f"{tag}_o", [*loop, f"j {tag}_exit"], layout.lo, single)
    right, cold_r = output(f"{tag}_r", lo=layout.lo, single=single)
    peel = [f"lb {X}, {x[0]}", f"mul {NEXT}, {X}, {K9[0]}", f"add {NEXT}, {NEXT}, {BIAS}",
            f"lb {X}, {x[1]}", f"mul {P}, {X}, {K9[3]}", f"add {NEXT}, {NEXT}, {P}",
            f"lb {X}, {x[2]}", f"mul {P}, {X}, {K9[6]}", f"add {NEXT}, {NEXT}, {P}", *step_rows(layout, STEP)]
    body = [*column2(layout, 0), *column2(layout, 1), *column2(layout, 2), *out, *loop]
    last = [f"lw {ACC}, {S['zc']}(sp)", f"add {ACC}, {ACC}, {NEXT}"]
    for fy in range(3):
        last += [f"lb {X}, {x[fy]}", f"mul {X}, {X}, {K9[3 * fy + 1]}", f"add {ACC}, {ACC}, {X}"]
    if layout.shape is not None:
        return (fixed_row(layout, tag, body, peel, [*last, *right], f"lw {NEXT}, {S['start']}(sp)"),
                fixed_cold(layout, cold, cold_r))
    code = [*row_setup(layout, tag), f"add {AFTER}, {STEP}, {STEP}", f"lw {NEXT}, {S['start']}(sp)",
            f"lw {P}, {S['pad_left']}(sp)", f"bnez {P}, {tag}_peeled", *peel,
            f"{tag}_peeled:", f"beq {OUT}, {END}, {tag}_exit", f"{tag}_loop:", *body,
            f"{tag}_exit:", f"lw {P}, {S['pad_right']}(sp)", f"beqz {P}, {tag}_end", *last, *right, *row_end(tag)]
    return code, cold + cold_r


# Where dispatch reads each field of a band's Shape: a register (the first four) or a stack slot.
