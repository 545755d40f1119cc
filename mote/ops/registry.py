"""The op registry: one `OpDef` per operator, everything the compiler knows about it.

An op module (mote/ops/<op>.py) defines its compile-time parameters (`prepare`: multipliers,
paddings, activation ranges: every constant is computed once, here), its numpy semantics
(`reference`, bit-exact with TFLite Micro's reference kernels), its C binding (`emit`) and its
cost (`macs`), then calls `register`. The reference interpreter and the C code generator both
start from the same `prepare` result, so they cannot disagree about a constant.

An op with several C kernels lists them as `Kernel` records, fastest first: for a layer and a core,
the first record that serves the core, computes on the layer's dtype and accepts the layer wins
(`choose_kernel`); the last one, the generic integer kernel, always accepts. Records for float32 (and
other dtypes) declare it (`Kernel.dtypes`) and lead the table. A record carries everything about its kernel:
the accept test,
the compile-time packing of its params struct, its scratch, how its output may overlap its input,
and the rv32 assembly twins that replace C files of the library. Adding a variant is one record and
its C file.

Node conventions (the frontends produce these):
  conv2d            inputs [x NHWC, w OHWI, bias int32 | None]; attrs stride=(h, w),
                    dilation=(h, w), padding 'SAME' | 'VALID', activation
  depthwise_conv2d  inputs [x, w 1HW(C*M), bias | None]; attrs as conv2d + depth_multiplier
  fully_connected   inputs [x, w [out, in], bias | None]; attrs activation, keep_num_dims
  avg_pool2d, max_pool2d   inputs [x]; attrs filter=(h, w), stride, padding, activation
  add, sub, mul     inputs [a, b] (numpy broadcasting); attrs activation
  reshape, squeeze  inputs [x, ...]; the output tensor's shape is the result
  softmax           inputs [x]; attrs beta
  logistic, tanh, relu, relu6, quantize, dequantize   inputs [x]
  concatenation     inputs [x0, x1, ...]; attrs axis (non-negative), activation
  pad               inputs [x, paddings int32 [rank, 2]]
  mean              inputs [x, axes int32]; attrs keep_dims
`activation` is one of 'NONE', 'RELU', 'RELU6', 'RELU_N1_TO_1'.
Each op declares its attributes once, with their defaults (`OpDef.attrs`; REQUIRED: none), and reads
them with `attr(node, name)`: a frontend or pass may leave out any attribute that has a default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor


class Emitter(Protocol):
    """What the C code generator offers an op's `emit`."""

    def const(self, data: np.ndarray, hint: str) -> str:
        """Place `data` in flash as a const array; returns its C symbol."""

    def tensor(self, t: Tensor) -> str:
        """A C pointer expression to tensor `t` (in the arena, or a const array)."""


@dataclass(frozen=True)
class CCall:
    """One kernel call in model.c: `func(&<layer>_params, *args, scratch)`.

    `fields` become a `static const <params_type>` with designated initializers; a str value is
    a C expression (e.g. an array symbol), an int is written as a literal.
    """

    func: str
    params_type: str
    fields: dict[str, int | str]
    args: list[str]


@dataclass(frozen=True)
class Overlap:
    """What a kernel lets its output share with an input it reads for the last time: with d the
    output's offset minus the input's, the output may lie anywhere d <= at_most, or anywhere
    d >= at_least (None: not on that side; disjoint is always allowed). A kernel that writes its
    output in the order it reads its input, never ahead of what it has read, gives at_most; one that
    goes backwards, at_least."""

    at_most: int | None = None
    at_least: int | None = None


def _no_macs(node: Node) -> int:
    return 0


def _no_scratch(node: Node, params: Any) -> int:
    return 0


class Core(Enum):
    """The kind of core the generated C runs on, for ops whose fastest kernel depends on it."""

    VECTOR = "vector"  # a host CPU: compilers vectorize the kernels' long dot products
    SCALAR = "scalar"  # an MCU core without SIMD (rv32imc): register-blocked kernels
    VNNI = "vnni"  # an x86-64 host with AVX-512 VNNI: int8 dot products in hardware
    DSP = "dsp"  # an Arm core with the DSP extension (Cortex-M4, M7, M33): dual 16-bit MACs (SMLAD)
    ARMV6M = "armv6m"  # an Armv6-M core (Cortex-M0+): no DSP extension, MULS 32x32->32, eight low registers


def _no_overlap(node: Node, params: Any) -> list[tuple[int, Overlap]]:
    return []


def _no_check(node: Node) -> None:
    return None


@dataclass(frozen=True)
class OpDef:
    name: str
    shape: Callable[[Node], list[tuple[int, ...]]]  # output shapes from inputs and attrs
    prepare: Callable[[Node], Any]  # compile-time constants
    reference: Callable[[Node, Any, list[np.ndarray]], list[np.ndarray]]  # numpy semantics
    emit: Callable[[Node, Any, Emitter], CCall]  # the C kernel binding
    macs: Callable[[Node], int] = _no_macs
    scratch_bytes: Callable[[Node, Any], int] = _no_scratch
    in_place: bool = False  # output may alias input 0 (same bytes, new shape)
    # (input index, Overlap): how the chosen kernel lets the output share bytes with that input.
    overlap: Callable[[Node, Any], list[tuple[int, Overlap]]] = _no_overlap
    # For ops an accelerator may run up to the int32 accumulator (mote.accel): the numpy accumulator,
    # bias included, before requantization: (node, params, inputs) -> int64 array, channels last.
    accumulate: Callable[[Node, Any, list[np.ndarray]], np.ndarray] | None = None
    # TFLite builtin names it implements, or the custom codes of custom operators (mote.frontend.tflite_custom)
    tflite: tuple[str, ...] = field(default_factory=tuple)
    # What the kernel accepts (input counts, dtypes, ranks, attributes), checked before `shape` and
    # `prepare` run: raises a MoteError naming the node, so that those two cannot fail afterwards.
    check: Callable[[Node], None] = _no_check
    # The op's kernel variants, fastest first, the generic one last; empty: `emit`, `scratch_bytes` and
    # `overlap` above are its one kernel.
    kernels: tuple[Kernel, ...] = ()
    # Its attributes, each with its default (REQUIRED: the node must have it); read with `attr`. The
    # TFLite frontend fills each from the options field of the same name in camelCase.
    attrs: Mapping[str, Any] = field(default_factory=dict)
    # The dtypes of the activations it computes on (its first input's), for the supported-operator table.
    dtypes: tuple[DType, ...] = (DType.INT8,)

    def table(self) -> tuple[Kernel, ...]:
        """The op's kernel records (one built from `emit` for an op with a single kernel)."""
        if self.kernels:
            return self.kernels
        return (Kernel("", frozenset(Core), self.emit, scratch_bytes=self.scratch_bytes, overlap=self.overlap),)


def _always(node: Node, params: Any) -> str | None:
    return None


def per_dtype(functions: Mapping[DType, Callable[..., Any]]) -> Callable[..., Any]:
    """One of an op's functions (check, shape, prepare, reference; anything called with the node first)
    that runs the version for the dtype of the node's first input. For `check`, a dtype with no
    version is refused in one line naming the dtypes the op takes; the others run after `check`."""
    names = ", ".join(d.value for d in functions)

    def call(node: Node, *args: Any) -> Any:
        x = node.inputs[0] if node.inputs else None
        function = functions.get(x.dtype) if x is not None else None
        if function is None:
            got = x.dtype.value if x is not None else "missing"
            raise UnsupportedError(f"node {node.name!r} ({node.op}): the input is {got}; the op takes {names}")
        return function(node, *args)

    return call


def dtype_columns(table: Mapping[DType, tuple[Callable[..., Any], ...]]) -> list[Callable[..., Any]]:
    """`per_dtype` of each column of a table {dtype: (check, prepare, reference, ...)}: an op with
    versions per dtype lists them as rows, one line each."""
    width = len(next(iter(table.values())))
    return [per_dtype({d: row[i] for d, row in table.items()}) for i in range(width)]


@dataclass(frozen=True)
class Kernel:
    """One C kernel of an op (see the module docstring)."""

    func: str  # the C function; "" for an op's single kernel, named by the CCall its `pack` returns
    cores: frozenset[Core]  # the cores it is chosen for
    pack: Callable[[Node, Any, Emitter], CCall]  # its params struct, packed at compile time
    # None when it takes the layer, else a short reason why not (shown by `mote compile --explain`).
    accepts: Callable[[Node, Any], str | None] = _always
    scratch_bytes: Callable[[Node, Any], int] = _no_scratch
    # (input index, Overlap): how it lets the output share bytes with that input.
    overlap: Callable[[Node, Any], list[tuple[int, Overlap]]] = _no_overlap
    # rv32 assembly functions (mote.targets.rv32.micro) that replace library C files it calls.
    twins: tuple[str, ...] = ()
    scratch_why: str = "the kernel's working buffer"  # what its scratch holds, for the arena notes
    # The dtypes of the first input it computes on (None: whatever the records before it leave). A record
    # for another dtype is no candidate at all: neither chosen nor listed as declining.
    dtypes: frozenset[DType] | None = None
    # Whether the layer is one of its kind at all (None: any): a record for other layers is, like one for another
    # dtype, no candidate (the sub-byte kernels for layers whose weights are 8 bits wide).
    kind: Callable[[Node], bool] | None = None

    def computes(self, node: Node) -> bool:
        if self.kind is not None and not self.kind(node):
            return False
        x = node.inputs[0] if node.inputs else None
        return self.dtypes is None or (x is not None and x.dtype in self.dtypes)

    def call(self, node: Node, params: Any, em: Emitter) -> CCall:
        """The packed kernel call; a record's packing must name the record's own function."""
        call = self.pack(node, params, em)
        assert not self.func or call.func == self.func, f"{self.func}'s packing calls {call.func}"
        return call


@dataclass(frozen=True)
class Choice:
    """The kernel chosen for a layer, and why each earlier record serving the core declined it."""

    kernel: Kernel
    declined: tuple[tuple[str, str], ...]  # (C function, reason)


def choose_kernel(op: OpDef, node: Node, params: Any, core: Core, skip: frozenset[str] = frozenset()) -> Choice:
    """The first record of `op`'s table that serves `core` and accepts the layer; records whose function is in
    `skip` decline (their weights are over the flash budget, mote.codegen.flash_budget) unless they are the last."""
    declined: list[tuple[str, str]] = []
    table = op.table()
    for kernel in table:
        if core not in kernel.cores or not kernel.computes(node):
            continue
        if kernel.func in skip and kernel is not table[-1]:
            declined.append((kernel.func, "left for the flash budget (--flash-budget)"))
            continue
        reason = kernel.accepts(node, params)
        if reason is None:
            return Choice(kernel, tuple(declined))
        declined.append((kernel.func, reason))
    raise AssertionError(f"op {op.name}: no kernel for {core.value} accepts node {node.name!r} (the last must)")


def kernel_named(func: str) -> Kernel | None:
    """The record of the C function `func`, in any op's table."""
    return next((k for op in OPS.values() for k in op.kernels if k.func == func), None)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # an attribute without a default

# The attributes of the window ops, in one place (conv2d, depthwise_conv2d, the pools).
WINDOW_ATTRS: Mapping[str, Any] = {"stride": REQUIRED, "padding": REQUIRED, "dilation": (1, 1), "activation": "NONE"}
POOL_ATTRS: Mapping[str, Any] = {**WINDOW_ATTRS, "filter": REQUIRED}  # TFLite's pools have no dilation: always 1


def attr(node: Node, name: str) -> Any:
    """The node's attribute `name`, or its op's declared default."""
    if name in node.attrs:
        return node.attrs[name]
    default = OPS[node.op].attrs[name]  # a KeyError here: the op reads an attribute it did not declare
    if default is REQUIRED:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): attribute {name!r} is missing; the model is "
                               "malformed or its converter dropped it")
    return default


OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    assert op.name not in OPS, f"op {op.name} registered twice"
    assert not op.kernels or op.kernels[-1].cores == frozenset(Core), f"op {op.name}: the last kernel serves all"
    OPS[op.name] = op
    return op
