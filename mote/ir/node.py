"""A node: one operator applied to input tensors, producing output tensors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mote.ir.tensor import Tensor


@dataclass(eq=False)
class Node:
    op: str  # a key of the op registry, e.g. "conv2d"
    name: str  # a human name, usually the output tensor's
    inputs: list[Tensor | None]  # None: an optional input that is absent (e.g. no bias)
    outputs: list[Tensor]
    attrs: dict[str, Any] = field(default_factory=dict)
    index: int = -1  # position in the source model, for error messages

    def __repr__(self) -> str:
        return f"Node({self.op} {self.name!r})"
