"""The instruction sets the virtual platform runs, one `Isa` record each: what Unicorn emulates (arch,
mode, CPU model), which register is the PC, how a block's instructions decode into the cycle model's
classes, how the native counter measures instruction lengths and checks alignment, and what an exception
number means. mote.sim.run is the same for every ISA; it asks this record.

    RV32IMC, RV32IMFC: mote.sim.decode
    Armv6-M (Cortex-M0+), Armv7E-M (Cortex-M4, M7), Armv8-M Mainline (Cortex-M33): mote.sim.thumb
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import unicorn as uc_mod
from unicorn import arm_const as arm
from unicorn import riscv_const as rv

from mote.sim.decode import Insn, decode_block
from mote.sim.faults import IllegalInstructionError, SimulationError, TrapError

# How the native counter (mote_count.c) measures instructions: mirrors LENGTH_* there.
LENGTH_RV32C = 0  # a 16-bit parcel whose two low bits are 11 starts a 32-bit instruction
LENGTH_THUMB = 1  # a halfword whose top five bits are 11101, 11110 or 11111 starts a 32-bit instruction
# Which misaligned loads and stores fault: mirrors ALIGN_* there.
ALIGN_ALL = 0     # every one (RV32 as most MCU cores implement it, Armv6-M)
ALIGN_ARMV7M = 1  # only LDM/STM/PUSH/POP, LDRD/STRD, exclusives and FPU transfers (Armv7-M, CCR.UNALIGN_TRP clear)


@dataclass(frozen=True)
class Isa:
    name: str                 # as reports and fault messages say it
    arch: int                 # Unicorn UC_ARCH_*
    mode: int                 # Unicorn UC_MODE_*
    cpu_model: int            # Unicorn UC_CPU_*
    pc_reg: int               # Unicorn register id of the PC
    decode: Callable[[int, bytes, int], list[Insn]]  # (address, code, count) -> the block's instructions
    length_rule: int          # LENGTH_*
    # Whether a run may install the memory hook (alignment checks, loads and stores per memory; the
    # profiler then finds its marks' stores by the PC).
    memory_hook: bool
    thumb: bool = False       # entry addresses carry the Thumb bit
    elf_machine: str = "EM_RISCV"  # the firmware ELF's e_machine
    # (exception number, PC at the hook) -> (error class, what, PC of the instruction)
    trap: Callable[[int, int], tuple[type[SimulationError], str, int]] | None = None
    # The integer registers by the numbers Store operands use (mote.sim.decode.Store), read from Unicorn.
    regs: Callable[[uc_mod.Uc], list[int]] | None = None
    # Pages mapped as plain read/write memory besides flash, RAM and the devices: (base, bytes).
    system_pages: tuple[tuple[int, int], ...] = ()
    # Why an executed instruction (decoded, and its bytes) does not exist on the core (None: it does).
    illegal: Callable[[Insn, bytes], str | None] | None = None
    # The registers besides the PC that hold a hart's state: a cluster (mote.sim.cluster) switches them when it
    # switches cores on its one Unicorn instance (empty: it saves and restores Unicorn's whole context, slower).
    core_regs: tuple[int, ...] = ()
    # The status register whose IT bits the memory hook clears (-1: none). Unicorn 2.1 leaves a stale IT
    # state behind a hooked load or store in an IT block (unicorn-engine/unicorn#2309); mote_count.c says how
    # clearing it repairs that exactly.
    it_state_reg: int = -1
    align_rule: int = ALIGN_ALL  # ALIGN_*

    def entry(self, addr: int) -> int:
        """The address emu_start begins at for the ELF entry `addr`."""
        return addr | 1 if self.thumb else addr


_RV_TRAPS = {0: "instruction address misaligned", 1: "instruction access fault", 2: "illegal instruction",
             3: "breakpoint (ebreak)", 4: "load address misaligned", 5: "load access fault",
             6: "store address misaligned", 7: "store access fault", 8: "ecall", 9: "ecall", 11: "ecall"}


def _rv_trap(cause: int, pc: int) -> tuple[type[SimulationError], str, int]:
    # Unicorn advances the RISC-V PC by 4 before calling interrupt hooks, whatever the length of the
    # instruction that trapped.
    return (IllegalInstructionError if cause == 2 else TrapError), _RV_TRAPS.get(cause, f"exception {cause}"), pc - 4


# QEMU's Arm exception numbers (target/arm/cpu.h EXCP_*), as Unicorn's interrupt hook passes them.
_ARM_TRAPS = {1: "undefined instruction (UsageFault)", 2: "supervisor call (svc)",
              3: "prefetch abort (HardFault)", 4: "data abort (HardFault)", 7: "breakpoint (bkpt)",
              8: "exception return", 17: "no coprocessor (UsageFault)", 18: "invalid state (UsageFault)",
              19: "stack limit violation", 20: "integer division by zero (UsageFault)",
              21: "lazy floating-point state preservation", 22: "lockup (HardFault)", 23: "SecureFault",
              25: "UsageFault"}


def _arm_trap(cause: int, pc: int) -> tuple[type[SimulationError], str, int]:
    cls = IllegalInstructionError if cause in (1, 17, 18) else TrapError
    return cls, _ARM_TRAPS.get(cause, f"exception {cause}"), pc


def _rv_regs(uc: uc_mod.Uc) -> list[int]:
    return [0] + [int(uc.reg_read(rv.UC_RISCV_REG_X1 + i)) for i in range(31)]


_ARM_REGS = [getattr(arm, f"UC_ARM_REG_R{i}") for i in range(13)] + [arm.UC_ARM_REG_SP, arm.UC_ARM_REG_LR,
                                                                       arm.UC_ARM_REG_PC]


def _arm_regs(uc: uc_mod.Uc) -> list[int]:
    return [int(uc.reg_read(r)) for r in _ARM_REGS]


_RV_X = tuple(range(rv.UC_RISCV_REG_X1, rv.UC_RISCV_REG_X31 + 1))
_RV_F = (*range(rv.UC_RISCV_REG_F0, rv.UC_RISCV_REG_F31 + 1), rv.UC_RISCV_REG_FCSR)
RV32IMC = Isa("rv32", uc_mod.UC_ARCH_RISCV, uc_mod.UC_MODE_RISCV32, rv.UC_CPU_RISCV32_SIFIVE_E31, rv.UC_RISCV_REG_PC,
              decode_block, LENGTH_RV32C, True, trap=_rv_trap, regs=_rv_regs, core_regs=_RV_X)
RV32IMFC = Isa("rv32", uc_mod.UC_ARCH_RISCV, uc_mod.UC_MODE_RISCV32, rv.UC_CPU_RISCV32_SIFIVE_U34, rv.UC_RISCV_REG_PC,
               decode_block, LENGTH_RV32C, True, trap=_rv_trap, regs=_rv_regs, core_regs=_RV_X + _RV_F)


def rv32(fpu: bool) -> Isa:
    """An RV32IMAC microcontroller core, or (F extension) an RV32GC one; firmware runs in machine mode."""
    return RV32IMFC if fpu else RV32IMC


# Unicorn's M-profile CPU models, by the `cpu` names of mote.targets.cortexm's cores.
ARM_CPUS = {"cortex-m0plus": arm.UC_CPU_ARM_CORTEX_M0, "cortex-m4": arm.UC_CPU_ARM_CORTEX_M4,
            "cortex-m7": arm.UC_CPU_ARM_CORTEX_M7, "cortex-m33": arm.UC_CPU_ARM_CORTEX_M33}


# The System Control Space page (CPACR, VTOR, ...). Unicorn maps nothing there; as plain memory it takes the
# reset code's CPACR write that enables the FPU (Unicorn's FPU runs without it) and reads back what was written.
SCS = (0xE000_E000, 0x1000)


def cortex_m(cpu: str) -> Isa:
    """The Arm M-profile core `cpu` (a key of ARM_CPUS): Thumb code, decoded with Capstone."""
    from mote.sim import thumb  # Capstone is loaded only for Arm firmware

    v6m = cpu == "cortex-m0plus"
    return Isa(cpu, uc_mod.UC_ARCH_ARM, uc_mod.UC_MODE_THUMB | uc_mod.UC_MODE_MCLASS, ARM_CPUS[cpu],
               arm.UC_ARM_REG_PC, thumb.decode_block, LENGTH_THUMB, memory_hook=True, thumb=True,
               elf_machine="EM_ARM", trap=_arm_trap, regs=_arm_regs, system_pages=(SCS,),
               illegal=thumb.armv6m_illegal if v6m else None,
               it_state_reg=-1 if v6m else arm.UC_ARM_REG_XPSR, align_rule=ALIGN_ALL if v6m else ALIGN_ARMV7M)
