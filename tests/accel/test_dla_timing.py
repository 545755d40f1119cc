"""The virtual platform's DLA timing simulation, on command streams whose timing is known in closed form."""

from __future__ import annotations

from mote.accel.dla import isa
from mote.accel.dla.config import DlaConfig
from mote.accel.dla.cost import COMMAND_OVERHEAD, DMA_SETUP
from mote.accel.dla.timing import MAX_BURST, PIPELINE_DEPTH, dma_cycles, simulate

CONFIG = DlaConfig(pes=4, dma_bytes_per_cycle=8)
BASES = [0x2000_0000, 0x2000_4000, 0x2000_8000, 0x0000_1000]


def _cfg(**values: int) -> list[isa.Command]:
    return [isa.Command(isa.OP_CFG, a=isa.CFG[k], b=v) for k, v in values.items()]


def _read(sram: int, nbytes: int, offset: int = 0) -> isa.Command:
    return isa.Command(isa.OP_DMA_READ, a=isa.BASE_IN0, b=offset, c=sram, d=nbytes, e=1, f=nbytes)


def _write(sram: int, nbytes: int) -> isa.Command:
    return isa.Command(isa.OP_DMA_WRITE, a=isa.BASE_OUT, b=0, c=sram, d=nbytes, e=1, f=nbytes)


def _relu(src: int, dst: int, n: int) -> isa.Command:
    return isa.Command(isa.OP_ACT_RELU, a=src, c=dst, e=n)


def _compute(n: int) -> int:
    return -(-n // CONFIG.pes) + COMMAND_OVERHEAD + PIPELINE_DEPTH


def test_dma_beats_follow_real_addresses() -> None:
    assert dma_cycles(_read(0, 64), BASES, CONFIG) == DMA_SETUP + 8
    assert dma_cycles(_read(0, 64, offset=3), BASES, CONFIG) == DMA_SETUP + 9  # straddles one more beat
    strided = isa.Command(isa.OP_DMA_READ, a=isa.BASE_IN0, b=4, c=0, d=8, e=3, f=12)  # rows at 4, 16, 28
    assert dma_cycles(strided, BASES, CONFIG) == DMA_SETUP + 2 + 1 + 2
    long = _read(0, 8 * MAX_BURST * 2 + 8)
    assert dma_cycles(long, BASES, CONFIG) == DMA_SETUP + 2 * MAX_BURST + 1 + 2  # three bursts


def test_dependent_chain_is_the_sum_of_its_parts() -> None:
    commands = _cfg(OUT_OFFSET=0, ACT_MIN=-128, ACT_MAX=127) + [_read(0, 64), _relu(0, 64, 64), _write(64, 64)]
    assert 3 * (1 + COMMAND_OVERHEAD) < DMA_SETUP + 8  # the configuration writes hide under the read
    assert simulate(commands, BASES, CONFIG) == (DMA_SETUP + 8) + _compute(64) + (DMA_SETUP + 8)


def test_independent_tiles_overlap_and_shared_buffers_do_not() -> None:
    read, compute = DMA_SETUP + 8, _compute(64)
    # Two tiles in separate buffers: the second read runs under the first tile's compute.
    double = [_read(0, 64), _relu(0, 128, 64), _read(256, 64, 64), _relu(256, 384, 64)]
    assert simulate(double, BASES, CONFIG) == read + max(compute, read) + compute
    # The same tiles through one buffer: the second read must wait for the first compute (WAR).
    single = [_read(0, 64), _relu(0, 128, 64), _read(0, 64, 64), _relu(0, 384, 64)]
    assert simulate(single, BASES, CONFIG) == 2 * (read + compute)


def test_reads_and_writes_share_one_bus_port() -> None:
    # A write of tile 0 and a read of tile 1 do not depend on each other, but the port moves one at a time.
    commands = [_read(0, 64), _relu(0, 128, 64), _read(256, 64, 64), _write(128, 64)]
    read, compute = DMA_SETUP + 8, _compute(64)
    assert simulate(commands, BASES, CONFIG) == max(read + compute, 2 * read) + DMA_SETUP + 8
