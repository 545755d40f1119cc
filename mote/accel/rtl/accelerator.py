"""What makes an accelerator an RTL accelerator: its Verilog/SystemVerilog sources and top module.

A class that sets `rtl_sources` (paths) and `rtl_top` runs on the virtual platform as its RTL:
mote/sim/rtl_device.py builds the design (mote.accel.rtl.build), forwards the driver's register
writes to it, and clocks it when a job starts, its memory requests served from the emulated memory;
its cycles are the run's accelerator cycles. The Python functional model (`execute`) and cost model
(`cost`) stay what partitioning, `mote accel check`, exploration and the comparisons use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.accel.rtl.build import build_library


def is_rtl(accel: Any) -> bool:
    """Whether `accel` declares RTL that the virtual platform should run."""
    return bool(getattr(accel, "rtl_sources", ())) and bool(getattr(accel, "rtl_top", ""))


def rtl_library(accel: Any) -> Path:
    """The Verilated shared library of an RTL accelerator (built once per source hash, then cached)."""
    return build_library([Path(p) for p in accel.rtl_sources], accel.rtl_top)


class RtlAccelerator:
    """Mixin for an Accelerator subclass whose hardware is RTL.

    rtl_sources  the design's files (Verilog or SystemVerilog), in the order Verilator reads them;
    rtl_top      its top module, whose ports follow docs/rtl.md;
    rtl_cycle_limit  cycles a job may take before the run fails as hung.
    """

    rtl_sources: tuple[Path, ...] = ()
    rtl_top: str = ""
    rtl_cycle_limit: int = 1 << 34
