"""The Cortex-M cores mote builds for: how each is compiled for, which kernels it gets, and its cycle model.

Cycle models (mote.sim.cycles.CoreModel: cycles = sum over classes of count x cost, plus a cost per extra
register of a multiple load or store, plus the memories' wait states on each load and store). Instruction
counts are exact; cycles are these estimates, with zero-wait-state memories unless `flash_wait_states` is
set, which charges each data load from flash (counted exactly by the memory hook) and each instruction fetch
after a taken branch or jump (sequential fetches are taken to hit the prefetch buffer, as on the parts these
cores ship in): CortexMConfig.

Cortex-M4 and Cortex-M33 (3-stage pipeline), from the Cortex-M4 Technical Reference Manual's instruction
set summary (cycles with zero wait states): data processing, MUL, MLA, the DSP extension's 16-bit and dual
multiplies 1; SMULL/UMULL/SMLAL/UMLAL 1; SDIV/UDIV 2 to 12 (7, the middle, here); LDR 2 (neighbouring loads
and stores pipeline, so a run of N loads takes N + 1: not modelled, 2 each); STR 1 (the store buffer hides
its data phase); LDM/STM/PUSH/POP 1 + N (2 for the first register here, 1 per further one);
B, BL, BX and a taken conditional branch 1 + P with P, the pipeline refill, 1 to 3 (2 here); a
conditional branch not taken 1; VADD/VMUL/VCVT 1; VDIV/VSQRT 14. The M33's divider is 2 to 11 cycles;
the rest is taken to match the M4.

Cortex-M0+ (2-stage pipeline, Cortex-M0+ Technical Reference Manual): data processing 1; MUL 1 (the fast
multiplier configuration); loads and stores 2; LDM/STM/PUSH/POP 1 + N; a taken branch 2, BL 3 (2 here,
with the other jumps: BX 2), not taken 1. It has no divider (the compiler's runtime divides) and no FPU.

Cortex-M7 (6-stage, dual issue, branch prediction): Arm publishes no per-instruction table for it. The
model charges every instruction at least one cycle, so it is an upper bound that ignores dual issue:
data processing, loads (from TCM), stores, multiplies 1; SDIV 2 to 12 (7); a taken branch or jump 2
(a predicted branch costs less); not taken 1; VDIV.F32/VSQRT.F32 14; each further register of LDM/STM 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from mote.ops.registry import Core
from mote.sim.cycles import CoreModel

M4_TIMING = CoreModel(name="Cortex-M4 (TRM instruction timings, P = 2, zero wait states)", alu=1, load=2, store=1,
                      mul=1, mulh=1, div=7, branch_taken=3, branch_not_taken=1, jump=3, fpu=1, fdiv=14, beat=1)
M33_TIMING = CoreModel(name="Cortex-M33 (M4-like timings, SDIV 2-11, zero wait states)", alu=1, load=2, store=1,
                       mul=1, mulh=1, div=6, branch_taken=3, branch_not_taken=1, jump=3, fpu=1, fdiv=14, beat=1)
M0PLUS_TIMING = CoreModel(name="Cortex-M0+ (TRM timings, fast multiplier, zero wait states)", alu=1, load=2,
                          store=2, mul=1, mulh=1, div=34, branch_taken=2, branch_not_taken=1, jump=2, fpu=1,
                          fdiv=14, beat=1)
M7_TIMING = CoreModel(name="Cortex-M7 (single-issue upper bound: dual issue not modelled, TCM, zero wait states)",
                      alu=1, load=1, store=1, mul=1, mulh=1, div=7, branch_taken=2, branch_not_taken=1, jump=2,
                      fpu=1, fdiv=14, beat=1)


@dataclass(frozen=True)
class ArmCore:
    """One Cortex-M core: its target name, compiler flags, hardware, kernels and timing."""

    name: str            # --target
    arch: str            # the architecture, as reports say it
    llvm_cpu: str        # zig's -mcpu, with the features its CPU model leaves out (the FPU; the M33's DSP)
    gcc_cpu: str         # arm-none-eabi-gcc -mcpu
    fpu: str | None      # the FPU of the usual part (gcc -mfpu), None: no FPU
    dsp: bool            # the DSP extension (SMLAD and friends)
    timing: CoreModel
    kernels: Core = Core.VECTOR  # the kernel table's core (mote.ops.registry.Core)


CORES: dict[str, ArmCore] = {c.name: c for c in (
    ArmCore("cortex-m0plus", "armv6-m", "cortex_m0plus", "cortex-m0plus", None, False, M0PLUS_TIMING,
            Core.ARMV6M),
    ArmCore("cortex-m4", "armv7e-m", "cortex_m4+vfp4d16sp", "cortex-m4", "fpv4-sp-d16", True, M4_TIMING, Core.DSP),
    ArmCore("cortex-m7", "armv7e-m", "cortex_m7+fp_armv8d16", "cortex-m7", "fpv5-d16", True, M7_TIMING, Core.DSP),
    ArmCore("cortex-m33", "armv8-m.main", "cortex_m33+dsp+fp_armv8d16sp", "cortex-m33", "fpv5-sp-d16", True,
            M33_TIMING, Core.DSP),
)}
