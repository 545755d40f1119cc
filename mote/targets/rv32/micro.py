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

from mote.targets.rv32 import micro_depthwise_band, micro_depthwise_frame, micro_matmul
from mote.targets.rv32.micro_blocks import (
    MATMUL_ROUND_UPPER,
    OUT,
    ROUND,
    ROUND_UPPER,
    ROW_BYTES,
    SINGLE_ROW_BYTES,
    STAGE,
    Frame,
    M,
    acc,
    function,
    loads,
    separate_tap,
    shared_taps,
    start,
    start_terms,
    store,
    store_single,
)


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
