"""What flows along the edges while an ONNX graph becomes a mote Graph, and the builder of mote nodes.

An ONNX value is one of:
  Const    a constant array (initializer, Constant node, or folded), in ONNX layout;
  QConst   DequantizeLinear of a constant (weights, biases): integers with their scale and zero point;
  Act      a run-time mote tensor, with the permutation that maps the ONNX layout to mote's storage;
  Deq      DequantizeLinear of an int8 activation: a float view that mote never materializes;
  Pending  a float op on dequantized inputs (QDQ), built once its QuantizeLinear gives the output
           quantization (and any Relu/Clip in between a clamp); or, where a float op or a float graph
           output takes it instead, in float32 (`as_float`, floats.py).

Layout: an Act stores `onnx_array.transpose(perm)`. Convolutions and pools want NCHW activations
stored NHWC (perm (0, 2, 3, 1)); ONNX Transpose only relabels perm; reshapes need ONNX element order.
`to_layout` moves data only when the memory order really changes (a free in-place reshape otherwise).
uint8 tensors become int8 with values and zero points shifted by -128, which is exact for affine
quantization.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS

NHWC = (0, 2, 3, 1)  # NCHW in ONNX, NHWC in mote
NLC = (0, 2, 1)  # 1-D: NCL in ONNX, NLC in mote


def channels_last(rank: int) -> tuple[int, ...]:
    """mote's layout for a channels-first ONNX activation of this rank (identity when not 3-D or 4-D)."""
    return NHWC if rank == 4 else NLC if rank == 3 else identity(rank)


def identity(rank: int) -> tuple[int, ...]:
    return tuple(range(rank))


@dataclass(eq=False)
class Const:
    data: np.ndarray


@dataclass(eq=False)
class QConst:
    """Quantized constant: real = scale * (q - zero_point); uint8 already shifted to int8."""

    q: np.ndarray  # int64, ONNX layout
    scale: np.ndarray  # float32, one value or one per channel along `axis`
    zero_point: np.ndarray  # int64, shaped like scale
    axis: int | None  # the per-channel axis (ONNX layout), None when per tensor
    bits: int  # 8 for weights and activations, 32 for biases

    def real(self) -> np.ndarray:
        shape = [1] * self.q.ndim
        if self.axis is not None and self.scale.size > 1:
            shape[self.axis] = -1
        scale = self.scale.astype(np.float64).reshape(shape) if self.scale.size > 1 else float(self.scale[0])
        zp = self.zero_point.reshape(shape) if self.zero_point.size > 1 else int(self.zero_point[0])
        return (self.q - zp) * scale


@dataclass(eq=False)
class Act:
    tensor: Tensor
    perm: tuple[int, ...]  # storage = onnx.transpose(perm)
    divisor: int = 1  # integer dialect: an AveragePool's window sum still to be divided (by RequantShift)

    @property
    def rank(self) -> int:
        return len(self.perm)

    @property
    def onnx_shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape[self.perm.index(i)] for i in range(self.rank))

    @property
    def quant(self) -> Quant:
        if self.tensor.quant is None:
            raise UnsupportedError(f"tensor {self.tensor.name!r} has no quantization (an integer model input that "
                                   "no QLinear op reads first)")
        return self.tensor.quant


@dataclass(eq=False)
class Deq:
    act: Act


# Builds the mote nodes of a pending op for an output quantization and a real clamp range.
BuildFn = Callable[[Quant, float, float], Act]


@dataclass(eq=False)
class Pending:
    op: str  # the ONNX op type, for messages
    name: str  # the ONNX node's name
    build: BuildFn
    lo: float = -np.inf  # fused Relu / Clip, in real values
    hi: float = np.inf
    clampable: bool = True  # whether the mote op takes a fused activation
    as_float: Callable[[], Act] | None = None  # the op in float32, when mote has it so (built once)


Value = Const | QConst | Act | Deq | Pending


def once(build: Callable[[], Act]) -> Callable[[], Act]:
    """`build`, run at most once: every consumer of a pending value's float form reads the same nodes."""
    built: list[Act] = []

    def run() -> Act:
        if not built:
            built.append(build())
        return built[0]

    return run


def int8_quant(scale: np.ndarray | float, zero_point: np.ndarray | int, dtype: np.dtype, axis: int | None = None,
               what: str = "") -> Quant:
    """A mote Quant from ONNX scale / zero point of an 8-bit type (uint8 shifted to int8)."""
    scale = np.asarray(scale, dtype=np.float32).reshape(-1)
    zp = np.asarray(zero_point, dtype=np.int64).reshape(-1)
    if np.dtype(dtype) == np.uint8:
        zp = zp - 128
    elif np.dtype(dtype) != np.int8:
        raise UnsupportedError(f"{what}: {np.dtype(dtype).name} quantization is not supported; mote runs int8 and "
                               "uint8 tensors")
    if zp.size == 1 and scale.size > 1:
        zp = np.repeat(zp, scale.size)
    if scale.size == 0 or not (np.isfinite(scale) & (scale > 0)).all():
        raise UnsupportedError(f"{what}: quantization scales must be finite and positive, got {scale.tolist()[:4]}")
    if zp.size != scale.size:
        raise UnsupportedError(f"{what}: {zp.size} zero points for {scale.size} scales")
    per_channel = scale.size > 1
    return Quant(tuple(float(s) for s in scale), tuple(int(z) for z in zp), axis if per_channel else None)


def same_quant(a: Quant, b: Quant) -> bool:
    return (len(a.scale) == len(b.scale) and a.zero_point == b.zero_point
            and all(np.float32(x) == np.float32(y) for x, y in zip(a.scale, b.scale)))


def to_int8(data: np.ndarray) -> np.ndarray:
    """uint8 -> int8 by subtracting 128; int8 unchanged; as int64."""
    a = np.asarray(data)
    return a.astype(np.int64) - 128 if a.dtype == np.uint8 else a.astype(np.int64)


@dataclass
class Builder:
    """Creates mote tensors and nodes with unique names, in execution order."""

    nodes: list[Node] = field(default_factory=list)
    index: int = -1  # the ONNX node being converted, for Node.index
    _names: set[str] = field(default_factory=set)
    _layouts: dict[tuple[Tensor, tuple[int, ...], tuple[int, ...]], Act] = field(default_factory=dict)
    _reshaped_from: dict[Tensor, Tensor] = field(default_factory=dict)  # reshape output -> the tensor it views

    def unique(self, name: str) -> str:
        base, n = name or "t", 1
        while name in self._names or not name:
            name, n = f"{base}_{n}", n + 1
        self._names.add(name)
        return name

    def tensor(self, name: str, shape: tuple[int, ...], dtype: DType, quant: Quant | None = None,
               data: np.ndarray | None = None) -> Tensor:
        return Tensor(self.unique(name), tuple(int(d) for d in shape), dtype, quant, data)

    def const(self, name: str, data: np.ndarray, dtype: DType, quant: Quant | None = None) -> Tensor:
        data = np.ascontiguousarray(np.asarray(data).astype(dtype.np))
        return self.tensor(name, data.shape, dtype, quant, data)

    def node(self, op: str, inputs: list[Tensor | None], name: str, dtype: DType, quant: Quant | None,
             attrs: dict | None = None, shape: tuple[int, ...] | None = None) -> Tensor:
        """Append a node with one output; its shape from the op's rule unless given."""
        out = self.tensor(name, shape or (), dtype, quant)
        node = Node(op, out.name, inputs, [out], attrs or {}, self.index)
        if shape is None:
            out.shape = tuple(int(d) for d in OPS[op].shape(node)[0])
        self.nodes.append(node)
        return out

    def reshape(self, t: Tensor, shape: tuple[int, ...], name: str | None = None, quant: Quant | None = None) -> Tensor:
        """The same bytes with a new shape (and optionally new quantization): in place, free."""
        shape = tuple(int(d) for d in shape)
        quant = quant or t.quant
        if shape == t.shape and quant is t.quant:
            return t
        source = self._reshaped_from.get(t, t)  # view the original bytes: no chains of reshapes
        if source.quant is not None and quant is not None and not same_quant(source.quant, quant):
            source = t
        if source.shape == shape and (source.quant is quant or (source.quant and quant and
                                                                same_quant(source.quant, quant))):
            return source
        out = self.node("reshape", [source], name or t.name, t.dtype, quant, shape=shape)
        self._reshaped_from[out] = source
        return out

    def retag(self, act: Act, quant: Quant) -> Act:
        """The same integers read with another quantization (QOperator inputs that disagree)."""
        if act.tensor.quant is not None and same_quant(act.tensor.quant, quant):
            return act
        return Act(self.reshape(act.tensor, act.tensor.shape, quant=quant), act.perm, act.divisor)

    def to_layout(self, act: Act, perm: tuple[int, ...]) -> Act:
        """`act` stored as onnx.transpose(perm): a reshape if the memory order agrees, else a transpose."""
        if act.perm == perm:
            return act
        key = (act.tensor, act.perm, perm)  # one tensor may be read in two layouts (ONNX Transpose relabels)
        if key not in self._layouts:
            self._layouts[key] = Act(self._move(act, perm), perm, act.divisor)
        return self._layouts[key]

    def _move(self, act: Act, perm: tuple[int, ...]) -> Tensor:
        shape = act.onnx_shape
        new_shape = tuple(shape[p] for p in perm)
        t = act.tensor
        name = f"{t.name}_{''.join(map(str, perm))}"
        if [a for a in act.perm if shape[a] > 1] == [a for a in perm if shape[a] > 1]:
            return self.reshape(t, new_shape, name)
        # A real transpose: over the non-unit axes only, as a 4-D layout_transform.
        src = [a for a in act.perm if shape[a] > 1]
        dst = [a for a in perm if shape[a] > 1]
        if len(src) > 4:
            raise UnsupportedError(f"tensor {t.name!r}: a transpose of {len(src)} non-unit dimensions (at most 4)")
        lead = 4 - len(src)
        src4 = self.reshape(t, (1,) * lead + tuple(shape[a] for a in src), f"{t.name}_4d")
        order = tuple(range(lead)) + tuple(lead + src.index(a) for a in dst)
        moved = self.node("layout_transform", [src4], name, t.dtype, t.quant, {"perm": order})
        return self.reshape(moved, new_shape, name)


def storage_of(data: np.ndarray, rank: int, perm: tuple[int, ...]) -> np.ndarray:
    """A constant broadcastable against an Act of `rank` with layout `perm`, in the Act's storage layout."""
    a = np.asarray(data)
    if a.ndim > rank:
        raise UnsupportedError(f"a {a.ndim}-D constant does not broadcast against a {rank}-D tensor")
    a = a.reshape((1,) * (rank - a.ndim) + a.shape)
    return np.transpose(a, perm)


def as_2d(b: Builder, x: Act, name: str) -> Act:
    """[N, C, L] as [N, C, 1, L], stored NHWC."""
    n, c, length = x.onnx_shape
    x = b.to_layout(x, NLC)
    return Act(b.reshape(x.tensor, (n, 1, length, c), f"{name}_2d"), (0, 2, 3, 1))


def from_2d(b: Builder, y: Act) -> Act:
    n, h, w, c = y.tensor.shape
    return Act(b.reshape(y.tensor, (n, w, c), f"{y.tensor.name}_1d"), NLC)
