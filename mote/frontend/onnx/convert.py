"""ONNX model -> mote Graph: quantized (QDQ or QOperator), or integer-dialect (RequantShift) models.

Float models are not compiled directly: `mote quantize` (quantize.py) makes a QDQ model first.
Inputs that feed convolutions or pooling are channels-last in the compiled model (ONNX's NCHW taken
as NHWC, NCL as NLC), and so are outputs computed channels-last; everything else keeps ONNX's layout.
uint8 tensors are int8 shifted by -128, except graph inputs that only a Cast to float32 reads (exporters'
`x.float()`): those keep their dtype. Ops left in float between DequantizeLinear and QuantizeLinear run as
mote's float32 ops (floats.py). `OnnxConversion.inputs / outputs` say how
ONNX arrays map to the compiled model's (`IoInfo.to_mote`, `IoInfo.to_onnx`).

A model file is untrusted input: its structure is checked before conversion (check.py), constant
subexpressions are evaluated under a size and work budget (fold.py), and whatever a handler still trips
over on inconsistent data becomes one ModelFileError line naming the node.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mote.errors import ModelFileError, MoteError, UnsupportedError
from mote.frontend.files import check_regular_file
from mote.frontend.onnx.check import check_model
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.dispatch import convert_node
from mote.frontend.onnx.floats import BINARY, CAST_FROM, UNARY
from mote.frontend.onnx.integer_io import INTEGER_OPS, fit_shape, infer_type, integer_arrays
from mote.frontend.onnx.integer_values import IntType
from mote.frontend.onnx.lower import dequantize
from mote.frontend.onnx.values import Act, Builder, Const, Deq, Pending, Value, channels_last, identity
from mote.ir import DType, Graph, Quant
from mote.ops.validate import validate

# Ops that mark a model as quantized, and as integer-dialect.
_QUANTIZED_OPS = {"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger",
                  "MatMulInteger", "QLinearAdd", "QLinearMul", "QLinearAveragePool", "QLinearGlobalAveragePool",
                  "QLinearSigmoid", "QLinearConcat", "QLinearSoftmax", "QGemm",
                  "QLinearLeakyRelu"}
_INTEGER_OPS = INTEGER_OPS
# Integer graph inputs taken as they are: the ids a Gather reads.
INDEX_INPUTS = {np.dtype(np.int64): DType.INT64, np.dtype(np.int32): DType.INT32}


@dataclass(frozen=True)
class IoInfo:
    """How one model input or output maps between ONNX arrays and the compiled model's arrays."""

    onnx_name: str
    tensor_name: str
    onnx_dtype: np.dtype
    mote_dtype: np.dtype
    perm: tuple[int, ...]  # mote = onnx.transpose(perm)
    offset: int  # onnx = mote + offset (128 for uint8 stored as int8)

    def to_mote(self, a: np.ndarray) -> np.ndarray:
        a = np.transpose(np.asarray(a), self.perm)
        if self.offset:
            a = a.astype(np.int64) - self.offset
        return np.ascontiguousarray(a.astype(self.mote_dtype))

    def to_onnx(self, a: np.ndarray) -> np.ndarray:
        a = np.asarray(a)
        if self.offset:
            a = a.astype(np.int64) + self.offset
        inverse = tuple(self.perm.index(i) for i in range(len(self.perm)))
        return np.ascontiguousarray(np.transpose(a, inverse).astype(self.onnx_dtype))


@dataclass
class OnnxConversion:
    graph: Graph
    inputs: list[IoInfo]
    outputs: list[IoInfo]
    dialect: str  # "qdq" (QDQ and QOperator) or "integer"


def load_onnx_file(path: str | Path, input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> Graph:
    """The mote Graph of an ONNX model file (see `convert`)."""
    return convert_file(path, input_shapes).graph


def convert_file(path: str | Path, input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> OnnxConversion:
    path = Path(path)
    return convert(read_model(path), path.stem, input_shapes, source=str(path))


def read_model(path: Path) -> Any:
    """The ModelProto in `path`; a missing, special (FIFO, device, directory) or damaged file is a ModelFileError.
    External data files are never read: a model names them, so it could make mote read any file."""
    import onnx

    check_regular_file(path, "model file")
    try:
        return onnx.load(str(path), load_external_data=False)
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the model file ({e.strerror})") from None
    except Exception as e:  # protobuf raises several kinds on a damaged file
        raise ModelFileError(f"{path}: not a readable ONNX model ({type(e).__name__}); re-export it") from None


def convert(model: Any, name: str = "model", input_shapes: Mapping[str, tuple[int, ...]] | None = None,
            source: str | None = None, arrays: Sequence[np.ndarray] | None = None) -> OnnxConversion:
    """A verified mote Graph from an ONNX ModelProto; MoteError on anything unsupported.
    `input_shapes` fixes dynamic input dimensions; `source` (the file) is only quoted in messages.
    `arrays`: integer inputs given by position (Deeploy's test inputs, integer_io.py): the model is then read as
    the integer dialect (unless it is QDQ) and each input's integer type is inferred from its array."""
    from onnx import numpy_helper

    integer = arrays is not None or bool({n.op_type for n in model.graph.node} & _INTEGER_OPS)
    check_model(model, source or name, integer)
    g = model.graph
    opsets = {imp.domain or "": imp.version for imp in model.opset_import}
    dialect = _dialect(g, name, source or f"{name}.onnx", arrays is not None)
    with _malformed(f"{name}: initializers"):
        values: dict[str, Value] = {i.name: Const(numpy_helper.to_array(i)) for i in g.initializer}
    ctx = Context(Builder(), values, opsets, name, dialect)
    inputs, in_infos = [], []
    spatial, casts = _spatial_inputs(g), _cast_inputs(g)
    graph_inputs = [vi for vi in g.input if vi.name not in values]  # initializers listed as inputs: old exporters
    given = None
    if dialect == "integer" and arrays is not None:
        given = integer_arrays(arrays, [vi.name for vi in graph_inputs], source or name)
    for index, vi in enumerate(graph_inputs):
        if given is not None and given[index].size == 0:  # an empty tensor (a KV cache of length 0)
            values[vi.name] = Const(np.zeros(given[index].shape, np.float32))
            continue
        with _malformed(f"{name}: input {vi.name!r}"):
            int_type = None if given is None else infer_type(given[index])
            shapes = dict(input_shapes or {})
            if given is not None and vi.name not in shapes and _dynamic(vi):
                shapes[vi.name] = given[index].shape
            act, info = _graph_input(ctx, vi, shapes, vi.name in spatial, casts.get(vi.name), int_type)
            if given is not None:
                fit_shape(given[index], info_shape(act), vi.name, source or name)
        values[vi.name] = act
        inputs.append(act.tensor)
        in_infos.append(info)
    unknown = set(input_shapes or {}) - {i.onnx_name for i in in_infos}
    if unknown:
        raise MoteError(f"{name}: --input-shape names {sorted(unknown)}, but the model's inputs are "
                        f"{[i.onnx_name for i in in_infos]}")
    for index, node in enumerate(_topological(g)):
        ctx.b.index = index
        with _malformed(ctx.where(node)):
            results = convert_node(ctx, node)
        for out, v in zip(node.output, results):
            if out and v is not None:
                values[out] = v
    outputs, out_infos = [], []
    for vi in g.output:
        with _malformed(f"{name}: output {vi.name!r}"):
            act, info = _graph_output(ctx, vi)
        outputs.append(act.tensor)
        out_infos.append(info)
    graph = Graph(name, inputs, outputs, _live(ctx.b.nodes, outputs), notes=ctx.notes)
    with _malformed(f"{name}: converted graph"):
        validate(graph)  # as the TFLite loader does: checks, then every node's prepare once
    return OnnxConversion(graph, in_infos, out_infos, dialect)


@contextmanager
def _malformed(where: str) -> Iterator[None]:
    """The last line of defence against a damaged model: whatever a handler or numpy raises on inconsistent
    shapes, attributes or data becomes one ModelFileError naming the node (or input, output); numpy's
    warnings on such data (overflow, invalid casts) are kept off the terminal."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    except MoteError:
        raise
    except (ArithmeticError, AssertionError, AttributeError, LookupError, MemoryError, RecursionError, TypeError,
            ValueError) as e:
        detail = " ".join(str(e).split())[:160] or "no detail"
        raise ModelFileError(f"{where}: inconsistent shapes, attributes or data ({type(e).__name__}: {detail}); "
                             "the model is damaged or uses the operator in a way mote does not support") from None


def _live(nodes: list[Any], outputs: list[Any]) -> list[Any]:
    """The nodes some graph output depends on (layout views the conversion made but never used go)."""
    needed = {t for t in outputs}
    kept = []
    for node in reversed(nodes):
        if any(t in needed for t in node.outputs):
            kept.append(node)
            needed.update(t for t in node.inputs if t is not None)
    return kept[::-1]


def is_float_model(model: Any) -> bool:
    """Whether the model has no quantization at all (what `mote quantize` takes)."""
    return not ({n.op_type for n in model.graph.node} & (_QUANTIZED_OPS | _INTEGER_OPS))


def _topological(g: Any) -> list[Any]:
    """The graph's nodes in an order where every input is produced before it is read (exporters sometimes list
    a node before its producer); the file's order where it already is one."""
    produced = {i.name for i in g.initializer} | {vi.name for vi in g.input} | {""}
    pending, ordered = list(g.node), []
    while pending:
        ready = [n for n in pending if all(i in produced for i in n.input)]
        if not ready:
            return ordered + pending  # a cycle or a missing input: the node's handler names it
        first = ready[0]
        ordered.append(first)
        produced.update(first.output)
        pending.remove(first)
    return ordered


def _dynamic(vi: Any) -> bool:
    dims = vi.type.tensor_type.shape.dim if vi.type.tensor_type.HasField("shape") else None
    return dims is None or any(not d.HasField("dim_value") or d.dim_value <= 0 for d in dims)


def info_shape(act: Act) -> tuple[int, ...]:
    return act.onnx_shape


def _dialect(g: Any, name: str, source: str, integer_inputs: bool = False) -> str:
    ops = {n.op_type for n in g.node}
    if ops & _INTEGER_OPS:
        return "integer"
    if ops & _QUANTIZED_OPS:
        return "qdq"
    if integer_inputs:
        return "integer"  # a float-typed model run on integer inputs: Deeploy's integer kernel tests
    stem = Path(source).with_suffix("")
    raise UnsupportedError(f"{name}: a float model (no QuantizeLinear/DequantizeLinear, QLinear or RequantShift "
                           f"ops); quantize it first: `mote quantize {source} --calib data.npz -o {stem}_int8.onnx`, "
                           f"or compile it in one step with `mote run {source} --calib data.npz`")


def _static_shape(vi: Any, given: Mapping[str, tuple[int, ...]], model: str, notes: list[str]) -> tuple[int, ...]:
    """The input's shape: as given with --input-shape, else as declared; a dynamic first (batch) dimension
    alone becomes 1, noted for the report, as exporters write batch dimensions that way."""
    dims = vi.type.tensor_type.shape.dim if vi.type.tensor_type.HasField("shape") else None
    declared = None if dims is None else [d.dim_value if d.HasField("dim_value") and d.dim_value > 0
                                          else (d.dim_param or "?") for d in dims]
    if vi.name in given:
        shape = tuple(int(d) for d in given[vi.name])
        if declared is not None and (len(declared) != len(shape) or any(
                isinstance(d, int) and d != s for d, s in zip(declared, shape))):
            raise MoteError(f"{model}: --input-shape {vi.name}={','.join(map(str, shape))} does not fit the "
                            f"declared shape {declared}")
        return shape
    if declared and not isinstance(declared[0], int) and all(isinstance(d, int) for d in declared[1:]):
        notes.append(f"input {vi.name!r}: the dynamic batch dimension {declared[0]!r} is taken as 1 (--input-shape "
                     "sets another)")
        return (1, *(int(d) for d in declared[1:]))
    if declared is None or any(not isinstance(d, int) for d in declared):
        example = ",".join(str(d) if isinstance(d, int) else "1" for d in (declared or ["1"]))
        raise UnsupportedError(f"{model}: input {vi.name!r} has a dynamic shape {declared}; give a fixed one with "
                               f"--input-shape {vi.name}={example}")
    return tuple(int(d) for d in declared)


# Ops that read channels-first activations: their inputs are best stored channels-last.
_SPATIAL = {"Conv", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
            "QLinearAveragePool", "QLinearGlobalAveragePool"}
# Ops that keep the layout of their (first) input: quantization, and the elementwise float ops exporters put
# before the first convolution (Cast, then normalization: Div, Sub, Mul, Add by constants).
_PASS_THROUGH = {"QuantizeLinear", "DequantizeLinear", "Identity", "RequantShift", "Cast", *UNARY, *BINARY}


def _spatial_inputs(g: Any) -> set[str]:
    """Graph inputs that reach a convolution or pooling through quantization, Cast and elementwise ops only: these
    are taken channels-last (NHWC) by the compiled model, so that no transpose runs at its start."""
    consumers: dict[str, list[Any]] = {}
    for n in g.node:
        for name in n.input:
            consumers.setdefault(name, []).append(n)

    def reaches(name: str, depth: int = 0) -> bool:
        for n in consumers.get(name, []):
            if n.op_type in _SPATIAL and not any(a.name == "channels_last" and a.i for a in n.attribute):
                return True
            if n.op_type in _PASS_THROUGH and depth < 8 and reaches(n.output[0], depth + 1):
                return True
        return False

    return {vi.name for vi in g.input if reaches(vi.name)}


def _cast_inputs(g: Any) -> dict[str, Any]:
    """Graph inputs read only by Cast nodes (exporters cast uint8 images, integer or float64 inputs to
    float32 first): input name -> its first Cast. The compiled model takes these in their own dtype."""
    readers: dict[str, list[Any]] = {}
    for n in g.node:
        for name in set(n.input):
            readers.setdefault(name, []).append(n)
    return {vi.name: readers[vi.name][0] for vi in g.input
            if readers.get(vi.name) and all(n.op_type == "Cast" and not n.domain for n in readers[vi.name])}


def _graph_input(ctx: Context, vi: Any, given: Mapping[str, tuple[int, ...]], spatial: bool,
                 cast: Any = None, int_type: IntType | None = None) -> tuple[Act, IoInfo]:
    from onnx import helper

    shape = _static_shape(vi, given, ctx.model, ctx.notes)
    if 0 in shape:
        raise ModelFileError(f"{ctx.model}: input {vi.name!r} has an empty shape {list(shape)}; its dimensions must be "
                             "at least 1")
    onnx_dtype = np.dtype(helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))
    perm = channels_last(len(shape)) if spatial else identity(len(shape))
    offset = 0
    quant: Quant | None = None
    if cast is not None and ctx.dialect != "integer":
        if onnx_dtype not in CAST_FROM:
            taken = ", ".join(np.dtype(d).name for d in CAST_FROM)
            raise UnsupportedError(f"{ctx.model}: input {vi.name!r} is {onnx_dtype.name}, cast to float by Cast node "
                                   f"{cast.name or cast.output[0]!r}; mote takes {taken} inputs: export the model "
                                   "with a float32 input instead")
        dtype = CAST_FROM[onnx_dtype]
        quant = Quant((1.0,), (0,)) if dtype is DType.UINT8 else None  # dequantized with scale 1: exact
    elif ctx.dialect == "integer":
        int_type = int_type or IntType(256, True)  # without inputs to infer from: int8
        dtype = DType.INT8 if int_type.fits_int8 else DType.INT32
        quant = int_type.quant
        offset = -quant.zero_point[0]
    elif onnx_dtype == np.float32:
        dtype = DType.FLOAT32
    elif onnx_dtype in (np.int8, np.uint8):
        dtype = DType.INT8  # quantization comes from the first QLinear consumer
        offset = 128 if onnx_dtype == np.uint8 else 0
    elif onnx_dtype in INDEX_INPUTS:
        dtype = INDEX_INPUTS[onnx_dtype]  # token ids or positions, for Gather (sequence.py)
    else:
        raise UnsupportedError(f"{ctx.model}: input {vi.name!r} is {onnx_dtype.name}; mote takes float32, int8, "
                               "uint8 inputs, and int32 or int64 ids for Gather")
    t = ctx.b.tensor(vi.name, tuple(shape[p] for p in perm), dtype, quant)
    return Act(t, perm), IoInfo(vi.name, t.name, onnx_dtype, dtype.np, perm, offset)


def _graph_output(ctx: Context, vi: Any) -> tuple[Act, IoInfo]:
    v = ctx.values.get(vi.name)
    where = f"{ctx.model}: output {vi.name!r}"
    if isinstance(v, Deq):
        v = dequantize(ctx.b, v.act, vi.name)
    if isinstance(v, Pending) and v.as_float is not None:  # e.g. DequantizeLinear -> Softmax -> output, in float
        v = v.as_float()
    if isinstance(v, Pending):
        raise UnsupportedError(f"{where} is the unquantized result of {v.op} node {v.name!r}; the model needs a "
                               "QuantizeLinear after it")
    if not isinstance(v, Act):
        raise UnsupportedError(f"{where} is a constant; mote compiles models whose outputs are computed")
    if v.divisor != 1:
        raise UnsupportedError(f"{where} is an integer AveragePool result; it needs a RequantShift after it")
    if v.rank not in (3, 4) or v.perm != channels_last(v.rank):  # channels-last outputs stay so
        v = ctx.b.to_layout(v, identity(v.rank))
    if not any(v.tensor is o for n in ctx.b.nodes for o in n.outputs):  # an input passed through: copy it
        v = Act(ctx.b.node("reshape", [v.tensor], f"{vi.name}_out", v.tensor.dtype, v.tensor.quant,
                           shape=v.tensor.shape), v.perm)
    t = v.tensor
    onnx_dtype, offset = _onnx_side(ctx, vi, t)
    return v, IoInfo(vi.name, t.name, onnx_dtype, t.dtype.np, v.perm, offset)


def _onnx_side(ctx: Context, vi: Any, t: Any) -> tuple[np.dtype, int]:
    """The ONNX dtype of an output and the offset from mote's integers to ONNX's."""
    from onnx import helper

    elem = vi.type.tensor_type.elem_type
    computed = t.dtype.np
    onnx_dtype = np.dtype(helper.tensor_dtype_to_np_dtype(elem)) if elem else np.dtype(computed)
    allowed = {np.dtype(computed)}
    if t.dtype is DType.INT8:
        allowed |= {np.dtype(np.uint8)}
    if ctx.dialect == "integer":  # integers in float-typed (or wider) outputs
        allowed |= {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64)}
    if onnx_dtype not in allowed:
        raise ModelFileError(f"{ctx.model}: output {vi.name!r} is declared {onnx_dtype.name} but the graph computes "
                             f"{np.dtype(computed).name} there; the model is damaged")
    if ctx.dialect == "integer" and t.quant is not None:
        return onnx_dtype, -t.quant.zero_point[0]
    return onnx_dtype, 128 if onnx_dtype == np.uint8 else 0
