"""The building blocks of the scalar kernels' rv32 inner loops (mote.targets.rv32.micro): the registers, the C
structs' offsets the loops read, the stack frame, the pair-product taps, and the output stage from an
accumulator register to its int8 output (TFLite's rows, RequantShift rows, one-multiply rows)."""

from __future__ import annotations

from collections.abc import Iterable

from mote.ints import round_up
from mote.targets.rv32 import micro_depthwise, micro_matmul

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
