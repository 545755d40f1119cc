"""Legacy uint8 models on rv32: instructions per MAC of each convolution and depthwise convolution whose
weights have a zero point other than 128 (mote.ops.filter_offset), on the uint8 MobileNet-style test model
(tests/frontend/legacy_uint8.py) at 32x32 and on single layers shaped like MobileNetV1's."""

from __future__ import annotations

import re
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
                 zero_point: int) -> bytes:
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


LAYERS = {  # (depthwise, size, channels, out_ch, filter, stride)
    "conv 3x3 s2, 32x32x3 -> 16": (False, 32, 3, 16, 3, 2),
    "depthwise 3x3 s1, 16x16x32": (True, 16, 32, 32, 3, 1),
    "depthwise 3x3 s2, 16x16x32": (True, 16, 32, 32, 3, 2),
    "pointwise 1x1, 8x8x32 -> 64": (False, 8, 32, 64, 1, 1),
    "pointwise 1x1, 4x4x128 -> 128": (False, 4, 128, 128, 1, 1),
    "logits 1x1, 1x1x256 -> 1001": (False, 1, 256, 1001, 1, 1),
}
# Each layer with weights zero point 97, then 128 (no filter offset: the int8 table) for comparison.
def trained_like(rng: np.random.Generator, shape: list[int], zero_point: int) -> np.ndarray:
    """uint8 weights as min/max quantization leaves trained ones: most near the zero point (a spread of 20),
    a few outliers at 0 and 255, the ends of the range."""
    w = np.clip(np.rint(rng.normal(zero_point, 20, shape)), 0, 255).astype(np.uint8)
    w.reshape(-1)[:2] = [0, 255]
    return w


def mobilenet_v1_uint8(size: int = 96, alpha: float = 0.25) -> bytes:
    """MobileNetV1's layers (alpha 0.25, as Visual Wake Words has them) and its 1001-class logits as a legacy
    uint8 model: weights as `trained_like`, each layer's weight zero point drawn in 40..215 (never 128), RELU6
    activations."""
    rng = np.random.default_rng(2)
    mb = ModelBuilder()
    q = (0.0235, 0)  # RELU6's range
    x = mb.tensor("input", [1, size, size, 3], "uint8", scale=0.0078, zero_point=128)
    first, xq, h, c = x, (0.0078, 128), size, 3
    plan = [(False, int(32 * alpha), 2)] + [
        layer for out, stride in ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), *[(512, 1)] * 5,
                                  (1024, 2), (1024, 1))
        for layer in ((True, 0, stride), (False, int(out * alpha), 1))]
    for i, (depthwise, out_ch, stride) in enumerate(plan):
        n = c if depthwise else out_ch
        shape = [1, 3, 3, c] if depthwise else [out_ch, 1 if i else 3, 1 if i else 3, c]
        zp = int(rng.choice([z for z in range(40, 216) if z != 128]))
        data = trained_like(rng, shape, zp)
        w = mb.tensor(f"w{i}", shape, "uint8", scale=0.02, zero_point=zp, data=data)
        b = mb.tensor(f"b{i}", [n], "int32", scale=float(np.float32(xq[0]) * np.float32(0.02)), zero_point=0,
                      data=rng.integers(-3000, 3000, n).astype(np.int32))
        h = -(-h // stride)
        y = mb.tensor(f"{'dw' if depthwise else 'conv'}{i}", [1, h, h, n], "uint8", scale=q[0], zero_point=q[1])
        options: dict[str, object] = {"depth_multiplier": 1} if depthwise else {}
        mb.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, w, b], [y], padding="SAME", stride_h=stride,
              stride_w=stride, fused_activation_function="RELU6", **options)
        x, xq, c = y, q, n
    pool = mb.tensor("pool", [1, 1, 1, c], "uint8", scale=q[0], zero_point=q[1])
    mb.op("AVERAGE_POOL_2D", [x], [pool], padding="VALID", stride_h=h, stride_w=h, filter_height=h, filter_width=h)
    data = trained_like(rng, [1001, 1, 1, c], 83)
    w = mb.tensor("w_logits", [1001, 1, 1, c], "uint8", scale=0.01, zero_point=83, data=data)
    b = mb.tensor("b_logits", [1001], "int32", scale=float(np.float32(q[0]) * np.float32(0.01)), zero_point=0,
                  data=rng.integers(-3000, 3000, 1001).astype(np.int32))
    logits = mb.tensor("logits", [1, 1, 1, 1001], "uint8", scale=0.1, zero_point=66)
    mb.op("CONV_2D", [pool, w, b], [logits], padding="SAME", stride_h=1, stride_w=1)
    return mb.build([first], [logits])


CASES = {"mobilenet_uint8 32x32 (test model)": lambda: mobilenet_uint8(0, 32)[0],
         "MobileNetV1 0.25, 96x96, uint8": mobilenet_v1_uint8,
         **{f"{label}, zp {zp}": (lambda shape=shape, zp=zp: single_layer(*shape, zero_point=zp))
            for label, shape in LAYERS.items() for zp in (97, 128)}}


def measure(label: str, model: bytes, work: Path) -> list[str]:
    graph = load_tflite(model, "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    run = build_rv32(compiled, work, Rv32Config(cc="zig")).run(random_inputs(graph, 0))
    rows = [f"| {label} | all | | {compiled.macs:,} | {run.instructions:,} | {run.instructions / compiled.macs:.2f} |"]
    for layer, profile in zip(compiled.layers, run.layers):
        if layer.macs:
            rows.append(f"| {label} | {layer.name} | {layer.kernel} | {layer.macs:,} | {profile.instructions:,} "
                        f"| {profile.instructions / layer.macs:.2f} |")
    return rows


RESULTS = REPO / "benchmarks" / "RESULTS.md"
BEGIN, END = "<!-- uint8:begin -->", "<!-- uint8:end -->"


def write_results(section: str) -> None:
    """Replace the uint8 section of RESULTS.md (or append it); benchmarks/run.py carries it over."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text.rstrip("\n") + "\n")


def main() -> None:
    lines = [BEGIN, "## Legacy uint8 layers with a weights zero point on rv32", "",
             "Written by `python benchmarks/uint8_layers.py --write`: instructions per MAC on the rv32 virtual "
             "platform (zig, -O2, rv32imc, scalar kernels), per layer between its markers; `all` is the whole "
             "inference (boundary flips included). Single layers with weights zero point 97 run on the uint8 "
             "kernels (mote.ops.filter_offset), the same with zero point 128 on the int8 table (whose weight 0, "
             "-128 after the shift, the int8 blocked kernels do not take: mote_conv_blocked_wide_s8).", "",
             "Still above 4 on the test model: pw3 (8 taps an output, weights drawn uniformly over 0..255, so that "
             "almost no group of four taps may share a rounding: per output about 18 instructions of paired "
             "products, 3 to start from the bias and the window's sum times the sum scale, 5 of output stage, 4 "
             "to pack the input) and the logits (one pixel, 12 MACs an output), now a fully connected layer on "
             "mote_conv_row_pairs_s8 (two rows' products per multiply, mote.ops.fully_connected_row_pairs; 10.2 "
             "per MAC on the 1x1 blocked kernel before): about 2.6 per MAC of products, 1.8 of output stage (the "
             "shortcuts in line, a call for an output between them) and 3 of the call's entry, setup and block loops "
             "in C. At most 4 would need all of it in about 480 instructions, which only a straight-line routine "
             "in assembly laid out for the layer could do (benchmarks/layer_shapes.py's 12 -> 10 row has the same "
             "shape in int8).", "",
             "| model | layer | kernel | MACs | instructions | per MAC |", "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, model) in enumerate(CASES.items()):
            lines += measure(label, model(), Path(tmp) / str(i))
    lines.append(END)
    print("\n".join(lines))
    if "--write" in sys.argv[1:]:
        write_results("\n".join(lines))


if __name__ == "__main__":
    main()
