"""The accelerator interface: everything an accelerator author writes, in one class.

An accelerator declares
  - `patterns()`: what it runs, as data. A pattern names an IR op, the leading *stages* of that op
    it computes (see STAGES; e.g. conv2d's ("conv2d", "bias") leaves requantize and activation to
    the CPU) and predicates over the node (shapes, dtypes, quantization, strides, kernel sizes). A
    predicate that raises is an error (AcceleratorError) naming the accelerator, pattern, predicate
    and node: a bug in a predicate must not quietly keep a node on the CPU;
  - `activation_layout`: the layout it wants activations in (mote transposes around its regions);
    weights reach `lower` as the IR holds them (OHWI, depthwise 1HWC) and `lower` packs them into
    whatever order the hardware reads, at compile time;
  - `operand_bits()`: the operand widths its modes take (mote.accel.packing.OperandBits; int8 only by
    default) and the layout it reads sub-byte operands in: a layer whose weights are narrower
    (`Tensor.bits`) is offloaded only if a mode takes their width, else it stays on the CPU; `lower`
    packs such weights in that layout (mote.accel.packing.pack_rows). A `weight_bits` config setting
    asks mote to narrow the weights of the layers it offloads to that many bits first
    (mote.passes.subbyte);
  - `registers` (and which of them hold addresses, and which are signed): the driver, which writes
    them, starts the job and polls for done, is generated from them (mote/accel/driver.py);
  - `plan(graph)`: decisions that span jobs, made once on the offloaded graph; returns a plan
    object (anything; None by default) that is handed to every `lower`;
  - `lower(node, pattern, inputs, outputs, plan)`: the compile-time job: a value for each register:
    numbers computed from the weights, or buffers (tensors in the arena, packed constants in flash)
    that become addresses. The offload pass lowers every node; the graph then holds plain data;
  - `support_sources()`: any further C support library it ships;
  - `execute(registers, memory)`: its functional model, run by the virtual platform when the driver
    starts it; bit-exact with mote's reference for what its patterns claim (`mote accel check`);
  - `cost(registers)`: cycles for one job, for the timed mode and for exploration, and
    `cost_breakdown(registers)`: the same cycles split into `cost_categories`.
`execute` and `cost` see `signed_registers` as signed ints, the others as unsigned 32-bit values.
Configuration is a dataclass (`Config`) parsed from `name:key=value,...`; declare its fields with
`mote.accel.settings.setting` (type, doc, size, choices, sweep values).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from mote.accel.hardware import Hardware
from mote.accel.packing import OperandBits
from mote.errors import AcceleratorError
from mote.ir import Graph, Node, Tensor

# What each op computes, in order. A pattern covers a prefix; the CPU finishes the rest.
STAGES: dict[str, tuple[str, ...]] = {
    "conv2d": ("conv2d", "bias", "requantize", "activation"),
    "depthwise_conv2d": ("depthwise_conv2d", "bias", "requantize", "activation"),
    "fully_connected": ("fully_connected", "bias", "requantize", "activation"),
}
# The prefix after which the CPU can take over: an int32 accumulator tensor, requantized by the CPU.
INT32_SPLIT = ("bias",)


@dataclass(frozen=True)
class Predicate:
    """A named condition on a node; its name is what `mote partition` shows when it rejects a node."""

    name: str
    test: Callable[[Node], bool]


@dataclass(frozen=True)
class Pattern:
    name: str
    op: str  # the IR op, e.g. "conv2d"
    stages: tuple[str, ...] = ()  # the op's leading stages it computes; () means all of them
    predicates: tuple[Predicate, ...] = ()
    # The accelerator has no padding: for SAME padding the CPU pads the input with its zero point
    # and the accelerator sees a VALID convolution.
    pad_input: bool = False
    # The accelerator has no stride: it computes every position (stride 1) into its int32 result and
    # the CPU's requantization keeps every stride-th one. Only for patterns that stop at the int32
    # accumulator; the accelerator then does stride_h * stride_w times the MACs.
    cpu_stride: bool = False

    def covers_all(self) -> bool:
        return not self.stages or self.stages == STAGES.get(self.op, self.stages)

    def rejections(self, node: Node, accelerator: str = "accelerator") -> list[str]:
        """The names of the predicates that `node` fails (empty: the pattern accepts it). A predicate
        that raises is the accelerator's bug: an AcceleratorError naming it, not a rejection."""
        if node.op != self.op:
            return [f"op is {node.op}, not {self.op}"]
        failed = []
        for p in self.predicates:
            try:
                ok = p.test(node)
            except Exception as e:  # noqa: BLE001 - the author's code; told in one line with where it failed
                raise AcceleratorError(
                    f"accelerator {accelerator}: pattern {self.name!r}: predicate {p.name!r} raised "
                    f"{type(e).__name__} ({' '.join(str(e).split())}) on {node.op} node {node.name!r}; "
                    "make the predicate return False for nodes it cannot judge") from None
            if not ok:
                failed.append(p.name)
        return failed


def as_signed(value: int) -> int:
    """A register's 32 bits as a signed integer (zero points, offsets)."""
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value & 0x8000_0000 else value


@dataclass(frozen=True)
class Buffer:
    """A register value that is an address: a tensor (in the arena) or a constant array (in flash)."""

    tensor: Tensor | None = None
    const: np.ndarray | None = None
    hint: str = "accel"


RegisterValue = int | Buffer


@dataclass
class Job:
    """One offloaded node, as the compiler lowered it: the value of each register the driver writes.

    A job may repeat: the driver starts the accelerator `repeat` times, advancing each address
    register by its `step` (bytes) every time, e.g. one start per channel of a depthwise
    convolution on an accelerator that only runs dense ones."""

    registers: dict[str, RegisterValue]
    info: dict[str, Any] = field(default_factory=dict)  # for reports (e.g. MACs, tiles)
    repeat: int = 1
    step: dict[str, int] = field(default_factory=dict)  # address register -> bytes per repetition

    def starts(self, registers: dict[str, int]) -> list[dict[str, int]]:
        """The register values of each start, given those of the first."""
        return [{r: (v + i * self.step.get(r, 0)) & 0xFFFF_FFFF for r, v in registers.items()}
                for i in range(self.repeat)]


class Memory(Protocol):
    """The memory an accelerator model reads and writes (the emulated MCU's, or a test's)."""

    def read(self, address: int, size: int) -> bytes: ...

    def write(self, address: int, data: bytes) -> None: ...


@dataclass(frozen=True)
class NoConfig:
    """For accelerators without settings."""


class Accelerator:
    """Subclass this. Class attributes name it and its registers; methods describe what it does."""

    name: ClassVar[str] = "accelerator"
    Config: ClassVar[type] = NoConfig
    registers: ClassVar[tuple[str, ...]] = ()  # 32-bit registers at offsets 0, 4, 8, ...
    address_registers: ClassVar[tuple[str, ...]] = ()  # those of them that hold memory addresses
    start_register: ClassVar[str] = "control"  # writing a nonzero value here starts a job
    status_register: ClassVar[str] = "status"  # reads 1 when the job is done
    signed_registers: ClassVar[tuple[str, ...]] = ()  # execute/cost see these as signed (zero points, ...)
    activation_layout: ClassVar[str] = "NHWC"
    cost_categories: ClassVar[tuple[str, ...]] = ("compute",)  # the keys of cost_breakdown

    def __init__(self, config: Any = None) -> None:
        self.config = config if config is not None else self.Config()

    def patterns(self) -> list[Pattern]:
        raise NotImplementedError

    def plan(self, graph: Graph) -> Any:
        """Called once with the offloaded graph (its `accel` nodes in run order, not lowered yet) before
        any `lower`: for decisions that span jobs, such as data kept in the accelerator's memory between
        them. What it returns is handed to every `lower`; keep no such state on the accelerator."""
        return None

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: Any = None) -> Job:
        """The job for `node` (the original op, NHWC semantics); `inputs`/`outputs` are the tensors in
        memory (in the accelerator's activation layout) to point the registers at; `plan` is what
        `plan(graph)` returned."""
        raise NotImplementedError

    def operand_bits(self) -> OperandBits:
        """The operand bit widths its modes take and their packed layout (default: int8 only)."""
        return OperandBits()

    def hardware(self) -> Hardware | None:
        """Its MAC units, SRAM and DMA width, for `mote explore`'s area estimate (docs/area.md); None:
        not declared (no area column)."""
        return None

    def support_sources(self) -> dict[str, str]:
        """C files (name -> text) added to the generated project's kernel library."""
        return {}

    def execute(self, registers: dict[str, int], memory: Memory) -> bool | None:
        """Run one job: read operands from `memory` at the addresses in `registers`, write the result.
        Returning False means the job never finishes (the status register stays 0)."""
        raise NotImplementedError

    def cost(self, registers: dict[str, int]) -> int:
        """Cycles one job takes on the accelerator."""
        raise NotImplementedError

    def cost_breakdown(self, registers: dict[str, int]) -> dict[str, int]:
        """The cycles of one job per category of `cost_categories`; they add up to `cost(registers)`."""
        return {self.cost_categories[0]: int(self.cost(registers))}

    def job_breakdown(self, job: Job) -> dict[str, int]:
        """The cycles of a lowered job (all its starts) per category, without running it. By default
        from `cost_breakdown` of each start's registers, with every address register costed as 0;
        an accelerator whose cost depends on memory contents overrides this (the DLA's job carries
        its cost). Use `mote.accel.costing.job_cost`, which checks the result."""
        first = dict.fromkeys(self.registers, 0)
        first.update({name: 0 if isinstance(value, Buffer) else int(value) & 0xFFFF_FFFF
                      for name, value in job.registers.items()})
        total = dict.fromkeys(self.cost_categories, 0)
        for start in job.starts(first):
            for category, cycles in self.cost_breakdown(self.model_registers(start)).items():
                total[category] = total.get(category, 0) + int(cycles)
        return total

    def model_registers(self, values: dict[str, int]) -> dict[str, int]:
        """Register values as `execute` and `cost` see them: the raw 32-bit words, with those named in
        `signed_registers` as signed ints. The virtual platform and `mote accel check` call this."""
        return {name: as_signed(value) if name in self.signed_registers else value for name, value in values.items()}

    @property
    def timed(self) -> bool:
        """Timed mode: the cost model's cycles are added to the run (a `timed` config setting)."""
        return bool(getattr(self.config, "timed", False))

    @property
    def weight_bits(self) -> int:
        """The width to narrow the offloaded layers' weights to at compile time (a `weight_bits` config
        setting; 8: leave them as they are)."""
        return int(getattr(self.config, "weight_bits", 8))

    @property
    def label(self) -> str:
        settings = ",".join(f"{f.name}={getattr(self.config, f.name)}" for f in dataclasses.fields(self.config))
        return f"{self.name}:{settings}" if settings else self.name
