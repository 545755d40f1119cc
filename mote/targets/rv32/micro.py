"""The scalar kernels' inner loops as rv32 assembly: mote_micro_s8.S, written into every rv32 project.

The register-blocked convolutions keep sixteen accumulators (four pixels by four output channels) and
their operands in the 28 registers besides zero, sp, gp and tp. C compilers get close but not there: each
change elsewhere in a kernel moved a spill into its inner loop, or reassociated the sums into
temporaries, a few percent each time. Here every register is assigned by hand, once, and the count
per step is fixed: the instruction budget a hardware team reads in `mote profile` is the schedule
below, not the mood of an allocator.

Each function has the signature and semantics of its portable C twin in mote/runtime (the host
builds and tests those), and the arithmetic of mote_conv_common.h and mote_output_stage.h:
  - mote_pair_dot: (X * W + 2^15) >> 16, two int8 products per multiply;
  - mote_pair_dot2: (X * W + X' * W' + 2^15) >> 16, four products per rounding, where the compiler
    proved the sum fits 16 bits (mote.ops.pair_groups);
  - mote_output_of: each accumulator straight from its register to its int8 output, through the
    channel's shortcuts (a wide channel's out of line); a channel without them calls
    mote_output_rest_s8.

Registers: the accumulators A(i, q) (pixel i, filter q) are s0-s11 and t3-t6; t0 holds 2^15; a0 and a1
walk the input words and the weights; t1 and t2 bound the loops; a2-a7 and ra are the operands and
products. ra, s0-s11 and the pointers the loops do not need are kept on the stack.
"""

from __future__ import annotations

from collections.abc import Iterable

from mote.ints import round_up
from mote.targets.rv32 import micro_depthwise, micro_depthwise_band, micro_depthwise_frame, micro_matmul

ACC = [f"s{i}" for i in range(12)] + [f"t{i}" for i in range(3, 7)]
SAVED = ["ra"] + [f"s{i}" for i in range(12)]
CALL_SAVED = ["ra", "t0", "t1", "t3", "t4", "t5", "t6"] + [f"a{i}" for i in range(8)]  # live across a C call
ROUND = "t0"  # 2^15 in the loops
# The byte offsets the loops read C structs at, as (struct, field) -> offset for the rv32 ABI: the
# structs are in mote/runtime's headers; tests/targets/test_asm_offsets.py checks each with offsetof.
OUT, STAGE, M, OFFSET, LO, HI, REST = 0, 4, 8, 12, 16, 20, 24
STRUCT_OFFSETS = {("mote_block_out", "out"): OUT, ("mote_block_out", "stage"): STAGE, ("mote_block_out", "m"): M,
                  ("mote_block_out", "offset"): OFFSET, ("mote_block_out", "lo"): LO, ("mote_block_out", "hi"): HI,
                  ("mote_block_out", "rest"): REST}
STRUCT_OFFSETS.update(micro_depthwise.STRUCT_OFFSETS)
STRUCT_HEADERS = {"mote_block_out": "mote_conv_common.h", **micro_depthwise.STRUCT_HEADERS}
# An output-stage table row (mote_output_stage.h): MOTE_OUTPUT_STAGE_WORDS int32 words, TFLite's shift
# the second, the six shortcut words from the third.
ROW_BYTES = 32
ROW_SHIFT, ROW_SHORTCUTS = 4, 8
REQUANT_SHIFT_32 = 128  # MOTE_OUTPUT_REQUANT_SHIFT_32 (mote_output_stage.h): a RequantShift row in 32 bits


def acc(i: int, q: int) -> str:
    return ACC[4 * i + q]


class Frame:
    """A function's stack frame: its named slots from 0(sp), room to keep the caller-saved registers
    across a call, then the callee-saved registers it uses."""

    def __init__(self, *slots: str) -> None:
        self.slot = {name: 4 * k for k, name in enumerate(slots)}
        self.calls = 4 * len(slots)
        self.size = round_up(self.calls + 4 * len(CALL_SAVED) + 4 * len(SAVED), 16)

    def save(self) -> list[str]:
        return [f"addi sp, sp, -{self.size}", *[f"sw {r}, {self.size - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)]]

    def restore(self) -> list[str]:
        return [*[f"lw {r}, {self.size - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)], f"addi sp, sp, {self.size}",
                "ret"]

    def around_call(self, call: list[str]) -> list[str]:
        keep = [f"sw {r}, {self.calls + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
        back = [f"lw {r}, {self.calls + 4 * k}(sp)" for k, r in enumerate(CALL_SAVED)]
        return keep + call + back


# ROUND's upper 20 bits: 2^15 (mote_pair_dot), or 2^15 - 128 * 2^16 for the activation pairs of
# mote_dot_matmul_* (mote_matmul_pair_dot, mote_conv_common.h).
ROUND_UPPER, MATMUL_ROUND_UPPER = 8, micro_matmul.MATMUL_ROUND_UPPER


def start(bias: str, upper: int = ROUND_UPPER) -> list[str]:
    """The accumulators from bias[0..3]; t0 = 2^15 (or the `upper` bits)."""
    out = [f"lw {acc(0, q)}, {4 * q}({bias})" for q in range(4)]
    out += [f"mv {acc(i, q)}, {acc(0, q)}" for i in range(1, 4) for q in range(4)]
    return out + [f"lui {ROUND}, {upper:#x}"]


def start_terms(bias: str, sums: str, upper: int = ROUND_UPPER) -> list[str]:
    """The accumulators from bias[0..3] plus each pixel's sum, sums[0..3], times each filter's scale,
    bias[4..7]; t0 = 2^15. Uses a3, a5-a7, t1 and t2."""
    scales = ["a6", "a7", "t1", "t2"]
    out = [f"lw {acc(0, q)}, {4 * q}({bias})" for q in range(4)]
    out += [f"lw {scales[q]}, {16 + 4 * q}({bias})" for q in range(4)]
    for i in (3, 2, 1, 0):
        out.append(f"lw a5, {4 * i}({sums})")
        for q in range(4):
            out += [f"mul a3, {scales[q]}, a5", f"add {acc(i, q)}, {acc(0, q)}, a3"]
    return out + [f"lui {ROUND}, {upper:#x}"]


def separate_tap(x: list[str], w_off: int, v: str, p: str) -> list[str]:
    """One tap pair of pixels 0..3 (input words in x) by filters 0..3 (weight words at w_off(a1)):
    sixteen mote_pair_dot, each filter word loaded once."""
    out = []
    for q in range(4):
        out.append(f"lw {v}, {w_off + 4 * q}(a1)")
        for i in range(4):
            out += [f"mul {p}, {x[i]}, {v}", f"add {p}, {p}, {ROUND}", f"srai {p}, {p}, 16",
                    f"add {acc(i, q)}, {acc(i, q)}, {p}"]
    return out


def shared_taps(i: int, a: str, b: str, c: str, wa_off: int, wb_off: int, wa: str, wb: str, p: str,
                p2: str) -> list[str]:
    """Two tap pairs of pixels i and i + 1 by filters 0..3 with one rounding per pixel and filter
    (mote_pair_dot2): pixel i reads words a (first pair) and b (second), pixel i + 1 b and c."""
    out = []
    for q in range(4):
        out += [f"lw {wa}, {wa_off + 4 * q}(a1)", f"lw {wb}, {wb_off + 4 * q}(a1)"]
        for pixel, (x, y) in ((i, (a, b)), (i + 1, (b, c))):
            out += [f"mul {p}, {x}, {wa}", f"mul {p2}, {y}, {wb}", f"add {p}, {p}, {p2}",
                    f"add {p}, {p}, {ROUND}", f"srai {p}, {p}, 16", f"add {acc(pixel, q)}, {acc(pixel, q)}, {p}"]
    return out


def loads(pairs: Iterable[tuple[str, int]]) -> list[str]:
    return [f"lw {reg}, {4 * word}(a0)" for reg, word in pairs]


def store(frame: Frame, tag: str, requant_shift: bool = True) -> tuple[list[str], list[str]]:
    """The sixteen outputs from the accumulators, channel by channel (each channel's six shortcut
    words loaded once), to the frame's `out` slot, through its `stage` slot's table rows; returns
    the code and its out-of-line paths (clamped outputs each; negative accumulators, wide channels and
    channels without shortcuts through one path shared by the sixteen). `requant_shift`: whether a layer
    of the project has RequantShift rows (their 32-bit kind in line; without, that code is left out and
    such a channel would go to the layer's `rest`, as every channel without shortcuts does).
    Registers: a0 the channel's output, a1 the pixel step, ra an output's address, t0/t1 act_min and
    act_max, a2-a7 min_below, fast_after, max_above, m2, k and shift, t2 and the accumulator itself
    the products."""
    slot = frame.slot
    code = [f"lw a0, {slot['out']}(sp)", f"lw t2, {slot['how']}(sp)", f"lw a1, {M}(t2)", f"lw t0, {LO}(t2)",
            f"lw t1, {HI}(t2)", f"lw t2, {slot['stage']}(sp)", f"sw t2, {slot['row']}(sp)"]
    cold: list[str] = []
    for q in range(4):
        if q:
            code += [f"lw t2, {slot['row']}(sp)", f"addi t2, t2, {ROW_BYTES}", f"sw t2, {slot['row']}(sp)",
                     "addi a0, a0, 1"]
        code += [f"lw a{2 + k}, {ROW_SHORTCUTS + 4 * k}(t2)" for k in range(6)] + ["mv ra, a0"]
        for i in range(4):
            r, label = acc(i, q), f"{tag}{q}{i}"
            if i:
                code.append("add ra, ra, a1")
            code += [f"ble {r}, a3, {label}_rest", f"blt a4, {r}, {label}_high",
                     f"mulhu t2, {r}, a5", f"mul {r}, {r}, a5", f"srli {r}, {r}, 31", f"add t2, t2, {r}",
                     "add t2, t2, a6", "sra t2, t2, a7", "sb t2, 0(ra)", f"{label}_done:"]
            cold += [f"{label}_high:", "sb t1, 0(ra)", f"j {label}_done",
                     f"{label}_rest:", f"blt {r}, a2, {label}_low", f"mv t2, {r}", f"jal a1, {tag}_rest",
                     f"lw a1, {slot['how']}(sp)", f"lw a1, {M}(a1)", f"lw a0, {slot['out']}(sp)", f"addi a0, a0, {q}",
                     f"j {label}_done",
                     f"{label}_low:", "sb t0, 0(ra)", f"j {label}_done"]
    row = slot["row"]
    cold += [f"{tag}_rest:", "/* t2's output to 0(ra) when at most fast_after and at least min_below, shared by the",
             "   sixteen; back to a1, a0 free */",
             "/* fast_after INT32_MAX: a wide channel or one without shortcuts */",
             "addi a0, a3, 1", f"bltz a0, {tag}_other",
             "/* a negative accumulator: (v - [v < 0] + k) >> shift, at most act_max */",
             "mulhsu a0, t2, a5", "mul t2, t2, a5", "srli t2, t2, 31", "add t2, a0, t2",
             "srli a0, t2, 31", "sub t2, t2, a0", "add t2, t2, a6", "sra t2, t2, a7",
             f"bge t1, t2, {tag}_store", f"j {tag}_high"]
    cold += [f"{tag}_other:", "/* t2's output to 0(ra), for a wide channel or one without shortcuts; back to a1 */",
             f"beqz a7, {tag}_full", f"blt a4, t2, {tag}_high",
             "mul a0, t2, a5", "mulhsu t2, t2, a5", "srli a0, a0, 31", "add t2, t2, a0", "srli a0, t2, 31",
             "sub t2, t2, a0", "/* down by t = -(TFLite shift) - shift first */", f"lw a0, {row}(sp)",
             f"lw a0, {ROW_SHIFT}(a0)",
             "add a0, a0, a7", "neg a0, a0", "sra t2, t2, a0", "add t2, t2, a6", "sra t2, t2, a7",
             f"bge t1, t2, {tag}_store", f"{tag}_high:", "mv t2, t1", f"{tag}_store:", "sb t2, 0(ra)", "jr a1",
             *(requant_shift_32(tag, row) if requant_shift else [f"{tag}_full:"]),
             f"{tag}_call:", "/* no shortcuts: the layer's mote_block_out.rest (mote_output_rest_s8 or _any_s8) */",
             *frame.around_call(["mv a0, t2", f"lw a1, {row}(sp)", f"lw a5, {slot['how']}(sp)",
                                 f"lw a2, {OFFSET}(a5)", f"lw a5, {REST}(a5)", "mv a3, t0", "mv a4, t1", "jalr a5",
                                 "mv t2, a0"]),
             "sb t2, 0(ra)", "jr a1"]
    return code, cold


def requant_shift_32(tag: str, row: int) -> list[str]:
    """store's path for a 32-bit RequantShift row (mote_output_stage.h) in line; other rows on to `_call`."""
    return [f"{tag}_full:", "/* a 32-bit RequantShift row (a5 K, a6 its shift or divisor) here, else */",
            f"lw a0, {row}(sp)", f"lw a0, {ROW_SHIFT}(a0)", f"addi a0, a0, -{REQUANT_SHIFT_32}",
            f"bltz a0, {tag}_call", f"blt a4, t2, {tag}_high", f"lw a0, {row}(sp)", "lw a0, 0(a0)",
            "mul t2, t2, a0", "add t2, t2, a5", f"lw a0, {row}(sp)", f"lw a0, {ROW_SHIFT}(a0)",
            f"addi a0, a0, -{REQUANT_SHIFT_32}", f"bnez a0, {tag}_divide", "srl t2, t2, a6", "addi t2, t2, -128",
            f"j {tag}_store", f"{tag}_divide:", "divu t2, t2, a6", "addi t2, t2, -128", f"j {tag}_store"]


SINGLE_ROW_BYTES = 16  # a one-multiply output-stage row (mote_output_single.h): low, high, multiplier, 0


def store_single(frame: Frame, tag: str) -> tuple[list[str], list[str]]:
    """store's sixteen outputs through one-multiply rows (mote.ops.output_single): act_min below the row's low,
    act_max from its high on, else the low byte of the high word of the accumulator times its multiplier.
    Registers: a0, a1, a7 and a6 the four pixels' outputs, a2-a4 low, high and multiplier, a5 the rows, t0/t1
    act_min and act_max, t2 the product."""
    slot = frame.slot
    pixel = ["a0", "a1", "a7", "a6"]
    code = [f"lw a0, {slot['out']}(sp)", f"lw t2, {slot['how']}(sp)", f"lw a6, {M}(t2)", f"lw t0, {LO}(t2)",
            f"lw t1, {HI}(t2)", f"lw a5, {slot['stage']}(sp)", "add a1, a0, a6", "add a7, a1, a6", "add a6, a7, a6"]
    cold: list[str] = []
    for q in range(4):
        code += [f"lw a{2 + k}, {SINGLE_ROW_BYTES * q + 4 * k}(a5)" for k in range(3)]
        for i in range(4):
            r, label = acc(i, q), f"{tag}{q}{i}"
            code += [f"blt {r}, a2, {label}_low", f"bge {r}, a3, {label}_high", f"mulh t2, {r}, a4",
                     f"sb t2, {q}({pixel[i]})", f"{label}_done:"]
            cold += [f"{label}_low:", f"sb t0, {q}({pixel[i]})", f"j {label}_done", f"{label}_high:",
                     f"sb t1, {q}({pixel[i]})", f"j {label}_done"]
    return code, cold


def function(name: str, doc: str, body: list[str]) -> str:
    head = [f"/* {line} */" if line else "" for line in doc.splitlines()]
    lines = [*head, f"  .section .text.{name}, \"ax\", @progbits", f"  .globl {name}",
             f"  .type {name}, @function", "  .p2align 2", f"{name}:"]
    for line in body:
        lines.append(line if line.endswith(":") or line.startswith("/*") else f"  {line}")
    lines.append(f"  .size {name}, . - {name}")
    return "\n".join(lines) + "\n"


def pairs_4x4(terms: bool = False, single: bool = False, both: bool = False, requant_shift: bool = True,
              matmul: bool = False) -> str:
    """mote_dot_pairs_4x4_s8(x a0, w a1, groups a2, runs a3, bias a4, quads a5, how a6), or with `terms`
    mote_dot_pairs_terms_4x4_s8(..., sums a7): each pixel's sum times each filter's scale added to their
    accumulator's start; with `single`, the outputs through one-multiply rows (store_single), for `blocks`
    blocks of pixels one after the other (block_loop): mote_dot_pairs_single_4x4_s8(..., blocks a7) and
    mote_dot_pairs_terms_single_4x4_s8(..., sums a7, blocks on the stack). With `both` (not terms): one body
    for mote_dot_pairs_4x4_s8 and mote_dot_pairs_single_4x4_s8, two entries that set the output stage's
    row step (a single block for the first), the stage picked once per four filters (both_entries).
    `requant_shift`: as in store. `matmul` (with terms): mote_dot_matmul_terms_4x4_s8, the same loop whose pair
    products round with mote_matmul_pair_dot's constant (two activations' pairs, each lowered by 128)."""
    if both:
        single = True
    blocked = ["blocks", "base", "w0", "runs0", "bias0", "quads0"] if single else []
    blocked += ["step"] if both else []
    frame = Frame("out", "how", "stage", "row", "x", "groups", "runs", "separate", "bias", "quads", "w",
                  *(["terms"] if terms else []), *blocked)
    slot = frame.slot
    upper = MATMUL_ROUND_UPPER if matmul else ROUND_UPPER
    begin = [f"lw a2, {slot['terms']}(sp)", *start_terms("a4", "a2", upper)] if terms else start("a4")
    bias_step = 32 if terms else 16  # with terms, each four filters' biases then their scales
    keep_terms = [f"sw a7, {slot['terms']}(sp)"] if terms else []
    separate = []
    for t in range(2):  # two tap pairs per group, one mote_pair_dot each
        separate += loads((f"a{2 + i}", 4 * t + i) for i in range(4))
        separate += separate_tap([f"a{2 + i}" for i in range(4)], 16 * t, "a6", "a7")
    shared = loads([("a2", 0), ("a3", 1), ("a4", 4), ("a5", 5)])
    shared += shared_pixels(0)
    shared += loads([("a2", 2), ("a3", 3), ("a4", 6), ("a5", 7)])
    shared += shared_pixels(2)
    tag = (".Lm" if matmul else ".Lt" if terms else ".Lp") + ("s" if single else "") + ("b" if both else "")
    outputs, cold = store_single(frame, tag) if single else store(frame, tag, requant_shift)
    row_bytes = SINGLE_ROW_BYTES if single else ROW_BYTES
    entries, next_stage = [], [f"addi a2, a2, {4 * row_bytes}"]
    if both:
        full, full_cold = store(frame, tag + "f", requant_shift)
        outputs = [f"lw a2, {slot['step']}(sp)", f"addi a2, a2, -{4 * ROW_BYTES}", f"bnez a2, {tag}_single",
                   *full, f"j {tag}_stored", f"{tag}_single:", *outputs, f"{tag}_stored:"]
        cold += full_cold
        entries = both_entries(tag)
        next_stage = [f"lw a3, {slot['step']}(sp)", "add a2, a2, a3"]
    begin_blocks, next_block = block_loop(frame, terms) if single else ([], [])
    if both:  # mote_dot_pairs_4x4_s8's single block skips the loop over blocks
        begin_blocks = [f"li a3, {4 * ROW_BYTES}", "beq t0, a3, 0f", *begin_blocks]
        next_block = [f"lw a2, {slot['step']}(sp)", f"addi a2, a2, -{4 * ROW_BYTES}", "beqz a2, 7f", *next_block, "7:"]
    keep_step = [f"sw t0, {slot['step']}(sp)"] if both else []
    body = [*entries, *frame.save(), *keep_step, f"sw a0, {slot['x']}(sp)", "slli a2, a2, 5",
            f"sw a2, {slot['groups']}(sp)",
            f"sw a3, {slot['runs']}(sp)", f"sw a4, {slot['bias']}(sp)", f"sw a5, {slot['quads']}(sp)",
            f"sw a6, {slot['how']}(sp)", *keep_terms, f"lw a2, {OUT}(a6)",
            f"sw a2, {slot['out']}(sp)", f"lw a2, {STAGE}(a6)", f"sw a2, {slot['stage']}(sp)", *begin_blocks,
            "0:", "/* the next four filters: their bias, the window from its start */",
            f"lw a4, {slot['bias']}(sp)", *begin, f"addi a4, a4, {bias_step}", f"sw a4, {slot['bias']}(sp)",
            f"lw a0, {slot['x']}(sp)",
            "1:", "/* the next run: groups sharing a rounding, then groups not */",
            f"lw a3, {slot['runs']}(sp)", "lw t1, 0(a3)", "lw a2, 4(a3)", "addi a3, a3, 8",
            f"sw a3, {slot['runs']}(sp)", f"sw a2, {slot['separate']}(sp)", "add t1, a0, t1", "beq a0, t1, 3f",
            "2:", *shared, "addi a0, a0, 32", "addi a1, a1, 32", "bne a0, t1, 2b",
            "3:", f"lw t1, {slot['separate']}(sp)", "add t1, a0, t1", "beq a0, t1, 5f",
            "4:", *separate, "addi a0, a0, 32", "addi a1, a1, 32", "bne a0, t1, 4b",
            "5:", f"lw a2, {slot['x']}(sp)", f"lw a3, {slot['groups']}(sp)", "add a2, a2, a3", "bne a0, a2, 1b",
            f"sw a1, {slot['w']}(sp)", *outputs,
            f"lw a2, {slot['out']}(sp)", "addi a2, a2, 4", f"sw a2, {slot['out']}(sp)",
            f"lw a2, {slot['stage']}(sp)", *next_stage, f"sw a2, {slot['stage']}(sp)",
            f"lw a1, {slot['w']}(sp)", f"lw a2, {slot['quads']}(sp)", "addi a2, a2, -1", f"sw a2, {slot['quads']}(sp)",
            "bnez a2, 0b", *next_block, *frame.restore(), *cold]
    name = f"mote_dot_{'matmul' if matmul else 'pairs'}{'_terms' if terms else ''}" \
           f"{'_single' if single and not both else ''}_4x4_s8"
    if matmul:
        return function(name, MATMUL_DOC.format(name=name), body)
    if both:
        return function(name, PAIRS_DOC + "\n" + PAIRS_SINGLE_DOC.format(name="mote_dot_pairs_single_4x4_s8")
                        + "\n" + PAIRS_BOTH_DOC, body)
    return function(name, PAIRS_SINGLE_DOC.format(name=name) if single else PAIRS_TERMS_DOC if terms else PAIRS_DOC,
                    body)


def both_entries(tag: str) -> list[str]:
    """The merged body's two entries: mote_dot_pairs_4x4_s8 (one block, TFLite's rows) falls through from the
    function's label, mote_dot_pairs_single_4x4_s8 (blocks in a7, one-multiply rows) is the second; t0 the row
    step of four filters, kept in the frame's `step` slot."""
    name = "mote_dot_pairs_single_4x4_s8"
    return ["li a7, 1", f"li t0, {4 * ROW_BYTES}", f"j {tag}_entered", f".globl {name}", f".type {name}, @function",
            f"{name}:", f"li t0, {4 * SINGLE_ROW_BYTES}", f"{tag}_entered:"]


def block_loop(frame: Frame, terms: bool) -> tuple[list[str], list[str]]:
    """The single variants' loop over `blocks` blocks of four pixels (a7, or the first stack argument with
    terms): each block's windows right after the last's, its outputs four pixels on, its sums four words on;
    every block from the first filters on. Returns the code before the filters' loop and after it."""
    slot = frame.slot
    blocks = f"lw a2, {frame.size}(sp)" if terms else "mv a2, a7"
    keep = [blocks, f"sw a2, {slot['blocks']}(sp)", f"lw a2, {slot['out']}(sp)", f"sw a2, {slot['base']}(sp)",
            f"sw a1, {slot['w0']}(sp)", f"lw a2, {slot['runs']}(sp)", f"sw a2, {slot['runs0']}(sp)",
            f"lw a2, {slot['bias']}(sp)", f"sw a2, {slot['bias0']}(sp)", f"lw a2, {slot['quads']}(sp)",
            f"sw a2, {slot['quads0']}(sp)", "6:", "/* the next block: from the first filters */"]
    for name in ("runs", "bias", "quads"):
        keep += [f"lw a2, {slot[name + '0']}(sp)", f"sw a2, {slot[name]}(sp)"]
    keep += [f"lw a1, {slot['w0']}(sp)", f"lw a2, {slot['base']}(sp)", f"sw a2, {slot['out']}(sp)",
             f"lw a2, {slot['how']}(sp)", f"lw a2, {STAGE}(a2)", f"sw a2, {slot['stage']}(sp)"]
    step = [f"lw a2, {slot['x']}(sp)", f"lw a3, {slot['groups']}(sp)", "add a2, a2, a3", f"sw a2, {slot['x']}(sp)",
            f"lw a2, {slot['base']}(sp)", f"lw a3, {slot['how']}(sp)", f"lw a3, {M}(a3)", "slli a3, a3, 2",
            "add a2, a2, a3", f"sw a2, {slot['base']}(sp)"]
    if terms:
        step += [f"lw a2, {slot['terms']}(sp)", "addi a2, a2, 16", f"sw a2, {slot['terms']}(sp)"]
    step += [f"lw a2, {slot['blocks']}(sp)", "addi a2, a2, -1", f"sw a2, {slot['blocks']}(sp)", "bnez a2, 6b"]
    return keep, step


def shared_pixels(i: int) -> list[str]:
    """Pixels i, i + 1 of a group: a2/a3 their first pair's words, a4/a5 their second's."""
    out = []
    for q in range(4):
        out += [f"lw a6, {4 * q}(a1)", f"lw a7, {16 + 4 * q}(a1)"]
        for pixel, (x, y) in ((i, ("a2", "a4")), (i + 1, ("a3", "a5"))):
            out += [f"mul t2, {x}, a6", f"mul ra, {y}, a7", "add t2, t2, ra", f"add t2, t2, {ROUND}",
                    "srai t2, t2, 16", f"add {acc(pixel, q)}, {acc(pixel, q)}, t2"]
    return out


PAIRS_DOC = """mote_dot_pairs_4x4_s8 (mote_dot_pairs_4x4_s8.h): per group of two tap pairs, 8 word loads, 16
weight loads and 96 operations when it shares its roundings (123 with the loop), 8 + 8 and 128
otherwise (147); 18 per run; per output 10 through the shortcuts (9 when the clamp decides), per
four filters about 70 to start and to read their output stages, per call 30."""

PAIRS_TERMS_DOC = """mote_dot_pairs_terms_4x4_s8 (mote_dot_pairs_terms_4x4_s8.h): mote_dot_pairs_4x4_s8 whose
accumulators start from the bias plus the window's sum times the filter's scale, 24 more operations per four
filters."""


MATMUL_DOC = """{name} ({name}.h): the terms loop above on two activations' pair words, each pair product
rounded with 2^15 - 128 * 2^16 (mote_matmul_pair_dot): every int8 pair then fits, lowered by 128."""


PAIRS_BOTH_DOC = """Both in one body when a project uses both (mote_dot_pairs_4x4_s8 past the loop over blocks): 3
operations more per four filters to pick the output stage, about 10 more per call."""


PAIRS_SINGLE_DOC = """{name} ({name}.h): the pairs loop above, each output through its channel's one-multiply
row (mote_output_single.h): 4 operations when not clamped, 4 when clamped (out of line), per four filters 12 to
read their rows and 12 to start."""


def ring(stride: int) -> str:
    """mote_dot_ring_s{stride}_4x4_s8(rows a0, fh a1, offset a2, width a3, pairs a4, w a5, bias a6, how a7)."""
    frame = Frame("out", "how", "stage", "row", "rows", "fh", "offset", "step")
    slot = frame.slot
    x = {k: 4 * k for k in range(9)}  # word k of the ring row at the block's first pixel
    outputs, cold = store(frame, f".Lr{stride}", requant_shift=False)  # TFLite's rows only
    body = [*frame.save(), *start("a6"), f"sw a0, {slot['rows']}(sp)", f"sw a1, {slot['fh']}(sp)",
            f"sw a2, {slot['offset']}(sp)", f"sw a7, {slot['how']}(sp)", f"lw a2, {OUT}(a7)",
            f"sw a2, {slot['out']}(sp)", f"lw a2, {STAGE}(a7)", f"sw a2, {slot['stage']}(sp)",
            "li t2, 52", "mul a4, a4, t2", f"sw a4, {slot['step']}(sp)", "mv t1, a3", "mv a1, a5",
            "1:", "/* the next filter row: its ring row, its weights' end */",
            f"lw a2, {slot['rows']}(sp)", "lw a0, 0(a2)", "addi a2, a2, 4", f"sw a2, {slot['rows']}(sp)",
            f"lw a2, {slot['offset']}(sp)", "add a0, a0, a2", f"lw t2, {slot['step']}(sp)", "add t2, a1, t2",
            "2:", "lw a2, 0(a1)", "bnez a2, 3f"]
    wk = {fx: 4 + 16 * fx for fx in range(3)}  # filter column fx's four weight words after the kind word
    if stride == 1:
        body += ["/* kind 0: three filter columns, each its own roundings */",
                 *[f"lw a{2 + i}, {x[i]}(a0)" for i in range(4)],
                 *separate_tap(["a2", "a3", "a4", "a5"], wk[0], "a6", "a7"),
                 f"lw a2, {x[4]}(a0)", *separate_tap(["a3", "a4", "a5", "a2"], wk[1], "a6", "a7"),
                 f"lw a3, {x[5]}(a0)", *separate_tap(["a4", "a5", "a2", "a3"], wk[2], "a6", "a7"),
                 "j 5f",
                 "3:", "addi a2, a2, -1", "bnez a2, 4f",
                 "/* kind 1: columns 0 and 1 share roundings, then column 2 */",
                 f"lw a2, {x[0]}(a0)", f"lw a3, {x[1]}(a0)", f"lw a4, {x[2]}(a0)",
                 *shared_taps(0, "a2", "a3", "a4", wk[0], wk[1], "a5", "a6", "a7", "ra"),
                 f"lw a2, {x[3]}(a0)", f"lw a3, {x[4]}(a0)",
                 *shared_taps(2, "a4", "a2", "a3", wk[0], wk[1], "a5", "a6", "a7", "ra"),
                 f"lw a5, {x[5]}(a0)", *separate_tap(["a4", "a2", "a3", "a5"], wk[2], "a6", "a7"),
                 "j 5f",
                 "4:", "/* kind 2: column 0, then columns 1 and 2 share roundings */",
                 *[f"lw a{2 + i}, {x[i]}(a0)" for i in range(4)],
                 *separate_tap(["a2", "a3", "a4", "a5"], wk[0], "a6", "a7"),
                 *shared_taps(0, "a3", "a4", "a5", wk[1], wk[2], "a2", "a6", "a7", "ra"),
                 f"lw a3, {x[4]}(a0)", f"lw a4, {x[5]}(a0)",
                 *shared_taps(2, "a5", "a3", "a4", wk[1], wk[2], "a2", "a6", "a7", "ra")]
    else:
        body += ["/* kind 0: three filter columns, each its own roundings */",
                 *[f"lw a{2 + i}, {x[2 * i]}(a0)" for i in range(4)],
                 *separate_tap(["a2", "a3", "a4", "a5"], wk[0], "a6", "a7"),
                 f"lw a2, {x[8]}(a0)", *separate_tap(["a3", "a4", "a5", "a2"], wk[2], "a6", "a7"),
                 *[f"lw a{2 + i}, {x[2 * i + 1]}(a0)" for i in range(4)],
                 *separate_tap(["a2", "a3", "a4", "a5"], wk[1], "a6", "a7"),
                 "j 5f",
                 "3:", "/* kind 1: columns 0 and 2 share roundings, then column 1 */",
                 f"lw a2, {x[0]}(a0)", f"lw a3, {x[2]}(a0)", f"lw a4, {x[4]}(a0)",
                 *shared_taps(0, "a2", "a3", "a4", wk[0], wk[2], "a5", "a6", "a7", "ra"),
                 f"lw a2, {x[6]}(a0)", f"lw a3, {x[8]}(a0)",
                 *shared_taps(2, "a4", "a2", "a3", wk[0], wk[2], "a5", "a6", "a7", "ra"),
                 *[f"lw a{2 + i}, {x[2 * i + 1]}(a0)" for i in range(4)],
                 *separate_tap(["a2", "a3", "a4", "a5"], wk[1], "a6", "a7")]
    body += ["5:", "add a0, a0, t1", "addi a1, a1, 52", "bne a1, t2, 2b",
             f"lw a2, {slot['fh']}(sp)", "addi a2, a2, -1", f"sw a2, {slot['fh']}(sp)", "bnez a2, 1b",
             *outputs, *frame.restore(), *cold]
    doc = RING_DOC.format(stride=stride, words="6" if stride == 1 else "9",
                          counts="210 and 186" if stride == 1 else "213 and 189")
    return function(f"mote_dot_ring_s{stride}_4x4_s8", doc, body)


RING_DOC = """mote_dot_ring_s{stride}_4x4_s8 (mote_dot_ring_4x4_s8.h): per channel pair of a filter row, {words} word
loads, then {counts} operations and weight loads with separate and with shared roundings, 4 or 6
to pick the kind and loop; per filter row 11; per output 10 through the shortcuts; per call about
100 to start, read the output stages and return."""

FILE = "mote_micro_s8.S"
# The functions the file defines; the C twin of each is mote/<name>.c, which an rv32 build leaves out.
FUNCTIONS = ("mote_dot_pairs_4x4_s8", "mote_dot_pairs_terms_4x4_s8", "mote_dot_ring_s1_4x4_s8",
             "mote_dot_ring_s2_4x4_s8", "mote_dot_pairs_single_4x4_s8", "mote_dot_pairs_terms_single_4x4_s8",
             "mote_depthwise_band_s8", "mote_depthwise_band_single_s8", "mote_dot_matmul_terms_4x4_s8",
             "mote_dot_matmul_single_4x4_s8")


def _depthwise(shapes: list[tuple[int, ...]], wide: bool, single: bool = False) -> list[str]:
    """mote_depthwise_band_s8's body: row loops laid out for the band shapes, routines for the frame shapes
    (those starting with 0, mote.ops.depthwise_band.band_shapes); `wide`: some layer has wide_weights.
    `single`: mote_depthwise_band_single_s8's instead, its local labels .Lds_ where the other's are .Ldw_ (a
    project may carry both in this file)."""
    frames = sorted({shape for shape in shapes if shape[0] == 0})
    code = (micro_depthwise_frame.dispatch(frames), micro_depthwise_frame.routines(frames, single))
    body = micro_depthwise_band.band_function([shape for shape in shapes if shape[0] != 0], code,  # type: ignore[misc]
                                         wide, single)
    return [line.replace(".Ldw_", ".Lds_") for line in body] if single else body


def source(functions: Iterable[str] = FUNCTIONS, band_shapes: Iterable[tuple[int, int, int, int]] = (),
           wide_weights: bool = True, requant_shift: bool = True,
           single_band_shapes: Iterable[tuple[int, ...]] = ()) -> str:
    """The assembly file with the given functions (of FUNCTIONS): the twins the records of a project's
    kernels name (mote.ops.registry.Kernel.twins); `wide_weights`: whether a depthwise band layer of the
    project has int16 weights (a legacy uint8 layer's; without, that code is left out); `requant_shift`:
    whether a layer of the project has RequantShift rows (without, their in-line path is left out);
    `band_shapes` and `single_band_shapes`: those of the layers of mote_depthwise_band_s8 and of
    mote_depthwise_band_single_s8."""
    head = ["/* The scalar kernels' inner loops for rv32im, generated by mote (mote/targets/rv32/micro.py).",
            " * Each function's C twin, with the same semantics, is in mote/, for other targets. */", ""]
    rqs = requant_shift
    make = {"mote_dot_pairs_4x4_s8": lambda: pairs_4x4(requant_shift=rqs),
            "mote_dot_pairs_terms_4x4_s8": lambda: pairs_4x4(terms=True, requant_shift=rqs),
            "mote_dot_pairs_single_4x4_s8": lambda: pairs_4x4(single=True),
            "mote_dot_pairs_terms_single_4x4_s8": lambda: pairs_4x4(terms=True, single=True),
            "mote_dot_matmul_terms_4x4_s8": lambda: pairs_4x4(terms=True, requant_shift=rqs, matmul=True),
            "mote_dot_matmul_single_4x4_s8": lambda: function("mote_dot_matmul_single_4x4_s8", micro_matmul.DOC,
                                                               micro_matmul.body()),
            "mote_dot_ring_s1_4x4_s8": lambda: ring(1),
            "mote_dot_ring_s2_4x4_s8": lambda: ring(2),
            "mote_depthwise_band_s8": lambda: function("mote_depthwise_band_s8", micro_depthwise_band.DOC,
                                                            _depthwise(list(band_shapes), wide_weights)),
            "mote_depthwise_band_single_s8": lambda: function(
                "mote_depthwise_band_single_s8", micro_depthwise_band.DOC_SINGLE,
                _depthwise(list(single_band_shapes), False, single=True))}
    wanted = set(functions)
    if {"mote_dot_pairs_4x4_s8", "mote_dot_pairs_single_4x4_s8"} <= wanted:  # one body for both
        make["mote_dot_pairs_4x4_s8"] = lambda: pairs_4x4(both=True, requant_shift=rqs)
        wanted.discard("mote_dot_pairs_single_4x4_s8")
    return "\n".join(head) + "\n".join(make[name]() for name in FUNCTIONS if name in wanted)
