"""TFLite_Detection_PostProcess, the custom operator that ends SSD-style detectors, as TFLite Micro runs it
(semantics: mote/ops/detection_nms.py).

  detection_postprocess  inputs [box encodings [1, anchors, >= 4], class predictions [1, anchors, classes
                         (+ 1 background)], anchors [anchors, 4]], all float32; outputs (float32) boxes
                         [1, max_detections, 4], classes [1, max_detections], scores [1, max_detections],
                         count [1]; attrs: the custom options (mote.frontend.tflite_custom)

TFLite Micro's kernel computes on float32 only (it fails on int8 and uint8 inputs: a quantized detector
dequantizes before it), and so does mote. With more than one class per detection in the fast NMS, TFLite
Micro's kernel writes its detections at offsets that grow past its outputs; mote refuses that setting.
"""

from __future__ import annotations

import math

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.detection_nms import DetectionParams, postprocess
from mote.ops.float_common import c_float
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register

MAX_DETECTIONS = 1 << 16
ATTRS = {"max_detections": REQUIRED, "max_classes_per_detection": REQUIRED, "detections_per_class": 100,
         "use_regular_nms": False, "nms_score_threshold": REQUIRED, "nms_iou_threshold": REQUIRED,
         "num_classes": REQUIRED, "y_scale": REQUIRED, "x_scale": REQUIRED, "h_scale": REQUIRED,
         "w_scale": REQUIRED}
_OUTPUTS = ("boxes", "classes", "scores", "count")


def _int_attr(node: Node, name: str, low: int, high: int) -> int:
    value = attr(node, name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise checks.fail(node, f"{name} is {value!r}; it must be an integer from {low} to {high}")
    return value


def _float_attr(node: Node, name: str, positive: bool) -> float:
    """The attribute as the float32 TFLite Micro keeps: finite, and above 0 when `positive`."""
    value = attr(node, name)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    with np.errstate(over="ignore"):
        kept = float(np.float32(value)) if number else math.nan
    if not math.isfinite(kept) or (positive and kept <= 0):
        want = "a finite float32 above 0" if positive else "a finite float32"
        raise checks.fail(node, f"{name} is {value!r}; it must be {want}")
    return kept


def _float_input(node: Node, index: int, role: str, rank: int) -> Tensor:
    t = checks.present(node, index, role)
    if t.dtype is not DType.FLOAT32:
        raise checks.fail(node, f"the {role} {t.name!r} is {t.dtype.value}; TFLite Micro's kernel decodes float32 "
                                "only (it fails on quantized inputs): dequantize them before the op")
    checks.rank(node, t, role, rank)
    return t


def check(node: Node) -> None:
    if len(node.inputs) != 3 or len(node.outputs) != 4:
        raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; the op takes 3 "
                                "(box encodings, class predictions, anchors) and produces 4")
    enc = _float_input(node, 0, "box encodings", 3)
    cls = _float_input(node, 1, "class predictions", 3)
    anchors = _float_input(node, 2, "anchors", 2)
    boxes = enc.shape[1]
    if enc.shape[0] != 1 or enc.shape[2] < 4:
        raise checks.fail(node, f"the box encodings are {list(enc.shape)}; they must be [1, anchors, 4 or more]")
    num_classes = _int_attr(node, "num_classes", 1, 1 << 16)
    if cls.shape[0] != 1 or cls.shape[1] != boxes or cls.shape[2] - num_classes not in (0, 1):
        raise checks.fail(node, f"the class predictions are {list(cls.shape)}; with {num_classes} classes they must "
                                f"be [1, {boxes}, {num_classes}] or [1, {boxes}, {num_classes + 1}] (background first)")
    if anchors.shape != (boxes, 4):
        raise checks.fail(node, f"the anchors are {list(anchors.shape)}; they must be [{boxes}, 4] (y, x, h, w)")
    detections = _int_attr(node, "max_detections", 1, MAX_DETECTIONS)
    if not isinstance(attr(node, "use_regular_nms"), bool):
        raise checks.fail(node, f"use_regular_nms is {attr(node, 'use_regular_nms')!r}; it must be true or false")
    regular = attr(node, "use_regular_nms")
    low = -(1 << 31)  # a setting the other NMS reads: any int32, as TFLite Micro takes it
    _int_attr(node, "detections_per_class", 1 if regular else low, (1 << 31) - 1)
    per_anchor = _int_attr(node, "max_classes_per_detection", low if regular else 1, (1 << 31) - 1)
    if not regular and min(per_anchor, num_classes) > 1:
        raise checks.fail(node, f"max_classes_per_detection is {per_anchor}: TFLite Micro's fast NMS writes more "
                                "than one class per detection past its outputs; set it to 1 or use regular NMS")
    _float_attr(node, "nms_score_threshold", positive=False)
    iou = _float_attr(node, "nms_iou_threshold", positive=False)
    if not 0.0 < iou <= 1.0:
        raise checks.fail(node, f"nms_iou_threshold is {iou!r}; TFLite Micro needs it in (0, 1]")
    for name in ("y_scale", "x_scale", "h_scale", "w_scale"):
        _float_attr(node, name, positive=True)
    wanted = [(1, detections, 4), (1, detections), (1, detections), (1,)]
    for role, out, shape in zip(_OUTPUTS, node.outputs, wanted):
        if out.dtype is not DType.FLOAT32 or out.shape != shape:
            raise checks.fail(node, f"the {role} output {out.name!r} is {out.dtype.value} {list(out.shape)}; the op "
                                    f"writes float32 {list(shape)}")


def shape(node: Node) -> list[tuple[int, ...]]:
    detections = attr(node, "max_detections")
    return [(1, detections, 4), (1, detections), (1, detections), (1,)]


def prepare(node: Node) -> DetectionParams:
    enc, cls = node.inputs[0], node.inputs[1]
    assert enc is not None and cls is not None
    num_classes = attr(node, "num_classes")

    def f32(name: str) -> float:  # TFLite Micro keeps the options as float
        return float(np.float32(attr(node, name)))

    return DetectionParams(enc.shape[1], enc.shape[2], num_classes, cls.shape[2] - num_classes,
                           attr(node, "max_detections"), attr(node, "detections_per_class"),
                           bool(attr(node, "use_regular_nms")), f32("nms_score_threshold"), f32("nms_iou_threshold"),
                           (f32("y_scale"), f32("x_scale"), f32("h_scale"), f32("w_scale")))


def reference(node: Node, p: DetectionParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return postprocess(p, inputs[0], inputs[1], inputs[2], f"node {node.name!r} ({node.op})")


def scratch_bytes(node: Node, p: DetectionParams) -> int:
    """mote_detection_postprocess_f32's scratch: decoded boxes (4 floats an anchor), per anchor its best score
    and class and the NMS's order, merge and selection lists (one word each), 6 words per detection for the
    regular NMS's lists, and a byte per anchor for the NMS's active flags."""
    return 4 * (9 * p.num_boxes + 6 * p.max_detections) + p.num_boxes


def emit(node: Node, p: DetectionParams, em: Emitter) -> CCall:
    ys, xs, hs, ws = p.scales
    fields: dict[str, int | str] = {
        "num_boxes": p.num_boxes, "box_stride": p.box_stride, "num_classes": p.num_classes,
        "label_offset": p.label_offset, "max_detections": p.max_detections,
        "detections_per_class": p.detections_per_class if p.regular else 0, "regular_nms": int(p.regular),
        "score_threshold": c_float(p.score_threshold), "iou_threshold": c_float(p.iou_threshold),
        "y_scale": c_float(ys), "x_scale": c_float(xs), "h_scale": c_float(hs), "w_scale": c_float(ws)}
    return CCall("mote_detection_postprocess_f32", "mote_detection_postprocess_params", fields,
                 [em.tensor(t) for t in node.inputs if t is not None] + [em.tensor(t) for t in node.outputs])


OP = register(OpDef("detection_postprocess", shape, prepare, reference, emit, scratch_bytes=scratch_bytes,
                    tflite=("TFLite_Detection_PostProcess",), check=check, attrs=ATTRS, dtypes=(DType.FLOAT32,)))
