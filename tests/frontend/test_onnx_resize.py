"""ONNX Resize as exporters write it (PyTorch's interpolate, tf2onnx, the ONNX defaults), quantized by
onnxruntime: nearest copies int8 values, bit for bit onnxruntime's in QDQ and QOperator models; linear runs
in float32 between DEQUANTIZE and QUANTIZE (QDQ)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from mote.errors import UnsupportedError
from mote.frontend.onnx import convert
from tests.frontend.onnx_exporters import quantize
from tests.frontend.onnx_util import model
from tests.frontend.test_onnx_exporters import lsb_diff

N = helper.make_node


def resize_model(mode: str, coords: str, nearest: str | None = None, scales: list[float] | None = None,
                 sizes: list[int] | None = None, shape: tuple[int, ...] = (1, 3, 5, 7)) -> onnx.ModelProto:
    """x -> Concat(x, x) -> Resize -> Concat: exact neighbours, so the Resize alone is measured."""
    attrs: dict = {"mode": mode, "coordinate_transformation_mode": coords}
    if nearest:
        attrs["nearest_mode"] = nearest
    if scales is not None:
        inputs, inits = ["a", "", "scales"], {"scales": np.array(scales, np.float32)}
    else:
        inputs, inits = ["a", "", "", "sizes"], {"sizes": np.array(sizes, np.int64)}
    nodes = [N("Concat", ["x", "x"], ["a"], axis=1), N("Resize", inputs, ["z"], name="resize", **attrs),
             N("Concat", ["z", "z"], ["y"], axis=1)]
    return model(nodes, {"x": shape}, ["y"], inits)


NEAREST = {
    "pytorch_interpolate_x2": lambda: resize_model("nearest", "asymmetric", "floor", scales=[1, 1, 2, 2]),
    "onnx_default_x2": lambda: resize_model("nearest", "half_pixel", "round_prefer_floor", scales=[1, 1, 2, 2]),
    "onnx_default_sizes": lambda: resize_model("nearest", "half_pixel", "round_prefer_floor", sizes=[1, 6, 8, 10]),
    "tf2onnx_half_pixel": lambda: resize_model("nearest", "tf_half_pixel_for_nn", "floor", sizes=[1, 6, 10, 14]),
    "align_corners": lambda: resize_model("nearest", "align_corners", "round_prefer_ceil", sizes=[1, 6, 9, 13]),
    "downsample": lambda: resize_model("nearest", "asymmetric", "floor", sizes=[1, 6, 3, 4]),
}


@pytest.mark.parametrize("fmt", ["qdq", "qoperator"])
@pytest.mark.parametrize("name", sorted(NEAREST))
def test_nearest_resize_is_onnxruntimes(name: str, fmt: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(len(name))
    q = quantize(NEAREST[name](), rng, fmt)
    kinds = [n.op for n in convert(q, "t").graph.nodes]
    assert "resize_nearest_neighbor" in kinds and "dequantize" not in kinds[:-1]  # int8 throughout
    worst, _ = lsb_diff(q, host=tmp_path if name == "onnx_default_sizes" else None)
    assert worst == 0


@pytest.mark.parametrize("coords, scales, sizes", [("half_pixel", [1, 1, 2, 2], None),
                                                   ("pytorch_half_pixel", None, [1, 6, 9, 12]),
                                                   ("align_corners", None, [1, 6, 9, 13]),
                                                   ("asymmetric", [1, 1, 2, 2], None)])
def test_linear_resize_in_float(coords: str, scales: list[float] | None, sizes: list[int] | None,
                                tmp_path: Path) -> None:
    """Interpolated quantized values often fall on half steps, where the ULPs between TFLite's weights and
    onnxruntime's decide the rounding (and the Concat after it requantizes once more)."""
    rng = np.random.default_rng(len(coords))
    q = quantize(resize_model("linear", coords, scales=scales, sizes=sizes), rng)
    kinds = [n.op for n in convert(q, "t").graph.nodes]
    assert kinds[kinds.index("resize_bilinear") - 2:][:4] == ["dequantize", "layout_transform", "resize_bilinear",
                                                               "quantize"]
    worst, differ = lsb_diff(q, host=tmp_path if coords == "half_pixel" else None)
    assert worst <= 2 and differ <= 0.03, (worst, differ)


def error(m: onnx.ModelProto) -> str:
    with pytest.raises(UnsupportedError) as info:
        convert(m, "net")
    assert "\n" not in str(info.value) and "'resize'" in str(info.value)
    return str(info.value)


def test_resize_variants_mote_cannot_run() -> None:
    rng = np.random.default_rng(0)
    cubic = quantize(resize_model("cubic", "half_pixel", scales=[1, 1, 2, 2]), rng)
    assert "mode 'cubic'" in error(cubic)
    no_such = quantize(resize_model("nearest", "tf_half_pixel_for_nn", "round_prefer_ceil", sizes=[1, 6, 10, 14]),
                       rng)
    assert "no TFLite resize picks" in error(no_such)
    huge = quantize(resize_model("nearest", "asymmetric", "floor", scales=[1, 1, 2, 2]), rng)
    scales = next(t for t in huge.graph.initializer if t.name == "scales")
    scales.CopyFrom(numpy_helper.from_array(np.array([1, 1, 1e5, 1e5], np.float32), "scales"))
    del huge.graph.value_info[:]
    huge.graph.output[0].type.tensor_type.ClearField("shape")
    assert "over mote's limit" in error(huge)
    channels = quantize(resize_model("nearest", "asymmetric", "floor", scales=[1, 2, 2, 2]), rng)
    assert "must be 1 for N and C" in error(channels)
    int8_linear = quantize(resize_model("linear", "half_pixel", scales=[1, 1, 2, 2]), rng, "qoperator")
    for n in int8_linear.graph.node:
        if n.op_type == "Resize":
            n.name = "resize"
    assert "QDQ" in error(int8_linear)
