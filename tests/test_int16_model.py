"""The 16x8 bench model (models/int16) runs bit-exact with TFLite Micro on the host, and its
convolutions and fully connected layer take the int32 fast paths."""

from __future__ import annotations

from collections.abc import Callable

from conftest import REPO

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite_file

MODEL = REPO / "models" / "int16" / "digits_cnn_16x8.tflite"


def test_int16_model_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(MODEL.read_bytes(), seeds=3, sanitize=True)


def test_int16_layers_take_the_fast_paths() -> None:
    compiled = compile_graph(load_tflite_file(MODEL))
    kernels = {layer.op: layer.kernel for layer in compiled.layers}
    assert kernels == {"conv2d": "mote_conv_s16", "reshape": "in place", "fully_connected": "mote_fully_connected_s16"}
    assert ".narrow = 1" in compiled.sources["model.c"]
    assert ".narrow = 0" not in compiled.sources["model.c"]
