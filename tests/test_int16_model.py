"""The 16x8 bench model (models/int16) runs bit-exact with TFLite Micro on the host, and its
convolutions and fully connected layer take the int32 fast paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import REPO

from mote import pipeline
from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite_file
from mote.targets.rv32 import Rv32, Rv32Config

MODEL = REPO / "models" / "int16" / "digits_cnn_16x8.tflite"


def test_int16_model_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(MODEL.read_bytes(), seeds=3, sanitize=True)


def test_int16_layers_take_the_fast_paths() -> None:
    compiled = compile_graph(load_tflite_file(MODEL))
    kernels = {layer.op: layer.kernel for layer in compiled.layers}
    assert kernels == {"conv2d": "mote_conv_lanes_s16", "reshape": "in place",
                       "fully_connected": "mote_fully_connected_s16"}
    assert ".narrow = 1" in compiled.sources["model.c"]
    assert ".narrow = 0" not in compiled.sources["model.c"]


def test_int16_model_on_rv32_takes_the_blocked_kernels(tmp_path: Path) -> None:
    """On the virtual MCU the 16x8 layers run blocked (mote.ops.blocked_16x8), identical with TFLite Micro,
    in at most 5 instructions per MAC (10.0 with the plain 16x8 kernels)."""
    report = pipeline.run(MODEL, target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path).to_json()
    assert report["bit_exact"]
    kernels = {layer["op"]: layer["kernel"] for layer in report["layers"]}
    assert kernels["conv2d"] == "mote_conv_blocked_s16"
    assert kernels["fully_connected"] == "mote_fully_connected_blocked_s16"
    assert report["instructions"] <= 5 * report["macs"]
