"""The DLA's cost model: cycles and PE utilization per instruction, and per job with double buffering.

Two engines run concurrently: the DMA engine (OP_DMA_READ/WRITE) and the compute engine (every other
command). With P = pes, ceil division written /^, and the configuration registers in effect:

    DMA              DMA_SETUP + rows * (bytes_per_row /^ dma_bytes_per_cycle)   (one burst per row)
    OP_CFG           1
    OP_CONV          output-parallel: OUT_H*OUT_W * K_H*K_W*IN_C * (OUT_C /^ P)  (P output channels at once)
                     input-parallel:  OUT_H*OUT_W * K_H*K_W*OUT_C * (IN_C /^ P)  (P input channels at once)
    OP_DEPTH_CONV    OUT_H*OUT_W * K_H*K_W * (OUT_C /^ P)   (channels are independent: both dataflows)
    OP_MAT_MUL       as OP_CONV with one pixel per row: ROWS * IN_C * (OUT_C /^ P), or ROWS * OUT_C * (IN_C /^ P)
    requantization   (elements /^ P), for OP_CONV with FLAG_REQUANT, OP_CONV_RELU, OP_DEPTH_CONV with
                     FLAG_REQUANT and OP_MAT_MUL with FLAG_REQUANT: the REQUANT subgraph type
    OP_POOL          OUT_H*OUT_W * K_H*K_W * (IN_C /^ P)
    element-wise     (elements /^ P); OP_E_ADD 2 * (elements /^ P) (both inputs rescaled, then the sum)
and every command costs COMMAND_OVERHEAD more cycles of the compute engine (fetch and decode).
Utilization of an instruction = its MACs / (its cycles * P).

Weight modes (FLAG_W4, FLAG_W2; an assumption of the model, docs/area.md): a PE's 8x8 multiplier splits
into L = 8 / bits lanes (bits x 8 each, packed SIMD, with an accumulator per lane) that multiply one
activation by L weights in a cycle. OP_CONV and OP_MAT_MUL use them for L output channels at once:
output-parallel ... * (OUT_C /^ (P * L)), input-parallel ... * (OUT_C /^ L) * (IN_C /^ P). OP_DEPTH_CONV
gains nothing: its channels each need their own activation. Utilization stays MACs / (cycles * P), so a
sub-byte mode can exceed 1.

SRAM traffic, in bytes, for the energy estimate (docs/area.md): a DMA read writes its bytes into SRAM and
a DMA write reads them out (both count as DMA bytes too); a MAC instruction reads one weight byte per
MAC (no weight buffer in the PEs; bits/8 of a byte in a sub-byte mode, the packed rows) and its
activations: output-parallel, one byte per cycle broadcast to the P PEs, input-parallel one byte per
MAC (per L MACs in a sub-byte mode, its lanes share it), depthwise one byte per MAC; it writes one byte
per output element.
Pooling reads every window element and writes each output; element-wise instructions read their
elements (OP_E_ADD both inputs) and write as many. Requantization and accumulators stay in registers.

Double buffering: the commands of a job form tile groups (isa word 0). Group g's reads may run
while group g-1 computes, as soon as group g-2 (which used the same buffers) has computed and
written its results; group g computes once its reads are done; its writes follow its compute. A
group marked GROUP_SERIAL reuses its predecessor's buffers (no overlap). The job's cycles are the
time the last engine finishes. In the breakdown by subgraph type (seed 004, Figure 4) the compute
types take their engine cycles and DMA takes only the exposed DMA time (total minus compute), so the
parts add up to the job's cycles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.accel.dla import isa
from mote.accel.dla.config import DlaConfig
from mote.ints import ceil_div

DMA_SETUP = 8
COMMAND_OVERHEAD = 2
GROUP_SERIAL = 0x8000
CATEGORIES = ("CONV", "DEPTH", "REQUANT", "POOL", "ELTWISE", "DMA", "CONTROL")

_CFG = isa.CFG
_ELTWISE = (isa.OP_ACT_RELU, isa.OP_ACT_LRELU, isa.OP_E_ABS, isa.OP_C_MIN, isa.OP_C_MAX, isa.OP_E32_ADD)


@dataclass
class InstructionCost:
    category: str
    cycles: int
    macs: int = 0
    requant: int = 0  # cycles of the fused requantization stage (category REQUANT)
    sram_read: int = 0  # bytes read from the SRAM (module docstring)
    sram_write: int = 0  # bytes written into it
    mult_work: float = 0.0  # MACs weighted by weight bits / 8: the multipliers' share of the energy


@dataclass
class JobCost:
    cycles: int = 0
    by_category: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    macs: int = 0
    compute_cycles: int = 0
    dma_cycles: int = 0
    pe_cycles: int = 0  # cycles of the MAC instructions, for utilization
    pes: int = 1
    dma_bytes: int = 0  # bytes the DMA moved between system memory and the SRAM
    sram_read: int = 0  # bytes read from the SRAM
    sram_write: int = 0  # bytes written into it
    mult_work: float = 0.0  # MACs weighted by their weights' bits / 8 (the multipliers' energy, docs/area.md)

    @property
    def utilization(self) -> float:
        """MACs over what the PEs could have done in the cycles of the MAC instructions."""
        return self.macs / (self.pe_cycles * self.pes) if self.pe_cycles else 0.0

    def add(self, other: JobCost) -> None:
        self.cycles += other.cycles
        self.macs += other.macs
        self.compute_cycles += other.compute_cycles
        self.dma_cycles += other.dma_cycles
        self.pe_cycles += other.pe_cycles
        self.pes = other.pes
        self.dma_bytes += other.dma_bytes
        self.sram_read += other.sram_read
        self.sram_write += other.sram_write
        self.mult_work += other.mult_work
        for k, v in other.by_category.items():
            self.by_category[k] = self.by_category.get(k, 0) + v


def instruction_cost(c: isa.Command, regs: list[int], config: DlaConfig) -> InstructionCost:
    """Cycles of one command given the configuration registers in effect (excluding COMMAND_OVERHEAD)."""
    p, op = config.pes, c.op
    if op in (isa.OP_DMA_READ, isa.OP_DMA_WRITE):
        moved = c.e * c.d
        return InstructionCost("DMA", DMA_SETUP + c.e * ceil_div(c.d, config.dma_bytes_per_cycle),
                               sram_read=moved if op == isa.OP_DMA_WRITE else 0,
                               sram_write=moved if op == isa.OP_DMA_READ else 0)
    if op == isa.OP_CFG:
        return InstructionCost("CONTROL", 1)
    r = regs
    pixels = r[_CFG["OUT_H"]] * r[_CFG["OUT_W"]]
    taps = r[_CFG["K_H"]] * r[_CFG["K_W"]]
    ic, oc = r[_CFG["IN_C"]], r[_CFG["OUT_C"]]
    requant = op == isa.OP_CONV_RELU or bool(c.flags & isa.FLAG_REQUANT)
    bits = isa.weight_bits(c.flags)
    if op in (isa.OP_CONV, isa.OP_CONV_RELU, isa.OP_MAT_MUL):
        lanes = 8 // bits
        positions = r[_CFG["ROWS"]] if op == isa.OP_MAT_MUL else pixels * taps  # one pixel per row
        outputs = (r[_CFG["ROWS"]] if op == isa.OP_MAT_MUL else pixels) * oc
        macs = positions * ic * oc
        cycles = positions * (ic * ceil_div(oc, p * lanes) if config.mode == "output" else
                              ceil_div(oc, lanes) * ceil_div(ic, p))
        activations = cycles if config.mode == "output" else macs // lanes
        return InstructionCost("CONV", cycles, macs, ceil_div(outputs, p) if requant else 0,
                               sram_read=ceil_div(macs * bits, 8) + activations, sram_write=outputs,
                               mult_work=macs * bits / 8)
    if op == isa.OP_DEPTH_CONV:
        macs = pixels * taps * oc
        return InstructionCost("DEPTH", pixels * taps * ceil_div(oc, p), macs,
                               ceil_div(pixels * oc, p) if requant else 0, sram_read=macs + ceil_div(macs * bits, 8),
                               sram_write=pixels * oc, mult_work=macs * bits / 8)
    if op == isa.OP_POOL:
        return InstructionCost("POOL", pixels * taps * ceil_div(ic, p), sram_read=pixels * taps * ic,
                               sram_write=pixels * ic)
    if op == isa.OP_E_ADD:
        return InstructionCost("ELTWISE", 2 * ceil_div(c.e, p), sram_read=2 * c.e, sram_write=c.e)
    if op in _ELTWISE:
        return InstructionCost("ELTWISE", ceil_div(c.e, p), sram_read=c.e, sram_write=c.e)
    raise ValueError(f"dla: unknown opcode 0x{op:02x}")


def job_cost(commands: list[isa.Command], config: DlaConfig) -> JobCost:
    """Cycles of one job (see the module docstring), with the breakdown by subgraph type."""
    regs = [0] * len(isa.CFG_NAMES)
    result = JobCost(pes=config.pes)
    busy = dict.fromkeys(CATEGORIES, 0)
    # Per group: [reads, compute, writes, serial]
    groups: dict[int, list[int]] = {}
    order: list[int] = []
    for c in commands:
        if c.op == isa.OP_CFG:
            regs[c.a] = c.b
        cost = instruction_cost(c, regs, config)
        result.sram_read += cost.sram_read
        result.sram_write += cost.sram_write
        result.mult_work += cost.mult_work
        if c.op in (isa.OP_DMA_READ, isa.OP_DMA_WRITE):
            result.dma_bytes += cost.sram_read + cost.sram_write
        key = c.group & 0x7FFF
        if key not in groups:
            groups[key] = [0, 0, 0, c.group & GROUP_SERIAL]
            order.append(key)
        g = groups[key]
        if c.op == isa.OP_DMA_READ:
            g[0] += cost.cycles
        elif c.op == isa.OP_DMA_WRITE:
            g[2] += cost.cycles
        else:
            g[1] += cost.cycles + cost.requant + COMMAND_OVERHEAD
            busy[cost.category] += cost.cycles
            busy["REQUANT"] += cost.requant
            busy["CONTROL"] += COMMAND_OVERHEAD
            if cost.macs:
                result.macs += cost.macs
                result.pe_cycles += cost.cycles
    result.cycles = pipeline([groups[k] for k in order])
    result.dma_cycles = sum(g[0] + g[2] for g in groups.values())
    result.compute_cycles = sum(g[1] for g in groups.values())
    busy["DMA"] = max(result.cycles - result.compute_cycles, 0)
    result.by_category = busy
    return result


def pipeline(groups: list[list[int]]) -> int:
    """The double-buffered schedule of [reads, compute, writes, serial] groups (module docstring)."""
    dma = 0
    n = len(groups)
    comp_end = [0] * n
    read_end = [0] * n
    write_end = [0] * n

    def read(i: int) -> None:
        nonlocal dma
        back = 1 if groups[i][3] else 2  # the group whose buffers this one reuses
        start = dma
        if i >= back:
            start = max(start, comp_end[i - back], write_end[i - back])
        dma = start + groups[i][0]
        read_end[i] = dma

    if n:
        read(0)
    for i in range(n):
        comp_end[i] = max(comp_end[i - 1] if i else 0, read_end[i]) + groups[i][1]
        if i + 1 < n and not groups[i + 1][3]:
            read(i + 1)
        dma = max(dma, comp_end[i]) + groups[i][2]
        write_end[i] = dma
        if i + 1 < n and groups[i + 1][3]:
            read(i + 1)
    return max(dma, comp_end[-1] if n else 0)
