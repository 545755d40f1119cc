"""What an accelerator is built of, for the area and energy estimates of `mote explore` (docs/area.md):
its multiply-accumulate units, its own SRAM and its DMA engine. An accelerator declares it by
overriding `Accelerator.hardware()`, usually from its Config (the DLA: `pes`, `sram`,
`dma_bytes_per_cycle`); one that declares nothing gets no area estimate."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hardware:
    pes: int  # multiply-accumulate units (an 8-bit multiplier and a 32-bit accumulator each)
    sram_bytes: int = 0  # the accelerator's own SRAM
    dma_bytes_per_cycle: int = 0  # the width of its DMA engine's data path (0: no DMA engine)
    # The weight widths its MAC units take: a unit with sub-byte modes splits its multiplier into 8/bits
    # lanes with an accumulator each (docs/area.md)
    weight_bits: tuple[int, ...] = (8,)
