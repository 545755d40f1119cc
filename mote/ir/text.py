"""The text form of a graph: readable, deterministic, one line per node; for debugging and for tests.

    graph "tiny" {
      // arena 448 B (lower bound 448 B)
      input %x: i8[1,8,8,3] q(0.5, -1) arena=0+192
      const %w: i8[4,3,3,3] q(axis 0: 4 scales 0.01..0.02, zp 0) sha256:1a2b3c4d
      #0 conv2d "conv" (%x, %w, _) -> %y: i8[1,8,8,4] q(0.25, 3) arena=192+256 {padding="SAME"}  // cpu mote_conv_s8
      output %y
    }

- A tensor is `%name` (quoted like a string when the name has spaces, commas or brackets; `%name#2`,
  `#3`... for a later tensor that reuses a name). Its type follows where it is defined: as a graph
  input, as a constant (listed in order of first use, before the nodes), or as a node's output;
  elsewhere it is named only. `_` is an absent optional input.
- A type is `dtype[shape]` (i8, i16, i32, f32, u8, i64, bool; `[]` for a scalar), then its quantization: `q(scale,
  zero_point)` per tensor, or `q(axis A: N scales lo..hi, zp Z)` per channel (`zp lo..hi` when the
  zero points differ). Scales are printed with 6 significant digits.
- State (variable tensors, kept across calls) is listed after the constants as `state %name: type`.
- Constants are summarized, never dumped: type and the first 8 hex digits of the SHA-256 of their bytes.
- A node is `#index op "name" (inputs) -> outputs`, then its attributes sorted by name: integers,
  `true`/`false`, `none`, quoted strings, floats (6 digits), `[...]` for tuples and lists, `{k=v}` for
  dicts, `array dtype[shape] sha256:...` for arrays, `%name` for tensors, `op "name" {attrs}` for a
  nested node (what an `accel` node computes), `Type{field=value, ...}` for a dataclass (an accelerator's
  lowered job: its register values, repeats and steps) and `<Type>` for any other object.
- What a compiler decided comes from GraphNotes: header comment lines, `arena=offset+bytes` after a
  tensor's type, and a `// ...` comment ending a node's line (placement, kernel, scratch).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from mote.ir.node import Node
from mote.ir.tensor import DType, Quant, Tensor

_DTYPES = {DType.INT8: "i8", DType.INT16: "i16", DType.INT32: "i32", DType.FLOAT32: "f32", DType.UINT8: "u8",
           DType.INT64: "i64", DType.BOOL: "bool"}
_BARE_NAME = re.compile(r"[\w.:;/+-]+")  # nothing the format itself uses: spaces, commas, brackets, quotes, #


@dataclass
class GraphNotes:
    """What a compiler adds to the text form (mote.codegen.ir_text fills it from a compiled model)."""

    header: list[str] = field(default_factory=list)  # comment lines after the graph's first line
    tensors: dict[Tensor, str] = field(default_factory=dict)  # after the tensor's type, e.g. "arena=0+256"
    nodes: dict[Node, str] = field(default_factory=dict)  # a comment ending the node's line


def dump_graph(name: str, tensors: list[Tensor], inputs: list[Tensor], outputs: list[Tensor], nodes: list[Node],
               notes: GraphNotes | None = None) -> str:
    """What Graph.dump returns; it takes the graph's parts, not the Graph, which is built on this module."""
    notes = notes or GraphNotes()
    names = _TensorNames(tensors)
    lines = [f"graph {_quoted(name)} {{", *(f"  // {line}" for line in notes.header)]
    for t in inputs:
        lines.append(f"  input {names.define(t, notes)}")
    for t in tensors:
        if t.is_const:
            lines.append(f"  const {names.define(t, notes)}")
        elif t.variable:
            lines.append(f"  state {names.define(t, notes)}")
    for i, node in enumerate(nodes):
        inputs = ", ".join("_" if t is None else names[t] for t in node.inputs)
        results = [names.define(t, notes) for t in node.outputs]
        line = f"  #{i} {node.op} {_quoted(node.name)} ({inputs}) -> "
        line += results[0] if len(results) == 1 else f"({', '.join(results)})"
        if node.attrs:
            line += f" {_attrs(node.attrs, names)}"
        if node in notes.nodes:
            line += f"  // {notes.nodes[node]}"
        lines.append(line)
    lines.append(f"  output {', '.join(names[t] for t in outputs)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


class _TensorNames:
    """`%name` for every tensor of the graph, made unique in first-seen order."""

    def __init__(self, tensors: list[Tensor]) -> None:
        self._names: dict[Tensor, str] = {}
        taken: dict[str, int] = {}
        for t in tensors:
            taken[t.name] = taken.get(t.name, 0) + 1
            count = taken[t.name]
            bare = t.name if _BARE_NAME.fullmatch(t.name) else _quoted(t.name)
            self._names[t] = f"%{bare}" if count == 1 else f"%{bare}#{count}"

    def __getitem__(self, t: Tensor) -> str:
        return self._names.get(t) or f"%{_quoted(t.name)}?"  # `?`: a tensor outside the graph

    def define(self, t: Tensor, notes: GraphNotes) -> str:
        text = f"{self[t]}: {tensor_type(t)}"
        if t.is_const:
            assert t.data is not None
            text += f" {_checksum(t.data)}"
        if t in notes.tensors:
            text += f" {notes.tensors[t]}"
        return text


def tensor_type(t: Tensor) -> str:
    """`i8[1,8,8,3] q(0.5, -1)`: dtype, shape and quantization."""
    text = f"{_DTYPES[t.dtype]}[{','.join(str(d) for d in t.shape)}]"
    return text if t.quant is None else f"{text} {_quant(t.quant)}"


def _quant(q: Quant) -> str:
    if len(q.scale) == 1 and len(q.zero_point) == 1:
        return f"q({_float(q.scale[0])}, {q.zero_point[0]})"
    zp = _span([str(z) for z in sorted(q.zero_point)])
    return f"q(axis {q.axis}: {len(q.scale)} scales {_span([_float(s) for s in sorted(q.scale)])}, zp {zp})"


def _span(sorted_values: list[str]) -> str:
    if not sorted_values:
        return "none"
    low, high = sorted_values[0], sorted_values[-1]
    return low if low == high else f"{low}..{high}"


def _float(value: float) -> str:
    return f"{float(value):.6g}"


def _quoted(text: str) -> str:
    return json.dumps(text)  # escapes quotes and control characters: a name never breaks a line


def _checksum(data: np.ndarray) -> str:
    data = np.ascontiguousarray(data)
    return f"sha256:{hashlib.sha256(data.dtype.str.encode() + data.tobytes()).hexdigest()[:8]}"


def _attrs(attrs: dict[str, Any], names: _TensorNames) -> str:
    return "{" + ", ".join(f"{key}={_value(attrs[key], names)}" for key in sorted(attrs)) + "}"


def _value(v: Any, names: _TensorNames) -> str:
    if isinstance(v, Enum):
        v = v.value
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return _float(v)
    if isinstance(v, str):
        return _quoted(v)
    if v is None:
        return "none"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_value(x, names) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_value(v[k], names)}" for k in sorted(v, key=str)) + "}"
    if isinstance(v, np.ndarray):
        return f"array {v.dtype}[{','.join(str(d) for d in v.shape)}] {_checksum(v)}"
    if isinstance(v, Tensor):
        return names[v]
    if isinstance(v, Node):
        attrs = {k: x for k, x in v.attrs.items() if not isinstance(x, Node)}  # one level: no nodes in nodes
        return f"{v.op} {_quoted(v.name)}" + (f" {_attrs(attrs, names)}" if attrs else "")
    if dataclasses.is_dataclass(v) and not isinstance(v, type):  # e.g. an accelerator's lowered job
        return type(v).__name__ + _attrs({f.name: getattr(v, f.name) for f in dataclasses.fields(v)}, names)
    return f"<{type(v).__name__}>"
