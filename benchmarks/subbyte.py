"""Sub-byte weights (issue 20, part 6) on the rv32 virtual platform: weight bytes, ROM, instructions and accuracy
at 8, 4 and 2 bits.

- MLPerf Tiny IC (ResNet-8): its int8 weights narrowed per output channel (mote.passes.narrow_weights: each
  channel's real weights re-quantized symmetrically to 4 or 2 bits, scale = max |w| / ((2^bits - 1) / 2), the
  biases moved to the new scales), so that the same trained network runs at each width. No labelled data ships
  with the model: its accuracy change is the 8-bit model's top-1 class kept, and the mean absolute difference of
  its dequantized outputs, over random inputs.
- The bundled digits CNN as a float ONNX model quantized by `mote quantize --weight-bits 8|4|2`: the report's
  agreement with the float model (top-1, max and mean absolute output difference) on digit-like calibration images.

Run alone: `python benchmarks/subbyte.py`."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mote.codegen.compile import compile_graph  # noqa: E402
from mote.frontend import load  # noqa: E402
from mote.frontend.onnx import load_onnx_model, quantize_model  # noqa: E402
from mote.inputs import random_inputs  # noqa: E402
from mote.ir import Graph, subbyte  # noqa: E402
from mote.ops.registry import Core  # noqa: E402
from mote.passes.narrow_weights import narrow_weights  # noqa: E402
from mote.reference import interpret  # noqa: E402
from mote.targets.rv32 import Rv32Config, build_rv32  # noqa: E402

RESNET = REPO / "models" / "mlperf-tiny" / "pretrainedResnet_quant.tflite"
WIDTHS = (8, 4, 2)
SAMPLES = 16  # random inputs for the accuracy change


def _dequantized(graph: Graph, outputs: dict[str, np.ndarray]) -> np.ndarray:
    t = graph.outputs[0]
    q = outputs[t.name].astype(np.float64)
    return (q - t.zero_point) * t.scale if t.quant is not None else q


def _on_rv32(graph: Graph, work: Path, name: str) -> dict[str, int]:
    compiled = compile_graph(graph, core=Core.SCALAR)
    fw = build_rv32(compiled, work / name, Rv32Config(cc="zig"))
    inputs = random_inputs(graph, 0)
    run = fw.run(inputs)
    assert all(np.array_equal(run.outputs[k], v) for k, v in interpret(graph, inputs).items()), "rv32 != reference"
    weights = sum(subbyte.packed_size(n.inputs[1].size, n.inputs[1].bits) for n in graph.nodes
                  if n.op in ("conv2d", "fully_connected") and n.inputs[1] is not None)
    return {"weight_bytes": weights, "rom": run.rom_bytes, "instructions": run.instructions,
            "kernels": len({x.kernel for x in compiled.layers if "packed" in x.kernel})}


def resnet_rows(work: Path) -> list[dict]:
    base = load(RESNET)
    inputs = [random_inputs(base, seed) for seed in range(SAMPLES)]
    wide = [_dequantized(base, interpret(base, x)) for x in inputs]
    rows = []
    for bits in WIDTHS:
        graph = narrow_weights(load(RESNET), bits)
        outs = [_dequantized(graph, interpret(graph, x)) for x in inputs]
        kept = np.mean([o.argmax() == w.argmax() for o, w in zip(outs, wide)])
        diff = np.mean([np.abs(o - w).mean() for o, w in zip(outs, wide)])
        rows.append({"bits": bits, **_on_rv32(graph, work, f"resnet{bits}"), "top1_kept": kept, "mean_abs": diff})
    return rows


def digits_rows(work: Path) -> list[dict]:
    import onnx

    from tests.frontend.test_onnx_quantize import digit_like, digits_float_onnx

    onnx.save(digits_float_onnx(), work / "digits.onnx")
    np.savez(work / "calib.npz", x=digit_like(np.random.default_rng(0), 64))
    rows = []
    for bits in WIDTHS:
        dst = work / f"digits{bits}.onnx"
        report = quantize_model(work / "digits.onnx", work / "calib.npz", dst, weight_bits=bits)
        graph = load_onnx_model(dst).graph
        rows.append({"bits": bits, **_on_rv32(graph, work, f"digits{bits}"), "top1": report["top1_agreement"],
                     "max_abs": report["max_abs_diff"], "mean_abs": report["mean_abs_diff"]})
    return rows


def subbyte_report(work: Path) -> list[str]:
    resnet, digits = resnet_rows(work), digits_rows(work)
    return [
        "## Sub-byte weights: 8, 4 and 2 bits on rv32", "",
        "Weights of 4 and 2 bits stay packed in flash (2 and 4 a byte) and are unpacked by the CPU kernels as they "
        "run (mote_conv_packed_ring_s8, mote_conv_packed_s8, mote_depthwise_conv_packed_band_s8, "
        "mote_fully_connected_packed_s8); 8 bits runs the usual int8 kernels. Weight "
        "bytes: the conv and fully connected weights as stored; ROM: the firmware's flash (code + constants); "
        "instructions: one inference (zig -O2, rv32imc), outputs bit-exact with mote's reference.", "",
        "MLPerf Tiny IC (ResNet-8), its trained int8 weights narrowed per channel (mote.passes.narrow_weights); "
        f"accuracy change against the 8-bit model over {SAMPLES} random inputs (no labelled data ships with it):",
        "",
        "| weight bits | weight bytes | ROM B | instructions | top-1 of the 8-bit model kept | mean abs output diff |",
        "|---:|---:|---:|---:|---:|---:|",
        *[f"| {r['bits']} | {r['weight_bytes']:,} | {r['rom']:,} | {r['instructions']:.4g} | {r['top1_kept']:.0%} | "
          f"{r['mean_abs']:.4f} |" for r in resnet], "",
        "The digits CNN (float ONNX) quantized by `mote quantize --weight-bits`; accuracy against the float model "
        "on 64 digit-like calibration images (the command's own report):", "",
        "| weight bits | weight bytes | ROM B | instructions | top-1 agreement with float | max abs diff | "
        "mean abs diff |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        *[f"| {r['bits']} | {r['weight_bytes']:,} | {r['rom']:,} | {r['instructions']:.4g} | {r['top1']:.1%} | "
          f"{r['max_abs']:.4f} | {r['mean_abs']:.4f} |" for r in digits], "",
    ]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="mote-bench-subbyte-") as tmp:
        print("\n".join(subbyte_report(Path(tmp))))
