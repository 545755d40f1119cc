"""The accelerator interface: everything an accelerator author writes, in one class.

An accelerator declares
  - `patterns()`: what it runs, as data. A pattern names an IR op, the leading *stages* of that op
    it computes (see STAGES; e.g. conv2d's ("conv2d", "bias") leaves requantize and activation to
    the CPU) and predicates over the node (shapes, dtypes, quantization, strides, kernel sizes);
  - `activation_layout` / `weight_layout`: the layouts it wants; `lower` packs weights at compile time;
  - `registers` (and which of them hold addresses): the driver, which writes them, starts the job
    and polls for done, is generated from them (mote/accel/driver.py);
  - `lower(node, pattern, inputs, outputs)`: the compile-time job: a value for each register: numbers
    computed from the weights, or buffers (tensors in the arena, packed constants in flash) that
    become addresses;
  - `support_sources()`: any further C support library it ships;
  - `execute(registers, memory)`: its functional model, run by the virtual platform when the driver
    starts it; bit-exact with mote's reference for what its patterns claim (`mote accel check`);
  - `cost(registers)`: cycles for one job, for the timed mode and for exploration.
Configuration is a dataclass (`Config`) parsed from `name:key=value,...`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

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

    def rejections(self, node: Node) -> list[str]:
        """The names of the predicates that `node` fails (empty: the pattern accepts it)."""
        if node.op != self.op:
            return [f"op is {node.op}, not {self.op}"]
        failed = []
        for p in self.predicates:
            try:
                ok = p.test(node)
            except Exception:  # a predicate that cannot evaluate a node rejects it
                ok = False
            if not ok:
                failed.append(p.name)
        return failed


def as_signed(value: int) -> int:
    """A register's 32 bits as a signed integer (zero points, offsets)."""
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
    activation_layout: ClassVar[str] = "NHWC"
    weight_layout: ClassVar[str] = "OHWI"

    def __init__(self, config: Any = None) -> None:
        self.config = config if config is not None else self.Config()

    def patterns(self) -> list[Pattern]:
        raise NotImplementedError

    def plan(self, graph: Graph) -> None:
        """Called once with the offloaded graph (its `accel` nodes in run order) before any `lower`:
        for decisions that span jobs, such as data kept in the accelerator's memory between them."""

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor]) -> Job:
        """The job for `node` (the original op, NHWC semantics); `inputs`/`outputs` are the tensors in
        memory (in the accelerator's activation layout) to point the registers at."""
        raise NotImplementedError

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

    @property
    def timed(self) -> bool:
        """Timed mode: the cost model's cycles are added to the run (a `timed` config setting)."""
        return bool(getattr(self.config, "timed", False))

    @property
    def label(self) -> str:
        settings = ",".join(f"{f.name}={getattr(self.config, f.name)}" for f in dataclasses.fields(self.config))
        return f"{self.name}:{settings}" if settings else self.name
