"""PAD against TFLite Micro: 1-5-D, random (before, after) on every axis, output zero point as pad value."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS


def pad_model(rng: np.random.Generator, pads: np.ndarray | None = None, rank: int | None = None) -> bytes:
    rank = rank or int(rng.integers(1, 6))
    shape = [int(rng.integers(1, 5)) for _ in range(rank)]
    if pads is None:
        pads = rng.integers(0, 4, (rank, 2)) * (rng.integers(0, 3, (rank, 1)) > 0)  # some axes unpadded
    out_shape = [n + int(b) + int(a) for n, (b, a) in zip(shape, pads)]
    scale, zp = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-128, 128))
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=scale, zero_point=zp)
    p = mb.tensor("paddings", [rank, 2], "int32", data=np.asarray(pads, dtype=np.int32))
    # TFLite Micro copies the input bytes even when the output is quantized differently.
    same = rng.integers(3) > 0
    y = mb.tensor("y", out_shape, "int8", scale=scale if same else scale * 2,
                  zero_point=zp if same else int(rng.integers(-128, 128)))
    mb.op("PAD", [x, p], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("seed", range(40))
def test_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = pad_model(rng)
    node = load_tflite(model, "m").nodes[0]
    x = rng.integers(-128, 128, node.inputs[0].shape, dtype=np.int8)
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x, node.inputs[1].data])[0],
                                  interp.get_output(0).reshape(node.outputs[0].shape))


@pytest.mark.parametrize("seed", range(5))
def test_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    check_model(pad_model(np.random.default_rng(100 + seed)), seeds=2, sanitize=seed == 0)


def test_c_image_style_4d(check_model: Callable[..., object]) -> None:
    """The common NHWC case: pad H and W only (TFLite's "image style" category; same arithmetic)."""
    check_model(pad_model(np.random.default_rng(7), np.array([[0, 0], [1, 2], [2, 1], [0, 0]]), rank=4), seeds=1)


def test_rejects_negative_paddings() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [4, 4], "int8", scale=0.1, zero_point=0)
    p = mb.tensor("paddings", [2, 2], "int32", data=np.array([[0, -1], [1, 1]], dtype=np.int32))
    y = mb.tensor("y", [3, 6], "int8", scale=0.1, zero_point=0)
    mb.op("PAD", [x, p], [y])
    with pytest.raises(UnsupportedError, match="negative"):
        load_tflite(mb.build([x], [y]), "m")
