"""TFLite_Detection_PostProcess against TFLite Micro: fast and regular NMS, several anchor and class counts, with
and without a background class, thresholds that keep few or many boxes, tied scores, NaN scores, boxes past
float range, quantized detectors (DEQUANTIZE before the op), an SSD-like model; the reference and the generated
C (sanitized) bit for bit, and both with the interpreter. TFLite Micro's fast NMS leaves the entries past its
detections as they were (stale values of earlier runs): those are compared against mote's zeros only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.errors import BuildError, ModelFileError, MoteError, UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder, flexbuffer_map
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.reference import interpret
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32

F32 = np.float32
CODE = "TFLite_Detection_PostProcess"


def options(num_classes: int, max_detections: int, regular: bool = False, **more: Any) -> dict[str, Any]:
    values: dict[str, Any] = {"max_detections": max_detections, "max_classes_per_detection": 1,
                              "use_regular_nms": regular, "nms_score_threshold": 0.3, "nms_iou_threshold": 0.5,
                              "num_classes": num_classes, "y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0,
                              "w_scale": 5.0}
    values.update(more)
    return {k: v for k, v in values.items() if v is not None}


def anchors_for(boxes: int, seed: int = 1, clustered: bool = False) -> np.ndarray:
    """Anchors (y, x, h, w): on a grid of centers, or a few clusters so that many boxes overlap."""
    rng = np.random.default_rng(seed)
    spread = 0.05 if clustered else 0.3
    centers = rng.choice([0.3, 0.5, 0.7], (boxes, 2)) if clustered else np.full((boxes, 2), 0.5)
    centers = centers + rng.uniform(-spread, spread, (boxes, 2))
    return np.concatenate([centers, rng.uniform(0.1, 0.4, (boxes, 2))], axis=1).astype(F32)


def detection_model(boxes: int = 12, classes: int = 3, max_detections: int = 5, background: bool = True,
                    stride: int = 4, clustered: bool = False, **more: Any) -> bytes:
    """One TFLite_Detection_PostProcess with float32 graph inputs and constant anchors."""
    mb = ModelBuilder()
    enc = mb.tensor("box_encodings", [1, boxes, stride], "float32")
    cls = mb.tensor("class_predictions", [1, boxes, classes + background], "float32")
    anchors = mb.tensor("anchors", [boxes, 4], "float32", data=anchors_for(boxes, clustered=clustered))
    outputs = _outputs(mb, max_detections)
    mb.custom_op(CODE, [enc, cls, anchors], outputs, flexbuffer_map(options(classes, max_detections, **more)))
    return mb.build([enc, cls], outputs)


def _outputs(mb: ModelBuilder, max_detections: int) -> list[int]:
    return [mb.tensor("detection_boxes", [1, max_detections, 4], "float32"),
            mb.tensor("detection_classes", [1, max_detections], "float32"),
            mb.tensor("detection_scores", [1, max_detections], "float32"),
            mb.tensor("num_detections", [1], "float32")]


def inputs_for(graph: Graph, seed: int, levels: int = 0) -> dict[str, np.ndarray]:
    """Box encodings around 0; scores in [0, 1), rounded to `levels` steps (ties) when given."""
    rng = np.random.default_rng(seed)
    enc, cls = graph.inputs[0], graph.inputs[1]
    scores = rng.uniform(0, 1, cls.shape)
    if levels:
        scores = np.round(scores * levels) / levels
    return {enc.name: rng.normal(0, 1, enc.shape).astype(F32), cls.name: scores.astype(F32)}


def tflm(model: bytes, graph: Graph, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 25)
    for i, t in enumerate(graph.inputs):
        interp.set_input(inputs[t.name], i)
    interp.invoke()
    return [np.array(interp.get_output(i)).reshape(t.shape) for i, t in enumerate(graph.outputs)]


def assert_matches(graph: Graph, ours: dict[str, np.ndarray], theirs: list[np.ndarray]) -> int:
    """mote's outputs against TFLite Micro's: the count exactly, the detections bit for bit (NaN equal to NaN),
    mote's zeros past them. Returns the count."""
    names = [t.name for t in graph.outputs]
    count = int(ours[names[3]][0])
    assert theirs[3][0] == count, f"{count} detections, TFLite Micro finds {theirs[3][0]}"
    for name, want in zip(names[:3], theirs[:3]):
        got = ours[name]
        a, b = got[0, :count].view(np.uint32), want[0, :count].view(np.uint32)
        same = (a == b) | (np.isnan(got[0, :count]) & np.isnan(want[0, :count]))
        assert same.all(), f"{name}: {got[0, :count]} != TFLite Micro's {want[0, :count]}"
        assert not got[0, count:].any(), f"{name}: nonzero past the {count} detections"
    return count


def check(model: bytes, tmp_path: Path, frames: list[dict[str, np.ndarray]] | None = None, seeds: int = 4,
          levels: int = 0) -> list[int]:
    """Reference, sanitized C and TFLite Micro on each frame; the detection counts."""
    graph = load_tflite(model, "detect")
    frames = frames or [inputs_for(graph, seed, levels) for seed in range(seeds)]
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(frames)
    counts = []
    for frame, c_out in zip(frames, outputs):
        ours = interpret(graph, frame)
        for name, value in ours.items():
            assert np.array_equal(value.view(np.uint32), c_out[name].view(np.uint32)), f"C differs in {name}"
        counts.append(assert_matches(graph, ours, tflm(model, graph, frame)))
    return counts


CASES = {  # name: model settings and score levels (0: continuous scores)
    "fast": ({"boxes": 12, "classes": 3, "max_detections": 5}, 0),
    "fast_few_kept": ({"boxes": 20, "classes": 4, "max_detections": 8, "nms_score_threshold": 0.9}, 0),
    "fast_clustered_ties": ({"boxes": 40, "classes": 2, "max_detections": 10, "clustered": True}, 4),
    "fast_no_background_wide": ({"boxes": 9, "classes": 1, "max_detections": 3, "background": False,
                                 "stride": 6}, 0),
    "fast_many": ({"boxes": 64, "classes": 6, "max_detections": 20, "nms_score_threshold": 0.05,
                   "nms_iou_threshold": 0.3, "clustered": True}, 0),
    "regular": ({"boxes": 12, "classes": 3, "max_detections": 5, "regular": True}, 0),
    "regular_per_class": ({"boxes": 30, "classes": 5, "max_detections": 10, "regular": True,
                           "detections_per_class": 2, "clustered": True}, 8),
    "regular_few_kept": ({"boxes": 16, "classes": 2, "max_detections": 6, "regular": True,
                          "nms_score_threshold": 0.85, "nms_iou_threshold": 1.0, "background": False}, 0),
    "regular_ties": ({"boxes": 25, "classes": 4, "max_detections": 12, "regular": True, "clustered": True,
                      "nms_iou_threshold": 0.6}, 3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tflite_micro(case: str, tmp_path: Path) -> None:
    settings, levels = CASES[case]
    counts = check(detection_model(**settings), tmp_path, levels=levels)
    assert max(counts) > 0


def test_fewer_detections_than_asked_and_none(tmp_path: Path) -> None:
    model = detection_model(boxes=10, classes=2, max_detections=8, nms_score_threshold=0.8)
    graph = load_tflite(model, "detect")
    frames = [inputs_for(graph, seed) for seed in range(3)]
    frames.append({**frames[0], "class_predictions": np.full((1, 10, 3), 0.25, F32)})  # nothing above 0.8
    counts = check(model, tmp_path, frames)
    assert counts[-1] == 0 and 0 < max(counts) < 8


def test_nan_scores_and_boxes_past_float_range(tmp_path: Path) -> None:
    """A NaN first in an anchor's row wins the fast NMS's scan (and drops the anchor), a later one never; encodings
    whose e^x overflows give infinite boxes, whose IoU is NaN."""
    model = detection_model(boxes=12, classes=3, max_detections=6, nms_score_threshold=0.2)
    graph = load_tflite(model, "detect")
    frame = inputs_for(graph, 5)
    scores, enc = frame["class_predictions"].copy(), frame["box_encodings"].copy()
    scores[0, 1, 1] = np.nan
    scores[0, 2, 3] = np.nan
    scores[0, 3, 1:] = 0.95
    enc[0, 4, 2] = 4000.0  # e^800: an infinite half height
    enc[0, 5, 3] = 3600.0  # e^720: clamped, still infinite once scaled
    regular = detection_model(boxes=12, classes=3, max_detections=6, nms_score_threshold=0.2, regular=True)
    for m in (model, regular):
        check(m, tmp_path / str(len(m) + (m is regular)), [{"box_encodings": enc, "class_predictions": scores}])


def test_an_empty_box_fails_the_run_as_in_tflite_micro(tmp_path: Path) -> None:
    model = detection_model(boxes=6, classes=2, max_detections=3)
    graph = load_tflite(model, "detect")
    frame = inputs_for(graph, 0)
    frame["box_encodings"][0, 2, 2] = -2000.0  # e^-400: half height 0, so ymin == ymax
    with pytest.raises(RuntimeError):
        tflm(model, graph, frame)
    with pytest.raises(MoteError, match="empty box"):
        interpret(graph, frame)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    with pytest.raises(BuildError):
        binary.run(frame)


def quantized_model(dtype: str, boxes: int = 16, classes: int = 3, regular: bool = False) -> bytes:
    """Quantized box encodings and class predictions, each through a DEQUANTIZE into the op, as a quantized
    detector runs it on TFLite Micro."""
    mb = ModelBuilder()
    zero = 128 if dtype == "uint8" else -3
    enc_q = mb.tensor("enc_q", [1, boxes, 4], dtype, scale=0.03, zero_point=zero)
    cls_q = mb.tensor("cls_q", [1, boxes, classes + 1], dtype, scale=1 / 256, zero_point=zero)
    enc = mb.tensor("enc", [1, boxes, 4], "float32")
    cls = mb.tensor("cls", [1, boxes, classes + 1], "float32")
    mb.op("DEQUANTIZE", [enc_q], [enc])
    mb.op("DEQUANTIZE", [cls_q], [cls])
    anchors = mb.tensor("anchors", [boxes, 4], "float32", data=anchors_for(boxes, clustered=True))
    outputs = _outputs(mb, 6)
    settings = options(classes, 6, regular, nms_score_threshold=0.2)
    mb.custom_op(CODE, [enc, cls, anchors], outputs, flexbuffer_map(settings))
    return mb.build([enc_q, cls_q], outputs)


@pytest.mark.parametrize("dtype,regular", [("int8", False), ("int8", True), ("uint8", False)])
def test_quantized_detector_dequantizes_first(dtype: str, regular: bool, tmp_path: Path) -> None:
    model = quantized_model(dtype, regular=regular)
    graph = load_tflite(model, "detect")
    info = np.iinfo(dtype)
    frames = [{t.name: np.random.default_rng(seed + i).integers(info.min, info.max + 1, t.shape).astype(dtype)
               for i, t in enumerate(graph.inputs)} for seed in range(3)]
    assert max(check(model, tmp_path, frames)) > 0


def test_quantized_inputs_are_refused_as_tflite_micro_fails_on_them() -> None:
    mb = ModelBuilder()
    enc = mb.tensor("enc", [1, 4, 4], "int8", scale=0.05, zero_point=0)
    cls = mb.tensor("cls", [1, 4, 3], "int8", scale=1 / 256, zero_point=-128)
    anchors = mb.tensor("anchors", [4, 4], "float32", data=anchors_for(4))
    outputs = _outputs(mb, 2)
    mb.custom_op(CODE, [enc, cls, anchors], outputs, flexbuffer_map(options(2, 2)))
    model = mb.build([enc, cls], outputs)
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(np.zeros((1, 4, 4), np.int8), 0)
    interp.set_input(np.zeros((1, 4, 3), np.int8), 1)
    with pytest.raises(RuntimeError):
        interp.invoke()
    with pytest.raises(UnsupportedError, match="dequantize them before the op"):
        load_tflite(model, "detect")


def _with_options(raw: bytes) -> bytes:
    mb = ModelBuilder()
    enc = mb.tensor("enc", [1, 4, 4], "float32")
    cls = mb.tensor("cls", [1, 4, 3], "float32")
    anchors = mb.tensor("anchors", [4, 4], "float32", data=anchors_for(4))
    outputs = _outputs(mb, 2)
    mb.custom_op(CODE, [enc, cls, anchors], outputs, raw)
    return mb.build([enc, cls], outputs)


@pytest.mark.parametrize("raw,error,message", [
    (b"", ModelFileError, "has no options"),
    (b"\x01\x02\x03\x04", ModelFileError, "not a flexbuffer map"),
    (flexbuffer_map({"max_detections": 2}), ModelFileError, "lack 'max_classes_per_detection'"),
    (flexbuffer_map({**options(2, 2), "num_classes": 2.5}), ModelFileError, "'num_classes' is not an int"),
    (flexbuffer_map(options(2, 2, nms_iou_threshold=0.0)), UnsupportedError, "nms_iou_threshold is 0.0"),
    (flexbuffer_map(options(2, 2, y_scale=0.0)), UnsupportedError, "y_scale is 0.0"),
    (flexbuffer_map(options(2, 2, h_scale=float("inf"))), UnsupportedError, "h_scale is inf"),
    (flexbuffer_map(options(2, 3)), UnsupportedError, "the boxes output"),
    (flexbuffer_map(options(5, 2)), UnsupportedError, "class predictions are"),
    (flexbuffer_map(options(2, 2, max_classes_per_detection=2)), UnsupportedError, "past its outputs"),
    (flexbuffer_map(options(2, 2, regular=True, detections_per_class=0)), UnsupportedError,
     "detections_per_class is 0"),
])
def test_bad_options_are_one_line_errors(raw: bytes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as caught:
        load_tflite(_with_options(raw), "detect")
    assert "\n" not in str(caught.value)


def test_options_default_as_tflite_micro_reads_them() -> None:
    values = options(2, 2)
    del values["use_regular_nms"]
    graph = load_tflite(_with_options(flexbuffer_map(values)), "detect")
    node = graph.nodes[0]
    assert node.op == "detection_postprocess"
    assert node.attrs["detections_per_class"] == 100 and node.attrs["use_regular_nms"] is False


def test_decode_agrees_with_tflite_micro_on_many_boxes(tmp_path: Path) -> None:
    """Every box out, unsuppressed (IoU threshold 1, no score threshold): the decoded corners of 600 anchors with
    encodings from e^-12 to past float range, e^x by mote's own exp against the C library's, are identical."""
    boxes = 600
    model = detection_model(boxes=boxes, classes=1, max_detections=boxes, background=False,
                            nms_score_threshold=-1.0, nms_iou_threshold=1.0, h_scale=1.0, w_scale=1.0)
    rng = np.random.default_rng(7)
    frames = []
    for low, high in ((-1.0, 1.0), (-12.0, 12.0), (-12.0, 100.0)):  # past 88.7: infinite corners
        enc = np.concatenate([rng.normal(0, 1, (1, boxes, 2)), rng.uniform(low, high, (1, boxes, 2))], axis=2)
        frames.append({"box_encodings": enc.astype(F32),
                       "class_predictions": rng.permutation(boxes).reshape(1, boxes, 1).astype(F32)})
    assert check(model, tmp_path, frames) == [boxes] * 3


def ssd_model(quantized: bool, regular: bool) -> bytes:
    """A small SSD-like detector: a stride-2 convolution, then two 1x1 heads (box encodings and class scores for
    2 anchors per cell of a 4x4 map), reshaped to [1, 32, 4] and [1, 32, 4], and the post-processing. Quantized:
    the convolutions in int8, their heads dequantized into the op."""
    rng = np.random.default_rng(3)
    mb = ModelBuilder()
    dtype = "int8" if quantized else "float32"
    q = (lambda s, z=0: {"scale": s, "zero_point": z}) if quantized else (lambda s, z=0: {})
    x = mb.tensor("image", [1, 8, 8, 3], dtype, **q(0.02, -5))

    def weights(name: str, shape: list[int]) -> int:
        if quantized:
            return mb.tensor(name, shape, "int8", scale=0.01, zero_point=0, data=rng.integers(-100, 101, shape))
        return mb.tensor(name, shape, "float32", data=rng.normal(0, 0.3, shape).astype(F32))

    def bias(name: str, n: int, scale: float) -> int:
        if quantized:
            return mb.tensor(name, [n], "int32", scale=scale, zero_point=0, data=rng.integers(-300, 301, n))
        return mb.tensor(name, [n], "float32", data=rng.normal(0, 0.1, n).astype(F32))

    feature = mb.tensor("feature", [1, 4, 4, 8], dtype, **q(0.05, -128))
    mb.op("CONV_2D", [x, weights("w0", [8, 3, 3, 3]), bias("b0", 8, 0.0002)], [feature], padding="SAME",
          stride_h=2, stride_w=2, fused_activation_function="RELU")
    heads = []
    for name, channels, scale in (("box_head", 8, 0.04), ("class_head", 8, 0.02)):
        out = mb.tensor(name, [1, 4, 4, channels], dtype, **q(scale, 3))
        mb.op("CONV_2D", [feature, weights(f"{name}_w", [channels, 1, 1, 8]), bias(f"{name}_b", channels, 0.0005)],
              [out], padding="VALID", fused_activation_function="NONE")
        if quantized:
            real = mb.tensor(f"{name}_float", [1, 4, 4, channels], "float32")
            mb.op("DEQUANTIZE", [out], [real])
            out = real
        flat = mb.tensor(f"{name}_flat", [1, 32, 4], "float32")
        mb.op("RESHAPE", [out, mb.tensor(f"{name}_shape", [3], "int32", data=np.array([1, 32, 4]))], [flat],
              new_shape=[1, 32, 4])
        heads.append(flat)
    cells = [(y, x_) for y in range(4) for x_ in range(4) for _ in range(2)]
    anchors = np.array([[(y + 0.5) / 4, (x_ + 0.5) / 4, 0.3 + 0.2 * (k % 2), 0.3] for k, (y, x_) in enumerate(cells)])
    a = mb.tensor("anchors", [32, 4], "float32", data=anchors.astype(F32))
    outputs = _outputs(mb, 6)
    mb.custom_op(CODE, [heads[0], heads[1], a], outputs,
                 flexbuffer_map(options(3, 6, regular, nms_score_threshold=-0.5 if not quantized else 0.0)))
    return mb.build([x], outputs)


@pytest.mark.parametrize("quantized,regular", [(False, False), (False, True), (True, False), (True, True)])
def test_ssd_like_model(quantized: bool, regular: bool, tmp_path: Path) -> None:
    model = ssd_model(quantized, regular)
    graph = load_tflite(model, "ssd")
    frames = [random_inputs(graph, seed) for seed in range(3)]
    assert max(check(model, tmp_path, frames)) > 0


def test_runs_on_the_virtual_mcu(tmp_path: Path) -> None:
    """rv32 firmware (soft float; no <math.h> on the MCU) gives the reference's outputs bit for bit."""
    model = detection_model(boxes=16, classes=3, max_detections=5, regular=True, clustered=True)
    graph = load_tflite(model, "detect")
    frame = inputs_for(graph, 2, levels=5)
    firmware = build_rv32(compile_graph(graph), tmp_path / "fw", Rv32Config(cc="zig"))
    got = firmware.run(frame).outputs
    for name, want in interpret(graph, frame).items():
        assert np.array_equal(got[name].view(np.uint32), want.view(np.uint32)), name


def test_other_custom_operators_stay_unsupported() -> None:
    mb = ModelBuilder()
    x, y = mb.tensor("x", [1, 4], "float32"), mb.tensor("y", [1, 4], "float32")
    mb.custom_op("TFLite_Detection_PostProcess_v2 */", [x], [y], flexbuffer_map({"a": 1}))
    with pytest.raises(UnsupportedError, match="CUSTOM.*is not supported"):
        load_tflite(mb.build([x], [y]), "custom")


def test_settings_of_the_other_nms_are_not_checked(tmp_path: Path) -> None:
    """As in TFLite Micro: the regular NMS never reads max_classes_per_detection, the fast one never reads
    detections_per_class."""
    check(detection_model(boxes=8, classes=2, max_detections=3, regular=True, max_classes_per_detection=0),
          tmp_path / "regular", seeds=1)
    check(detection_model(boxes=8, classes=2, max_detections=3, detections_per_class=0), tmp_path / "fast", seeds=1)
