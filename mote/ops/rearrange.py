"""DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, BROADCAST_TO, MIRROR_PAD and PADV2:
copies planned at compile time (mote.ops.copy_plan), each op applied with numpy to the input's element
indices. Bytes move as they are, as TFLite Micro moves them:

  depth_to_space     attr block_size: out[n, h*b + i, w*b + j, c] = in[n, h, w, (i*b + j)*C' + c]
  space_to_depth     attr block_size: the inverse
  batch_to_space_nd  inputs [x, block_shape, crops (constant)]: batch blocks into space, then cropped
  space_to_batch_nd  inputs [x, block_shape, paddings (constant)]: padded with the output zero point (0
                     unquantized), as TensorFlow defines it (TFLite Micro pads with a byte it never sets),
                     then space blocks into the batch
  broadcast_to       inputs [x, shape (constant)]
  mirror_pad         inputs [x, paddings (constant)]; attr mode: REFLECT (0) or SYMMETRIC (1)
  padv2              inputs [x, paddings, constant_values (constant, optional)]: padded with that value,
                     or with the output zero point (0 when unquantized) when absent
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.copy_plan import MAX_RANK, CopyPlan, copy_call, copy_reference, plan_copy
from mote.ops.registry import OpDef, attr, register

DTYPES = (DType.FLOAT32, DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)
Walk = tuple[np.ndarray, tuple[int, ...]]  # (input positions in output order, output shape): see walk()
INPUTS = {"depth_to_space": (1, 1), "space_to_depth": (1, 1), "batch_to_space_nd": (3, 3),
          "space_to_batch_nd": (3, 3), "broadcast_to": (2, 2), "mirror_pad": (2, 2), "padv2": (2, 3)}


def _constant(node: Node, index: int, role: str) -> np.ndarray:
    t = checks.present(node, index, role)
    checks.dtype(node, t, role, DType.INT32, DType.INT64)
    checks.constant(node, t, role)
    return np.asarray(t.data).astype(np.int64)


def _pairs(node: Node, index: int, rank: int, role: str) -> list[tuple[int, int]]:
    values = _constant(node, index, role)
    if values.size != 2 * rank or np.any(values < 0):
        raise checks.fail(node, f"the {role} must be {rank} pairs of counts of at least 0, got {values.tolist()}")
    return [(int(a), int(b)) for a, b in values.reshape(rank, 2)]


def _block(node: Node, shape: tuple[int, ...]) -> list[int]:
    block = _constant(node, 1, "block shape").reshape(-1).tolist()
    if not block or len(block) > len(shape) - 1 or any(b < 1 for b in block):
        raise checks.fail(node, f"block shape {block} does not fit the {len(shape)}-D input")
    return block


def _depth_to_space(node: Node, index: np.ndarray, inverse: bool) -> Walk:
    b = attr(node, "block_size")
    if not isinstance(b, int) or b < 1 or index.ndim != 4:
        raise checks.fail(node, f"needs a 4-D input and a block size of at least 1, got {list(index.shape)} and {b!r}")
    n, h, w, c = index.shape
    if not inverse:
        if c % (b * b):
            raise checks.fail(node, f"depth {c} is not a multiple of block size {b} squared")
        return index.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5), (n, h * b, w * b, c // (b * b))
    if h % b or w % b:
        raise checks.fail(node, f"height {h} and width {w} are not multiples of block size {b}")
    return index.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5), (n, h // b, w // b, c * b * b)


def _batch_to_space(node: Node, index: np.ndarray) -> Walk:
    block = _block(node, index.shape)
    m = len(block)
    crops = _pairs(node, 2, m, "crops")
    batch, spatial, rest = index.shape[0], index.shape[1:1 + m], index.shape[1 + m:]
    blocks = int(np.prod(block))
    if batch % blocks:
        raise checks.fail(node, f"batch {batch} is not a multiple of the block shape's {blocks} blocks")
    x = index.reshape(*block, batch // blocks, *spatial, *rest)
    order = [m] + [a for d in range(m) for a in (m + 1 + d, d)] + list(range(2 * m + 1, x.ndim))
    x = x.transpose(order)
    if not any(lo or hi for lo, hi in crops):
        return x, (batch // blocks, *(s * b for s, b in zip(spatial, block)), *rest)
    x = x.reshape(batch // blocks, *(s * b for s, b in zip(spatial, block)), *rest)
    cut = tuple(slice(None) if d == 0 or d > m else slice(crops[d - 1][0], x.shape[d] - crops[d - 1][1])
                for d in range(x.ndim))
    if any(lo + hi > x.shape[d + 1] for d, (lo, hi) in enumerate(crops)):
        raise checks.fail(node, f"crops {crops} remove more than the output has")
    return x[cut], x[cut].shape


def _space_to_batch(node: Node, index: np.ndarray) -> Walk:
    block = _block(node, index.shape)
    m = len(block)
    pads = _pairs(node, 2, m, "paddings")
    x = np.pad(index, [(0, 0), *pads, *[(0, 0)] * (index.ndim - 1 - m)], constant_values=-1)
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    if any(s % b for s, b in zip(spatial, block)):
        raise checks.fail(node, f"the padded spatial size {list(spatial)} is not a multiple of the block shape "
                                f"{block}")
    x = x.reshape(batch, *[v for s, b in zip(spatial, block) for v in (s // b, b)], *rest)
    order = [2 + 2 * d for d in range(m)] + [0] + [1 + 2 * d for d in range(m)] + list(range(1 + 2 * m, x.ndim))
    return x.transpose(order), (batch * int(np.prod(block)), *(s // b for s, b in zip(spatial, block)), *rest)


def _broadcast_to(node: Node, index: np.ndarray) -> Walk:
    shape = _constant(node, 1, "shape").reshape(-1).tolist()
    try:
        walk = np.broadcast_to(index, shape)
        return walk, walk.shape
    except ValueError:
        raise checks.fail(node, f"the input {list(index.shape)} does not broadcast to {shape}") from None


def _mirror_pad(node: Node, index: np.ndarray) -> Walk:
    mode = attr(node, "mode")
    if mode not in (0, 1):
        raise checks.fail(node, f"mode {mode!r} is neither REFLECT (0) nor SYMMETRIC (1)")
    pads = _pairs(node, 1, index.ndim, "paddings")
    if any(max(a, b) > n - (1 - mode) for (a, b), n in zip(pads, index.shape)):
        raise checks.fail(node, f"paddings {pads} reach beyond the mirrored input {list(index.shape)}")
    walk = np.pad(index, pads, mode="reflect" if mode == 0 else "symmetric")
    return walk, walk.shape


def walk(node: Node) -> Walk:
    """The input element of every output element (-1: the fill), in an array whose elements in row-major
    order are the output's (a shape of its own keeps a reshaped transpose affine), and the output shape."""
    x = checks.present(node, 0, "input")
    index = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    if node.op in ("depth_to_space", "space_to_depth"):
        return _depth_to_space(node, index, inverse=node.op == "space_to_depth")
    if node.op == "batch_to_space_nd":
        return _batch_to_space(node, index)
    if node.op == "space_to_batch_nd":
        return _space_to_batch(node, index)
    if node.op == "broadcast_to":
        return _broadcast_to(node, index)
    if node.op == "mirror_pad":
        return _mirror_pad(node, index)
    padded = np.pad(index, _pairs(node, 1, index.ndim, "paddings"), constant_values=-1)
    return padded, padded.shape


def _fill(node: Node) -> bytes:
    """The pad element: PADV2's constant value if it has one, else the output zero point (0 unquantized)."""
    out = node.outputs[0]
    value = node.inputs[2] if node.op == "padv2" and len(node.inputs) > 2 else None
    if value is None:
        return np.array(out.zero_point if out.quant else 0, out.dtype.np).tobytes()
    return np.asarray(value.data).astype(out.dtype.np).reshape(-1)[:1].tobytes()


def check(node: Node) -> None:
    checks.input_count(node, *INPUTS[node.op])
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *DTYPES)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    value = node.inputs[2] if node.op == "padv2" and len(node.inputs) > 2 else None
    if value is not None:
        checks.dtype(node, value, "constant value", x.dtype)
        checks.constant(node, value, "constant value")
        if value.size != 1:
            raise checks.fail(node, f"the constant value {value.name!r} has {value.size} values, not 1")
    if len(x.shape) > MAX_RANK or len(walk(node)[1]) > MAX_RANK:
        raise checks.fail(node, f"the input or output has more than {MAX_RANK} dimensions")


def shape(node: Node) -> list[tuple[int, ...]]:
    return [tuple(int(n) for n in walk(node)[1])]


def prepare(node: Node) -> CopyPlan:
    x = node.inputs[0]
    assert x is not None
    return plan_copy(walk(node)[0], x.dtype.itemsize, _fill(node))


def reference(node: Node, p: CopyPlan, inputs: list[np.ndarray]) -> list[np.ndarray]:
    where, out_shape = walk(node)
    return [copy_reference(inputs[0], where, _fill(node)).reshape(out_shape)]


for _name, _builtin, _attrs in (("depth_to_space", "DEPTH_TO_SPACE", {"block_size": 1}),
                                ("space_to_depth", "SPACE_TO_DEPTH", {"block_size": 1}),
                                ("batch_to_space_nd", "BATCH_TO_SPACE_ND", {}),
                                ("space_to_batch_nd", "SPACE_TO_BATCH_ND", {}),
                                ("broadcast_to", "BROADCAST_TO", {}), ("mirror_pad", "MIRROR_PAD", {"mode": 0}),
                                ("padv2", "PADV2", {})):
    register(OpDef(_name, shape, prepare, reference, copy_call, tflite=(_builtin,), check=check, attrs=_attrs,
                   dtypes=DTYPES))
