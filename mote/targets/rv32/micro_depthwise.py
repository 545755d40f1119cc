"""mote_depthwise_band_s8, the body of mote_depthwise_conv_band_s8, as rv32 assembly (its C twin: mote/runtime/
mote_depthwise_band_s8.c; the contract: mote_depthwise_conv_band_s8.h).

The nine weights stay in s0-s8 and the bias in s9 for a band of rows of a channel; the channel's output
stage (fast_after, max_above, m2, k, shift, min_below) in t0-t5 for all its bands. Per output at stride 1:
three byte loads, nine multiplies and nine adds carrying the column to the three windows it belongs to,
then the output stage straight from the accumulator (9 instructions through the shortcuts, 5 when the
clamp decides) and 5 to step the pointers and loop: 35. At stride 2 two columns a window, the second's
address one add from the first's: 41. Registers in the row loops:
  s0-s8 k0-k8, s9 bias, s10 next (stride 1) or carry (stride 2), s11 after (stride 1) or two column steps;
  a0-a2 the top, middle and bottom rows at the next column, a3 the column step, a4 the output step,
  a5 the output, a6 its end for the row, a7 and ra the loaded byte and the products, t6 the accumulator.
Everything else lives in the stack frame.
"""

from __future__ import annotations

# mote_depthwise_conv_band_params and mote_depthwise_band (rv32 ABI): tests/targets/test_asm_offsets.py
# checks each with offsetof.
PARAMS = {"channels": 0, "zero_point": 4, "in_row_step": 8, "col_step": 12, "out_row_step": 16, "out_col_step": 20,
          "stride": 24, "pad_left": 28, "count": 32, "pad_right": 36, "output_offset": 40, "act_min": 44,
          "act_max": 48, "weights": 52, "folded_bias": 56, "output_stage": 60, "bands": 64}
BAND = {"rows": 0, "in_start": 4, "d_mid": 8, "d_bottom": 12, "out_start": 16, "clip": 20}
BAND_BYTES, BANDS = 24, 4
STRUCT_OFFSETS = {**{("mote_depthwise_conv_band_params", name): at for name, at in PARAMS.items()},
                  **{("mote_depthwise_band", name): at for name, at in BAND.items()}}
STRUCT_HEADERS = {"mote_depthwise_conv_band_params": "mote_depthwise_conv_band_s8.h",
                  "mote_depthwise_band": "mote_depthwise_conv_band_s8.h"}
# An output-stage table row: min_below, fast_after, max_above, m2, k, shift from its third word.
ROW_BYTES = 32
MIN_BELOW, FAST_AFTER, MAX_ABOVE, M2, K, SHIFT = 8, 12, 16, 20, 24, 28

K9 = [f"s{i}" for i in range(9)]
BIAS, NEXT, AFTER = "s9", "s10", "s11"
TOP, MID, BOT, STEP, OSTEP, OUT, END, X, P, ACC = "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "t6"
SLOTS = ("p", "cin", "cout", "left", "w", "bias", "stage", "band", "rowend", "top", "rowout", "start", "zc", "lo",
         "hi", "offset", "res", "zp", "col_step", "out_col_step", "span", "in_row_step", "out_row_step", "pad_left",
         "pad_right", "stride", "d_mid", "d_bottom")
CALL_SAVED = ["ra", *[f"t{i}" for i in range(7)], *[f"a{i}" for i in range(8)]]
SAVED = ["ra", *[f"s{i}" for i in range(12)]]
S = {name: 4 * k for k, name in enumerate(SLOTS)}
KEEP = 4 * len(SLOTS)  # the caller-saved registers around a call, then the callee-saved ones
SIZE = -(-(KEEP + 4 * len(CALL_SAVED) + 4 * len(SAVED)) // 16) * 16


def output(tag: str, tail: list[str] | None = None) -> tuple[list[str], list[str]]:
    """The output of the accumulator t6 to 0(a5), and its out-of-line paths. A clamped output's path
    ends with `tail` (the loop's step and branch, then a jump past the loop) when given, else jumps back."""
    back = tail or [f"j {tag}_done"]
    hot = [f"ble {ACC}, t0, {tag}_rest", f"blt t1, {ACC}, {tag}_high", f"mulhu {X}, {ACC}, t2", f"mul {P}, {ACC}, t2",
           f"srli {P}, {P}, 31", f"add {X}, {X}, {P}", f"add {X}, {X}, t3", f"sra {X}, {X}, t4", f"sb {X}, 0({OUT})",
           f"{tag}_done:"]
    cold = [f"{tag}_high:", f"lw {X}, {S['hi']}(sp)", f"sb {X}, 0({OUT})", *back,
            f"{tag}_rest:", f"blt {ACC}, t5, {tag}_low",
            "/* fast_after INT32_MAX: a wide channel or one without shortcuts */",
            f"addi {X}, t0, 1", f"bltz {X}, {tag}_other",
            "/* a negative accumulator: (v - [v < 0] + k) >> shift, at most act_max */",
            f"mulhsu {X}, {ACC}, t2", f"mul {P}, {ACC}, t2", f"srli {P}, {P}, 31", f"add {X}, {X}, {P}",
            f"srli {P}, {X}, 31", f"sub {X}, {X}, {P}", f"add {X}, {X}, t3", f"sra {X}, {X}, t4",
            f"lw {P}, {S['hi']}(sp)", f"bge {P}, {X}, {tag}_store", f"mv {X}, {P}",
            f"{tag}_store:", f"sb {X}, 0({OUT})", f"j {tag}_done",
            f"{tag}_low:", f"lw {X}, {S['lo']}(sp)", f"sb {X}, 0({OUT})", *back,
            f"{tag}_other:", f"jal {P}, .Ldw_other", f"j {tag}_done"]
    return hot, cold


def other() -> list[str]:
    """The shared out-of-line routine (return address in ra): mote_output_rest_s8 of t6 to 0(a5)."""
    keep = [f"sw {r}, {KEEP + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
    back = [f"lw {r}, {KEEP + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
    return [".Ldw_other:", *keep, f"mv a0, {ACC}", f"lw a1, {S['stage']}(sp)", f"lw a2, {S['offset']}(sp)",
            f"lw a3, {S['lo']}(sp)", f"lw a4, {S['hi']}(sp)", "call mote_output_rest_s8", f"sw a0, {S['res']}(sp)",
            *back, f"lw {X}, {S['res']}(sp)", f"sb {X}, 0({OUT})", f"jr {P}"]


def step_rows(step: str) -> list[str]:
    return [f"add {TOP}, {TOP}, {step}", f"add {MID}, {MID}, {step}", f"add {BOT}, {BOT}, {step}"]


def carry1(row: str, fy: int, first: bool) -> list[str]:
    """Stride 1: the byte of a row at the column, into next (filter column 1) and after (column 0)."""
    k0, k1 = K9[3 * fy], K9[3 * fy + 1]
    if first:
        return [f"lb {X}, 0({row})", f"mul {NEXT}, {X}, {k1}", f"add {NEXT}, {NEXT}, {AFTER}",
                f"mul {AFTER}, {X}, {k0}", f"add {AFTER}, {AFTER}, {BIAS}"]
    return [f"lb {X}, 0({row})", f"mul {P}, {X}, {k1}", f"add {NEXT}, {NEXT}, {P}", f"mul {P}, {X}, {k0}",
            f"add {AFTER}, {AFTER}, {P}"]


def column1(row: str, fy: int, first: bool) -> list[str]:
    """Stride 1: the byte of a row at the column, completing the accumulator (filter column 2) first."""
    k2 = K9[3 * fy + 2]
    head = ([f"lb {X}, 0({row})", f"mul {ACC}, {X}, {k2}", f"add {ACC}, {ACC}, {NEXT}"] if first else
            [f"lb {X}, 0({row})", f"mul {P}, {X}, {k2}", f"add {ACC}, {ACC}, {P}"])
    return head + carry1(row, fy, first)[1:]


def column2(fy: int, row: str) -> list[str]:
    """Stride 2: the row's bytes at the column (filter column 1) and the next (column 2, and column 0
    of the next window's carry)."""
    k0, k1, k2 = K9[3 * fy:3 * fy + 3]
    carry = ([f"mul {NEXT}, {P}, {k0}", f"add {NEXT}, {NEXT}, {BIAS}"] if fy == 0 else
             [f"mul {P}, {P}, {k0}", f"add {NEXT}, {NEXT}, {P}"])
    first = [f"mul {X}, {X}, {k1}", f"add {ACC}, {NEXT}, {X}"] if fy == 0 else [f"mul {X}, {X}, {k1}",
                                                                              f"add {ACC}, {ACC}, {X}"]
    return [f"lb {X}, 0({row})", f"add {P}, {row}, {STEP}", f"lb {P}, 0({P})", *first, f"mul {X}, {P}, {k2}",
            f"add {ACC}, {ACC}, {X}", *carry]


def band_setup() -> list[str]:
    """The band at `band`: its rows, the channel's weights with the band's clipped filter rows zeroed
    and their zero-point taps in the bias, start (bias, plus za after a padded first column), zc, its row
    distances and first and last rows' outputs; then the steps in a3 and a4, on to the row loop of the stride."""
    out = [f"lw a0, {S['band']}(sp)", f"lw a1, {BAND['rows']}(a0)", "beqz a1, .Ldw_channel_next",
           f"lw a2, {S['out_row_step']}(sp)", "mul a1, a1, a2", f"lw a2, {S['w']}(sp)",
           *[f"lb {K9[t]}, {t}(a2)" for t in range(9)], f"lw a2, {S['bias']}(sp)", f"lw {BIAS}, 0(a2)",
           f"lw a5, {BAND['clip']}(a0)", f"lw a3, {S['zp']}(sp)"]
    for fy in range(3):
        ks = K9[3 * fy:3 * fy + 3]
        out += [f"andi a2, a5, {1 << fy}", f"beqz a2, .Ldw_keep{fy}", f"add a2, {ks[0]}, {ks[1]}",
                f"add a2, a2, {ks[2]}", "mul a2, a2, a3", f"add {BIAS}, {BIAS}, a2",
                *[f"mv {k}, zero" for k in ks], f".Ldw_keep{fy}:"]
    out += [f"add a2, {K9[0]}, {K9[3]}", f"add a2, a2, {K9[6]}", "mul a2, a2, a3",
            f"add a4, {K9[2]}, {K9[5]}", f"add a4, a4, {K9[8]}", "mul a4, a4, a3", f"sw a4, {S['zc']}(sp)",
            f"lw a5, {S['pad_left']}(sp)", f"mv a6, {BIAS}", "beqz a5, .Ldw_unpadded", "add a6, a6, a2",
            ".Ldw_unpadded:", f"sw a6, {S['start']}(sp)",
            f"lw a2, {BAND['d_mid']}(a0)", f"sw a2, {S['d_mid']}(sp)",
            f"lw a2, {BAND['d_bottom']}(a0)", f"sw a2, {S['d_bottom']}(sp)",
            f"lw a4, {S['cin']}(sp)", f"lw a2, {BAND['in_start']}(a0)", "add a4, a4, a2", f"sw a4, {S['top']}(sp)",
            f"lw a4, {S['cout']}(sp)", f"lw a2, {BAND['out_start']}(a0)", "add a4, a4, a2",
            f"sw a4, {S['rowout']}(sp)", "add a4, a4, a1", f"sw a4, {S['rowend']}(sp)",
            f"lw {STEP}, {S['col_step']}(sp)", f"lw {OSTEP}, {S['out_col_step']}(sp)", f"lw a5, {S['stride']}(sp)",
            "addi a5, a5, -1", "bnez a5, .Ldw_row2"]
    return out


def row_setup(tag: str) -> list[str]:
    """The row's pointers and loop end."""
    return [f"{tag}:", f"lw {TOP}, {S['top']}(sp)", f"lw {MID}, {S['d_mid']}(sp)", f"add {MID}, {TOP}, {MID}",
            f"lw {BOT}, {S['d_bottom']}(sp)", f"add {BOT}, {TOP}, {BOT}", f"lw {OUT}, {S['rowout']}(sp)",
            f"lw {END}, {S['span']}(sp)", f"add {END}, {END}, {OUT}"]


def row_end(tag: str) -> list[str]:
    """The next row of the band, if any, else the next band."""
    return ["4:", f"lw a0, {S['top']}(sp)", f"lw a1, {S['in_row_step']}(sp)", "add a0, a0, a1",
            f"sw a0, {S['top']}(sp)",
            f"lw a0, {S['rowout']}(sp)", f"lw a1, {S['out_row_step']}(sp)", "add a0, a0, a1",
            f"sw a0, {S['rowout']}(sp)", f"lw a1, {S['rowend']}(sp)", f"bne a0, a1, {tag}", "j .Ldw_band_next"]


def stride1() -> tuple[list[str], list[str]]:
    peel = [*carry1(TOP, 0, True), *carry1(MID, 1, False), *carry1(BOT, 2, False), *step_rows(STEP)]
    loop = [*step_rows(STEP), f"add {OUT}, {OUT}, {OSTEP}", f"bne {OUT}, {END}, .Ldw_loop1"]
    out, cold = output(".Ldw_o1", [*loop, "j .Ldw_exit1"])
    right, cold_r = output(".Ldw_r1")
    body = [*column1(TOP, 0, True), *column1(MID, 1, False), *column1(BOT, 2, False), *out, *loop]
    code = [*row_setup(".Ldw_row1"), f"lw {AFTER}, {S['start']}(sp)", f"lw {P}, {S['pad_left']}(sp)", f"bnez {P}, 1f",
            *peel, "1:", *peel, f"beq {OUT}, {END}, .Ldw_exit1", ".Ldw_loop1:", *body,
            ".Ldw_exit1:", f"lw {P}, {S['pad_right']}(sp)", f"beqz {P}, 4f",
            f"lw {P}, {S['zc']}(sp)", f"add {ACC}, {NEXT}, {P}", *right, *row_end(".Ldw_row1")]
    return code, cold + cold_r


def stride2() -> tuple[list[str], list[str]]:
    loop = [*step_rows(AFTER), f"add {OUT}, {OUT}, {OSTEP}", f"bne {OUT}, {END}, .Ldw_loop2"]
    out, cold = output(".Ldw_o2", [*loop, "j .Ldw_exit2"])
    right, cold_r = output(".Ldw_r2")
    peel = [f"lb {X}, 0({TOP})", f"mul {NEXT}, {X}, {K9[0]}", f"add {NEXT}, {NEXT}, {BIAS}",
            f"lb {X}, 0({MID})", f"mul {P}, {X}, {K9[3]}", f"add {NEXT}, {NEXT}, {P}",
            f"lb {X}, 0({BOT})", f"mul {P}, {X}, {K9[6]}", f"add {NEXT}, {NEXT}, {P}", *step_rows(STEP)]
    body = [*column2(0, TOP), *column2(1, MID), *column2(2, BOT), *out, *loop]
    last = [f"lw {ACC}, {S['zc']}(sp)", f"add {ACC}, {ACC}, {NEXT}"]
    for fy, row in enumerate((TOP, MID, BOT)):
        last += [f"lb {X}, 0({row})", f"mul {X}, {X}, {K9[3 * fy + 1]}", f"add {ACC}, {ACC}, {X}"]
    code = [*row_setup(".Ldw_row2"), f"add {AFTER}, {STEP}, {STEP}", f"lw {NEXT}, {S['start']}(sp)",
            f"lw {P}, {S['pad_left']}(sp)", f"bnez {P}, 1f", *peel,
            "1:", f"beq {OUT}, {END}, .Ldw_exit2", ".Ldw_loop2:", *body,
            ".Ldw_exit2:", f"lw {P}, {S['pad_right']}(sp)", f"beqz {P}, 4f", *last, *right, *row_end(".Ldw_row2")]
    return code, cold + cold_r


def band_function() -> list[str]:
    """The function's body (mote_depthwise_band_s8(p a0, input a1, output a2))."""
    code1, cold1 = stride1()
    code2, cold2 = stride2()
    save = [f"addi sp, sp, -{SIZE}", *[f"sw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)]]
    restore = [*[f"lw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)], f"addi sp, sp, {SIZE}", "ret"]
    head = [f"sw a0, {S['p']}(sp)", f"sw a1, {S['cin']}(sp)", f"sw a2, {S['cout']}(sp)",
            f"lw t0, {PARAMS['channels']}(a0)", "beqz t0, .Ldw_done", f"sw t0, {S['left']}(sp)"]
    for field, slot in (("weights", "w"), ("folded_bias", "bias"), ("output_stage", "stage"),
                        ("output_offset", "offset"), ("act_min", "lo"), ("act_max", "hi"), ("zero_point", "zp"),
                        ("col_step", "col_step"), ("out_col_step", "out_col_step"), ("in_row_step", "in_row_step"),
                        ("out_row_step", "out_row_step"), ("pad_left", "pad_left"), ("pad_right", "pad_right"),
                        ("stride", "stride")):
        head += [f"lw t1, {PARAMS[field]}(a0)", f"sw t1, {S[slot]}(sp)"]
    head += [f"lw t1, {PARAMS['count']}(a0)", f"lw t2, {PARAMS['out_col_step']}(a0)", "mul t1, t1, t2",
             f"sw t1, {S['span']}(sp)"]
    channel = [".Ldw_channel:", f"lw ra, {S['stage']}(sp)", f"lw t5, {MIN_BELOW}(ra)", f"lw t0, {FAST_AFTER}(ra)",
               f"lw t1, {MAX_ABOVE}(ra)", f"lw t2, {M2}(ra)", f"lw t3, {K}(ra)", f"lw t4, {SHIFT}(ra)",
               f"lw a0, {S['p']}(sp)", f"addi a0, a0, {PARAMS['bands']}", f"sw a0, {S['band']}(sp)"]
    tail = [".Ldw_band_next:", f"lw a0, {S['band']}(sp)", f"addi a0, a0, {BAND_BYTES}", f"sw a0, {S['band']}(sp)",
            f"lw a1, {S['p']}(sp)", f"addi a1, a1, {PARAMS['bands'] + BANDS * BAND_BYTES}", "bne a0, a1, .Ldw_band",
            ".Ldw_channel_next:", "/* the next channel (the bands in use come first) */"]
    for slot, size in (("w", 9), ("bias", 4), ("stage", ROW_BYTES), ("cin", 1), ("cout", 1), ("left", -1)):
        tail += [f"lw a0, {S[slot]}(sp)", f"addi a0, a0, {size}", f"sw a0, {S[slot]}(sp)"]
    tail += ["bnez a0, .Ldw_channel", ".Ldw_done:", "li a0, 0"]
    return [*save, *head, *channel, ".Ldw_band:", *band_setup(), *code1, *code2, *tail, *restore, *cold1, *cold2,
            *other()]


DOC = """mote_depthwise_band_s8 (mote_depthwise_conv_band_s8.h): per output at stride 1, 3 byte loads,
18 multiplies and adds, 9 instructions of output stage through the shortcuts (5 when the clamp
decides) and 5 to step and loop; at stride 2, 6 loads, 3 address adds, the same 18, 9 and 5; per row
about 30 and the columns read before the first window completes; per band of a channel about 50."""
