"""Host time of mote's C against onnxruntime (one thread) on the same quantized ONNX CNNs (issue 7).

Two float CNNs are built here with onnx's helper API (random weights: speed does not depend on
them), quantized with `mote quantize` (onnxruntime's static QDQ quantization) on random calibration
data, then timed: mote's generated C at -O2 against an onnxruntime CPU session, same inputs, medians.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import numpy as np
import onnx
from host_timing import host_cores, host_us  # beside this script
from onnx import TensorProto, helper, numpy_helper

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import load_onnx_model, onnxruntime_us_per_inference, quantize_model
from mote.inputs import random_inputs

REPEATS = 5


def _conv(name: str, x: str, cin: int, cout: int, k: int, stride: int, rng: np.random.Generator,
          init: list, nodes: list) -> str:
    init += [numpy_helper.from_array(rng.normal(0, (2 / (cin * k * k)) ** 0.5, (cout, cin, k, k)).astype(np.float32),
                                     f"{name}_w"),
             numpy_helper.from_array(rng.normal(0, 0.05, cout).astype(np.float32), f"{name}_b")]
    nodes += [helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [f"{name}_c"], strides=[stride, stride],
                               pads=[k // 2] * 4),
              helper.make_node("Relu", [f"{name}_c"], [name])]
    return name


def cnn(layers: list[tuple[int, int, int]], hw: int, classes: int, path: Path) -> None:
    """conv+relu layers (out channels, kernel, stride) -> global average pool -> gemm."""
    rng = np.random.default_rng(0)
    init: list = []
    nodes: list = []
    x, cin = "x", 3
    for i, (cout, k, stride) in enumerate(layers):
        x, cin = _conv(f"conv{i}", x, cin, cout, k, stride, rng, init, nodes), cout
    init.append(numpy_helper.from_array(rng.normal(0, 0.1, (classes, cin)).astype(np.float32), "fc_w"))
    nodes += [helper.make_node("GlobalAveragePool", [x], ["gap"]), helper.make_node("Flatten", ["gap"], ["flat"]),
              helper.make_node("Gemm", ["flat", "fc_w"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, path.stem, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                               [1, 3, hw, hw])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, classes])], init)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


CNNS = {
    "VGG-style 32x32 (6 conv)": ([(16, 3, 1), (16, 3, 1), (32, 3, 2), (32, 3, 1), (64, 3, 2), (64, 3, 1)], 32),
    "MobileNet-style 64x64 (1x1 + 3x3)": ([(16, 3, 2), (32, 1, 1), (32, 3, 2), (64, 1, 1), (64, 3, 2), (128, 1, 1)],
                                          64),
}


def onnx_report() -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="mote-bench-onnx-") as tmp:
        work = Path(tmp)
        for label, (layers, hw) in CNNS.items():
            float_path, q_path = work / "float.onnx", work / "q.onnx"
            cnn(layers, hw, 10, float_path)
            np.savez(work / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (16, 3, hw, hw)).astype(np.float32))
            quantize_model(float_path, work / "cal.npz", q_path)
            model = load_onnx_model(q_path)
            inputs = random_inputs(model.graph, 0)
            mote_us = {core.value: host_us(model.graph, core, work, inputs) for core in host_cores()}
            ort_us = statistics.median(onnxruntime_us_per_inference(q_path, model.conversion, inputs)
                                       for _ in range(REPEATS))
            rows.append((label, compile_graph(model.graph).macs, mote_us, ort_us))
    cores = list(rows[0][2])
    return [
        "## ONNX: mote's C against onnxruntime on the same quantized CNNs", "",
        "Float CNNs built in benchmarks/onnx_cnns.py, quantized by `mote quantize` (QDQ, per-channel int8), "
        "then mote's C (-O2, system cc; kernels as in the host table) against an onnxruntime CPU session with "
        f"one thread, same input; medians of {REPEATS}. Goal: mote at least as fast as onnxruntime.", "",
        "| model | MACs | " + " | ".join(f"mote µs ({c})" for c in cores) + " | onnxruntime µs | "
        + " | ".join(f"onnxruntime / mote ({c})" for c in cores) + " |",
        "|---|---:|" + "---:|" * (2 * len(cores) + 1),
        *[f"| {label} | {macs:,} | " + " | ".join(f"{m[c]:.1f}" for c in cores) + f" | {o:.1f} | "
          + " | ".join(f"{o / m[c]:.2f}x" for c in cores) + " |" for label, macs, m, o in rows], "",
    ]


if __name__ == "__main__":
    print("\n".join(onnx_report()))
