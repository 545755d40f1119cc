"""mote's int8 intermediate representation."""

from mote.ir.graph import Graph
from mote.ir.node import Node
from mote.ir.tensor import DType, Quant, Tensor
from mote.ir.text import GraphNotes

__all__ = ["DType", "Graph", "GraphNotes", "Node", "Quant", "Tensor"]
