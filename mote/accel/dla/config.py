"""The DLA's configuration: `dla:pes=64,sram=512KiB,mode=output,dma_bytes_per_cycle=8,depthwise=native`."""

from __future__ import annotations

from dataclasses import dataclass

from mote.errors import MoteError

MODES = ("input", "output")
DEPTHWISE_MODES = ("none", "emulated", "native")


@dataclass(frozen=True)
class DlaConfig:
    pes: int = 64  # processing elements of the vector ALU
    sram: int = 512 * 1024  # bytes of the DLA's own SRAM
    mode: str = "output"  # dataflow: "input" (input channels in parallel) or "output" (output channels)
    dma_bytes_per_cycle: int = 8
    depthwise: str = "native"  # none (CPU), emulated (one OP_CONV per filter), native (OP_DEPTH_CONV)
    timed: bool = False  # add the simulated job cycles (mote.accel.dla.timing) to the virtual platform's run

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise MoteError(f"dla: mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.depthwise not in DEPTHWISE_MODES:
            raise MoteError(f"dla: depthwise must be one of {', '.join(DEPTHWISE_MODES)}, got {self.depthwise!r}")
        for name in ("pes", "sram", "dma_bytes_per_cycle"):
            if getattr(self, name) < 1:
                raise MoteError(f"dla: {name} must be at least 1, got {getattr(self, name)}")
