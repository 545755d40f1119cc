"""The `accel` op: a node the accelerator runs (a prefix of the stages of) the original op for.

The offload pass (mote.passes.offload) creates these nodes and lowers them, so a node carries plain
data only and nothing here needs the accelerator object:
  attrs["accelerator"]        the accelerator's name (names the generated driver, mote_<name>)
  attrs["pattern"]            the name of the pattern that accepted the node
  attrs["stages"]             the original op's stages the accelerator computes (mote.accel.interface.STAGES)
  attrs["original"]           the op the accelerator computes (padding made explicit, every position
                              for a CPU stride); attrs["model_node"]: the model's node, for its MACs
  attrs["perm"]               NHWC -> the accelerator's activation layout, or None for NHWC
  attrs["job"]                the lowered job (registers, repeat, steps, info)
  attrs["address_registers"]  the registers that hold addresses, in declaration order
Semantics are the original op's, from the registry: all of it, or its int32 accumulator when the
stages stop there; in the accelerator's activation layout when that is not NHWC. The accelerator
layer registers this op (ops sit below it); importing mote.accel registers it.
"""

from __future__ import annotations

import numpy as np

from mote.accel.driver import driver_name
from mote.accel.interface import STAGES, Buffer, Job
from mote.c_text import c_quoted, c_safe_text
from mote.ir import Node
from mote.ops.registry import OPS, CCall, Emitter, OpDef, register


def prepare(node: Node) -> Job:
    return node.attrs["job"]


def shape(node: Node) -> list[tuple[int, ...]]:
    return [t.shape for t in node.outputs]


def covers_all(node: Node) -> bool:
    """Whether the accelerator computes the whole op (else the int32 accumulator the CPU requantizes)."""
    op = node.attrs["original"].op
    stages = tuple(node.attrs["stages"])
    return stages == STAGES.get(op, stages)


def reference(node: Node, job: Job, inputs: list[np.ndarray]) -> list[np.ndarray]:
    original, perm = node.attrs["original"], node.attrs.get("perm")
    inverse = None if perm is None else tuple(perm.index(i) for i in range(len(perm)))

    def nhwc(t_in: object, a: np.ndarray | None) -> np.ndarray | None:
        return a if a is None or inverse is None or a.ndim != 4 or getattr(t_in, "is_const", True) else \
            np.transpose(a, inverse)

    args = [nhwc(t, a) for t, a in zip(node.inputs, inputs)]
    op = OPS[original.op]
    params = op.prepare(original)
    if covers_all(node):
        result = op.reference(original, params, args)[0]
    else:
        assert op.accumulate is not None, f"{original.op} has no int32 accumulator"
        result = op.accumulate(original, params, args).astype(np.int32)
    return [result if perm is None or result.ndim != 4 else np.transpose(result, perm)]


def emit(node: Node, job: Job, em: Emitter) -> CCall:
    accelerator: str = node.attrs["accelerator"]
    fields: dict[str, int | str] = {}
    for reg, value in job.registers.items():
        if isinstance(value, Buffer):
            fields[reg] = em.tensor(value.tensor) if value.tensor is not None else em.const(value.const, value.hint)
        else:
            fields[reg] = int(value)
    fields["repeat"] = job.repeat
    for reg in node.attrs["address_registers"]:
        if reg in job.registers:
            fields[f"{reg}_step"] = job.step.get(reg, 0)
    message = f"{accelerator}: region '{c_safe_text(node.name)}' timed out (the accelerator never signalled done)"
    fields["timeout_message"] = c_quoted(message, limit=len(message))  # the name is bounded already
    name = driver_name(accelerator)
    return CCall(f"{name}_run", f"{name}_job", fields, [])


def macs(node: Node) -> int:
    """The model's MACs for this node (the accelerator may do more, e.g. every position of a strided conv)."""
    source = node.attrs["model_node"]
    return OPS[source.op].macs(source)


OP = register(OpDef("accel", shape, prepare, reference, emit, macs))
