"""The CPU's share of a point: one run on the virtual platform (rv32, the default toolchain) of the
model compiled for the point's accelerator (or for none), counting the cycles of everything the CPU
executes: the layers left to it, the layout transforms and the drivers that start the jobs and wait
for them. The run is on the point's platform (mote.explore.platform_space: its cores, its L1, its
DMA), or on the mcu platform when the exploration names none.

The accelerator's own time is not in these cycles (the cost model gives it), so points whose CPU
work is the same (mote.explore.evaluate.cpu_work) share one run, however their accelerator settings
differ otherwise.
"""

from __future__ import annotations

from pathlib import Path

from mote.accel.loader import find_accelerator
from mote.errors import MoteError
from mote.pipeline import run
from mote.sim.platforms import Platform
from mote.targets.rv32 import Rv32, Rv32Config

CpuTask = tuple[str, "str | None", "Platform | None"]  # model path, accelerator spec (None: none), platform


def platform_target(platform: Platform) -> Rv32:
    """The virtual platform configured as `platform` describes it (as `--platform` configures `mote run`)."""
    platform.check_simulated()
    flash, ram = platform.memory("flash"), platform.memory("ram")
    assert flash is not None and ram is not None  # check_simulated
    config = Rv32Config(flash_bytes=flash.bytes, ram_bytes=ram.bytes, stack_bytes=platform.stack_bytes,
                        isa=platform.compute.isa, core=platform.compute.cycles, platform=platform,
                        cores=platform.compute.count)
    config.validate()
    return Rv32(config)


def cpu_cycles(model: str, accel_spec: str | None, platform: Platform | None = None) -> dict[str, float] | str:
    """The CPU's cycles (the critical path over the cores) and energy (µJ, mote.sim.energy on the platform,
    the accelerator's MACs left out) of one inference of `model` with the accelerator `accel_spec` attached
    (None: no accelerator) on the virtual platform, or the reason it could not be run (a one-line message)."""
    try:
        target = platform_target(platform) if platform is not None else "rv32"
        accelerator = find_accelerator(accel_spec) if accel_spec is not None else None
        report = run(Path(model), target=target, accelerator=accelerator)
    except MoteError as e:
        return f"CPU run on the virtual platform: {e}"
    if not report.bit_exact:
        return f"CPU run on the virtual platform: {report.mismatches} outputs differ from the reference"
    data = report.to_json()  # cycles: the CPU's alone (a timed run reports the accelerator's apart)
    energy = data.get("energy") or {}
    cpu_uj = energy["total_uj"] - energy["accel_uj"] if energy else None
    return {"cycles": int(data["cycles"]), "energy_uj": cpu_uj}


def cpu_cycles_task(task: CpuTask) -> dict[str, float] | str:
    return cpu_cycles(*task)
