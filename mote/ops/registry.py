"""The op registry: one `OpDef` per operator, everything the compiler knows about it.

An op module (mote/ops/<op>.py) defines its compile-time parameters (`prepare`: multipliers,
paddings, activation ranges: every constant is computed once, here), its numpy semantics
(`reference`, bit-exact with TFLite Micro's reference kernels), its C binding (`emit`) and its
cost (`macs`), then calls `register`. The reference interpreter and the C code generator both
start from the same `prepare` result, so they cannot disagree about a constant.

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

import numpy as np

from mote.ir import Node, Tensor


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


def _same_kernel(node: Node, params: Any, core: Core) -> Any:
    return params


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
    # The prepared params with the kernel chosen for `core` (prepare chooses for Core.VECTOR).
    specialize: Callable[[Node, Any, Core], Any] = _same_kernel
    in_place: bool = False  # output may alias input 0 (same bytes, new shape)
    # (input index, Overlap): how the chosen kernel lets the output share bytes with that input.
    overlap: Callable[[Node, Any], list[tuple[int, Overlap]]] = _no_overlap
    # For ops an accelerator may run up to the int32 accumulator (mote.accel): the numpy accumulator,
    # bias included, before requantization: (node, params, inputs) -> int64 array, channels last.
    accumulate: Callable[[Node, Any, list[np.ndarray]], np.ndarray] | None = None
    tflite: tuple[str, ...] = field(default_factory=tuple)  # TFLite builtin names it implements
    # What the kernel accepts (input counts, dtypes, ranks, attributes), checked before `shape` and
    # `prepare` run: raises a MoteError naming the node, so that those two cannot fail afterwards.
    check: Callable[[Node], None] = _no_check


OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    assert op.name not in OPS, f"op {op.name} registered twice"
    OPS[op.name] = op
    return op
