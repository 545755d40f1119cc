"""The accelerator API: predicates that raise, signed registers, optional inputs, job costs."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_npu import TinyNpu

from mote.accel import Accelerator, Job, Pattern, Predicate, constant_input, job_cost, optional_input, required_input
from mote.accel.partition import partition
from mote.accel.random_nodes import GENERATORS
from mote.errors import AcceleratorError
from mote.ir import Graph, Node


def _pool() -> Node:
    return GENERATORS["max_pool2d"](np.random.default_rng(0))


def _graph(node: Node) -> Graph:
    return Graph("one", [t for t in node.inputs if t is not None], node.outputs, [node])


def test_a_predicate_that_raises_is_an_error_naming_it() -> None:
    broken = Predicate("window fits", lambda n: n.attrs["no such attribute"] > 1)
    with pytest.raises(AcceleratorError) as error:
        partition(_graph(_pool()), TinyNpu(predicate=broken))
    message = str(error.value)
    assert "\n" not in message
    for part in ("accelerator tiny", "pattern 'pool'", "predicate 'window fits'", "KeyError", "'random max_pool2d'"):
        assert part in message, message


def test_a_predicate_that_returns_false_rejects() -> None:
    (decision,) = partition(_graph(_pool()), TinyNpu(predicate=Predicate("never", lambda n: False)))
    assert not decision.offloaded and decision.rejected == {"pool": ["never"]}


def test_signed_registers_are_signed_for_the_models() -> None:
    seen = TinyNpu().model_registers({"src": 0x2000_0000, "taps": 4, "bias": 0xFFFF_FFFD})
    assert seen == {"src": 0x2000_0000, "taps": 4, "bias": -3}


def test_job_cost_sums_categories_over_the_starts() -> None:
    accel = TinyNpu()
    job = Job({"src": 0, "dst": 0, "taps": 9, "bias": -3}, repeat=2, step={"src": 64})
    # Each start: setup 10; taps 9 plus the src address (0, then 64 after one step).
    assert job_cost(accel, job) == {"setup": 20, "taps": 9 + 9 + 64}


def test_job_cost_refuses_undeclared_categories() -> None:
    class Sloppy(TinyNpu):
        def cost_breakdown(self, registers: dict[str, int]) -> dict[str, int]:
            return {"compute": 5}

    with pytest.raises(AcceleratorError, match="cost categories compute are not declared"):
        job_cost(Sloppy(), Job({"taps": 1}))


def test_the_default_breakdown_is_the_cost() -> None:
    class OnlyCost(TinyNpu):
        cost_categories = ("compute",)
        cost_breakdown = Accelerator.cost_breakdown  # the interface's default

        def cost(self, registers: dict[str, int]) -> int:
            return 7 * registers["taps"]

    assert job_cost(OnlyCost(), Job({"taps": 2})) == {"compute": 14}


def test_optional_inputs() -> None:
    conv = GENERATORS["conv2d"](np.random.default_rng(1))
    channels = conv.outputs[0].shape[3]
    assert required_input(conv, 0) is conv.inputs[0]
    without_bias = Node(conv.op, conv.name, [*conv.inputs[:2], None], conv.outputs, conv.attrs)
    assert optional_input(without_bias, 2) is None and optional_input(without_bias, 7) is None
    assert constant_input(without_bias, 2, np.zeros(channels)).tolist() == [0] * channels
    bias = conv.inputs[2]
    if bias is not None:
        assert np.array_equal(constant_input(conv, 2, np.zeros(channels)), bias.data)
    with pytest.raises(AcceleratorError, match="has no input 2"):
        required_input(without_bias, 2)
    with pytest.raises(AcceleratorError, match="is not a constant"):
        constant_input(conv, 0, np.zeros(1))


def test_a_pattern_with_impossible_stages_is_an_error_naming_it() -> None:
    class Partial(TinyNpu):
        def patterns(self) -> list[Pattern]:
            return [Pattern("half conv", "conv2d", ("conv2d", "requantize"))]

    with pytest.raises(AcceleratorError, match="accelerator tiny: pattern 'half conv': stages"):
        partition(_graph(_pool()), Partial())
