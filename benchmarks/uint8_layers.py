"""Legacy uint8 models on rv32: instructions per MAC of each convolution and depthwise convolution whose
weights have a zero point other than 128 (mote.ops.filter_offset), on the uint8 MobileNet-style test model
(tests/frontend/legacy_uint8.py) at 32x32 and on single layers shaped like MobileNetV1's."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mote.codegen.compile import compile_graph  # noqa: E402
from mote.frontend.tflite import load_tflite  # noqa: E402
from mote.frontend.tflite_writer import ModelBuilder  # noqa: E402
from mote.inputs import random_inputs  # noqa: E402
from mote.ops.registry import Core  # noqa: E402
from mote.targets.rv32 import Rv32Config, build_rv32  # noqa: E402
from tests.frontend.legacy_uint8 import mobilenet_uint8  # noqa: E402


def single_layer(depthwise: bool, size: int, channels: int, out_ch: int, filter_size: int, stride: int,
                 zero_point: int = 97) -> bytes:
    """One uint8 layer with weights spanning 0..255 and zero point `zero_point`, SAME padding, RELU6."""
    rng = np.random.default_rng(1)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, size, size, channels], "uint8", scale=0.0235, zero_point=0)
    shape = [1, filter_size, filter_size, channels] if depthwise else [out_ch, filter_size, filter_size, channels]
    data = rng.integers(0, 256, shape).astype(np.uint8)
    data.reshape(-1)[:2] = [0, 255]
    w = mb.tensor("w", shape, "uint8", scale=0.004, zero_point=zero_point, data=data)
    n = channels if depthwise else out_ch
    b = mb.tensor("b", [n], "int32", scale=float(np.float32(0.0235) * np.float32(0.004)), zero_point=0,
                  data=rng.integers(-3000, 3000, n).astype(np.int32))
    out = -(-size // stride)
    y = mb.tensor("y", [1, out, out, n], "uint8", scale=0.0235, zero_point=0)
    options: dict[str, object] = {"depth_multiplier": 1} if depthwise else {}
    mb.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, w, b], [y], padding="SAME", stride_h=stride,
          stride_w=stride, fused_activation_function="RELU6", **options)
    return mb.build([x], [y])


CASES = {
    "mobilenet_uint8 32x32 (test model)": lambda: mobilenet_uint8(0, 32)[0],
    "conv 3x3 s2, 32x32x3 -> 16": lambda: single_layer(False, 32, 3, 16, 3, 2),
    "depthwise 3x3 s1, 16x16x32": lambda: single_layer(True, 16, 32, 32, 3, 1),
    "depthwise 3x3 s2, 16x16x32": lambda: single_layer(True, 16, 32, 32, 3, 2),
    "pointwise 1x1, 8x8x32 -> 64": lambda: single_layer(False, 8, 32, 64, 1, 1),
}


def measure(label: str, model: bytes, work: Path) -> list[str]:
    graph = load_tflite(model, "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    run = build_rv32(compiled, work, Rv32Config(cc="zig")).run(random_inputs(graph, 0))
    rows = []
    for layer, profile in zip(compiled.layers, run.layers):
        if layer.macs:
            rows.append(f"| {label} | {layer.name} | {layer.kernel} | {layer.macs:,} | {profile.instructions:,} "
                        f"| {profile.instructions / layer.macs:.2f} |")
    return rows


def main() -> None:
    print("| model | layer | kernel | MACs | instructions | per MAC |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, model) in enumerate(CASES.items()):
            for row in measure(label, model(), Path(tmp) / str(i)):
                print(row)


if __name__ == "__main__":
    main()
