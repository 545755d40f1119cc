"""SOFTMAX against TFLite Micro: random shapes, input scales (log-uniform) and betas, int8 output 1/256 - 128."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS


def softmax_model(rng: np.random.Generator, depth: int | None = None, out_scale: float = 1 / 256,
                  scale: float | None = None) -> bytes:
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 3)))]
    shape.append(depth if depth is not None else int(rng.integers(1, 40)))
    if scale is None:
        scale = float(np.float32(np.exp(rng.uniform(np.log(0.002), np.log(1.0)))))
    beta = float(rng.choice([1.0, float(rng.uniform(0.2, 3.0))]))
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=scale, zero_point=int(rng.integers(-128, 128)))
    y = mb.tensor("y", shape, "int8", scale=out_scale, zero_point=-128)
    mb.op("SOFTMAX", [x], [y], beta=beta)
    return mb.build([x], [y])


def tflm_run(model: bytes, x: np.ndarray) -> np.ndarray:
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    return interp.get_output(0).reshape(x.shape)


def reference_run(model: bytes, x: np.ndarray) -> np.ndarray:
    node = load_tflite(model, "m").nodes[0]
    op = OPS[node.op]
    return op.reference(node, op.prepare(node), [x])[0]


@pytest.mark.parametrize("seed", range(60))
def test_softmax_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = softmax_model(rng)
    shape = tuple(load_tflite(model, "m").inputs[0].shape)
    for _ in range(3):
        x = rng.integers(-128, 128, shape, dtype=np.int8)
        if rng.integers(2):  # values close together: many non-zero probabilities
            x = np.clip(x // 16 + int(rng.integers(-100, 100)), -128, 127).astype(np.int8)
        np.testing.assert_array_equal(reference_run(model, x), tflm_run(model, x))


def test_softmax_wide_rows() -> None:
    """Up to 511 equal entries (TFLite Micro aborts from about 512 on; see mote_softmax_s8.h)."""
    rng = np.random.default_rng(5)
    for depth in (255, 256, 257, 300, 511):
        model = softmax_model(rng, depth)
        shape = tuple(load_tflite(model, "m").inputs[0].shape)
        x = np.full(shape, int(rng.integers(-128, 128)), dtype=np.int8)
        np.testing.assert_array_equal(reference_run(model, x), tflm_run(model, x))


@pytest.mark.parametrize("scale", [2.0**-20, 1e-3, 4.0, 20.0, 40.0, 1000.0])
def test_softmax_extreme_input_scales(scale: float) -> None:
    """From beta * s_in >= 32 on, the multiplier saturates at 2^31 - 1 and only row maxima survive."""
    rng = np.random.default_rng(int(scale * 1000) % 1000)
    model = softmax_model(rng, scale=scale)
    shape = tuple(load_tflite(model, "m").inputs[0].shape)
    for _ in range(3):
        x = rng.integers(-128, 128, shape, dtype=np.int8)
        np.testing.assert_array_equal(reference_run(model, x), tflm_run(model, x))


@pytest.mark.parametrize("seed", range(5))
def test_softmax_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(100 + seed)
    # Seed 4: a saturated input multiplier (shift 31 in TFLite), the C kernel's corner case.
    check_model(softmax_model(rng, scale=40.0 if seed == 4 else None), seeds=2, sanitize=seed in (0, 4))


def test_softmax_rejects_other_output_quantization() -> None:
    model = softmax_model(np.random.default_rng(0), out_scale=1 / 128)
    with pytest.raises(UnsupportedError, match="1/256"):  # refused while loading
        load_tflite(model, "m")
