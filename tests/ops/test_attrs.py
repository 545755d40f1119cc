"""Op attributes are declared once, with their defaults (OpDef.attrs), and read with `attr`."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import OPS
from mote.ops.registry import attr


def _node(op: str, **attrs: object) -> Node:
    x = Tensor("x", (1, 4, 4, 2), DType.INT8)
    return Node(op, "n", [x], [Tensor("y", (1, 4, 4, 2), DType.INT8)], dict(attrs))


def test_a_missing_attribute_reads_its_default() -> None:
    node = _node("conv2d", stride=(2, 2), padding="SAME")
    assert attr(node, "dilation") == (1, 1) and attr(node, "activation") == "NONE"
    assert attr(node, "stride") == (2, 2)
    assert attr(_node("depthwise_conv2d"), "depth_multiplier") == 1


def test_a_missing_required_attribute_is_a_one_line_error() -> None:
    with pytest.raises(UnsupportedError, match=r"node 'n' \(conv2d\): attribute 'stride' is missing") as e:
        attr(_node("conv2d"), "stride")
    assert "\n" not in str(e.value)


def _attrs_read(func: object) -> set[str]:
    """The names a function passes to `attr` in its own body."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))  # type: ignore[arg-type]
    except (OSError, TypeError):
        return set()
    return {call.args[1].value for call in ast.walk(tree) if isinstance(call, ast.Call)
            and getattr(call.func, "id", None) == "attr" and len(call.args) == 2
            and isinstance(call.args[1], ast.Constant)}


def test_every_attribute_an_op_reads_is_declared() -> None:
    """What each op's own functions (and its kernels') pass to `attr` is declared in its OpDef."""
    checked = 0
    for op in OPS.values():
        funcs = [op.shape, op.prepare, op.reference, op.emit, op.check, op.macs,
                 *[f for k in op.kernels for f in (k.accepts, k.pack)]]
        read = set().union(*map(_attrs_read, funcs))
        assert read <= op.attrs.keys(), f"{op.name} reads undeclared attributes {read - op.attrs.keys()}"
        checked += bool(read)
    assert checked >= 10
