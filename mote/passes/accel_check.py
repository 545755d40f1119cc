"""`mote accel check`: each pattern's functional model against mote's reference, on random nodes.

For every pattern, random single-op nodes that its predicates accept are offloaded as the compiler
would (padding, layout transforms, int32 split included); the accelerator node is then executed by
the functional model on a flat test memory, exactly as the virtual platform would, and compared bit
for bit with the reference semantics of what the pattern claims. It lives with the passes because
it runs the offload pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.accel.interface import Accelerator, Buffer
from mote.accel.partition import narrow_operands
from mote.accel.random_nodes import GENERATORS
from mote.errors import MoteError
from mote.ir import Graph, Node, Tensor
from mote.ops import OPS
from mote.passes.accel_weights import NARROWABLE, narrowable
from mote.passes.narrow_weights import narrow_weights
from mote.passes.offload import offload


class FlatMemory:
    """A flat memory with a bump allocator, addressed like the MCU's RAM."""

    BASE = 0x2000_0000

    def __init__(self) -> None:
        self.data = bytearray()

    def place(self, payload: bytes) -> int:
        address = self.BASE + len(self.data)
        self.data += payload + bytes(-len(payload) % 16)
        return address

    def read(self, address: int, size: int) -> bytes:
        offset = address - self.BASE
        if offset < 0 or offset + size > len(self.data):
            raise MoteError(f"the accelerator model read {size} bytes at 0x{address:08x}, outside its operands")
        return bytes(self.data[offset:offset + size])

    def write(self, address: int, data: bytes) -> None:
        offset = address - self.BASE
        if offset < 0 or offset + len(data) > len(self.data):
            raise MoteError(f"the accelerator model wrote {len(data)} bytes at 0x{address:08x}, outside its operands")
        self.data[offset:offset + len(data)] = data


@dataclass
class PatternCheck:
    pattern: str
    trials: int  # random nodes the pattern accepted and that were compared
    mismatches: int  # trials whose result differed from the reference
    first_failure: str = ""

    @property
    def ok(self) -> bool:
        return self.trials > 0 and self.mismatches == 0


def run_functional(accel: Accelerator, node: Node, inputs: list[np.ndarray | None]) -> np.ndarray:
    """Execute an `accel` node with the accelerator's functional model on a test memory."""
    job = OPS["accel"].prepare(node)
    memory = FlatMemory()
    addresses: dict[Tensor, int] = {}
    for t, value in zip(node.inputs, inputs):
        if t is not None and not t.is_const and value is not None:
            addresses[t] = memory.place(np.ascontiguousarray(value, dtype=t.dtype.np).tobytes())
    out: Tensor = node.outputs[0]
    addresses[out] = memory.place(bytes(out.nbytes))
    registers = {name: 0 for name in accel.registers}
    for name, value in job.registers.items():
        if isinstance(value, Buffer):
            if value.tensor is not None:
                if value.tensor not in addresses:  # a constant tensor pointed at directly
                    assert value.tensor.data is not None
                    addresses[value.tensor] = memory.place(value.tensor.data.tobytes())
                registers[name] = addresses[value.tensor]
            else:
                assert value.const is not None
                registers[name] = memory.place(np.ascontiguousarray(value.const).tobytes())
        else:
            registers[name] = int(value) & 0xFFFFFFFF
    registers[accel.start_register] = 1
    for start in job.starts(registers):  # as the driver does
        if accel.execute(accel.model_registers(start), memory) is False:
            raise MoteError(f"the {accel.name} model did not finish the job for {node.name!r}")
    raw = memory.read(addresses[out], out.nbytes)
    return np.frombuffer(raw, dtype=out.dtype.np).reshape(out.shape)


def _compare(accel: Accelerator, node: Node, rng: np.random.Generator) -> str:
    """'' when the functional model matches the reference on this node, else what differed."""
    activations = [t for t in node.inputs if t is not None and not t.is_const]
    graph = offload(Graph("check", activations, node.outputs, [node]), accel)
    values = {t: rng.integers(-128, 128, t.shape, dtype=np.int8) for t in activations}
    for n in graph.nodes:
        args = [None if t is None else (t.data if t.is_const else values[t]) for t in n.inputs]
        expected = OPS[n.op].reference(n, OPS[n.op].prepare(n), args)[0]
        if n.op == "accel":
            got = run_functional(accel, n, args)
            bad = int(np.count_nonzero(got != expected))
            if bad:
                return f"{bad} of {expected.size} values differ on {_describe(node)}"
        values[n.outputs[0]] = np.asarray(expected).reshape(n.outputs[0].shape)
    return ""


def _describe(node: Node) -> str:
    shapes = ", ".join(str(list(t.shape)) for t in node.inputs if t is not None)
    attrs = ", ".join(f"{k}={v}" for k, v in node.attrs.items())
    return f"{node.op}({shapes}; {attrs})"


def check_accelerator(accel: Accelerator, trials: int = 20, seed: int = 0, weight_bits: int = 8) -> list[PatternCheck]:
    """Each pattern on `trials` random nodes it accepts; with `weight_bits` 4 or 2, the weights of nodes with
    weights narrowed to that width first (mote.passes.narrow_weights; such nodes that cannot be narrowed are
    skipped), to check the accelerator's sub-byte weight modes (`mote accel check NAME:weight_bits=4`)."""
    results = []
    for pattern in accel.patterns():
        make = GENERATORS.get(pattern.op)
        if make is None:
            raise MoteError(f"accel check: no random {pattern.op} nodes to test pattern {pattern.name!r} with; "
                            f"it can test {', '.join(sorted(GENERATORS))}")
        rng = np.random.default_rng(seed)
        result = PatternCheck(pattern.name, 0, 0)
        for _ in range(trials * 50):
            if result.trials == trials:
                break
            node = make(rng)
            if weight_bits != 8 and node.op in NARROWABLE:
                if not narrowable(node, weight_bits):
                    continue
                node = narrow_weights(Graph("n", [node.inputs[0]], node.outputs, [node]), weight_bits).nodes[0]
            if pattern.rejections(node, accel.name) or narrow_operands(node, accel.operand_bits()):
                continue
            result.trials += 1
            failure = _compare(accel, node, rng)
            if failure:
                result.mismatches += 1
                result.first_failure = result.first_failure or failure
        results.append(result)
    return results
