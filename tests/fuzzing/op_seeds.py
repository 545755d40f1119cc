"""Seeds for the operators whose tests already build a small model of them: one model per TFLite builtin, taken
from the op's own test (float32 where the op has it, so that mutations reach the float paths too)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.math_binary import BINARY
from mote.ops.math_unary import UNARY
from tests.ops.control_models import bounded_while_model, if_model, stateful_model
from tests.ops.test_add_n import add_n_model
from tests.ops.test_batch_matmul import matmul_model
from tests.ops.test_cast import cast_model
from tests.ops.test_cumsum import cumsum_model
from tests.ops.test_detection_postprocess import detection_model
from tests.ops.test_lookup import gather_nd_model, lookup_model
from tests.ops.test_lstm import lstm_model
from tests.ops.test_math_binary import binary_model
from tests.ops.test_math_unary import model as unary_model
from tests.ops.test_pack import pack_model, unpack_model
from tests.ops.test_prelu import prelu_model
from tests.ops.test_rearrange import CASES as REARRANGE
from tests.ops.test_rearrange import model as rearrange_model
from tests.ops.test_reduce import reduce_model
from tests.ops.test_reduce_all import all_model
from tests.ops.test_resize import resize_model
from tests.ops.test_runtime_shapes import broadcast_args_model, update_slice_model
from tests.ops.test_split import split_model
from tests.ops.test_strided import strided_model
from tests.ops.test_svdf import svdf_model
from tests.ops.test_transpose_conv import transpose_conv_model


def _model(builtin: str, inputs: list[tuple[str, list[int], str]], output: tuple[list[int], str],
           constants: list[tuple[list[int], object]] | None = None, **options: object) -> Callable[[], bytes]:
    """A builder of a one-op model: graph inputs, then constant int32 inputs, and one output."""
    def build() -> bytes:
        mb = ModelBuilder()
        xs = [mb.tensor(name, shape, dtype) for name, shape, dtype in inputs]
        cs = [mb.tensor(f"c{i}", shape, "int32", data=np.asarray(data)) for i, (shape, data) in
              enumerate(constants or [])]
        y = mb.tensor("y", output[0], output[1])
        mb.op(builtin, [*cs, *xs] if builtin == "FILL" else [*xs, *cs], [y], **options)
        return mb.build(xs, [y])
    return build


MODEL_SEEDS: dict[str, Callable[[], bytes]] = {
    **{u.builtin: (lambda b=u.builtin: unary_model(b)) for u in UNARY.values()},
    "LEAKY_RELU": lambda: unary_model("LEAKY_RELU"),
    "LOG_SOFTMAX": _model("LOG_SOFTMAX", [("x", [2, 5], "float32")], ([2, 5], "float32")),
    "L2_NORMALIZATION": _model("L2_NORMALIZATION", [("x", [2, 5], "float32")], ([2, 5], "float32")),
    **{s.builtin: (lambda n=name: binary_model(n, s_dtype(n), [2, 3], [3])) for name, s in BINARY.items()},
    "REDUCE_MAX": lambda: reduce_model("REDUCE_MAX", "float32", [2, 3, 4], [1], False, np.random.default_rng(0)),
    "REDUCE_MIN": lambda: reduce_model("REDUCE_MIN", "int8", [2, 3, 4], [2], True, np.random.default_rng(0)),
    "SUM": lambda: reduce_model("SUM", "int8", [2, 3, 4], [1, 2], False, np.random.default_rng(0)),
    "SPLIT": lambda: split_model("SPLIT", "float32", [2, 6], 1, [3, 3]),
    "SPLIT_V": lambda: split_model("SPLIT_V", "int8", [2, 6], 1, [1, -1, 2]),
    "TRANSPOSE": lambda: strided_model("TRANSPOSE", "float32"),
    "SLICE": lambda: strided_model("SLICE", "int8"),
    "STRIDED_SLICE": lambda: strided_model("STRIDED_SLICE", "float32"),
    "REVERSE_V2": lambda: strided_model("REVERSE_V2", "int16"),
    "PACK": lambda: pack_model("float32", 1),
    "UNPACK": lambda: unpack_model("int8", 1),
    "CAST": lambda: cast_model("float32", "int8"),
    "GATHER": _model("GATHER", [("x", [4, 3], "float32")], ([2, 3], "float32"), [([2], [3, 1])], axis=0),
    "ADD_N": lambda: add_n_model("int8", 3, [2, 5]),
    "GATHER_ND": lambda: gather_nd_model("float32", [5, 4, 3], [2, 2], np.array([[4, 1], [0, 3]])),
    "EMBEDDING_LOOKUP": lambda: lookup_model("int8", "int8", constant=np.array([5, 0, 2, 2])),
    "RESIZE_NEAREST_NEIGHBOR": lambda: resize_model("RESIZE_NEAREST_NEIGHBOR", "int8", (3, 4), (6, 7)),
    "RESIZE_BILINEAR": lambda: resize_model("RESIZE_BILINEAR", "float32", (3, 4), (5, 9), half=True),
    "TRANSPOSE_CONV": lambda: transpose_conv_model("int8", (3, 3), (3, 3), 2, "SAME"),
    "BATCH_MATMUL": lambda: matmul_model("int8", [2, 3, 5], [5, 4]),
    "PRELU": lambda: prelu_model("int8", [2, 3, 4], [4]),
    "REDUCE_ALL": lambda: all_model([3, 4, 2], [1], False),
    "DYNAMIC_UPDATE_SLICE": lambda: update_slice_model("float32", [4, 5], [2, 3]),
    "BROADCAST_ARGS": lambda: broadcast_args_model("int32", 3, 2, ones=True),
    "CUMSUM": lambda: cumsum_model("float32", [3, 4], 1, exclusive=True),
    "SVDF": lambda: svdf_model("int8", "int16", batches=2, rank=2),
    "IF": lambda: if_model("int8"), "WHILE": bounded_while_model,
    **dict.fromkeys(("CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"), lambda: stateful_model("int8")),
    **{REARRANGE[case][0]: (lambda c=REARRANGE[case]: rearrange_model(c[0], "float32", *c[1:4], **c[4]))
       for case in ("depth_to_space", "space_to_depth", "batch_to_space", "space_to_batch_unpadded", "broadcast_to",
                    "mirror_reflect", "padv2")},
    "LOGICAL_NOT": _model("LOGICAL_NOT", [("x", [3, 4], "bool")], ([3, 4], "bool")),
    "EXPAND_DIMS": _model("EXPAND_DIMS", [("x", [3, 4], "float32")], ([3, 1, 4], "float32"), [([1], [1])]),
    "ZEROS_LIKE": _model("ZEROS_LIKE", [("x", [3, 4], "float32")], ([3, 4], "float32")),
    "FILL": _model("FILL", [("v", [], "float32")], ([2, 3], "float32"), [([2], [2, 3])]),
    "SHAPE": _model("SHAPE", [("x", [2, 5], "float32")], ([2], "int32")),
    "SELECT_V2": _model("SELECT_V2", [("c", [3, 1], "bool"), ("x", [3, 4], "float32"), ("z", [4], "float32")],
                        ([3, 4], "float32")),
    "L2_POOL_2D": _model("L2_POOL_2D", [("x", [1, 4, 4, 2], "float32")], ([1, 2, 2, 2], "float32"), padding="VALID",
                         stride_h=2, stride_w=2, filter_height=2, filter_width=2),
    "ARG_MAX": _model("ARG_MAX", [("x", [3, 5], "float32")], ([3], "int32"), [([1], [1])], output_type=2),
    "ARG_MIN": _model("ARG_MIN", [("x", [3, 5], "int8")], ([5], "int32"), [([1], [0])], output_type=2),
    # Every detection written in either NMS mode (nothing below the score threshold, no IoU above 1), so that a
    # mutant that turns on the fast NMS leaves no entry that TFLite Micro keeps stale.
    "TFLite_Detection_PostProcess": lambda: detection_model(boxes=8, classes=2, max_detections=4, regular=True,
                                                            nms_score_threshold=-10.0, nms_iou_threshold=1.0),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": lambda: lstm_model("int8", batches=2, steps=3, cell_clip=0.5),
}


def s_dtype(name: str) -> str:
    """The dtype of an element-wise binary op's seed: float32 where it runs float32, else its first dtype."""
    return "float32" if "float32" in [d.value for d in BINARY[name].dtypes] else BINARY[name].dtypes[0].value
