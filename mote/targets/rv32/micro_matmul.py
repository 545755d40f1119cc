"""mote_dot_matmul_single_4x4_s8 as rv32 assembly: the activation x activation GEMM's inner loop
(mote.ops.batch_matmul_pairs), written into mote_micro_s8.S by mote.targets.rv32.micro.

The convolutions' pair loop (micro.pairs_4x4) carries what a convolution needs: runs of groups that share
a rounding, a stage row per channel with its own constants, a scale per channel for each pixel's sum. Two
activations need none of it: every pair is rounded by itself (mote_matmul_pair_dot), one one-multiply row
serves every column, and each accumulator starts from its column's start plus its row's term, both
computed once per batch by the C kernel. Per set of four columns that leaves about 114 operations around
the loop (33 to start the sixteen sums, 77 to store them, 4 to loop) against about 160.

Registers: the accumulators A(i, j) (row i, column j) are s0-s11 and t3-t6 as in micro; t0 holds the
rounding constant 2^15 - 128 * 2^16; a0 and a1 walk the rows' and the columns' pair words, t1 bounds the
loop; a2-a5 the four rows' words, a6 a column's word, a7 the products. In the store a2-a4 hold the row's
low, high and multiplier, a5 the set's first output, a6 the output row step, a0 an output row, t1/t2
act_min and act_max.
"""

from __future__ import annotations

ACC = [f"s{i}" for i in range(12)] + [f"t{i}" for i in range(3, 7)]
SAVED = ["ra"] + [f"s{i}" for i in range(12)]
MATMUL_ROUND_UPPER = 0xFF808  # 2^15 - 128 * 2^16 >> 12 (mote_matmul_pair_dot)
# mote_block_out's fields (micro_blocks.STRUCT_OFFSETS): out, stage, m, lo, hi
OUT, STAGE, M, LO, HI = 0, 4, 8, 16, 20
SLOTS = ("xblock", "xstep", "w0", "starts0", "starts", "terms", "quads0", "quads", "blocks", "out", "outblock",
         "m", "lo", "hi", "low", "high", "mult")
SLOT = {name: 4 * k for k, name in enumerate(SLOTS)}
SIZE = (4 * (len(SLOTS) + len(SAVED)) + 15) // 16 * 16

DOC = """mote_dot_matmul_single_4x4_s8 (mote_dot_matmul_single_4x4_s8.h): per group of two pairs, 8 word loads,
8 column loads and 128 operations (145.5 with the loop, two groups a step); per set of four columns 33 to start
(3 more for an odd number of groups), 77 to store through the one-multiply row (4 an output, 3 or 4 when clamped),
4 to loop; per block of four rows 17; per call 45."""


def acc(i: int, j: int) -> str:
    return ACC[4 * i + j]


def _pair(t: int) -> list[str]:
    """Pair t (0 or 1) of a group: four row words, then each column's word times each."""
    out = [f"lw a{2 + i}, {16 * t + 4 * i}(a0)" for i in range(4)]
    for j in range(4):
        out.append(f"lw a6, {16 * t + 4 * j}(a1)")
        for i in range(4):
            out += [f"mul a7, a{2 + i}, a6", "add a7, a7, t0", "srai a7, a7, 16", f"add {acc(i, j)}, {acc(i, j)}, a7"]
    return out


def _store() -> tuple[list[str], list[str]]:
    s = SLOT
    code = [f"lw a2, {s['low']}(sp)", f"lw a3, {s['high']}(sp)", f"lw a4, {s['mult']}(sp)", f"lw a5, {s['out']}(sp)",
            f"lw a6, {s['m']}(sp)", f"lw t1, {s['lo']}(sp)", f"lw t2, {s['hi']}(sp)"]
    cold: list[str] = []
    for i in range(4):
        row = "a5" if i == 0 else "a0"
        if i == 1:
            code.append("add a0, a5, a6")
        elif i > 1:
            code.append("add a0, a0, a6")
        for j in range(4):
            r, label = acc(i, j), f".Lmm{i}{j}"
            code += [f"blt {r}, a2, {label}_low", f"bge {r}, a3, {label}_high", f"mulh a7, {r}, a4",
                     f"sb a7, {j}({row})", f"{label}_done:"]
            cold += [f"{label}_low:", f"sb t1, {j}({row})", f"j {label}_done",
                     f"{label}_high:", f"sb t2, {j}({row})", f"j {label}_done"]
    return code + ["addi a5, a5, 4", f"sw a5, {s['out']}(sp)"], cold


def body() -> list[str]:
    """mote_dot_matmul_single_4x4_s8(x a0, w a1, pairs a2, starts a3, terms a4, quads a5, how a6, blocks a7)."""
    s = SLOT
    save = [f"addi sp, sp, -{SIZE}", *[f"sw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)]]
    restore = [*[f"lw {r}, {SIZE - 4 * (k + 1)}(sp)" for k, r in enumerate(SAVED)], f"addi sp, sp, {SIZE}", "ret"]
    enter = [f"sw a0, {s['xblock']}(sp)", "slli a2, a2, 4", f"sw a2, {s['xstep']}(sp)", f"sw a1, {s['w0']}(sp)",
             f"sw a3, {s['starts0']}(sp)", f"sw a4, {s['terms']}(sp)", f"sw a5, {s['quads0']}(sp)",
             f"sw a7, {s['blocks']}(sp)", f"lw t2, {OUT}(a6)", f"sw t2, {s['outblock']}(sp)", f"lw t2, {M}(a6)",
             f"sw t2, {s['m']}(sp)", f"lw t2, {LO}(a6)", f"sw t2, {s['lo']}(sp)", f"lw t2, {HI}(a6)",
             f"sw t2, {s['hi']}(sp)", f"lw t2, {STAGE}(a6)", "lw t1, 0(t2)", f"sw t1, {s['low']}(sp)",
             "lw t1, 4(t2)", f"sw t1, {s['high']}(sp)", "lw t1, 8(t2)", f"sw t1, {s['mult']}(sp)",
             f"lui t0, {MATMUL_ROUND_UPPER:#x}", "blez a7, .Lmm_end", "blez a5, .Lmm_end"]
    block = [".Lmm_block:", "/* the next four rows: from the first columns */",
             f"lw t2, {s['starts0']}(sp)", f"sw t2, {s['starts']}(sp)", f"lw t2, {s['quads0']}(sp)",
             f"sw t2, {s['quads']}(sp)", f"lw t2, {s['outblock']}(sp)", f"sw t2, {s['out']}(sp)",
             f"lw a1, {s['w0']}(sp)"]
    start = [".Lmm_quad:", "/* the next four columns: each sum from its column's start plus its row's term */",
             f"lw a3, {s['starts']}(sp)", "lw a2, 0(a3)", "lw a5, 4(a3)", "lw a6, 8(a3)", "lw a7, 12(a3)",
             "addi a3, a3, 16", f"sw a3, {s['starts']}(sp)", f"lw a4, {s['terms']}(sp)"]
    for i in range(4):
        start.append(f"lw t2, {4 * i}(a4)")
        start += [f"add {acc(i, j)}, {col}, t2" for j, col in enumerate(("a2", "a5", "a6", "a7"))]
    start += [f"lw a0, {s['xblock']}(sp)", f"lw t1, {s['xstep']}(sp)", "andi t2, t1, 32", "add t1, a0, t1",
              "bnez t2, .Lmm_odd"]
    loop = [".Lmm_loop:", "/* two groups of two pairs a step */", *_pair(0), *_pair(1), ".Lmm_second:", *_pair(2),
            *_pair(3), "addi a0, a0, 64", "addi a1, a1, 64", "bne a0, t1, .Lmm_loop"]
    odd = [".Lmm_odd:", "/* an odd number of groups: the first by the loop's second half */", "addi a0, a0, -32",
           "addi a1, a1, -32", "j .Lmm_second"]
    store, cold = _store()
    next_quad = [f"lw a2, {s['quads']}(sp)", "addi a2, a2, -1", f"sw a2, {s['quads']}(sp)", "bnez a2, .Lmm_quad"]
    next_block = [f"lw a2, {s['xblock']}(sp)", f"lw a3, {s['xstep']}(sp)", "add a2, a2, a3",
                  f"sw a2, {s['xblock']}(sp)",
                  f"lw a2, {s['terms']}(sp)", "addi a2, a2, 16", f"sw a2, {s['terms']}(sp)",
                  f"lw a2, {s['outblock']}(sp)", f"lw a3, {s['m']}(sp)", "slli a3, a3, 2", "add a2, a2, a3",
                  f"sw a2, {s['outblock']}(sp)", f"lw a2, {s['blocks']}(sp)", "addi a2, a2, -1",
                  f"sw a2, {s['blocks']}(sp)", "bnez a2, .Lmm_block"]
    return [*save, *enter, *block, *start, *loop, *store, *next_quad, *next_block, ".Lmm_end:", *restore, *odd,
            *cold]
