"""`--accel qvanilla-rtl`: QVanilla whose virtual-platform behaviour is its RTL (qvanilla.sv).

Its registers, patterns, layouts, lowering, weight modes (8, 4 and 2 bits: the `wbits` register and the
`weight_bits` setting) and functional model are QVanilla's (mote/accel/qvanilla.py). On the virtual
platform the driver's register writes go to the Verilated design and its cycles are the run's
accelerator cycles (always timed unless `timed=0`). Its cost model follows the design's schedule: one
cycle to take the start, then per output element a bias read, per tap an ifmap byte read, a weight byte
read per packed weight byte (one per tap at 8 bits, per 2 taps at 4, per 4 at 2; a filter's row starts
on a byte) and the result's write, i.e. 1 + outputs * (taps + row_bytes(taps, wbits) + 2), which is
1 + outputs * (2 * taps + 2) at 8 bits (`cycles_per_mac` = 2 scales the reads: half of it per read).
`QVanilla.cost`, which charges only the MACs, is `mac_cost` here so runs report both beside the RTL.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mote.accel.packing import row_bytes
from mote.accel.qvanilla import QVanilla
from mote.accel.rtl.accelerator import RtlAccelerator
from mote.accel.settings import check_config, setting

SOURCE = Path(__file__).with_name("qvanilla.sv")


@dataclass(frozen=True)
class QVanillaRtlConfig:
    timed: bool = setting(True, doc="add the RTL's cycles to the virtual platform's run")
    cycles_per_mac: int = setting(2, doc="cycles the cost model charges per multiply-accumulate", minimum=0,
                                  sweep=(1, 2, 4))
    cycles_per_output: int = setting(2, doc="cycles the cost model charges per output element (bias, result)",
                                     minimum=0)
    weight_bits: int = setting(8, doc="narrow the offloaded layers' weights to this many bits per channel at "
                                      "compile time and run them in that mode (8: as they are)", choices=(8, 4, 2),
                               sweep=(8, 4, 2))

    def __post_init__(self) -> None:
        check_config(self, "qvanilla-rtl")


class QVanillaRtl(RtlAccelerator, QVanilla):
    name = "qvanilla-rtl"
    Config = QVanillaRtlConfig
    rtl_sources = (SOURCE,)
    rtl_top = "qvanilla"

    def cost(self, registers: dict[str, int]) -> int:
        r = registers
        outputs = (r["ih"] - r["kh"] + 1) * (r["iw"] - r["kw"] + 1) * r["oc"]
        taps = r["ic"] * r["kh"] * r["kw"]
        reads = taps + row_bytes(taps, r.get("wbits", 0) or 8)  # ifmap bytes and packed weight bytes
        return 1 + -(-outputs * self.config.cycles_per_mac * reads // 2) + outputs * self.config.cycles_per_output

    def mac_cost(self, registers: dict[str, int]) -> int:
        """QVanilla's cost model: cycles_per_mac per MAC, nothing else."""
        return QVanilla.cost(self, registers)
