"""The scalar kernels' inner loops as rv32 assembly: mote_micro_s8.S, written into every rv32 project.

The register-blocked convolutions keep sixteen accumulators (four pixels by four output channels) and
their operands in the 28 registers a leaf function may use. C compilers get close but not there: each
change elsewhere in a kernel moved a spill into its inner loop, or reassociated the sums into
temporaries, a few percent each time. Here every register is assigned by hand, once, and the count
per step is fixed: the instruction budget a hardware team reads in `mote profile` is the schedule
below, not the mood of an allocator.

Each function has the signature and semantics of its portable C twin in mote/runtime (the host
builds and tests those), and the arithmetic of mote_conv_common.h:
  - mote_pair_dot: (X * W + 2^15) >> 16, two int8 products per multiply;
  - mote_pair_dot2: (X * W + X' * W' + 2^15) >> 16, four products per rounding, where the compiler
    proved the sum fits 16 bits (mote.ops.pair_groups).

Registers: the accumulators A(i, q) (pixel i, filter q) are s0-s11 and t3-t6; t0 holds 2^15; a0 and a1
walk the input words and the weights; t1 and t2 bound the loops; a2-a7 and ra are the operands and
products. ra, s0-s11 and the pointers the loops do not need are saved on the stack.
"""

from __future__ import annotations

from collections.abc import Iterable

ACC = [f"s{i}" for i in range(12)] + [f"t{i}" for i in range(3, 7)]
SAVED = ["ra"] + [f"s{i}" for i in range(12)]
FRAME = 80  # bytes: the saved registers (52), then the function's own slots from 0(sp)
ROUND = "t0"  # 2^15


def acc(i: int, q: int) -> str:
    return ACC[4 * i + q]


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


def function(name: str, doc: str, body: list[str]) -> str:
    head = [f"/* {line} */" if line else "" for line in doc.splitlines()]
    lines = [*head, f"  .section .text.{name}, \"ax\", @progbits", f"  .globl {name}",
             f"  .type {name}, @function", "  .p2align 2", f"{name}:"]
    for line in body:
        lines.append(line if line.endswith(":") or line.startswith("/*") else f"  {line}")
    lines.append(f"  .size {name}, . - {name}")
    return "\n".join(lines) + "\n"


def save() -> list[str]:
    """Make the frame: ra and s0-s11 saved above the function's slots, from 0(sp)."""
    return [f"addi sp, sp, -{FRAME}", *[f"sw {reg}, {FRAME - 4 * (k + 1)}(sp)" for k, reg in enumerate(SAVED)]]


def start(bias: str) -> list[str]:
    """The accumulators from bias[0..3]; t0 = 2^15."""
    out = [f"lw {acc(0, q)}, {4 * q}({bias})" for q in range(4)]
    out += [f"mv {acc(i, q)}, {acc(0, q)}" for i in range(1, 4) for q in range(4)]
    return out + [f"lui {ROUND}, 8"]


def store(acc_slot: int) -> list[str]:
    """The accumulators to the acc pointer saved at acc_slot(sp), left in a2."""
    return [f"lw a2, {acc_slot}(sp)", *[f"sw {ACC[k]}, {4 * k}(a2)" for k in range(16)]]


def restore() -> list[str]:
    return [*[f"lw {reg}, {FRAME - 4 * (k + 1)}(sp)" for k, reg in enumerate(SAVED)], f"addi sp, sp, {FRAME}",
            "ret"]


def pairs_4x4() -> str:
    """mote_dot_pairs_4x4_s8(x a0, w a1, groups a2, runs a3, bias a4, acc a5, quads a6): windows
    [pair][4], weights [quad][pair][4], groups of two pairs in runs of (shared bytes, separate bytes),
    one quad after the other."""
    separate = []
    for t in range(2):  # two tap pairs per group, one mote_pair_dot each
        separate += loads((f"a{2 + i}", 4 * t + i) for i in range(4))
        separate += separate_tap([f"a{2 + i}" for i in range(4)], 16 * t, "a6", "a7")
    shared = loads([("a2", 0), ("a3", 1), ("a4", 4), ("a5", 5)])
    shared += shared_pixels(0, 0, 16)
    shared += loads([("a2", 2), ("a3", 3), ("a4", 6), ("a5", 7)])
    shared += shared_pixels(2, 0, 16)
    body = [*save(), "sw a5, 0(sp)", "sw a0, 16(sp)", "slli a2, a2, 5", "sw a2, 4(sp)", "sw a3, 8(sp)",
            "sw a4, 20(sp)", "sw a6, 24(sp)",
            "0:", "/* the next four filters: their bias, the window from its start */",
            "lw a4, 20(sp)", *start("a4"), "addi a4, a4, 16", "sw a4, 20(sp)", "lw a0, 16(sp)",
            "1:", "/* the next run: groups sharing a rounding, then groups not */",
            "lw a3, 8(sp)", "lw t1, 0(a3)", "lw a2, 4(a3)", "addi a3, a3, 8", "sw a3, 8(sp)", "sw a2, 12(sp)",
            "add t1, a0, t1", "beq a0, t1, 3f",
            "2:", *shared, "addi a0, a0, 32", "addi a1, a1, 32", "bne a0, t1, 2b",
            "3:", "lw t1, 12(sp)", "add t1, a0, t1", "beq a0, t1, 5f",
            "4:", *separate, "addi a0, a0, 32", "addi a1, a1, 32", "bne a0, t1, 4b",
            "5:", "lw a2, 16(sp)", "lw a3, 4(sp)", "add a2, a2, a3", "bne a0, a2, 1b",
            *store(0), "addi a2, a2, 64", "sw a2, 0(sp)", "lw a2, 24(sp)", "addi a2, a2, -1", "sw a2, 24(sp)",
            "bnez a2, 0b", *restore()]
    return function("mote_dot_pairs_4x4_s8", PAIRS_DOC, body)


def shared_pixels(i: int, wa_off: int, wb_off: int) -> list[str]:
    """Pixels i, i + 1 of a group: a2/a3 their first pair's words, a4/a5 their second's."""
    out = []
    for q in range(4):
        out += [f"lw a6, {wa_off + 4 * q}(a1)", f"lw a7, {wb_off + 4 * q}(a1)"]
        for pixel, (x, y) in ((i, ("a2", "a4")), (i + 1, ("a3", "a5"))):
            out += [f"mul t2, {x}, a6", f"mul ra, {y}, a7", "add t2, t2, ra", f"add t2, t2, {ROUND}",
                    "srai t2, t2, 16", f"add {acc(pixel, q)}, {acc(pixel, q)}, t2"]
    return out


PAIRS_DOC = """mote_dot_pairs_4x4_s8 (mote_dot_pairs_4x4_s8.h): per group of two tap pairs, 8 word loads, 16
weight loads and 96 operations when it shares its roundings (123 with the loop), 8 + 8 and 128
otherwise (147); 18 per run, about 45 per four filters to start and store, 28 per call."""


def ring(stride: int) -> str:
    """mote_dot_ring_s{stride}_4x4_s8(rows a0, fh a1, offset a2, width a3, pairs a4, w a5, bias a6, acc a7)."""
    x = {k: 4 * k for k in range(9)}  # word k of the ring row at the block's first pixel
    body = [*save(), *start("a6"), "sw a7, 0(sp)", "sw a0, 4(sp)", "sw a1, 8(sp)", "sw a2, 12(sp)",
            "li t2, 52", "mul a4, a4, t2", "sw a4, 16(sp)", "mv t1, a3", "mv a1, a5",
            "1:", "/* the next filter row: its ring row, its weights' end */",
            "lw a2, 4(sp)", "lw a0, 0(a2)", "addi a2, a2, 4", "sw a2, 4(sp)", "lw a2, 12(sp)", "add a0, a0, a2",
            "lw t2, 16(sp)", "add t2, a1, t2",
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
             "lw a2, 8(sp)", "addi a2, a2, -1", "sw a2, 8(sp)", "bnez a2, 1b", *store(0), *restore()]
    doc = RING_DOC.format(stride=stride, words="6" if stride == 1 else "9",
                          counts="210 and 186" if stride == 1 else "213 and 189")
    return function(f"mote_dot_ring_s{stride}_4x4_s8", doc, body)


RING_DOC = """mote_dot_ring_s{stride}_4x4_s8 (mote_dot_ring_4x4_s8.h): per channel pair of a filter row, {words} word
loads, then {counts} operations and weight loads with separate and with shared roundings, 4 or 6
to pick the kind and loop; per filter row 11, per call about 60."""


FILE = "mote_micro_s8.S"
# The functions the file defines; the C twin of each is mote/<name>.c, which an rv32 build leaves out.
FUNCTIONS = ("mote_dot_pairs_4x4_s8", "mote_dot_ring_s1_4x4_s8", "mote_dot_ring_s2_4x4_s8")


def source() -> str:
    """The whole assembly file."""
    head = ["/* The scalar kernels' inner loops for rv32im, generated by mote (mote/targets/rv32/micro.py).",
            " * Each function's C twin, with the same semantics, is in mote/, for other targets. */", ""]
    return "\n".join(head) + "\n".join([pairs_4x4(), ring(1), ring(2)])
