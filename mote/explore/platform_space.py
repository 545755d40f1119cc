"""The platform's side of a design space: sweep keys that vary the virtual MCU a point's CPU work runs on.

`cores` (the compute group's core count), `l1` (the size of the platform's l1 memory, with units:
32KiB) and `dma_bw` (the L2-to-L1 DMA's bytes per cycle). Each point's platform is the base platform
(--platform) with those replaced; the keys are checked against the base platform before any point
runs (an `l1` or `dma_bw` sweep needs a platform with an L1 fed by a DMA, e.g. cluster8).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mote.config import parse_size
from mote.errors import MoteError
from mote.sim.platforms import Platform

PLATFORM_KEYS = ("cores", "l1", "dma_bw")
PLATFORM_SIZES = frozenset({"l1"})  # shown as 32KiB rather than 32768
MAX_CORES = 64
MAX_L1 = 256 << 20
MAX_DMA_BW = 1024


def _integer(key: str, text: str, low: int, high: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MoteError(f"--sweep {key}={text}: not a whole number; give {what} from {low} to {high}") from None
    if not low <= value <= high:
        raise MoteError(f"--sweep {key}={text}: give {what} from {low} to {high}")
    return value


def platform_value(key: str, text: str) -> int:
    """A platform key's value from its text (cores: 1 to 64; l1: a size such as 32KiB; dma_bw: bytes per
    cycle, 1 to 1024)."""
    if key == "cores":
        return _integer(key, text, 1, MAX_CORES, "a core count")
    if key == "dma_bw":
        return _integer(key, text, 1, MAX_DMA_BW, "the DMA's bytes per cycle")
    try:
        size = parse_size(text)
    except ValueError as e:
        raise MoteError(f"--sweep l1={text}: {e}") from None
    if not 1024 <= size <= MAX_L1 or size % 8:
        raise MoteError(f"--sweep l1={text}: give an L1 size from 1KiB to 256MiB, a multiple of 8 bytes")
    return size


def check_platform_sweep(base: Platform, sweep: dict[str, list[str]]) -> None:
    """Every platform key's values parse, and the base platform has what the key varies."""
    for key, values in sweep.items():
        if not values:
            raise MoteError(f"--sweep {key}: give its values (e.g. {_example(key)})")
        for value in values:
            platform_value(key, value)
        if key in ("l1", "dma_bw") and (base.memory("l1") is None or base.l1_dma() is None):
            raise MoteError(f"--sweep {key}: platform {base.name} has no L1 memory fed by a DMA; use --platform "
                            "cluster8 (or a platform file with an l1 memory and a [[dma]] from its ram)")


def _example(key: str) -> str:
    return {"cores": "cores=1,2,4,8", "l1": "l1=16KiB,32KiB,64KiB", "dma_bw": "dma_bw=4,8"}[key]


def derive(base: Platform, settings: dict[str, str]) -> Platform:
    """The base platform with a point's platform settings (texts, checked by check_platform_sweep) in place."""
    platform = base
    if "cores" in settings:
        platform = platform.with_cores(platform_value("cores", settings["cores"]))
    if "l1" in settings:
        size = platform_value("l1", settings["l1"])
        memories = tuple(dataclasses.replace(m, bytes=size) if m.kind == "l1" else m for m in platform.memories)
        platform = dataclasses.replace(platform, memories=memories)
    if "dma_bw" in settings:
        bandwidth = platform_value("dma_bw", settings["dma_bw"])
        feed = platform.l1_dma()
        dma = tuple(dataclasses.replace(d, bytes_per_cycle=bandwidth) if d is feed else d for d in platform.dma)
        platform = dataclasses.replace(platform, dma=dma)
    return platform


def columns(platform: Platform) -> dict[str, Any]:
    """A row's platform columns: its cores, its L1's bytes and its L1 DMA's bytes per cycle (None: it has none)."""
    l1, feed = platform.memory("l1"), platform.l1_dma()
    return {"cores": platform.compute.count, "l1": l1.bytes if l1 is not None else None,
            "dma_bw": feed.bytes_per_cycle if feed is not None else None}
