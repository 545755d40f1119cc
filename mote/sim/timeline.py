"""A run's timeline: spans of work on named tracks (the CPU's layers, the accelerator's jobs, the DMA's
channels, a cluster's cores), in cycles from the start of model_run. Built by the rv32 target
(mote.targets.rv32.timeline) and written as a Chrome/Perfetto trace by `mote run --trace`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CPU = "cpu"
ACCEL = "accelerator"


def dma_track(channel: int) -> str:
    return f"DMA channel {channel}"


def core_track(core: int) -> str:
    return f"core {core}"


@dataclass(frozen=True)
class Span:
    """`cycles` of work on `track` from cycle `start` (counted from model_run's start)."""

    track: str
    name: str
    start: int
    cycles: int
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def end(self) -> int:
        return self.start + self.cycles
