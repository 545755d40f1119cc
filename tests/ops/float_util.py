"""Helpers of the float32 op tests: random constants and single-op layers added to a ModelBuilder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def values(rng: np.random.Generator, shape: Sequence[int], scale: float = 1.0) -> np.ndarray:
    """float32 values of mixed magnitudes, so that the order of a sum changes its last bits."""
    return (rng.standard_normal(list(shape)) * scale * np.exp(rng.uniform(-3, 3, list(shape)))).astype(np.float32)


def const(mb: ModelBuilder, name: str, data: np.ndarray) -> int:
    return mb.tensor(name, list(data.shape), "float32", data=data)


def tensor(mb: ModelBuilder, name: str, shape: Sequence[int]) -> int:
    return mb.tensor(name, list(shape), "float32")
