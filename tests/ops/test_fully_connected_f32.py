"""FULLY_CONNECTED in float32 against TFLite Micro, bit for bit: batches, keep_num_dims, no bias, each
fused activation; and the float sine model shipped with the tflite-micro package."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import tflite_micro

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from mote.ops.registry import Core
from tests.ops.float_util import ACTIVATIONS, const, tensor, values

SINE_FLOAT = Path(tflite_micro.__file__).parent / "python" / "tflite_micro" / "sine_float.tflite"

# (input shape, outputs, keep_num_dims, bias)
CASES = [((1, 16), 8, False, True), ((3, 2, 24), 5, True, True), ((4, 40), 17, False, False),
         ((2, 3, 7), 12, False, True)]


def fc_model(rng: np.random.Generator, scale: float) -> bytes:
    mb = ModelBuilder()
    inputs, outputs = [], []
    for i, (shape, outs, keep, bias) in enumerate(CASES):
        depth = shape[-1]
        x = tensor(mb, f"x{i}", shape)
        w = const(mb, f"w{i}", values(rng, (outs, depth), scale))
        b = const(mb, f"b{i}", values(rng, (outs,), scale)) if bias else -1
        out_shape = (*shape[:-1], outs) if keep else (int(np.prod(shape)) // depth, outs)
        y = tensor(mb, f"y{i}", out_shape)
        mb.op("FULLY_CONNECTED", [x, w, b], [y], keep_num_dims=keep,
              fused_activation_function=ACTIVATIONS[(i + int(scale)) % len(ACTIVATIONS)])
        inputs.append(x)
        outputs.append(y)
    return mb.build(inputs, outputs)


@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_fully_connected_f32_matches_tflm(scale: float, check_model: Callable[..., Graph]) -> None:
    graph = check_model(fc_model(np.random.default_rng(int(scale)), scale), seeds=2, sanitize=scale == 1.0)
    assert graph.outputs[1].shape == (3, 2, 5)


def test_blocked_fully_connected_f32_matches_tflm(check_model: Callable[..., Graph]) -> None:
    """mote_fully_connected_blocked_f32 on the scalar core: rows past a set of four, batches, under the sanitizers."""
    model = fc_model(np.random.default_rng(7), 2.0)
    check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    kernels = {layer.kernel for layer in compile_graph(load_tflite(model, "m"), core=Core.SCALAR).layers}
    assert kernels == {"mote_fully_connected_blocked_f32"}


def test_float_sine_model_from_the_tflite_micro_package(check_model: Callable[..., Graph]) -> None:
    graph = check_model(SINE_FLOAT.read_bytes(), seeds=3)
    assert [n.op for n in graph.nodes] == ["fully_connected"] * 3


def test_float_sine_model_through_mote_run() -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(SINE_FLOAT), "--target", "host", "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["bit_exact"] is True
    assert report["tflite_micro"] == {"ran": True, "agrees": True, "mismatches": 0, "max_ulp": 0, "max_ulp_at_scale": 0,
                                     "ulp_bound": 0}
