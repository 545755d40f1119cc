"""Which BuiltinOptions table each TFLite builtin operator carries, from the schema's naming rule.

Most builtins follow the rule FOO_BAR -> FooBarOptions; the exceptions are listed. A builtin with no
options table maps to None. The reader (mote.frontend.tflite_checks) refuses an operator that carries
another table than its own; the writer (mote.frontend.tflite_writer) fills the right one.
"""

from __future__ import annotations

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

_EXCEPTIONS: dict[str, str | None] = {
    "AVERAGE_POOL_2D": "Pool2DOptions", "MAX_POOL_2D": "Pool2DOptions", "L2_POOL_2D": "Pool2DOptions",
    "CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions", "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions",
    "MEAN": "ReducerOptions", "SUM": "ReducerOptions", "REDUCE_PROD": "ReducerOptions",
    "REDUCE_MAX": "ReducerOptions", "REDUCE_MIN": "ReducerOptions", "REDUCE_ANY": "ReducerOptions",
    "REDUCE_ALL": "ReducerOptions",
    "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
    "PADV2": "PadV2Options", "L2_NORMALIZATION": "L2NormOptions", "SVDF": "SVDFOptions",
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTMOptions", "LSTM": "LSTMOptions",
    "BATCH_MATMUL": "BatchMatMulOptions", "EMBEDDING_LOOKUP": None, "PRELU": None,
    "LOGISTIC": None, "TANH": None, "RELU": None, "RELU6": None, "RELU_N1_TO_1": None, "RELU_0_TO_1": None,
    "FLOOR": None, "CEIL": None, "ROUND": None, "SIN": None, "LOG": None, "SQRT": None, "RSQRT": None,
    "ELU": None, "BROADCAST_ARGS": None, "CUSTOM": None,
    "RNN": "RNNOptions", "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions", "TOPK_V2": "TopKV2Options",
    "LSH_PROJECTION": "LSHProjectionOptions", "ATAN2": "ATan2Options",
}
_TABLES = {k for k in vars(schema.BuiltinOptions) if not k.startswith("_") and k != "NONE"}
BUILTINS: dict[str, int] = {k: v for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def options_table(builtin: str) -> str | None:
    """The name of `builtin`'s options table (e.g. 'Pool2DOptions'), or None if it has none."""
    if builtin in _EXCEPTIONS:
        return _EXCEPTIONS[builtin]
    name = "".join(part[:1] + part[1:].lower() for part in builtin.split("_")) + "Options"
    return name if name in _TABLES else None
