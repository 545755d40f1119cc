"""The numpy semantics of TFLite_Detection_PostProcess, step for step TFLite Micro's kernel (mirrored by
mote/runtime/mote_box_decode_f32.c, mote_nms_f32.c and mote_detection_postprocess_f32.c).

Decoding (per anchor, center-size encodings [y, x, h, w] against anchors [y, x, h, w]), in double, each
value rounded to float32 once:
  ycenter = y / y_scale * anchor_h + anchor_y          half_h = 0.5 * exp(h / h_scale) * anchor_h
  xcenter = x / x_scale * anchor_w + anchor_x          half_w = 0.5 * exp(w / w_scale) * anchor_w
then in float32 box = [ycenter - half_h, xcenter - half_w, ycenter + half_h, xcenter + half_w]. Every
decoded box must have ymin < ymax and xmin < xmax, else the run fails (as TFLite Micro's does).

Single-class NMS: the anchors whose score is >= the score threshold, sorted by decreasing score (a stable
sort: equal scores keep anchor order), then greedily: take the next candidate still active, deactivate every
later candidate whose IoU with it is > the IoU threshold, until `limit` are taken.

Fast NMS (use_regular_nms false; one class per detection): each anchor's class is the first highest score
of a left-to-right scan (a later score replaces it only if strictly greater, so a NaN never wins unless it
comes first), NMS on those scores with limit max_detections, the detections in selection order.
Regular NMS: NMS per class (limit detections_per_class), each class's detections merged into the list so
far by decreasing score (earlier entries first on ties), the list cut to max_detections.

Outputs: boxes, classes and scores of the detections, then zeros (TFLite Micro's fast NMS leaves the
entries past the detections as they were: mote writes zeros there as its regular NMS does), and the count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ops.float_math import exp_double

F32 = np.float32
# e^x in double overflows above this and rounds to 0 below the other (what the C library's exp gives).
EXP_OVERFLOW = 709.782712893384
EXP_UNDERFLOW = -745.1332191019412
# Beyond +-700, e^x is taken as e^+-700: the float32 result of 0.5 * e^x * anchor is the same (an infinity or
# a zero of the anchor's sign) as with the exact value, since no float32 anchor brings it back into range.
EXP_CLAMP = 700.0


@dataclass(frozen=True)
class DetectionParams:
    num_boxes: int
    box_stride: int  # the box encodings' last dimension (>= 4: the first 4 are read)
    num_classes: int
    label_offset: int  # 1 when the class predictions hold a background class first, else 0
    max_detections: int
    detections_per_class: int
    regular: bool
    score_threshold: float  # float32 values
    iou_threshold: float
    scales: tuple[float, float, float, float]  # y, x, h, w


def exp_wide(x: np.ndarray) -> np.ndarray:
    """e^x in double for the decode (mote_box_decode_f32's exp): mote's exp_double within +-700, the clamps
    beyond."""
    x = np.asarray(x, np.float64)
    inside = exp_double(np.clip(np.where(np.isnan(x), 0.0, x), -EXP_CLAMP, EXP_CLAMP))
    out = np.where(x > EXP_OVERFLOW, np.inf, np.where(x < EXP_UNDERFLOW, 0.0, inside))
    return np.where(np.isnan(x), x, out)


def decode(p: DetectionParams, encodings: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """The decoded boxes [num_boxes, 4] (ymin, xmin, ymax, xmax), float32."""
    enc = np.asarray(encodings, F32).reshape(p.num_boxes, p.box_stride)[:, :4].astype(np.float64)
    anc = np.asarray(anchors, F32).reshape(p.num_boxes, 4).astype(np.float64)
    ys, xs, hs, ws = (float(s) for s in p.scales)
    with np.errstate(all="ignore"):
        ycenter = (enc[:, 0] / ys * anc[:, 2] + anc[:, 0]).astype(F32)
        xcenter = (enc[:, 1] / xs * anc[:, 3] + anc[:, 1]).astype(F32)
        half_h = (0.5 * exp_wide(enc[:, 2] / hs) * anc[:, 2]).astype(F32)
        half_w = (0.5 * exp_wide(enc[:, 3] / ws) * anc[:, 3]).astype(F32)
        return np.stack([ycenter - half_h, xcenter - half_w, ycenter + half_h, xcenter + half_w], axis=1).astype(F32)


def iou(boxes: np.ndarray, i: int, others: np.ndarray) -> np.ndarray:
    """IoU of box i (the one kept) with each of `others`, in float32 as TFLite Micro computes it: std::max
    and std::min as (a < b ? b : a) and (b < a ? b : a), zero when either area is not positive."""
    a, b = boxes[i], boxes[others]
    with np.errstate(all="ignore"):
        area_a = (a[2] - a[0]) * (a[3] - a[1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        ymin = np.where(a[0] < b[:, 0], b[:, 0], a[0])
        xmin = np.where(a[1] < b[:, 1], b[:, 1], a[1])
        ymax = np.where(b[:, 2] < a[2], b[:, 2], a[2])
        xmax = np.where(b[:, 3] < a[3], b[:, 3], a[3])
        h, w = ymax - ymin, xmax - xmin
        inter = np.where(h < 0, F32(0), h) * np.where(w < 0, F32(0), w)
        value = (inter / ((area_a + area_b) - inter)).astype(F32)
    return np.where((area_a <= 0) | (area_b <= 0), F32(0), value)


def nms(p: DetectionParams, boxes: np.ndarray, scores: np.ndarray, limit: int) -> list[int]:
    """Single-class NMS: the anchors selected, in order."""
    keep = np.flatnonzero(scores >= F32(p.score_threshold))
    order = keep[np.argsort(-scores[keep], kind="stable")]  # no NaN is kept: a total order
    active = np.ones(order.size, bool)
    selected: list[int] = []
    for i in range(order.size):
        if len(selected) >= limit:
            break
        if not active[i]:
            continue
        selected.append(int(order[i]))
        rest = i + 1 + np.flatnonzero(active[i + 1:])
        if rest.size:
            active[rest[iou(boxes, int(order[i]), order[rest]) > F32(p.iou_threshold)]] = False
    return selected


def postprocess(p: DetectionParams, encodings: np.ndarray, class_predictions: np.ndarray,
                anchors: np.ndarray, where: str) -> list[np.ndarray]:
    """[boxes [1, max_detections, 4], classes [1, max_detections], scores [1, max_detections], count [1]]."""
    boxes = decode(p, encodings, anchors)
    empty = np.flatnonzero((boxes[:, 0] >= boxes[:, 2]) | (boxes[:, 1] >= boxes[:, 3]))  # NaN passes, as there
    if empty.size:
        bad = int(empty[0])
        raise MoteError(f"{where}: anchor {bad} decodes to an empty box (ymin >= ymax or xmin >= xmax); TFLite Micro "
                        "and the C kernel fail the run the same way")
    scores = np.asarray(class_predictions, F32).reshape(p.num_boxes, -1)[:, p.label_offset:]
    if p.regular:
        anchor, label, score = _regular(p, boxes, scores)
    else:
        anchor, label, score = _fast(p, boxes, scores)
    count = len(anchor)
    out_boxes = np.zeros((p.max_detections, 4), F32)
    out_classes = np.zeros(p.max_detections, F32)
    out_scores = np.zeros(p.max_detections, F32)
    out_boxes[:count] = boxes[anchor]
    out_classes[:count] = label
    out_scores[:count] = score
    return [out_boxes[None], out_classes[None], out_scores[None], np.array([count], F32)]


def _fast(p: DetectionParams, boxes: np.ndarray, scores: np.ndarray) -> tuple[list[int], list[int], list[float]]:
    best, best_score = np.zeros(p.num_boxes, np.int64), scores[:, 0].copy()
    for c in range(1, p.num_classes):  # the scan of a partial sort that keeps one: strictly greater replaces
        better = scores[:, c] > best_score
        best = np.where(better, c, best)
        best_score = np.where(better, scores[:, c], best_score)
    selected = nms(p, boxes, best_score, p.max_detections)
    return selected, [int(best[a]) for a in selected], [float(best_score[a]) for a in selected]


def _regular(p: DetectionParams, boxes: np.ndarray, scores: np.ndarray) -> tuple[list[int], list[int], list[float]]:
    anchor: list[int] = []
    label: list[int] = []
    score = np.zeros(0, F32)
    for c in range(p.num_classes):
        column = np.ascontiguousarray(scores[:, c])
        selected = nms(p, boxes, column, p.detections_per_class)
        anchor, label = anchor + selected, label + [c] * len(selected)
        score = np.concatenate([score, column[selected]]).astype(F32)
        order = np.argsort(-score, kind="stable")[:p.max_detections]  # earlier entries first on ties
        anchor, label, score = [anchor[k] for k in order], [label[k] for k in order], score[order]
    return anchor, label, [float(s) for s in score]
