"""The CPU's share of a point: one run on the virtual platform (rv32, the default toolchain) of the
model compiled for the point's accelerator, counting the cycles of everything the CPU executes: the
layers left to it, the layout transforms and the drivers that start the jobs and wait for them.

The accelerator's own time is not in these cycles (the cost model gives it), so points whose CPU
work is the same (mote.explore.evaluate.cpu_work) share one run, however their accelerator settings
differ otherwise.
"""

from __future__ import annotations

from pathlib import Path

from mote.accel.loader import find_accelerator
from mote.errors import MoteError
from mote.pipeline import run


def cpu_cycles(model: str, accel_spec: str) -> dict[str, float] | str:
    """The CPU's cycles and energy (µJ, mote.sim.energy on the mcu platform, the accelerator's MACs left
    out) of one inference of `model` with the accelerator `accel_spec` attached on the virtual
    platform, or the reason it could not be run (a one-line message)."""
    try:
        report = run(Path(model), target="rv32", accelerator=find_accelerator(accel_spec))
    except MoteError as e:
        return f"CPU run on the virtual platform: {e}"
    if not report.bit_exact:
        return f"CPU run on the virtual platform: {report.mismatches} outputs differ from the reference"
    data = report.to_json()  # cycles: the CPU's alone (a timed run reports the accelerator's apart)
    energy = data.get("energy") or {}
    cpu_uj = energy["total_uj"] - energy["accel_uj"] if energy else None
    return {"cycles": int(data["cycles"]), "energy_uj": cpu_uj}


def cpu_cycles_task(task: tuple[str, str]) -> dict[str, float] | str:
    return cpu_cycles(*task)
