"""The offload pass: it plans, then lowers every `accel` node, which then carries plain data only."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_npu import TinyNpu, TinyPlan

from mote.accel import Job
from mote.accel.interface import Pattern
from mote.accel.random_nodes import GENERATORS
from mote.errors import AcceleratorError
from mote.ir import Graph, Node, Tensor
from mote.ops import OPS
from mote.passes.offload import offload


def _two_pools() -> Graph:
    rng = np.random.default_rng(3)
    first = GENERATORS["max_pool2d"](rng)
    out = first.outputs[0]
    second_out = Tensor("second out", out.shape, out.dtype, out.quant)
    attrs = {**first.attrs, "filter": (1, 1), "stride": (1, 1), "padding": "VALID"}
    second = Node("max_pool2d", "second pool", [out], [second_out], attrs)
    return Graph("pools", list(first.inputs), [second_out], [first, second])


def test_accel_nodes_carry_names_and_their_job() -> None:
    accel = TinyNpu()
    nodes = offload(_two_pools(), accel).nodes
    assert [n.op for n in nodes] == ["accel", "accel"]
    for node in nodes:
        assert node.attrs["accelerator"] == "tiny" and node.attrs["pattern"] == "pool"
        assert node.attrs["stages"] == () and node.attrs["address_registers"] == ("src", "dst")
        assert node.attrs["original"].op == "max_pool2d" and node.attrs["model_node"].op == "max_pool2d"
        job = node.attrs["job"]
        assert isinstance(job, Job) and job.repeat == 2
        assert OPS["accel"].prepare(node) is job  # the op reads the job; nothing lowers it again
    assert not any(isinstance(v, (TinyNpu, Pattern)) for n in nodes for v in n.attrs.values())


def test_plan_is_handed_to_every_lower() -> None:
    accel = TinyNpu()
    offload(_two_pools(), accel)
    assert accel.plans == [TinyPlan(("random max_pool2d", "second pool"))] * 2


def test_a_lower_that_raises_is_an_error_naming_the_node() -> None:
    class Broken(TinyNpu):
        def lower(self, node: Node, pattern: Pattern, inputs: list, outputs: list, plan: object = None) -> Job:
            raise ZeroDivisionError("division by zero")

    with pytest.raises(AcceleratorError) as error:
        offload(_two_pools(), Broken())
    message = str(error.value)
    assert "\n" not in message and "lower() raised ZeroDivisionError" in message
    assert "'random max_pool2d'" in message and "pattern 'pool'" in message
