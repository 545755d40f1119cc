"""The kernel an op's table chooses for a node, as the code generator would (mote.ops.registry)."""

from __future__ import annotations

from mote.ir import Node
from mote.ops import OPS
from mote.ops.registry import Core, choose_kernel


def chosen(node: Node, core: Core = Core.VECTOR, skip: frozenset[str] = frozenset()) -> str:
    """The C function of the first record of the node's op table that serves `core` and accepts it (past the
    records in `skip`)."""
    op = OPS[node.op]
    return choose_kernel(op, node, op.prepare(node), core, skip).kernel.func
