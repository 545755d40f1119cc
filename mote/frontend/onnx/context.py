"""The state of one ONNX conversion, shared by the loader and every op handler."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mote.errors import ModelFileError, UnsupportedError
from mote.frontend.onnx.values import Builder, Const, Value


@dataclass
class Context:
    """The state of one conversion: the builder, the value of every ONNX name, the opsets."""

    b: Builder
    values: dict[str, Value]
    opsets: dict[str, int]
    model: str
    dialect: str
    notes: list[str] = field(default_factory=list)  # what the conversion assumed, for the report
    dequantized: dict[tuple[Any, tuple[int, ...]], Any] = field(default_factory=dict)  # int8 Act -> float32 Act

    def where(self, node: Any) -> str:
        domain = node.domain or "ai.onnx"
        return f"{self.model}: {node.op_type} node {node.name or node.output[0]!r} (domain {domain})"

    def value(self, node: Any, i: int) -> Value | None:
        if i >= len(node.input) or not node.input[i]:
            return None
        name = node.input[i]
        if name not in self.values:
            raise ModelFileError(f"{self.where(node)}: input {name!r} is never produced")
        return self.values[name]

    def const(self, node: Any, i: int, what: str, default: np.ndarray | None = None) -> np.ndarray:
        v = self.value(node, i)
        if v is None and default is not None:
            return default
        if not isinstance(v, Const):
            raise UnsupportedError(f"{self.where(node)}: the {what} must be a constant")
        return v.data
