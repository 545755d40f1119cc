"""TRANSPOSE, SLICE, STRIDED_SLICE and REVERSE_V2: copies whose every output element comes from an input
element at an affine position, offset + sum(index_d * stride_d) (strides in elements, negative ones walking
backwards). Python derives the offset and strides at compile time by applying the op to the input's element
indices with numpy; the C kernel (mote_strided_copy) walks the output once. Any dtype TFLite Micro runs
them with: bytes are copied as they are (no requantization: TFLite Micro requires none).

  transpose      inputs [x, perm (constant)]
  slice          inputs [x, begin, size (constant; size -1: to the end)]
  strided_slice  inputs [x, begin, end, strides (constant)]; attrs begin_mask, end_mask, shrink_axis_mask
                 (ellipsis_mask, new_axis_mask and offset are refused, as TFLite Micro refuses them)
  reverse_v2     inputs [x, axes (constant)]
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.copy_plan import MAX_RANK, CopyPlan, copy_call, copy_reference, plan_copy
from mote.ops.registry import OpDef, attr, register

DTYPES = {"transpose": (DType.FLOAT32, DType.INT8, DType.INT16),
          "slice": (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32, DType.BOOL),
          "strided_slice": (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32, DType.BOOL),
          "reverse_v2": (DType.FLOAT32, DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)}
MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _constant(node: Node, index: int, role: str) -> list[int]:
    t = checks.present(node, index, role)
    checks.dtype(node, t, role, DType.INT32, DType.INT64)
    checks.constant(node, t, role)
    return [int(v) for v in np.asarray(t.data).reshape(-1)]


def _strided_slice(node: Node, x: Tensor, index: np.ndarray) -> np.ndarray:
    """TFLite's StridedSlice on an array, masks and all, through numpy's own slicing."""
    begin, end, strides = (_constant(node, i, role) for i, role in ((1, "begin"), (2, "end"), (3, "strides")))
    if not len(begin) == len(end) == len(strides):
        raise checks.fail(node, "begin, end and strides differ in length")
    if 0 in strides:
        raise checks.fail(node, "a stride is 0")
    masks = {m: int(attr(node, m)) for m in MASKS}
    if masks["ellipsis_mask"] or masks["new_axis_mask"] or attr(node, "offset"):
        raise checks.fail(node, "an ellipsis, a new axis or the offset option: TFLite Micro runs none of these; "
                                "convert the model without them")
    key: list[object] = []
    for k, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << k
        if masks["ellipsis_mask"] & bit:
            key.append(Ellipsis)
        elif masks["new_axis_mask"] & bit:
            key.append(np.newaxis)
        elif masks["shrink_axis_mask"] & bit:
            key.append(b)
        else:
            stop = b + e if attr(node, "offset") else e
            key.append(slice(None if masks["begin_mask"] & bit else b, None if masks["end_mask"] & bit else stop, s))
    try:
        return index[tuple(key)]
    except IndexError as e:
        raise checks.fail(node, f"begin {begin} is outside the input {list(x.shape)} ({e})") from None


def positions(node: Node) -> np.ndarray:
    """The input element index of every output element, shaped as the output."""
    x = checks.present(node, 0, "input")
    index = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    if node.op == "transpose":
        perm = _constant(node, 1, "perm")
        if sorted(p % max(len(x.shape), 1) for p in perm) != list(range(len(x.shape))):
            raise checks.fail(node, f"perm {perm} is not a permutation of the input's {len(x.shape)} axes")
        return index.transpose([p % len(x.shape) for p in perm])
    if node.op == "slice":
        begin, size = _constant(node, 1, "begin"), _constant(node, 2, "size")
        if not len(begin) == len(size) == len(x.shape):
            raise checks.fail(node, f"begin {begin} and size {size} do not match the {len(x.shape)}-D input")
        ends = [n if s == -1 else b + s for b, s, n in zip(begin, size, x.shape)]
        if any(b < 0 or e > n or e < b for b, e, n in zip(begin, ends, x.shape)):
            raise checks.fail(node, f"begin {begin} and size {size} reach outside the input {list(x.shape)}")
        return index[tuple(slice(b, e) for b, e in zip(begin, ends))]
    if node.op == "strided_slice":
        return _strided_slice(node, x, index)
    axes = _constant(node, 1, "axes")
    if any(not -len(x.shape) <= a < len(x.shape) for a in axes):
        raise checks.fail(node, f"axes {axes} are out of range for a {len(x.shape)}-D input")
    return np.flip(index, axis=tuple(sorted({a % len(x.shape) for a in axes}))) if axes else index


def check(node: Node) -> None:
    wanted = {"transpose": 2, "slice": 3, "strided_slice": 4, "reverse_v2": 2}[node.op]
    checks.input_count(node, wanted)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *DTYPES[node.op])
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    if len(x.shape) > MAX_RANK:
        raise checks.fail(node, f"the input is {len(x.shape)}-D; the op takes at most {MAX_RANK}-D")
    if positions(node).ndim > MAX_RANK:
        raise checks.fail(node, f"the output is more than {MAX_RANK}-D")


def shape(node: Node) -> list[tuple[int, ...]]:
    return [tuple(int(n) for n in positions(node).shape)]


def prepare(node: Node) -> CopyPlan:
    x = node.inputs[0]
    assert x is not None
    return plan_copy(positions(node), x.dtype.itemsize)


def reference(node: Node, p: CopyPlan, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [copy_reference(inputs[0], positions(node))]


for _name, _builtin in (("transpose", "TRANSPOSE"), ("slice", "SLICE"), ("strided_slice", "STRIDED_SLICE"),
                        ("reverse_v2", "REVERSE_V2")):
    register(OpDef(_name, shape, prepare, reference, copy_call, tflite=(_builtin,), check=check,
                   attrs={**{m: 0 for m in MASKS}, "offset": False} if _name == "strided_slice" else {},
                   dtypes=DTYPES[_name]))
