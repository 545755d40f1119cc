"""Write small .tflite flatbuffers from Python.

Used to build test models and the bundled example model without depending on
the TensorFlow converter. A model may hold several subgraphs, as the converter writes control flow
(IF branches, WHILE conditions and bodies, CALL_ONCE initializers): `subgraph` opens a new one and makes
it current, `select` returns to one, `io` sets the current one's inputs and outputs.

Example::

    mb = ModelBuilder()
    a = mb.tensor("a", [1, 4], "int8", scale=0.1, zero_point=0)
    b = mb.tensor("b", [1, 4], "int8", scale=0.1, zero_point=0)
    y = mb.tensor("y", [1, 4], "int8", scale=0.1, zero_point=0)
    mb.op("ADD", [a, b], [y])
    tflite_bytes = mb.build(inputs=[a, b], outputs=[y])

A custom operator (code CUSTOM, named by its custom code) takes its options as bytes, usually a
flexbuffer map (`flexbuffer_map`): ``mb.custom_op("TFLite_Detection_PostProcess", ins, outs, options)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import flatbuffers
import flatbuffers.flexbuffers as flexbuffers
import numpy as np
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

from mote.frontend.tflite_options import options_table
from mote.ir import subbyte

SCHEMA_VERSION = 3
FILE_IDENTIFIER = b"TFL3"

# Constant data is aligned like the TFLite converter does, so that a runtime can
# use it in place without copying (int32 biases, float tables, SIMD loads).
BUFFER_ALIGNMENT = 16

_DTYPES: dict[str, tuple[int, type[np.generic]]] = {
    "int8": (schema.TensorType.INT8, np.int8),
    "int16": (schema.TensorType.INT16, np.int16),
    "int32": (schema.TensorType.INT32, np.int32),
    "float32": (schema.TensorType.FLOAT32, np.float32),
    "uint8": (schema.TensorType.UINT8, np.uint8),
    "int64": (schema.TensorType.INT64, np.int64),
    "bool": (schema.TensorType.BOOL, np.bool_),
    "resource": (schema.TensorType.RESOURCE, np.int32),  # a VAR_HANDLE's output: never holds data
    # Sub-byte constants, packed as TFLite packs them (mote.ir.subbyte): the data is given one value per int8.
    "int4": (schema.TensorType.INT4, np.int8),
    "int2": (schema.TensorType.INT2, np.int8),
}
_SUBBYTE_BITS = {"int4": 4, "int2": 2}

_BUILTIN_CODES: dict[str, int] = {
    name: code for name, code in vars(schema.BuiltinOperator).items() if not name.startswith("_")
}

# The schema defaults of these fields are 0, which no runtime accepts.
_FRIENDLY_DEFAULTS: dict[str, Any] = {
    "strideW": 1,
    "strideH": 1,
    "depthMultiplier": 1,
    "beta": 1.0,
}

# Option fields that may be given by enum member name instead of number.
_ENUM_FIELDS: dict[str, type] = {
    "padding": schema.Padding,
    "fusedActivationFunction": schema.ActivationFunctionType,
    "weightsFormat": schema.FullyConnectedOptionsWeightsFormat,
    "mode": schema.MirrorPadMode,
}


@dataclass
class _Tensor:
    name: str
    shape: list[int]
    type: int
    buffer: int
    quantization: schema.QuantizationParametersT | None
    variable: bool = False


@dataclass
class _Operator:
    opcode_index: int
    inputs: list[int]
    outputs: list[int]
    options_type: int
    options: Any
    intermediates: list[int] = field(default_factory=list)
    custom_options: bytes | None = None


# An operator code: the builtin's number, and the custom code for CUSTOM operators.
_OpCode = tuple[int, str | None]


@dataclass
class _Subgraph:
    name: str
    tensors: list[_Tensor]
    operators: list[_Operator]
    inputs: list[int]
    outputs: list[int]


class ModelBuilder:
    """Accumulates tensors and operators of one subgraph or more (the first is the model's main one),
    then serializes. Tensor indices are those of the current subgraph."""

    def __init__(self) -> None:
        self._subgraphs: list[_Subgraph] = [_Subgraph("main", [], [], [], [])]
        self._current = 0
        self._opcodes: list[_OpCode] = []
        # Buffer 0 is the empty sentinel shared by all non-constant tensors.
        self._buffers: list[bytes] = [b""]

    @property
    def _tensors(self) -> list[_Tensor]:
        return self._subgraphs[self._current].tensors

    @property
    def _operators(self) -> list[_Operator]:
        return self._subgraphs[self._current].operators

    def subgraph(self, name: str) -> int:
        """Open a new subgraph, make it current and return its index."""
        self._subgraphs.append(_Subgraph(name, [], [], [], []))
        self._current = len(self._subgraphs) - 1
        return self._current

    def select(self, index: int) -> None:
        """Make subgraph `index` current (0: the main one)."""
        if not 0 <= index < len(self._subgraphs):
            raise IndexError(f"no subgraph with index {index}")
        self._current = index

    def io(self, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        """Set the current subgraph's inputs and outputs."""
        self._check_indices("subgraph inputs", inputs, allow_absent=False)
        self._check_indices("subgraph outputs", outputs, allow_absent=False)
        sub = self._subgraphs[self._current]
        sub.inputs, sub.outputs = [int(i) for i in inputs], [int(i) for i in outputs]

    def tensor(
        self,
        name: str,
        shape: Sequence[int],
        dtype: str,
        scale: float | Sequence[float] | None = None,
        zero_point: int | Sequence[int] | None = None,
        axis: int = 0,
        data: np.ndarray | None = None,
        variable: bool = False,
    ) -> int:
        """Add a tensor and return its index; it is constant when data is given, state (a variable
        tensor, which an op such as SVDF updates across calls) when `variable`."""
        if dtype not in _DTYPES:
            raise ValueError(f"unsupported dtype {dtype!r}, expected one of {sorted(_DTYPES)}")
        type_code, np_dtype = _DTYPES[dtype]
        shape = [int(d) for d in shape]
        buffer = 0
        if data is not None and dtype in _SUBBYTE_BITS:
            self._buffers.append(subbyte.pack(np.frombuffer(_to_bytes(name, data, shape, np_dtype), np.int8),
                                             _SUBBYTE_BITS[dtype], f"tensor {name!r}"))
            buffer = len(self._buffers) - 1
        elif data is not None:
            self._buffers.append(_to_bytes(name, data, shape, np_dtype))
            buffer = len(self._buffers) - 1
        quantization = _quantization(scale, zero_point, axis)
        self._tensors.append(_Tensor(name, shape, type_code, buffer, quantization, variable))
        return len(self._tensors) - 1

    def op(
        self,
        builtin: str,
        inputs: Sequence[int],
        outputs: Sequence[int],
        *,
        intermediates: Sequence[int] = (),
        **options: Any,
    ) -> None:
        """Append an operator; tensor index -1 marks an absent optional input. `intermediates` are the
        tensors a converter attaches to carry internal scales (an integer LSTM's gate outputs)."""
        if builtin not in _BUILTIN_CODES:
            raise ValueError(f"unknown builtin operator {builtin!r}")
        code = _BUILTIN_CODES[builtin]
        self._check_indices(builtin, inputs, allow_absent=True)
        self._check_indices(builtin, outputs, allow_absent=False)
        self._check_indices(builtin, intermediates, allow_absent=False)
        options_type, options_table = _make_options(builtin, options)
        self._operators.append(
            _Operator(self._opcode_index((code, None)), list(inputs), list(outputs), options_type, options_table,
                      list(intermediates))
        )

    def custom_op(self, custom_code: str, inputs: Sequence[int], outputs: Sequence[int], options: bytes = b"") -> None:
        """Append a CUSTOM operator named `custom_code` with its raw (flexbuffer) options."""
        self._check_indices(custom_code, inputs, allow_absent=True)
        self._check_indices(custom_code, outputs, allow_absent=False)
        index = self._opcode_index((_BUILTIN_CODES["CUSTOM"], custom_code))
        self._operators.append(
            _Operator(index, list(inputs), list(outputs), schema.BuiltinOptions.NONE, None,
                      custom_options=bytes(options))
        )

    def _opcode_index(self, opcode: _OpCode) -> int:
        if opcode not in self._opcodes:
            self._opcodes.append(opcode)
        return self._opcodes.index(opcode)

    def build(self, inputs: Sequence[int], outputs: Sequence[int], description: str = "mote") -> bytes:
        """Serialize the model with the given inputs and outputs of the main subgraph."""
        self.select(0)
        self.io(inputs, outputs)
        model = schema.ModelT()
        model.version = SCHEMA_VERSION
        model.description = description
        model.operatorCodes = [_opcode_table(code) for code in self._opcodes]
        model.subgraphs = [_subgraph_table(sub) for sub in self._subgraphs]
        model.buffers = [_AlignedBufferT(data) for data in self._buffers]

        builder = flatbuffers.Builder(1024)
        builder.Finish(model.Pack(builder), file_identifier=FILE_IDENTIFIER)
        return bytes(builder.Output())

    def _check_indices(self, what: str, indices: Sequence[int], allow_absent: bool) -> None:
        for i in indices:
            if allow_absent and i == -1:
                continue
            if not 0 <= i < len(self._tensors):
                raise IndexError(f"{what}: no tensor with index {i}")


class _AlignedBufferT(schema.BufferT):
    """BufferT whose data vector starts on a BUFFER_ALIGNMENT boundary."""

    def __init__(self, payload: bytes) -> None:
        super().__init__()
        self.payload = payload

    def Pack(self, builder: flatbuffers.Builder) -> int:
        if not self.payload:
            schema.BufferStart(builder)
            return schema.BufferEnd(builder)
        # Same steps as Builder.CreateNumpyVector, which has no alignment argument.
        n = len(self.payload)
        builder.StartVector(1, n, BUFFER_ALIGNMENT)
        builder.head -= n
        builder.Bytes[builder.head : builder.head + n] = self.payload
        data = builder.EndVector()
        schema.BufferStart(builder)
        schema.BufferAddData(builder, data)
        return schema.BufferEnd(builder)


def _to_bytes(name: str, data: np.ndarray, shape: list[int], np_dtype: type[np.generic]) -> bytes:
    array = np.asarray(data)
    if array.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"tensor {name!r}: data has {array.size} elements but shape is {shape}")
    converted = array.astype(np_dtype)
    # Refuse lossy conversions (e.g. float weights passed for an int8 tensor).
    if array.dtype != converted.dtype and not np.array_equal(converted, array):
        raise ValueError(f"tensor {name!r}: {array.dtype} data does not fit {np.dtype(np_dtype)}")
    return converted.astype(np.dtype(np_dtype).newbyteorder("<")).tobytes(order="C")


def _quantization(
    scale: float | Sequence[float] | None,
    zero_point: int | Sequence[int] | None,
    axis: int,
) -> schema.QuantizationParametersT | None:
    if scale is None:
        if zero_point is not None:
            raise ValueError("zero_point given without scale")
        return None
    scales = [float(s) for s in np.atleast_1d(np.asarray(scale, dtype=np.float64))]
    if zero_point is None:
        zero_point = 0
    zero_points = [int(z) for z in np.atleast_1d(np.asarray(zero_point, dtype=np.int64))]
    if len(zero_points) == 1 and len(scales) > 1:
        zero_points = zero_points * len(scales)
    if len(zero_points) != len(scales):
        raise ValueError(f"{len(scales)} scales but {len(zero_points)} zero points")
    q = schema.QuantizationParametersT()
    q.scale = scales
    q.zeroPoint = zero_points
    q.quantizedDimension = axis if len(scales) > 1 else 0
    return q


def _camel_case(snake: str) -> str:
    first, *rest = snake.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def _make_options(builtin: str, options: dict[str, Any]) -> tuple[int, Any]:
    union_name = options_table(builtin)
    if union_name is None:
        if options:
            raise TypeError(f"{builtin} takes no options, got {sorted(options)}")
        return schema.BuiltinOptions.NONE, None
    table = getattr(schema, union_name + "T")()
    for attr, value in _FRIENDLY_DEFAULTS.items():
        if hasattr(table, attr):
            setattr(table, attr, value)
    for key, value in options.items():
        attr = _camel_case(key)
        if not hasattr(table, attr):
            raise TypeError(f"{builtin} has no option {key!r} ({union_name})")
        setattr(table, attr, _option_value(attr, value))
    return getattr(schema.BuiltinOptions, union_name), table


def _option_value(attr: str, value: Any) -> Any:
    if isinstance(value, str) and attr not in _ENUM_FIELDS:  # a text field (VAR_HANDLE's shared name)
        return value
    if isinstance(value, str):
        enum = _ENUM_FIELDS.get(attr)
        if enum is None or not isinstance(getattr(enum, value, None), int):
            raise ValueError(f"option {attr}: cannot interpret {value!r}")
        return getattr(enum, value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [int(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _subgraph_table(sub: _Subgraph) -> schema.SubGraphT:
    table = schema.SubGraphT()
    table.tensors = [_tensor_table(t) for t in sub.tensors]
    table.operators = [_operator_table(o) for o in sub.operators]
    table.inputs = list(sub.inputs)
    table.outputs = list(sub.outputs)
    table.name = sub.name
    return table


def _tensor_table(t: _Tensor) -> schema.TensorT:
    table = schema.TensorT()
    table.name = t.name
    table.shape = list(t.shape)
    table.type = t.type
    table.buffer = t.buffer
    table.quantization = t.quantization
    table.isVariable = t.variable
    return table


def _operator_table(o: _Operator) -> schema.OperatorT:
    table = schema.OperatorT()
    table.opcodeIndex = o.opcode_index
    table.inputs = list(o.inputs)
    table.outputs = list(o.outputs)
    table.builtinOptionsType = o.options_type
    table.builtinOptions = o.options
    if o.custom_options is not None:
        table.customOptions = list(o.custom_options)
        table.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
    if o.intermediates:
        table.intermediates = list(o.intermediates)
    return table


def flexbuffer_map(values: dict[str, bool | int | float]) -> bytes:
    """A flexbuffer map of scalars (bool, int or float by the Python type), as custom options."""
    fbb = flexbuffers.Builder()
    with fbb.Map():
        for key, value in values.items():
            if isinstance(value, bool):
                fbb.Bool(key, value)
            elif isinstance(value, int):
                fbb.Int(key, value)
            else:
                fbb.Float(key, float(value))
    return bytes(fbb.Finish())


def _opcode_table(opcode: _OpCode) -> schema.OperatorCodeT:
    code, custom_code = opcode
    table = schema.OperatorCodeT()
    table.builtinCode = code
    table.customCode = custom_code
    # Codes above 127 do not fit the old int8 field; readers then use builtinCode.
    table.deprecatedBuiltinCode = min(code, 127)
    table.version = 1
    return table
