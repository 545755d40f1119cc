"""Single int8 layers shaped like real models' (MLPerf Tiny, TFLite Micro's examples), one inference each on
the rv32 virtual platform: the kernel mote picks and its instructions per MAC, counted between the layer's
profiler marks. Run alone: `python benchmarks/layer_shapes.py`."""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32

GOAL = 4.0  # instructions per MAC, any conv, depthwise or fully connected layer


@dataclass(frozen=True)
class Layer:
    """One layer: op "conv", "depthwise" or "fc"; in_hwc [h, w, c] (fc: [1, 1, depth]); out channels (depthwise:
    the depth multiplier); filter (h, w); stride (h, w); padding."""

    label: str
    op: str
    in_hwc: tuple[int, int, int]
    out: int
    filt: tuple[int, int] = (1, 1)
    stride: tuple[int, int] = (1, 1)
    padding: str = "SAME"


LAYERS = (
    Layer("micro_speech depthwise", "depthwise", (49, 40, 1), 8, (10, 8), (2, 2)),
    Layer("conv 3x3, 1-channel input", "conv", (32, 32, 1), 8, (3, 3)),
    Layer("conv 5x5, 1-channel input", "conv", (32, 32, 1), 8, (5, 5)),
    Layer("conv 1x7", "conv", (17, 17, 16), 16, (1, 7)),
    Layer("conv 7x1", "conv", (17, 17, 16), 16, (7, 1)),
    Layer("conv 3x1", "conv", (25, 5, 16), 16, (3, 1)),
    Layer("conv 4x4, stride 2", "conv", (32, 32, 8), 16, (4, 4), (2, 2)),
    Layer("pointwise 1x1, 8 input channels (VWW's first)", "conv", (48, 48, 8), 16),
    Layer("depthwise 3x3 (VWW's second)", "depthwise", (48, 48, 16), 1, (3, 3)),
    Layer("depthwise 3x3, stride 2 (VWW's third)", "depthwise", (48, 48, 32), 1, (3, 3), (2, 2)),
    Layer("conv 3x3, stride 2, 3-channel input (VWW's first layer)", "conv", (96, 96, 3), 8, (3, 3), (2, 2)),
    Layer("depthwise 3x3, stride 2 on 12x12 (VWW's sixth depthwise)", "depthwise", (12, 12, 64), 1, (3, 3), (2, 2)),
    Layer("depthwise 3x3 on 6x6 (VWW's seventh to eleventh depthwise)", "depthwise", (6, 6, 128), 1, (3, 3)),
    Layer("depthwise 5x5", "depthwise", (24, 24, 32), 1, (5, 5)),
    Layer("depthwise 7x7", "depthwise", (16, 16, 32), 1, (7, 7)),
    Layer("depthwise 5x5, stride 2", "depthwise", (28, 28, 40), 1, (5, 5), (2, 2)),
    Layer("depthwise 3x3, multiplier 2", "depthwise", (24, 24, 16), 2, (3, 3)),
    Layer("fully connected 250 -> 13", "fc", (1, 1, 250), 13),
    Layer("fully connected 1000 -> 3", "fc", (1, 1, 1000), 3),
    Layer("fully connected 256 -> 2 (VWW's)", "fc", (1, 1, 256), 2),
    Layer("fully connected 64 -> 12 (KWS's)", "fc", (1, 1, 64), 12),
    Layer("fully connected 12 -> 10 (a small classifier's logits)", "fc", (1, 1, 12), 10),
)


def out_len(size: int, filt: int, stride: int, padding: str) -> int:
    return (size + stride - 1) // stride if padding == "SAME" else (size - filt) // stride + 1


def layer_model(layer: Layer, seed: int = 0) -> bytes:
    """The layer as a one-operator .tflite: random int8 weights, per-channel scales, a bias, ReLU."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    h, w, c = layer.in_hwc
    in_scale = 0.05
    x = mb.tensor("x", [1, h, w, c] if layer.op != "fc" else [1, c], "int8", scale=in_scale, zero_point=-7)
    oc = c * layer.out if layer.op == "depthwise" else layer.out
    scales = rng.uniform(0.002, 0.02, oc)
    shape = {"conv": [oc, *layer.filt, c], "depthwise": [1, *layer.filt, oc], "fc": [oc, c]}[layer.op]
    weights = mb.tensor("w", shape, "int8", scale=list(scales), zero_point=0,
                        axis=3 if layer.op == "depthwise" else 0, data=rng.integers(-127, 128, shape))
    bias = mb.tensor("b", [oc], "int32", scale=list(in_scale * scales), zero_point=0,
                     data=rng.integers(-2000, 2000, oc))
    taps = int(np.prod(shape)) // oc
    out_scale = float(in_scale * scales.mean() * 128 * np.sqrt(taps))
    if layer.op == "fc":
        y = mb.tensor("y", [1, oc], "int8", scale=out_scale, zero_point=-128)
        mb.op("FULLY_CONNECTED", [x, weights, bias], [y], fused_activation_function="RELU")
        return mb.build([x], [y])
    oh, ow = (out_len(n, f, s, layer.padding) for n, f, s in zip((h, w), layer.filt, layer.stride))
    y = mb.tensor("y", [1, oh, ow, oc], "int8", scale=out_scale, zero_point=-128)
    options = {"padding": layer.padding, "stride_h": layer.stride[0], "stride_w": layer.stride[1],
               "fused_activation_function": "RELU"}
    if layer.op == "conv":
        mb.op("CONV_2D", [x, weights, bias], [y], **options)
    else:
        mb.op("DEPTHWISE_CONV_2D", [x, weights, bias], [y], depth_multiplier=layer.out, **options)
    return mb.build([x], [y])


def measure_layer(layer: Layer, work: Path) -> dict[str, object]:
    graph = load_tflite(layer_model(layer), "layer")
    compiled = compile_graph(graph, core=Core.SCALAR)
    project = work / "layer-{}".format(re.sub(r"[^a-z0-9]+", "-", layer.label.lower()).strip("-"))
    run = build_rv32(compiled, project, Rv32Config(cc="zig")).run(random_inputs(graph, 0))
    (profile,) = run.layers
    return {"layer": layer, "kernel": compiled.layers[0].kernel, "macs": compiled.macs,
            "instructions": profile.instructions, "per_mac": profile.instructions / compiled.macs,
            "outputs": run.outputs}


def describe(layer: Layer) -> str:
    h, w, c = layer.in_hwc
    if layer.op == "fc":
        return f"{c} -> {layer.out}"
    what = f"x{layer.out} multiplier" if layer.op == "depthwise" else f"-> {layer.out} ch"
    return (f"{h}x{w}x{c} {what}, {layer.filt[0]}x{layer.filt[1]} filter, stride {layer.stride[0]}x{layer.stride[1]}, "
            f"{layer.padding}")


def layer_shapes_report(work: Path) -> list[str]:
    rows = [measure_layer(layer, work) for layer in LAYERS]
    return [
        "## Real-model layer shapes on rv32", "",
        "One int8 layer per model (random weights, per-channel scales, bias, ReLU), built by "
        "`benchmarks/layer_shapes.py`; instructions counted between the layer's profiler marks, compiler zig -O2, "
        f"kernels for a scalar core. Goal: at most {GOAL:g} instructions per MAC.", "",
        "| layer | shape | kernel | MACs | instructions | instr/MAC | goal met |", "|---|---|---|---:|---:|---:|---|",
        *[f"| {r['layer'].label} | {describe(r['layer'])} | {r['kernel']} | {r['macs']:,} | "  # type: ignore[attr-defined]
          f"{r['instructions']:,} | {r['per_mac']:.2f} | {'yes' if float(r['per_mac']) <= GOAL else 'no'} |"  # type: ignore[arg-type]
          for r in rows], "",
    ]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-layers-") as tmp:
        print("\n".join(layer_shapes_report(Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
