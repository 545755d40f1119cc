"""Narrow the weights of the layers an accelerator offloads, when its `weight_bits` setting asks for it.

`for_accelerator(graph, accel)`: with `weight_bits=4|2` in the accelerator's configuration, the conv2d,
depthwise_conv2d and fully_connected layers the accelerator's partition offloads get their int8 weights
re-quantized to that width by mote.passes.narrow_weights (per channel, symmetric; biases moved to the new
scales); the other layers keep theirs. The pipeline narrows the model this way before anything else, so
the reference, the host's C and the virtual platform all run the narrowed model, and the accelerator runs
its layers in that width's mode (packed in its layout, mote.accel.packing).
"""

from __future__ import annotations

from mote.accel.interface import Accelerator
from mote.accel.partition import partition
from mote.errors import MoteError
from mote.ir import DType, Graph, Node
from mote.passes.narrow_weights import OPS, narrow_weights

NARROWABLE = OPS  # op -> the weights' output-channel axis


def narrowable(node: Node, bits: int) -> bool:
    """Whether narrow_weights narrows `node` to `bits`: a layer with constant, symmetric int8 weights wider
    than `bits`."""
    if node.op not in OPS or len(node.inputs) < 2:
        return False
    w = node.inputs[1]
    return w is not None and w.is_const and w.dtype is DType.INT8 and w.quant is not None and \
        not any(w.quant.zero_point) and w.bits > bits


def narrow_nodes(graph: Graph, bits: int, nodes: set[Node]) -> Graph:
    """`graph` with the weights of `nodes` (those of them narrow_weights takes) narrowed to `bits` bits."""
    chosen = [n for n in graph.nodes if n in nodes and narrowable(n, bits)]
    if not chosen:
        return graph
    narrowed = narrow_weights(Graph(graph.name, [], [], chosen), bits).nodes
    swap = dict(zip(chosen, narrowed))
    return Graph(graph.name, graph.inputs, graph.outputs, [swap.get(n, n) for n in graph.nodes], list(graph.notes))


def for_accelerator(graph: Graph, accel: Accelerator | None) -> Graph:
    """`graph` with the weights of the layers `accel` offloads narrowed to its `weight_bits` setting (itself
    when there is none, or it is 8); a MoteError if no mode of the accelerator takes that width."""
    if accel is None or accel.weight_bits == 8:
        return graph
    bits = accel.weight_bits
    if bits not in accel.operand_bits().weights:
        widths = ", ".join(map(str, accel.operand_bits().weights))
        raise MoteError(f"--accel {accel.label}: weight_bits={bits}, but {accel.name}'s weight modes take {widths} "
                        "bits; give one of those")
    return narrow_nodes(graph, bits, {d.node for d in partition(graph, accel) if d.offloaded})
