"""Measure how far mote's box decoding for TFLite_Detection_PostProcess lies from TFLite Micro's (which
computes e^x with the C library's exp in double, where mote uses its own): every decoded box of many random
anchors and encodings, taken out of the interpreter unsuppressed (IoU threshold 1, no score threshold, one
detection per anchor, anchors ordered by distinct scores), compared corner by corner in ULP.

Usage: python scripts/measure_detection_decode.py [runs]   (1,500 anchors a run; default 100 runs)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # lets the script run from a plain checkout

from mote.frontend.tflite import load_tflite  # noqa: E402
from mote.frontend.tflite_writer import ModelBuilder, flexbuffer_map  # noqa: E402
from mote.reference import interpret  # noqa: E402
from mote.tflm_match import ulp_distance  # noqa: E402

ANCHORS = 1500


def model(rng: np.random.Generator) -> bytes:
    mb = ModelBuilder()
    enc = mb.tensor("box_encodings", [1, ANCHORS, 4], "float32")
    cls = mb.tensor("class_predictions", [1, ANCHORS, 1], "float32")
    anchors = np.concatenate([rng.uniform(0.2, 0.8, (ANCHORS, 2)), rng.uniform(0.05, 0.5, (ANCHORS, 2))], axis=1)
    a = mb.tensor("anchors", [ANCHORS, 4], "float32", data=anchors.astype(np.float32))
    outputs = [mb.tensor("boxes", [1, ANCHORS, 4], "float32"), mb.tensor("classes", [1, ANCHORS], "float32"),
               mb.tensor("scores", [1, ANCHORS], "float32"), mb.tensor("count", [1], "float32")]
    options = {"max_detections": ANCHORS, "max_classes_per_detection": 1, "use_regular_nms": False,
               "nms_score_threshold": -1.0, "nms_iou_threshold": 1.0, "num_classes": 1, "y_scale": 10.0,
               "x_scale": 10.0, "h_scale": 1.0, "w_scale": 1.0}
    mb.custom_op("TFLite_Detection_PostProcess", [enc, cls, a], outputs, flexbuffer_map(options))
    return mb.build([enc, cls], outputs)


def main() -> None:
    from tflite_micro.python.tflite_micro import runtime

    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = np.random.default_rng(11)
    data = model(rng)
    graph = load_tflite(data, "decode")
    interpreter = runtime.Interpreter.from_bytes(data, arena_size=1 << 26)
    values = differ = worst = 0
    for _ in range(runs):
        # centers near the anchors; e^x of the sizes from e^-12 to e^12
        enc = np.concatenate([rng.normal(0, 1, (1, ANCHORS, 2)), rng.uniform(-12, 12, (1, ANCHORS, 2))], axis=2)
        inputs = {"box_encodings": enc.astype(np.float32),
                  "class_predictions": rng.permutation(ANCHORS).reshape(1, ANCHORS, 1).astype(np.float32)}
        interpreter.set_input(inputs["box_encodings"], 0)
        interpreter.set_input(inputs["class_predictions"], 1)
        interpreter.invoke()
        distance = ulp_distance(interpret(graph, inputs)["boxes"], np.array(interpreter.get_output(0)))
        values, differ = values + distance.size, differ + int((distance > 0).sum())
        worst = max(worst, int(distance.max()))
    print(f"{values} corners of {values // 4} boxes: {differ} differ from TFLite Micro's, at most {worst} ULP")


if __name__ == "__main__":
    main()
