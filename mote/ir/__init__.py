"""mote's int8 intermediate representation."""

from mote.ir.graph import Graph
from mote.ir.node import Node
from mote.ir.tensor import DType, Quant, Tensor

__all__ = ["DType", "Graph", "Node", "Quant", "Tensor"]
