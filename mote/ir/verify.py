"""Structural checks of a graph, which need no knowledge of its ops.

`Graph.verify` runs them: tensors (dimensions, byte sizes, constant data, quantization), the graph's
inputs and outputs, and the execution order: every tensor is produced once, before any node reads it.
The op-aware checks (the registry, each op's `check` and shape rule, each node's `prepare`) live a
layer up, in mote.ops.validate, which hands Graph.verify a per-node hook. They take the graph's parts,
not the Graph, which is built on them.
Every failure is a MoteError with a one-line message naming the culprit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral

import numpy as np

from mote.errors import GraphError, UnsupportedError
from mote.ir import subbyte
from mote.ir.node import Node
from mote.ir.tensor import DType, Tensor

MAX_RANK = 8
MAX_TENSOR_BYTES = 256 << 20  # no MCU model comes near; keeps shape products from exhausting memory
MAX_MODEL_BYTES = 1 << 30  # all tensors together

_INTEGER_RANGE = {DType.INT8: (-(2**7), 2**7 - 1), DType.INT16: (-(2**15), 2**15 - 1),
                  DType.INT32: (-(2**31), 2**31 - 1), DType.FLOAT32: (-(2**31), 2**31 - 1),
                  DType.UINT8: (0, 2**8 - 1), DType.INT64: (-(2**63), 2**63 - 1), DType.BOOL: (0, 0)}


def check_tensors(graph_name: str, tensors: list[Tensor]) -> None:
    """Every tensor (check_tensor), and all of them together within mote's limit."""
    total = 0
    for t in tensors:
        check_tensor(t)
        total += t.nbytes
    if total > MAX_MODEL_BYTES:
        raise GraphError(f"{graph_name}: the tensors need {total} bytes together, more than mote's limit of "
                         f"{MAX_MODEL_BYTES}; the model is damaged or far too large for a microcontroller")


def check_order(inputs: list[Tensor], outputs: list[Tensor], nodes: list[Node],
                each_node: Callable[[Node], None] | None = None, subgraph: bool = False) -> None:
    """Every tensor produced once, before any node reads it; every graph output produced (a subgraph's may
    be a constant or one of its inputs). `each_node`, when given, runs on every node once its own tensors
    have been checked, in execution order."""
    available: set[Tensor] = set(inputs) | {t for n in nodes for t in n.inputs if t is not None and t.variable}
    available |= {t for t in outputs if t.is_const and subgraph}
    for node in nodes:
        if not node.outputs:
            raise GraphError(f"node {node.name!r} ({node.op}): has no outputs")
        for t in node.inputs:
            if t is not None and not t.is_const and t not in available:
                raise GraphError(f"node {node.name!r} ({node.op}): input {t.name!r} is used before it is produced")
        for t in node.outputs:
            if t.variable:  # state a node writes (a resource variable's ASSIGN_VARIABLE): any node, any time
                available.add(t)
                continue
            if t in available or t.is_const:
                raise GraphError(f"node {node.name!r} ({node.op}): output {t.name!r} is produced twice "
                                 "(or is a constant or a graph input)")
            available.add(t)
        if each_node is not None:
            each_node(node)
    for t in outputs:
        if t not in available or (t.is_const and not subgraph):
            raise GraphError(f"graph output {t.name!r} is never produced by a node")


def check_tensor(t: Tensor, signed_scales: bool = False) -> None:
    """Shape, size, constant data and quantization of one tensor. `signed_scales`: per-channel scales may be
    negative (a frontend reads them so, then folds the signs into the weights, mote.frontend.signed_scales)."""
    if not isinstance(t.shape, tuple) or not all(isinstance(d, Integral) for d in t.shape):
        raise GraphError(f"tensor {t.name!r}: shape {t.shape!r} is not a tuple of whole numbers")
    if len(t.shape) > MAX_RANK:
        raise UnsupportedError(f"tensor {t.name!r}: {len(t.shape)} dimensions; mote supports at most {MAX_RANK}")
    if any(d < 1 for d in t.shape):
        raise UnsupportedError(f"tensor {t.name!r}: shape {list(t.shape)} has a dimension below 1; mote needs "
                               "every dimension fixed and at least 1 (give the model a static shape)")
    if t.nbytes > MAX_TENSOR_BYTES:
        raise UnsupportedError(f"tensor {t.name!r}: shape {list(t.shape)} is {t.nbytes} bytes, more than mote's "
                               f"limit of {MAX_TENSOR_BYTES} per tensor")
    if t.variable and t.data is not None:
        raise GraphError(f"tensor {t.name!r}: state (a variable tensor) cannot also be a constant")
    if t.data is not None and t.data.size != t.size:
        raise GraphError(f"tensor {t.name!r}: {t.data.size} constant values for shape {list(t.shape)}")
    if t.bits != 8:
        _check_subbyte(t)
    if t.quant is not None:
        _check_quant(t, signed_scales and len(t.quant.scale) > 1)


def _check_subbyte(t: Tensor) -> None:
    """A sub-byte tensor (Tensor.bits 4 or 2) is int8 and, when constant, its values fit that many bits."""
    subbyte.check_bits(t.bits, f"tensor {t.name!r}")
    if t.dtype is not DType.INT8:
        raise GraphError(f"tensor {t.name!r}: {t.bits}-bit values are declared on an int8 tensor, not {t.dtype.value}")
    if t.data is not None:
        subbyte.check_values(t.data, t.bits, f"tensor {t.name!r}")


def _check_quant(t: Tensor, signed: bool = False) -> None:
    q = t.quant
    assert q is not None
    if not q.scale:
        raise GraphError(f"tensor {t.name!r}: quantization without a scale")
    if len(q.zero_point) != len(q.scale):
        raise GraphError(f"tensor {t.name!r}: {len(q.scale)} scales but {len(q.zero_point)} zero points")
    bad = [s for s in q.scale if not (math.isfinite(s) and (s > 0 or (signed and s < 0)))]
    if bad:
        raise UnsupportedError(f"tensor {t.name!r}: quantization scale {bad[0]!r} is not a finite positive number; "
                               "the model is damaged or not quantized correctly")
    if any(not math.isfinite(float(np.float32(s))) or float(np.float32(s)) == 0.0 for s in q.scale):
        raise UnsupportedError(f"tensor {t.name!r}: a quantization scale does not fit a float32 (TFLite's type)")
    low, high = _INTEGER_RANGE[t.dtype]
    outside = [z for z in q.zero_point if not low <= z <= high]
    if outside:
        raise UnsupportedError(f"tensor {t.name!r}: zero point {outside[0]} is outside the {t.dtype.value} range "
                               f"[{low}, {high}]")
    if len(q.scale) > 1:
        if q.axis is None or not 0 <= q.axis < len(t.shape):
            raise UnsupportedError(f"tensor {t.name!r}: per-channel quantization along axis {q.axis}, which a "
                                   f"{len(t.shape)}-D tensor does not have")
        if len(q.scale) != t.shape[q.axis]:
            raise UnsupportedError(f"tensor {t.name!r}: {len(q.scale)} per-channel scales for {t.shape[q.axis]} "
                                   f"channels along axis {q.axis}")


def check_subgraph_io(graph_name: str, inputs: list[Tensor], outputs: list[Tensor]) -> None:
    """A called subgraph's inputs and outputs: neither state nor (inputs) constants. Unlike a model's, an output
    may repeat or be one of its inputs, and there may be no nodes (a branch that passes its input through)."""
    for t in [*inputs, *outputs]:
        if t.variable:
            raise GraphError(f"{graph_name}: subgraph input or output {t.name!r} is state (a variable tensor); "
                             "state stays inside the model")
    for t in inputs:
        if t.is_const:
            raise GraphError(f"{graph_name}: subgraph input {t.name!r} is a constant; the caller fills it")


def check_io(graph_name: str, inputs: list[Tensor], outputs: list[Tensor], nodes: list[Node]) -> None:
    """The graph has outputs and nodes; its inputs and outputs are listed once, named apart, inputs not constant."""
    if not outputs:
        raise GraphError(f"{graph_name}: the graph has no outputs")
    if not nodes:
        raise GraphError(f"{graph_name}: the graph has no operators")
    for kind, tensors in (("input", inputs), ("output", outputs)):
        if len(set(tensors)) != len(tensors):
            raise GraphError(f"{graph_name}: a tensor is listed twice among the graph {kind}s")
    for t in [*inputs, *outputs]:
        if t.variable:
            raise GraphError(f"graph input or output {t.name!r} is state (a variable tensor); state stays inside "
                             "the model")
    for t in inputs:
        if t.is_const:
            raise GraphError(f"graph input {t.name!r} is a constant (its data is in the file); a model input "
                             "must be filled at run time")
    names = [t.name for t in [*inputs, *outputs]]
    if len(set(names)) != len(names):
        raise GraphError(f"{graph_name}: graph inputs and outputs share a name "
                         f"({sorted({n for n in names if names.count(n) > 1})[0]!r}); each needs its own")
