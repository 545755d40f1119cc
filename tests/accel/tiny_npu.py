"""A tiny accelerator for tests of the accelerator API: max pooling in NHWC, with a plan, a signed
register, two cost categories and a job that repeats. Its functional model is not needed here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.accel import Accelerator, Buffer, Job, Pattern, Predicate, required_input, setting
from mote.ir import DType, Graph, Node, Tensor


@dataclass(frozen=True)
class TinyConfig:
    setup: int = setting(10, doc="cycles per start", minimum=0)


@dataclass(frozen=True)
class TinyPlan:
    jobs: tuple[str, ...]  # the names of the accel nodes, in run order


class TinyNpu(Accelerator):
    name = "tiny"
    Config = TinyConfig
    registers = ("src", "dst", "taps", "bias", "control", "status")
    address_registers = ("src", "dst")
    signed_registers = ("bias",)
    cost_categories = ("setup", "taps")

    def __init__(self, config: TinyConfig | None = None, predicate: Predicate | None = None) -> None:
        super().__init__(config)
        self.predicate = predicate or Predicate("int8", lambda n: required_input(n, 0).dtype is DType.INT8)
        self.plans: list[object] = []  # what each lower() received, for the tests

    def patterns(self) -> list[Pattern]:
        return [Pattern("pool", "max_pool2d", (), (self.predicate,))]

    def plan(self, graph: Graph) -> TinyPlan:
        return TinyPlan(tuple(n.name for n in graph.nodes if n.op == "accel"))

    def lower(self, node: Node, pattern: Pattern, inputs: list[Tensor | None], outputs: list[Tensor],
              plan: object = None) -> Job:
        self.plans.append(plan)
        taps = int(np.prod(node.attrs["filter"]))
        return Job({"src": Buffer(tensor=inputs[0]), "dst": Buffer(tensor=outputs[0]), "taps": taps, "bias": -3},
                   repeat=2, step={"src": 64})

    def cost_breakdown(self, registers: dict[str, int]) -> dict[str, int]:
        # bias is signed: -3, not 4294967293; an address register is costed as 0 (plus its step).
        return {"setup": self.config.setup + registers["bias"] + 3, "taps": registers["taps"] + registers["src"]}

    def cost(self, registers: dict[str, int]) -> int:
        return sum(self.cost_breakdown(registers).values())
