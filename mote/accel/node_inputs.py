"""Reading a node's inputs in predicates and `lower`: required ones, optional ones (a conv's bias may
be absent), and constant data with a default when absent."""

from __future__ import annotations

import numpy as np

from mote.errors import AcceleratorError
from mote.ir import Node, Tensor


def optional_input(node: Node, index: int) -> Tensor | None:
    """Input `index`, or None where the node has no such input (absent or not given)."""
    return node.inputs[index] if index < len(node.inputs) else None


def required_input(node: Node, index: int) -> Tensor:
    """Input `index`; an AcceleratorError naming the node if it is absent."""
    tensor = optional_input(node, index)
    if tensor is None:
        raise AcceleratorError(f"{node.op} node {node.name!r} has no input {index}; check it in a predicate "
                               "or read it with optional_input")
    return tensor


def constant_input(node: Node, index: int, default: np.ndarray, dtype: type = np.int32) -> np.ndarray:
    """The constant data of input `index` as `dtype`, or `default` where the input is absent (e.g. zeros
    for a missing bias); an AcceleratorError if the input is present but not a constant."""
    tensor = optional_input(node, index)
    if tensor is None:
        return np.asarray(default, dtype)
    if tensor.data is None:
        raise AcceleratorError(f"{node.op} node {node.name!r}: input {index} ({tensor.name!r}) is not a constant; "
                               "accept only constant ones in a predicate")
    return tensor.data.astype(dtype)
