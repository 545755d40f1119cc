"""INTEGER_DIV: the integer division of the integer dialect (Deeploy's IntegerDiv / Div_s32_s32), exact:
    n = Delta * eta * a,   d = eta * b + eps,   out = int32((n + sign(n) * (d >> 1)) / d)
in 64-bit integers (C's truncating division, so halves round away from zero; sign(0) = 1), Delta * eta an
int32 product. b is a's shape with ones from some axis on (one denominator per leading index, as Deeploy's
kernel walks it) or a's shape (elementwise).

inputs [a int32, b int32]; output int32; attrs delta, eps, eta. A zero denominator fails (MoteError in the
reference, an error status in C).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, c_div, wrap
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class IntegerDivParams:
    groups: int  # denominators (b's size)
    inner: int  # numerators per denominator, consecutive
    delta_eta: int
    eta: int
    eps: int


def check(node: Node) -> None:
    checks.input_count(node, 2)
    a, b = checks.present(node, 0, "numerator"), checks.present(node, 1, "denominator")
    for t, role in ((a, "numerator"), (b, "denominator"), (node.outputs[0], "output")):
        checks.dtype(node, t, role, DType.INT32)
    if len(b.shape) != len(a.shape) or b.size == 0 or not _prefix(a.shape, b.shape):
        raise checks.fail(node, f"the denominator's shape {list(b.shape)} is not the numerator's {list(a.shape)} "
                                "with ones from some axis on")
    delta_eta = int(attr(node, "delta")) * int(attr(node, "eta"))
    if max(abs(delta_eta), abs(int(attr(node, "eta"))), abs(int(attr(node, "eps")))) > INT32_MAX:
        raise checks.fail(node, "Delta * eta, eta and eps must fit int32")


def _prefix(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """b = a[:k] + (1,) * (rank - k) for some k."""
    k = len(b)
    while k > 0 and b[k - 1] == 1:
        k -= 1
    return tuple(b[:k]) == tuple(a[:k])


def shape(node: Node) -> list[tuple[int, ...]]:
    a = node.inputs[0]
    assert a is not None
    return [a.shape]


def prepare(node: Node) -> IntegerDivParams:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return IntegerDivParams(b.size, a.size // b.size, int(attr(node, "delta")) * int(attr(node, "eta")),
                            int(attr(node, "eta")), int(attr(node, "eps")))


def reference(node: Node, p: IntegerDivParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    n = np.asarray(inputs[0], np.int64).reshape(p.groups, p.inner) * p.delta_eta
    d = np.asarray(inputs[1], np.int64).reshape(p.groups, 1) * p.eta + p.eps
    if np.any(d == 0):
        raise MoteError(f"node {node.name!r} (integer_div): a zero denominator (eta * b + eps); the C kernel "
                        "fails the same way")
    out = c_div(n + np.where(n >= 0, 1, -1) * (d >> 1), d)
    return [wrap(out, 32).astype(np.int32).reshape(inputs[0].shape)]


def emit(node: Node, p: IntegerDivParams, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return CCall("mote_integer_div_s32", "mote_integer_div_params",
                 {"groups": p.groups, "inner": p.inner, "delta_eta": p.delta_eta, "eta": p.eta, "eps": p.eps},
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


OP = register(OpDef("integer_div", shape, prepare, reference, emit, check=check,
                    attrs={"delta": REQUIRED, "eps": REQUIRED, "eta": REQUIRED}, dtypes=(DType.INT32,)))
