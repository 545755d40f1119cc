"""The reference interpreter: runs a Graph in numpy, op by op, from the registry. mote's golden model."""

from __future__ import annotations

import numpy as np

from mote.errors import MoteError
from mote.ir import Graph, Tensor
from mote.ops.subgraphs import run_nodes


def reset_state(graph: Graph) -> dict[Tensor, np.ndarray]:
    """Every variable tensor at its reset value (Tensor.reset_value), as model_reset() leaves it."""
    return {t: np.frombuffer(bytes([t.reset_value & 0xFF]) * t.nbytes, t.dtype.np).reshape(t.shape).copy()
            for t in graph.tensors if t.variable}


def interpret(graph: Graph, inputs: dict[str, np.ndarray],
              state: dict[Tensor, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Outputs keyed by output tensor name, for inputs keyed by input tensor name. Ops update `state`
    (from reset_state) in place, so a stream of calls passes the same dict; without it, each call
    starts from reset."""
    values: dict[Tensor, np.ndarray] = reset_state(graph) if state is None else dict(state)
    for t in graph.inputs:
        if t.name not in inputs:
            raise MoteError(f"no value for input {t.name!r}; inputs are {[i.name for i in graph.inputs]}")
        value = np.asarray(inputs[t.name])
        if value.size != t.size:  # mote.inputs checks shape and dtype exactly; never reshape other sizes
            raise MoteError(f"input {t.name!r}: {value.size} values given, the model input has shape {list(t.shape)}")
        values[t] = value.astype(t.dtype.np, copy=False).reshape(t.shape)
    run_nodes(graph.nodes, values)
    return {t.name: values[t] for t in graph.outputs}
