"""The `dla` accelerator: an NVDLA-like coarse-grained DLA with its own ISA, SRAM, DMA and tiling.

One job per offloaded node. The CPU driver writes the registers and starts the job:
    cmd     address of the job's command stream (a const array in flash, generated at compile time)
    count   number of 32-byte commands in it
    in0/in1 addresses of the input tensors in the arena (in1: add's second input, else 0)
    out     address of the output tensor in the arena
    consts  address of the job's constant blob in flash (weights, bias/multiplier/shift triples)
    control write 1 to start; status reads 1 when done
The DLA's command processor then fetches the stream and runs it: configuration-register writes, DMA
between system memory and its SRAM, and layer instructions (mote.accel.dla.isa). Every pattern
covers its op entirely: the DLA requantizes and clamps itself.

Before lowering, `plan` sees the whole offloaded graph and decides which results stay in SRAM for
the next job (mote.accel.dla.compiler, Residency): a job keeps its output when the next node, also
a DLA job, is its only reader, both fit their SRAM around it, and their estimated cycles drop; and
consecutive DLA jobs that read one input (the query, key and value projections, the gate and up
ones) find it in SRAM, where the first of them read it whole. The
plan (DlaPlan, residency by node name) is handed to `lower`; the accelerator keeps no state for it.
Each job carries its cost-model figures (info["cost"]), which `job_breakdown` reports per category.

Weight modes: a layer whose weights are int4 or int2 (Tensor.bits; `weight_bits=4|2` narrows the
offloaded layers' weights at compile time, mote.passes.accel_weights) runs in that mode: its weights
are packed rows in the constant blob (less flash, DMA and SRAM) and its instructions carry FLAG_W4 or
FLAG_W2 (mote.accel.dla.isa); the cost model's PEs do 8/bits MACs per cycle where lanes share an
activation (mote.accel.dla.cost).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mote.accel.dla import isa
from mote.accel.dla.compiler import Compiled, Residency, compile_node, estimate
from mote.accel.dla.config import DlaConfig
from mote.accel.dla.cost import CATEGORIES, JobCost, job_cost
from mote.accel.dla.functional import DlaState, run
from mote.accel.dla.timing import simulate
from mote.accel.hardware import Hardware
from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate
from mote.accel.node_inputs import required_input
from mote.accel.packing import OperandBits
from mote.ints import round_up
from mote.ir import DType, Graph, Node, Tensor

KINDS = {"conv2d": "conv", "fully_connected": "matmul", "max_pool2d": "pool", "avg_pool2d": "pool", "add": "add"}


def _in(node: Node, i: int = 0) -> Tensor:
    return required_input(node, i)


def _int8(node: Node) -> bool:
    return all(t is None or t.is_const or t.dtype is DType.INT8 for t in node.inputs) and \
        node.outputs[0].dtype is DType.INT8


INT8 = Predicate("int8 input and output", _int8)
BATCH1 = Predicate("batch 1", lambda n: _in(n).shape[0] == 1 and len(_in(n).shape) == 4)
CONST_WEIGHTS = Predicate("constant weights and bias", lambda n: all(t is None or t.is_const for t in n.inputs[1:]))
ONE_GROUP = Predicate("one group", lambda n: _in(n, 1).shape[3] == _in(n).shape[3])
SAME_SHAPES = Predicate("inputs of the same shape (no broadcasting)",
                        lambda n: _in(n).shape == _in(n, 1).shape == n.outputs[0].shape)
PER_TENSOR = Predicate("per-tensor quantization", lambda n: all(
    t is not None and t.quant is not None and len(t.quant.scale) == 1 for t in (*n.inputs, n.outputs[0])))
NO_DEPTHWISE = Predicate("depthwise=none: depthwise convolutions run on the CPU", lambda n: False)


@dataclass(frozen=True)
class DlaPlan:
    """Where each job finds its input and leaves its output in SRAM, by the `accel` node's name."""

    residency: dict[str, Residency] = field(default_factory=dict)

    def of(self, node: Node) -> Residency:
        return self.residency.get(node.name, Residency())


class Dla(Accelerator):
    name = "dla"
    Config = DlaConfig
    registers = ("cmd", "count", "in0", "in1", "out", "consts", "control", "status")
    address_registers = ("cmd", "in0", "in1", "out", "consts")
    cost_categories = CATEGORIES

    def __init__(self, config: DlaConfig | None = None) -> None:
        super().__init__(config)
        # The functional model's state while the virtual platform runs (SRAM, caches of decoded streams).
        self._state: DlaState | None = None
        self._decoded: dict[bytes, list[isa.Command]] = {}
        self._simulated: dict[tuple[bytes, tuple[int, ...]], int] = {}
        self._last_commands: list[isa.Command] = []
        self._last_cycles = 0

    def patterns(self) -> list[Pattern]:
        depthwise = (INT8, BATCH1, CONST_WEIGHTS)
        if self.config.depthwise == "none":
            depthwise = (NO_DEPTHWISE,)
        return [
            Pattern("conv2d", "conv2d", (), (INT8, BATCH1, CONST_WEIGHTS, ONE_GROUP)),
            Pattern(f"depthwise_conv2d ({self.config.depthwise})", "depthwise_conv2d", (), depthwise),
            Pattern("fully_connected", "fully_connected", (), (INT8, CONST_WEIGHTS)),
            Pattern("max_pool2d", "max_pool2d", (), (INT8, BATCH1)),
            Pattern("avg_pool2d", "avg_pool2d", (), (INT8, BATCH1)),
            Pattern("add", "add", (), (INT8, SAME_SHAPES, PER_TENSOR)),
        ]

    def hardware(self) -> Hardware:
        return Hardware(self.config.pes, self.config.sram, self.config.dma_bytes_per_cycle,
                        self.operand_bits().weights)

    def operand_bits(self) -> OperandBits:
        """int8, int4 and int2 weights (packed rows, mote.accel.dla.isa), int8 activations."""
        return OperandBits(weights=(8, 4, 2))

    def kind(self, op: str) -> str:
        if op == "depthwise_conv2d":
            return "depth" if self.config.depthwise == "native" else "emulated"
        return KINDS[op]

    def plan(self, graph: Graph) -> DlaPlan:
        jobs = [node for node in graph.nodes if node.op == "accel"]
        if len({node.name for node in jobs}) != len(jobs):
            return DlaPlan()  # the plan names jobs; with two of one name keep nothing resident (always correct)
        plan = DlaPlan()
        readers = Counter(t for n in graph.nodes for t in n.inputs if t is not None)
        returned = {t for t in graph.outputs}
        input_at: int | None = None  # where the previous job left this job's input
        shared: Tensor | None = None  # the input the previous job left at input_at for its next readers
        for i, node in enumerate(graph.nodes):
            if node.op != "accel":
                input_at, shared = None, None
                continue
            if shared is not None and node.inputs[0] is not shared:
                input_at, shared = None, None
            here = Residency(input_at)
            nxt = graph.nodes[i + 1] if i + 1 < len(graph.nodes) else None
            out = node.outputs[0]
            if shared is not None:  # one more reader of the input in SRAM; the next may read it too
                input_at = input_at if nxt is not None and nxt.op == "accel" and nxt.inputs[0] is shared else None
                shared = shared if input_at is not None else None
                plan.residency[node.name] = here
                continue
            input_at = None
            if nxt is not None and nxt.op == "accel" and nxt.inputs[0] is out and readers[out] == 1 and \
                    out not in returned and nxt.attrs["original"].op != "add":
                keep = Residency(here.input_at, self._place(out.nbytes, here.input_at, node.inputs[0]))
                if keep.output_at is not None and self._cheaper(node, nxt, here, keep):
                    here, input_at = keep, keep.output_at
            elif here.input_at is None and self._shares_input(node, nxt):
                load = Residency(self._place(node.inputs[0].nbytes, None, None), load_input=True)
                if load.input_at is not None and self._fits(node, load) and self._fits(nxt, Residency(load.input_at)):
                    here, input_at, shared = load, load.input_at, node.inputs[0]
            plan.residency[node.name] = here
        return plan

    @staticmethod
    def _shares_input(node: Node, nxt: Node | None) -> bool:
        """`nxt`, the next node, is a DLA job that reads `node`'s input as its only tensor input too."""
        return nxt is not None and nxt.op == "accel" and nxt.inputs[0] is node.inputs[0] and \
            all(n.attrs["original"].op != "add" for n in (node, nxt))

    def _fits(self, node: Node | None, residency: Residency) -> bool:
        original = None if node is None else node.attrs["original"]
        return original is not None and estimate(original, self.kind(original.op), self.config, residency) is not None

    def _place(self, nbytes: int, input_at: int | None, x: Tensor | None) -> int | None:
        """An SRAM address for a kept output: at the top, or below the job's resident input."""
        size = round_up(nbytes, 16)
        top = self.config.sram - size
        if input_at is None or (x is not None and top >= input_at + x.nbytes):
            return top if top >= 0 else None
        return input_at - size if input_at >= size else None

    def _cheaper(self, node: Node, nxt: Node, here: Residency, keep: Residency) -> bool:
        """Keeping `node`'s output for `nxt` fits and lowers the two jobs' estimated cycles."""
        def cycles(n: Node, residency: Residency) -> float:
            original = n.attrs["original"]
            value = estimate(original, self.kind(original.op), self.config, residency)
            return float("inf") if value is None else value
        kept = cycles(node, keep) + cycles(nxt, Residency(keep.output_at))
        return kept < float("inf") and kept < cycles(node, here) + cycles(nxt, Residency())

    def compile(self, node: Node, residency: Residency | None = None) -> Compiled:
        """The job's commands for `node`, with the residency its plan gave it (none if unplanned)."""
        return compile_node(node, self.kind(node.op), self.config, residency or Residency())

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: Any = None) -> Job:
        compiled = self.compile(node, plan.of(node) if isinstance(plan, DlaPlan) else None)
        cost = job_cost(compiled.commands, self.config)
        stream = isa.encode(compiled.commands)
        registers = {
            "cmd": Buffer(const=isa.as_words(stream), hint="dla_commands"), "count": len(compiled.commands),
            "in0": Buffer(tensor=inputs[0]), "in1": Buffer(tensor=inputs[1]) if node.op == "add" else 0,
            "out": Buffer(tensor=outputs[0]),
            "consts": Buffer(const=compiled.consts if compiled.consts.size else np.zeros(16, np.uint8),
                             hint="dla_consts"),
        }
        return Job(registers, {**compiled.info, "commands": len(compiled.commands), "cycles": cost.cycles,
                               "macs": cost.macs, "cost": cost, "kind": compiled.layer.kind})

    def job_breakdown(self, job: Job) -> dict[str, int]:
        """The cost model's cycles per category, computed when the job was lowered."""
        cost = job.info.get("cost")
        return dict(cost.by_category) if isinstance(cost, JobCost) else dict.fromkeys(CATEGORIES, 0)

    def execute(self, registers: dict[str, int], memory: Memory) -> None:
        if self._state is None:
            self._state = DlaState(self.config.sram)
        raw = memory.read(registers["cmd"], registers["count"] * isa.COMMAND_BYTES)
        if raw not in self._decoded:
            self._decoded[raw] = isa.decode(raw)
        commands = self._decoded[raw]
        bases = [registers[name] for name in isa.BASES]
        run(commands, bases, memory, self._state)
        self._last_commands = commands
        if self.timed:
            key = (raw, tuple(bases))
            if key not in self._simulated:
                self._simulated[key] = simulate(commands, bases, self.config)
            self._last_cycles = self._simulated[key]

    def cost(self, registers: dict[str, int]) -> int:
        """The simulated cycles of the job just executed (mote.accel.dla.timing)."""
        return self._last_cycles

    def cost_breakdown(self, registers: dict[str, int]) -> dict[str, int]:
        """The simulated cycles of the job just executed, split as the cost model splits its stream: the
        compute categories at the cost model's cycles, DMA the rest (the time it is exposed)."""
        total = self.cost(registers)
        if not total:
            return dict.fromkeys(CATEGORIES, 0)
        split = job_cost(self._last_commands, self.config).by_category
        compute = sum(v for k, v in split.items() if k != "DMA")
        if compute > total:  # the simulation overlapped more than the closed form: scale compute down
            split = {k: v * total // compute for k, v in split.items()}
            compute = sum(v for k, v in split.items() if k != "DMA")
            split["CONTROL"] += total - compute
            compute = total
        split["DMA"] = total - compute
        return split
