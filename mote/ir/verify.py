"""The checks between loading a model and everything else, shared by every frontend.

`verify_graph` (what `Graph.verify` runs, also after each pass) checks that the graph is well formed:
tensors (dimensions, byte sizes, quantization), the graph's inputs and outputs, each node against its
op's `check` and shape rule, and the execution order. `validate` adds one more step that frontends
run once after loading: every node's `prepare`, so that the compiler and the reference interpreter
meet no surprise later. Every failure is a MoteError with a one-line message naming the culprit.
"""

from __future__ import annotations

import math
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from mote.errors import GraphError, MoteError, UnsupportedError
from mote.ir.tensor import DType, Tensor

if TYPE_CHECKING:
    from mote.ir.graph import Graph

MAX_RANK = 8
MAX_TENSOR_BYTES = 256 << 20  # no MCU model comes near; keeps shape products from exhausting memory
MAX_MODEL_BYTES = 1 << 30  # all tensors together

_INTEGER_RANGE = {DType.INT8: (-(2**7), 2**7 - 1), DType.INT16: (-(2**15), 2**15 - 1),
                  DType.INT32: (-(2**31), 2**31 - 1), DType.FLOAT32: (-(2**31), 2**31 - 1)}


def validate(graph: Graph) -> None:
    """`verify_graph`, then every node's `prepare` once: after this, compiling and interpreting the graph
    raise nothing but MoteErrors."""
    from mote.ops import registry  # the registry imports the IR, not the other way round

    verify_graph(graph)
    for node in graph.nodes:
        try:
            registry.OPS[node.op].prepare(node)
        except MoteError as e:
            message = str(e)
            if not message.startswith("node "):  # a helper that does not know the node: say which
                raise type(e)(f"node {node.name!r} ({node.op}): {message}") from None
            raise
        except Exception as e:  # a case no check foresaw: still one line, naming the node
            raise UnsupportedError(f"node {node.name!r} ({node.op}): mote cannot compile this node "
                                   f"({type(e).__name__}: {e}); please report it with the model") from None


def verify_graph(graph: Graph) -> None:
    """Well-formedness: tensors, graph inputs and outputs, op checks and shape rules, execution order."""
    from mote.ops import registry

    tensors = graph.tensors
    total = 0
    for t in tensors:
        check_tensor(t)
        total += t.nbytes
    if total > MAX_MODEL_BYTES:
        raise GraphError(f"{graph.name}: the tensors need {total} bytes together, more than mote's limit of "
                         f"{MAX_MODEL_BYTES}; the model is damaged or far too large for a microcontroller")
    _check_io(graph)
    available = {id(t) for t in graph.inputs}
    for node in graph.nodes:
        op = registry.OPS.get(node.op)
        if op is None:
            raise GraphError(f"node {node.name!r}: unknown op {node.op!r}")
        if not node.outputs:
            raise GraphError(f"node {node.name!r} ({node.op}): has no outputs")
        for t in node.inputs:
            if t is not None and not t.is_const and id(t) not in available:
                raise GraphError(f"node {node.name!r} ({node.op}): input {t.name!r} is used before it is produced")
        for t in node.outputs:
            if id(t) in available or t.is_const:
                raise GraphError(f"node {node.name!r} ({node.op}): output {t.name!r} is produced twice "
                                 "(or is a constant or a graph input)")
            available.add(id(t))
        op.check(node)
        expected = [tuple(s) for s in op.shape(node)]
        actual = [t.shape for t in node.outputs]
        if expected != actual:
            raise GraphError(f"node {node.name!r} ({node.op}): output shapes {actual}, the op rule says {expected}")
    for t in graph.outputs:
        if id(t) not in available or t.is_const:
            raise GraphError(f"graph output {t.name!r} is never produced by a node")


def check_tensor(t: Tensor) -> None:
    """Shape, size, constant data and quantization of one tensor."""
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
    if t.data is not None and t.data.size != t.size:
        raise GraphError(f"tensor {t.name!r}: {t.data.size} constant values for shape {list(t.shape)}")
    if t.quant is not None:
        _check_quant(t)


def _check_quant(t: Tensor) -> None:
    q = t.quant
    assert q is not None
    if not q.scale:
        raise GraphError(f"tensor {t.name!r}: quantization without a scale")
    if len(q.zero_point) != len(q.scale):
        raise GraphError(f"tensor {t.name!r}: {len(q.scale)} scales but {len(q.zero_point)} zero points")
    bad = [s for s in q.scale if not (math.isfinite(s) and s > 0)]
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


def _check_io(graph: Graph) -> None:
    if not graph.outputs:
        raise GraphError(f"{graph.name}: the graph has no outputs")
    if not graph.nodes:
        raise GraphError(f"{graph.name}: the graph has no operators")
    for kind, tensors in (("input", graph.inputs), ("output", graph.outputs)):
        if len({id(t) for t in tensors}) != len(tensors):
            raise GraphError(f"{graph.name}: a tensor is listed twice among the graph {kind}s")
    for t in graph.inputs:
        if t.is_const:
            raise GraphError(f"graph input {t.name!r} is a constant (its data is in the file); a model input "
                             "must be filled at run time")
    names = [t.name for t in [*graph.inputs, *graph.outputs]]
    if len(set(names)) != len(names):
        raise GraphError(f"{graph.name}: graph inputs and outputs share a name "
                         f"({sorted({n for n in names if names.count(n) > 1})[0]!r}); each needs its own")
