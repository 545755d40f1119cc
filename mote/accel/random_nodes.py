"""Random single-op nodes, for checking an accelerator's functional model against the reference."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _act(rng: np.random.Generator, shape: tuple[int, ...], name: str) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((float(np.float32(rng.uniform(0.01, 0.1))),),
                                                 (int(rng.integers(-20, 21)),)))


def _weights(rng: np.random.Generator, shape: tuple[int, ...], axis: int) -> Tensor:
    scales = tuple(float(np.float32(s)) for s in rng.uniform(0.002, 0.02, shape[axis]))
    return Tensor("weights", shape, DType.INT8, Quant(scales, (0,) * shape[axis], axis),
                  rng.integers(-127, 128, shape).astype(np.int8))


def _bias(rng: np.random.Generator, n: int) -> Tensor:
    return Tensor("bias", (n,), DType.INT32, None, rng.integers(-3000, 3000, n).astype(np.int32))


def _finish(op: str, inputs: list[Tensor | None], attrs: dict, rng: np.random.Generator) -> Node:
    node = Node(op, f"random {op}", inputs, [_act(rng, (1,), "output")], attrs)  # a placeholder the rule may read
    (shape,) = OPS[op].shape(node)
    node.outputs = [_act(rng, tuple(shape), "output")]
    return node


def _spatial(rng: np.random.Generator) -> dict:
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    return {"stride": (int(rng.integers(1, 3)), int(rng.integers(1, 3))), "padding": str(rng.choice(["SAME", "VALID"])),
            "activation": str(rng.choice(ACTIVATIONS)), "dilation": (1, 1), "_k": k}


def conv2d(rng: np.random.Generator) -> Node:
    a = _spatial(rng)
    kh, kw = a.pop("_k")
    ic, oc = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    x = _act(rng, (1, int(rng.integers(kh, 10)), int(rng.integers(kw, 10)), ic), "input")
    return _finish("conv2d", [x, _weights(rng, (oc, kh, kw, ic), 0), _bias(rng, oc)], a, rng)


def depthwise_conv2d(rng: np.random.Generator) -> Node:
    a = _spatial(rng)
    kh, kw = a.pop("_k")
    c, m = int(rng.integers(1, 9)), int(rng.integers(1, 3))
    x = _act(rng, (1, int(rng.integers(kh, 10)), int(rng.integers(kw, 10)), c), "input")
    return _finish("depthwise_conv2d", [x, _weights(rng, (1, kh, kw, c * m), 3), _bias(rng, c * m)],
                   {**a, "depth_multiplier": m}, rng)


def fully_connected(rng: np.random.Generator) -> Node:
    n_in, n_out = int(rng.integers(1, 64)), int(rng.integers(1, 16))
    w = _weights(rng, (n_out, n_in), 0)
    w = Tensor(w.name, w.shape, w.dtype, Quant((w.quant.scale[0],), (0,)), w.data)  # type: ignore[union-attr]
    return _finish("fully_connected", [_act(rng, (1, n_in), "input"), w, _bias(rng, n_out)],
                   {"activation": str(rng.choice(ACTIVATIONS)), "keep_num_dims": False}, rng)


def _pool(op: str) -> Callable[[np.random.Generator], Node]:
    def make(rng: np.random.Generator) -> Node:
        a = _spatial(rng)
        a.pop("dilation")
        a["filter"] = a.pop("_k")
        x = _act(rng, (1, int(rng.integers(a["filter"][0], 10)), int(rng.integers(a["filter"][1], 10)),
                       int(rng.integers(1, 9))), "input")
        node = _finish(op, [x], a, rng)
        node.outputs[0].quant = x.quant  # pooling keeps its input's quantization
        return node
    return make


def add(rng: np.random.Generator) -> Node:
    shape = (1, int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(1, 9)))
    return _finish("add", [_act(rng, shape, "a"), _act(rng, shape, "b")],
                   {"activation": str(rng.choice(ACTIVATIONS))}, rng)


GENERATORS: dict[str, Callable[[np.random.Generator], Node]] = {
    "conv2d": conv2d, "depthwise_conv2d": depthwise_conv2d, "fully_connected": fully_connected,
    "max_pool2d": _pool("max_pool2d"), "avg_pool2d": _pool("avg_pool2d"), "add": add,
}
