"""Single-op models for probing which (builtin, dtype) the tflite-micro interpreter runs: one recipe per
builtin, taking the activation dtype. Quantized dtypes get the output quantization the kernel insists on
(LOGISTIC's 1/256 and -128, ...), so that a refusal means the dtype, not the numbers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "bool", "float32")
Recipe = Callable[[str], bytes]
# Output quantizations the integer kernels require: (scale, zero point) for int8 and int16.
FIXED_OUTPUT = {"LOGISTIC": {"int8": (1 / 256, -128), "int16": (1 / 32768, 0)},
                "TANH": {"int8": (1 / 128, 0), "int16": (1 / 32768, 0)},
                "SOFTMAX": {"int8": (1 / 256, -128), "int16": (1 / 32768, 0)},
                "LOG_SOFTMAX": {"int8": (16 / 256, 127)},
                "L2_NORMALIZATION": {"int8": (1 / 128, 0)}}


def _q(dtype: str, builtin: str = "", output: bool = False) -> dict[str, object]:
    if dtype not in ("int8", "int16", "uint8"):
        return {}
    if output and builtin in FIXED_OUTPUT and dtype in FIXED_OUTPUT[builtin]:
        scale, zero = FIXED_OUTPUT[builtin][dtype]
        return {"scale": scale, "zero_point": zero}
    return {"scale": 0.05, "zero_point": {"int8": 3, "int16": 0, "uint8": 128}[dtype]}


def _weights_q(dtype: str) -> dict[str, object]:
    return {"scale": 0.02, "zero_point": 0} if dtype in ("int8", "int16", "uint8") else {}


def unary(builtin: str, out_dtype: str | None = None, **options: object) -> Recipe:
    def build(dtype: str) -> bytes:
        mb = ModelBuilder()
        x = mb.tensor("x", [2, 8], dtype, **_q(dtype))
        od = out_dtype or dtype
        y = mb.tensor("y", [2, 8], od, **_q(od, builtin, output=True))
        mb.op(builtin, [x], [y], **options)
        return mb.build([x], [y])
    return build


def binary(builtin: str, boolean: bool = False, **options: object) -> Recipe:
    def build(dtype: str) -> bytes:
        mb = ModelBuilder()
        a = mb.tensor("a", [2, 6], dtype, **_q(dtype))
        b = mb.tensor("b", [6], dtype, **_q(dtype))
        y = mb.tensor("y", [2, 6], "bool" if boolean else dtype, **({} if boolean else _q(dtype, builtin, True)))
        mb.op(builtin, [a, b], [y], **options)
        return mb.build([a, b], [y])
    return build


def with_constants(builtin: str, in_shape: list[int], constants: list[tuple[list[int], object, str]],
                   out_shape: list[int] | list[list[int]], first: bool = False, **options: object) -> Recipe:
    """x (graph input) and constant inputs (shape, values, dtype; dtype "same": x's); one or more outputs."""
    def build(dtype: str) -> bytes:
        mb = ModelBuilder()
        x = mb.tensor("x", in_shape, dtype, **_q(dtype))
        cs = []
        for i, (shape, values, cdtype) in enumerate(constants):
            actual = dtype if cdtype == "same" else cdtype
            extra = _weights_q(actual) if cdtype == "same" else {}
            cs.append(mb.tensor(f"c{i}", shape, actual, data=np.asarray(values), **extra))
        shapes = out_shape if out_shape and isinstance(out_shape[0], list) else [out_shape]
        ys = [mb.tensor(f"y{i}", s, dtype, **_q(dtype, builtin, True)) for i, s in enumerate(shapes)]  # type: ignore
        mb.op(builtin, [*cs, x] if first else [x, *cs], ys, **options)
        return mb.build([x], ys)
    return build


def _conv(builtin: str) -> Recipe:
    def build(dtype: str) -> bytes:
        mb = ModelBuilder()
        quantized = dtype in ("int8", "int16", "uint8")
        wdtype = "uint8" if dtype == "uint8" else ("int8" if quantized else dtype)
        bdtype = "int64" if dtype == "int16" else ("int32" if quantized else dtype)
        x = mb.tensor("x", [1, 5, 5, 2], dtype, **_q(dtype))
        wshape = [3, 3, 3, 2] if builtin == "CONV_2D" else [1, 3, 3, 2]
        oc = wshape[0] if builtin == "CONV_2D" else 2
        w = mb.tensor("w", wshape, wdtype, data=np.ones(wshape), **_weights_q(wdtype))
        b = mb.tensor("b", [oc], bdtype, data=np.zeros(oc), **({"scale": 0.001, "zero_point": 0} if quantized else {}))
        y = mb.tensor("y", [1, 3, 3, oc], dtype, **_q(dtype))
        extra = {"depth_multiplier": 1} if builtin == "DEPTHWISE_CONV_2D" else {}
        mb.op(builtin, [x, w, b], [y], padding="VALID", **extra)
        return mb.build([x], [y])
    return build


def _fully_connected(dtype: str) -> bytes:
    mb = ModelBuilder()
    quantized = dtype in ("int8", "int16", "uint8")
    wdtype = "uint8" if dtype == "uint8" else ("int8" if quantized else dtype)
    x = mb.tensor("x", [2, 6], dtype, **_q(dtype))
    w = mb.tensor("w", [4, 6], wdtype, data=np.ones((4, 6)), **_weights_q(wdtype))
    b = mb.tensor("b", [4], "int64" if dtype == "int16" else ("int32" if quantized else dtype), data=np.zeros(4),
                  **({"scale": 0.001, "zero_point": 0} if quantized else {}))
    y = mb.tensor("y", [2, 4], dtype, **_q(dtype))
    mb.op("FULLY_CONNECTED", [x, w, b], [y])
    return mb.build([x], [y])


def _svdf(dtype: str) -> bytes:
    """int8 with TFLite's usual int16 state and time weights; other dtypes throughout."""
    mb = ModelBuilder()
    quantized = dtype in ("int8", "int16", "uint8")
    state = "int16" if dtype == "int8" else dtype
    x = mb.tensor("x", [1, 6], dtype, **_q(dtype))
    wf = mb.tensor("wf", [4, 6], dtype, data=np.ones((4, 6)), **_weights_q(dtype))
    wt = mb.tensor("wt", [4, 3], state, data=np.ones((4, 3)), **_weights_q(state))
    b = mb.tensor("b", [2], "int32" if quantized else dtype, data=np.zeros(2),
                  **({"scale": 0.05 * 0.02, "zero_point": 0} if quantized else {}))
    st = mb.tensor("state", [1, 12], state, variable=True,
                   **({"scale": 0.05, "zero_point": 0} if quantized else {}))
    y = mb.tensor("y", [1, 2], dtype, **_q(dtype))
    mb.op("SVDF", [x, wf, wt, b, st], [y], rank=2)
    return mb.build([x], [y])


def _lstm(dtype: str) -> bytes:
    """The standard cell as the converter writes it: int8 weights, an int16 cell state and int32 (int64 for
    int16 activations) biases when quantized; other dtypes throughout."""
    mb = ModelBuilder()
    quantized = dtype in ("int8", "int16", "uint8")
    wdtype, cdtype = ("int8", "int16") if quantized else (dtype, dtype)
    bdtype = "int64" if dtype == "int16" else ("int32" if quantized else dtype)
    rng = np.random.default_rng(0)
    x = mb.tensor("x", [2, 3, 4], dtype, **_q(dtype))
    w = [mb.tensor(f"w{k}", [3, 4], wdtype, data=rng.integers(-3, 4, (3, 4)), **_weights_q(wdtype)) for k in range(4)]
    r = [mb.tensor(f"r{k}", [3, 3], wdtype, data=rng.integers(-3, 4, (3, 3)), **_weights_q(wdtype)) for k in range(4)]
    b = [mb.tensor(f"b{k}", [3], bdtype, data=rng.integers(-20, 20, 3), **({"scale": 0.001} if quantized else {}))
         for k in range(4)]
    h = mb.tensor("h", [2, 3], dtype, variable=True, **_q(dtype))
    c = mb.tensor("c", [2, 3], cdtype, variable=True, **({"scale": 2.0**-11, "zero_point": 0} if quantized else {}))
    y = mb.tensor("y", [2, 3, 3], dtype, **_q(dtype))
    mb.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *w, *r, -1, -1, -1, *b, -1, -1, h, c, -1, -1, -1, -1], [y],
          fused_activation_function="TANH")
    return mb.build([x], [y])


def _transpose_conv(dtype: str) -> bytes:
    mb = ModelBuilder()
    quantized = dtype in ("int8", "int16", "uint8")
    wdtype = "uint8" if dtype == "uint8" else ("int8" if quantized else dtype)
    shape = mb.tensor("shape", [4], "int32", data=np.array([1, 4, 4, 2]))
    w = mb.tensor("w", [2, 3, 3, 2], wdtype, data=np.ones((2, 3, 3, 2)), **_weights_q(wdtype))
    x = mb.tensor("x", [1, 2, 2, 2], dtype, **_q(dtype))
    y = mb.tensor("y", [1, 4, 4, 2], dtype, **_q(dtype))
    mb.op("TRANSPOSE_CONV", [shape, w, x], [y], padding="SAME", stride_h=2, stride_w=2)
    return mb.build([x], [y])


def _pool(builtin: str) -> Recipe:
    return with_constants(builtin, [1, 4, 4, 2], [], [1, 2, 2, 2], padding="VALID", stride_h=2, stride_w=2,
                          filter_height=2, filter_width=2)


def _cast(dtype: str) -> bytes:
    return unary("CAST", out_dtype="float32" if dtype != "float32" else "int32")(dtype)


def _quantize(dtype: str) -> bytes:
    if dtype != "int32":
        return unary("QUANTIZE", out_dtype="int8")(dtype)
    # an int32 input is requantized: it carries a scale and zero point (without them the interpreter takes its
    # scale as 0 and writes the output zero point everywhere; mote refuses such a model)
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 8], "int32", scale=0.05 / 16, zero_point=-7)
    y = mb.tensor("y", [2, 8], "int8", **_q("int8"))
    mb.op("QUANTIZE", [x], [y])
    return mb.build([x], [y])


def _dequantize(dtype: str) -> bytes:
    return unary("DEQUANTIZE", out_dtype="float32")(dtype)


def _select(dtype: str) -> bytes:
    mb = ModelBuilder()
    c = mb.tensor("c", [2, 1], "bool")
    x = mb.tensor("x", [2, 3], dtype, **_q(dtype))
    z = mb.tensor("z", [2, 3], dtype, **_q(dtype))
    y = mb.tensor("y", [2, 3], dtype, **_q(dtype))
    mb.op("SELECT_V2", [c, x, z], [y])
    return mb.build([c, x, z], [y])


def _gather(dtype: str) -> bytes:
    return with_constants("GATHER", [4, 3], [([2], [1, 3], "int32")], [2, 3], axis=0)(dtype)


def _fill(dtype: str) -> bytes:
    mb = ModelBuilder()
    d = mb.tensor("d", [2], "int32", data=np.array([2, 3]))
    v = mb.tensor("v", [], dtype, **_q(dtype))
    y = mb.tensor("y", [2, 3], dtype, **_q(dtype))
    mb.op("FILL", [d, v], [y])
    return mb.build([v], [y])


def _arg(builtin: str) -> Recipe:
    def build(dtype: str) -> bytes:
        mb = ModelBuilder()
        x = mb.tensor("x", [3, 5], dtype, **_q(dtype))
        a = mb.tensor("a", [1], "int32", data=np.array([1]))
        y = mb.tensor("y", [3], "int32")
        mb.op(builtin, [x, a], [y], output_type=2)
        return mb.build([x], [y])
    return build


def _shape_model(dtype: str) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 5], dtype, **_q(dtype))
    y = mb.tensor("y", [2], "int32")
    mb.op("SHAPE", [x], [y])
    return mb.build([x], [y])


def _values(dtype: str, shape: list[int]) -> np.ndarray:
    return (np.arange(int(np.prod(shape))).reshape(shape) % (2 if dtype == "bool" else 5)).astype(dtype)


def _if(dtype: str) -> bytes:
    """then: x reversed along its last axis; else: x passed through (a branch with no operators)."""
    mb = ModelBuilder()
    c = mb.tensor("c", [1], "bool")
    x = mb.tensor("x", [2, 3], dtype, **_q(dtype))
    y = mb.tensor("y", [2, 3], dtype, **_q(dtype))
    mb.op("IF", [c, x], [y], then_subgraph_index=1, else_subgraph_index=2)
    mb.subgraph("then")
    a = mb.tensor("a", [2, 3], dtype, **_q(dtype))
    axis = mb.tensor("axis", [1], "int32", data=np.array([1]))
    r = mb.tensor("r", [2, 3], dtype, **_q(dtype))
    mb.op("REVERSE_V2", [a, axis], [r])
    mb.io([a], [r])
    mb.subgraph("else")
    a = mb.tensor("a", [2, 3], dtype, **_q(dtype))
    mb.io([a], [a])
    return mb.build([c, x], [y])


def _while(dtype: str) -> bytes:
    """Three iterations, each reversing x; the counter starts as a constant input of the WHILE."""
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 3], dtype, **_q(dtype))
    i0 = mb.tensor("i0", [1], "int32", data=np.zeros(1))
    i, y = mb.tensor("i", [1], "int32"), mb.tensor("y", [2, 3], dtype, **_q(dtype))
    mb.op("WHILE", [i0, x], [i, y], cond_subgraph_index=1, body_subgraph_index=2)
    mb.subgraph("cond")
    ci, cx = mb.tensor("i", [1], "int32"), mb.tensor("x", [2, 3], dtype, **_q(dtype))
    limit = mb.tensor("limit", [1], "int32", data=np.array([3]))
    more = mb.tensor("more", [1], "bool")
    mb.op("LESS", [ci, limit], [more])
    mb.io([ci, cx], [more])
    mb.subgraph("body")
    bi, bx = mb.tensor("i", [1], "int32"), mb.tensor("x", [2, 3], dtype, **_q(dtype))
    one, axis = mb.tensor("one", [1], "int32", data=np.ones(1)), mb.tensor("axis", [1], "int32", data=np.array([1]))
    ni, nx = mb.tensor("i_next", [1], "int32"), mb.tensor("x_next", [2, 3], dtype, **_q(dtype))
    mb.op("ADD", [bi, one], [ni])
    mb.op("REVERSE_V2", [bx, axis], [nx])
    mb.io([bi, bx], [ni, nx])
    return mb.build([x], [i, y])


def _variable(dtype: str) -> bytes:
    """A stateful model: CALL_ONCE's init assigns the variable a constant; each call reads it out (the first
    call: the constant) and assigns it the input."""
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 3], dtype, **_q(dtype))
    h = mb.tensor("h", [], "resource")
    r = mb.tensor("r", [2, 3], dtype, **_q(dtype))
    mb.op("CALL_ONCE", [], [], init_subgraph_index=1)
    mb.op("VAR_HANDLE", [], [h], container="", shared_name="v")
    mb.op("READ_VARIABLE", [h], [r])
    mb.op("ASSIGN_VARIABLE", [h, x], [])
    mb.subgraph("init")
    h = mb.tensor("h", [], "resource")
    start = mb.tensor("start", [2, 3], dtype, data=_values(dtype, [2, 3]), **_q(dtype))
    mb.op("VAR_HANDLE", [], [h], container="", shared_name="v")
    mb.op("ASSIGN_VARIABLE", [h, start], [])
    return mb.build([x], [r])


COMPARISONS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
UNARY_SAME = ("ABS", "NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "RSQRT", "SQUARE", "EXP", "LOG", "SIN", "COS", "ELU",
              "HARD_SWISH", "RELU", "RELU6", "RELU_N1_TO_1", "LOGISTIC", "TANH", "L2_NORMALIZATION", "ZEROS_LIKE",
              "LOGICAL_NOT")
RECIPES: dict[str, Recipe] = {
    **{b: unary(b) for b in UNARY_SAME},
    "LEAKY_RELU": unary("LEAKY_RELU", alpha=0.2),
    "SOFTMAX": unary("SOFTMAX", beta=1.0),
    "LOG_SOFTMAX": unary("LOG_SOFTMAX"),
    **{b: binary(b) for b in ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV",
                              "FLOOR_MOD", "LOGICAL_AND", "LOGICAL_OR")},
    **{b: binary(b, boolean=True) for b in COMPARISONS},
    "CONV_2D": _conv("CONV_2D"), "DEPTHWISE_CONV_2D": _conv("DEPTHWISE_CONV_2D"),
    "FULLY_CONNECTED": _fully_connected, "SVDF": _svdf, "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm,
    "TRANSPOSE_CONV": _transpose_conv,
    "AVERAGE_POOL_2D": _pool("AVERAGE_POOL_2D"), "MAX_POOL_2D": _pool("MAX_POOL_2D"), "L2_POOL_2D": _pool("L2_POOL_2D"),
    "RESHAPE": with_constants("RESHAPE", [2, 6], [([2], [3, 4], "int32")], [3, 4]),
    "SQUEEZE": with_constants("SQUEEZE", [2, 1, 6], [], [2, 6]),
    "EXPAND_DIMS": with_constants("EXPAND_DIMS", [2, 6], [([1], [1], "int32")], [2, 1, 6]),
    "CONCATENATION": with_constants("CONCATENATION", [2, 3], [([2, 2], np.zeros((2, 2)), "same")], [2, 5], axis=1),
    "PAD": with_constants("PAD", [2, 3], [([2, 2], [[1, 0], [0, 2]], "int32")], [3, 5]),
    "MEAN": with_constants("MEAN", [2, 3, 4], [([1], [1], "int32")], [2, 4]),
    "SUM": with_constants("SUM", [2, 3, 4], [([1], [1], "int32")], [2, 4]),
    "REDUCE_MAX": with_constants("REDUCE_MAX", [2, 3, 4], [([1], [1], "int32")], [2, 4]),
    "REDUCE_MIN": with_constants("REDUCE_MIN", [2, 3, 4], [([1], [1], "int32")], [2, 4]),
    "SPLIT": with_constants("SPLIT", [2, 6], [([], 1, "int32")], [[2, 3], [2, 3]], first=True, num_splits=2),
    "SPLIT_V": with_constants("SPLIT_V", [2, 6], [([2], [2, 4], "int32"), ([], 1, "int32")], [[2, 2], [2, 4]],
                              num_splits=2),
    "TRANSPOSE": with_constants("TRANSPOSE", [2, 3, 4], [([3], [2, 0, 1], "int32")], [4, 2, 3]),
    "SLICE": with_constants("SLICE", [3, 4], [([2], [1, 1], "int32"), ([2], [2, 2], "int32")], [2, 2]),
    "STRIDED_SLICE": with_constants("STRIDED_SLICE", [4, 6], [([2], [0, 1], "int32"), ([2], [4, 6], "int32"),
                                                              ([2], [2, 2], "int32")], [2, 3]),
    "REVERSE_V2": with_constants("REVERSE_V2", [3, 4], [([1], [1], "int32")], [3, 4]),
    "PACK": with_constants("PACK", [2, 3], [([2, 3], np.zeros((2, 3)), "same")], [2, 2, 3], axis=0, values_count=2),
    "UNPACK": with_constants("UNPACK", [2, 3], [], [[3], [3]], axis=0, num=2),
    "GATHER": _gather, "SELECT_V2": _select, "FILL": _fill, "SHAPE": _shape_model,
    "ARG_MAX": _arg("ARG_MAX"), "ARG_MIN": _arg("ARG_MIN"),
    "CAST": _cast, "QUANTIZE": _quantize, "DEQUANTIZE": _dequantize,
    "DEPTH_TO_SPACE": with_constants("DEPTH_TO_SPACE", [1, 2, 3, 8], [], [1, 4, 6, 2], block_size=2),
    "SPACE_TO_DEPTH": with_constants("SPACE_TO_DEPTH", [1, 4, 6, 2], [], [1, 2, 3, 8], block_size=2),
    "BATCH_TO_SPACE_ND": with_constants("BATCH_TO_SPACE_ND", [4, 2, 3, 2], [([2], [2, 2], "int32"),
                                                                          ([2, 2], [[0, 1], [1, 0]], "int32")],
                                        [1, 3, 5, 2]),
    # unpadded: TFLite Micro pads with a byte it never sets
    "SPACE_TO_BATCH_ND": with_constants("SPACE_TO_BATCH_ND", [1, 4, 6, 2], [([2], [2, 2], "int32"),
                                                                          ([2, 2], [[0, 0], [0, 0]], "int32")],
                                        [4, 2, 3, 2]),
    "BROADCAST_TO": with_constants("BROADCAST_TO", [3, 1], [([3], [2, 3, 4], "int32")], [2, 3, 4]),
    "MIRROR_PAD": with_constants("MIRROR_PAD", [3, 4], [([2, 2], [[1, 1], [2, 0]], "int32")], [5, 6], mode=0),
    "GATHER_ND": with_constants("GATHER_ND", [3, 4], [([2, 1], [[1], [2]], "int32")], [2, 4]),
    "EMBEDDING_LOOKUP": with_constants("EMBEDDING_LOOKUP", [3, 4], [([2], [2, 0], "int32")], [2, 4], first=True),
    **{b: with_constants(b, [1, 3, 4, 2], [([2], [6, 5], "int32")], [1, 6, 5, 2])
       for b in ("RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR")},
    "BATCH_MATMUL": with_constants("BATCH_MATMUL", [2, 3], [([3, 4], np.ones((3, 4)), "same")], [2, 4]),
    "PRELU": with_constants("PRELU", [2, 3], [([3], [0.5, -1, 2], "same")], [2, 3]),
    "REDUCE_ALL": with_constants("REDUCE_ALL", [2, 3], [([1], [1], "int32")], [2]),
    "DYNAMIC_UPDATE_SLICE": with_constants("DYNAMIC_UPDATE_SLICE", [3, 4], [([2, 2], np.ones((2, 2)), "same"),
                                                                          ([2], [1, 1], "int32")], [3, 4]),
    "BROADCAST_ARGS": with_constants("BROADCAST_ARGS", [2], [([2], [1, 1], "same")], [2]),
    "CUMSUM": with_constants("CUMSUM", [2, 3], [([], 1, "int32")], [2, 3]),
    "ADD_N": with_constants("ADD_N", [2, 3], [([2, 3], np.ones((2, 3)), "same")], [2, 3]),
    "IF": _if, "WHILE": _while,
    **dict.fromkeys(("CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"), _variable),
    "PADV2": with_constants("PADV2", [2, 3], [([2, 2], [[1, 0], [0, 2]], "int32"), ([], 1, "same")], [3, 5]),
}
