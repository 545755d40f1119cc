"""The DLA's configuration: `dla:pes=64,sram=512KiB,mode=output,dma_bytes_per_cycle=8,depthwise=native`
(and `weight_bits=8`, `timed=0`)."""

from __future__ import annotations

from dataclasses import dataclass

from mote.accel.settings import check_config, setting

MODES = ("input", "output")
DEPTHWISE_MODES = ("none", "emulated", "native")


@dataclass(frozen=True)
class DlaConfig:
    pes: int = setting(64, doc="processing elements of the vector ALU", minimum=1, sweep=(16, 32, 64, 128))
    sram: int = setting(512 * 1024, doc="bytes of the DLA's own SRAM", size=True, minimum=1,
                        sweep=(64 << 10, 128 << 10, 256 << 10, 512 << 10))
    mode: str = setting("output", doc="dataflow: input channels or output channels in parallel", choices=MODES,
                        sweep=MODES)
    dma_bytes_per_cycle: int = setting(8, doc="bytes the DMA engine moves per cycle", minimum=1, sweep=(4, 8, 16))
    depthwise: str = setting("native", doc="none (CPU), emulated (one OP_CONV per filter), native (OP_DEPTH_CONV)",
                             choices=DEPTHWISE_MODES, sweep=DEPTHWISE_MODES)
    timed: bool = setting(False, doc="add the simulated job cycles (mote.accel.dla.timing) to the virtual "
                                     "platform's run")
    weight_bits: int = setting(8, doc="narrow the offloaded layers' weights to this many bits per channel at "
                                      "compile time and run them in that mode (8: as they are)", choices=(8, 4, 2),
                               sweep=(8, 4, 2))

    def __post_init__(self) -> None:
        check_config(self, "dla")
