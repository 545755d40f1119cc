"""The platform a Cortex-M run is costed on (mote.sim.platforms.Platform): the core's energy per instruction
class and per instruction fetch, its flash and RAM with their energy per access and the flash wait states.

The virtual platform counts, exactly, every executed instruction per class and every load and store per
memory (the native memory hook, mote/sim/mote_count.c); these figures turn the counts into µJ and into
wait-state cycles. The figures are estimates: Arm publishes no energy per instruction class for any
Cortex-M core, so every core here takes the same figure set, derived from Horowitz's 45 nm table (ISSCC
2014) as the rv32 `mcu` platform's is (docs/energy.md: "Cortex-M"), and differs from the others in what is
counted, not in what an event costs.
"""

from __future__ import annotations

from mote.sim.platforms import ClassEnergy, CoreGroup, Memory, Platform

# The cores' figure set (pJ at 45 nm, 0.9 V): the mcu platform's, by name, so that docs/energy.md's one
# derivation table covers both. Per core, so that a published figure for one core can replace its row.
CORE_ENERGY: dict[str, ClassEnergy] = {cpu: ClassEnergy() for cpu in
                                       ("cortex-m0plus", "cortex-m4", "cortex-m7", "cortex-m33")}


def cortexm_platform(cpu: str, isa: str, flash_bytes: int, ram_bytes: int, stack_bytes: int,
                     flash_wait_states: int) -> Platform:
    """One `cpu` core over its flash (read-only: code, weights; `flash_wait_states` on each data load) and
    its RAM (zero wait states)."""
    core = CoreGroup(cpu, isa, 1, energy_pj=CORE_ENERGY[cpu])
    memories = (Memory("flash", "flash", flash_bytes, wait_states=flash_wait_states), Memory("ram", "ram", ram_bytes))
    what = f"one {cpu} core with {flash_bytes >> 10} KiB of flash ({flash_wait_states} wait states) and " \
           f"{ram_bytes >> 10} KiB of RAM; energy figures: 45 nm estimates (docs/energy.md)"
    return Platform(cpu, what, cores=(core,), memories=memories, stack_bytes=stack_bytes)
