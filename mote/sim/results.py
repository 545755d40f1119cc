"""What a run on the virtual platform reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class LayerProfile:
    """One layer, between its MOTE_LAYER_BEGIN and MOTE_LAYER_END stores (exact instructions)."""

    index: int
    instructions: int
    cycles: int
    class_counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "instructions": self.instructions, "cycles": self.cycles}


@dataclass
class SimResult:
    """One inference on the virtual platform.

    `instructions`, `cycles` and `class_counts` cover model_run alone (from the call to its return);
    `total_instructions` / `total_cycles` cover the whole firmware from reset to the exit store,
    including the startup code's .data copy and .bss zeroing. Instructions are exact, cycles are the
    estimate of `core` (mote.sim.cycles.CoreModel)."""

    outputs: dict[str, np.ndarray]
    instructions: int
    cycles: int
    class_counts: dict[str, int]
    total_instructions: int
    total_cycles: int
    rom_bytes: int     # flash: .text + .rodata + .data's initial values
    ram_bytes: int     # static RAM: .data + .bss (+ .noinit); the model's I/O lives in its arena
    stack_bytes: int   # stack high-water mark, measured
    stack_limit: int   # the stack region's size
    sim_seconds: float
    sim_mips: float
    layers: list[LayerProfile]
    cc: str
    cflags: str
    core: str
    console: str = ""

    def to_json(self) -> dict[str, Any]:
        """Everything but the output arrays, JSON-ready (per-layer numbers under "layer_profile")."""
        return {
            "instructions": self.instructions,
            "cycles": self.cycles,
            "class_counts": self.class_counts,
            "total_instructions": self.total_instructions,
            "total_cycles": self.total_cycles,
            "rom_bytes": self.rom_bytes,
            "ram_bytes": self.ram_bytes,
            "stack_bytes": self.stack_bytes,
            "stack_limit_bytes": self.stack_limit,
            "sim_seconds": round(self.sim_seconds, 4),
            "sim_mips": round(self.sim_mips, 1),
            "cc": self.cc,
            "cflags": self.cflags,
            "core": self.core,
            "layer_profile": [layer.to_json() for layer in self.layers],
        }
