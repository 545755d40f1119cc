"""TFLite flatbuffer -> mote Graph. Every tensor dtype TFLite Micro runs is read; each op's check then refuses,
in one line, what its kernels cannot compute (`mote ops` lists what they can). The subgraphs that control-flow
operators call and the resource variables are read by mote.frontend.tflite_control."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

from mote.errors import ModelFileError, MoteError, UnsupportedError
from mote.frontend.files import check_regular_file
from mote.frontend.signed_scales import fold_negative_scales
from mote.frontend.tflite_checks import check_options, check_structure, decode_name
from mote.frontend.tflite_control import CONTROL, call_order, control_node, find_variables, handles, is_resource
from mote.frontend.tflite_custom import CUSTOM_KEYS, custom_attrs
from mote.frontend.tflite_uint8 import convert_legacy_uint8, is_legacy_uint8
from mote.ir import DType, Graph, Node, Quant, Tensor, subbyte
from mote.ir.verify import check_tensor
from mote.ops import registry
from mote.ops.validate import validate

_DTYPES = {schema.TensorType.INT8: DType.INT8, schema.TensorType.INT16: DType.INT16,
           schema.TensorType.INT32: DType.INT32, schema.TensorType.FLOAT32: DType.FLOAT32,
           schema.TensorType.UINT8: DType.UINT8, schema.TensorType.INT64: DType.INT64,
           schema.TensorType.BOOL: DType.BOOL}
# Sub-byte constants (TFLite's INT4 and INT2 weights): int8 tensors whose values fit this many bits, packed
# in the file (mote.ir.subbyte).
_SUBBYTE = {schema.TensorType.INT4: 4, schema.TensorType.INT2: 2}
_TYPE_NAMES = {v: k for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
_BUILTIN_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
_ACTIVATIONS = {v: k for k, v in vars(schema.ActivationFunctionType).items() if not k.startswith("_")}
_PADDINGS = {schema.Padding.SAME: "SAME", schema.Padding.VALID: "VALID"}


def _tflite_to_op() -> dict[str, str]:
    return {builtin: op.name for op in registry.OPS.values() for builtin in op.tflite}


def load_tflite(data: bytes, name: str = "model") -> Graph:
    """Parse a .tflite flatbuffer into a validated Graph; raise MoteError on anything damaged or unsupported.
    Subgraphs that control-flow operators call become Graphs their nodes hold (mote.frontend.tflite_control)."""
    model = _unpack(data, name)
    check_structure(model, name)
    order = call_order(model, name, _builtin_name)
    variables = find_variables(model, order, name, _builtin_name,
                               lambda sub, i: _tensor(model, model.subgraphs[sub].tensors[i], i, name))
    graphs: dict[int, Graph] = {}
    for index in order:  # callees first: a calling node finds its subgraphs loaded
        graphs[index] = _subgraph(model, index, name, graphs, variables)
    return graphs[0]


def _subgraph(model: Any, index: int, name: str, graphs: dict[int, Graph], variables: dict[str, Tensor]) -> Graph:
    sub = model.subgraphs[index]
    used = _used_tensors(sub)
    tensors = [None if is_resource(t) or i not in used else _tensor(model, t, i, name)
               for i, t in enumerate(sub.tensors or [])]
    handles_here = handles(model, index, name, _builtin_name)
    label = name if index == 0 else f"{name} subgraph {index}"

    def io(indices: Any, field: str) -> list[Tensor]:
        found = [tensors[i] for i in (indices if indices is not None else [])]
        if any(t is None for t in found):
            raise UnsupportedError(f"{label}: a resource handle is among the subgraph {field}; mote resolves "
                                   "handles only within the subgraph whose VAR_HANDLE makes them")
        return [t for t in found if t is not None]

    supported = _tflite_to_op()
    graph = Graph(label, io(sub.inputs, "inputs"), io(sub.outputs, "outputs"))
    for k, op in enumerate(sub.operators or []):
        builtin = _builtin_name(model.operatorCodes[op.opcodeIndex])
        if builtin in CONTROL:
            where = f"{label}: node {k} ({builtin})"
            check_options(op, builtin, where)
            node = control_node(builtin, op, k, tensors, handles_here, graphs, variables, where)
            if node is not None:
                graph.nodes.append(node)
            continue
        graph.nodes.append(_node(op, k, builtin, tensors, label, supported))
    fold_negative_scales(graph)
    if index == 0:
        if is_legacy_uint8(graph):
            convert_legacy_uint8(graph)
        validate(graph)
        return graph
    try:
        validate(graph, subgraph=True)
    except MoteError as e:  # say which subgraph
        raise type(e)(f"{label}: {e}") from None
    return graph


def _node(op: Any, index: int, builtin: str, tensors: list[Tensor | None], name: str, supported: dict[str, str]
          ) -> Node:
    indices = list(op.inputs if op.inputs is not None else [])
    if op.outputs is None or len(op.outputs) == 0:
        raise ModelFileError(f"{name}: node {index} ({builtin}) has no outputs; the file is damaged")
    if any(i >= 0 and tensors[i] is None for i in [*indices, *op.outputs]):
        raise UnsupportedError(f"{name}: node {index} ({builtin}) takes or gives a resource handle; only the "
                               "resource variable operators do")
    inputs = [tensors[i] if i >= 0 else None for i in indices]
    outputs = [t for t in (tensors[i] for i in op.outputs) if t is not None]
    where = f"{name}: node {index} ({builtin}, output {outputs[0].name!r})"
    if builtin not in supported:
        raise UnsupportedError(f"{where}: the operator is not supported; supported operators: "
                               f"{', '.join(sorted(supported))}")
    if builtin in CUSTOM_KEYS:
        attrs = custom_attrs(builtin, op.customOptions, where)
    else:
        check_options(op, builtin, where)
        attrs = {**_declared(op.builtinOptions, supported[builtin]), **_attrs(op.builtinOptions, inputs, where)}
    return Node(supported[builtin], outputs[0].name, inputs, outputs, attrs, index)


def _used_tensors(sub: Any) -> set[int]:
    """The tensors the graph computes with: not those only listed as an operator's intermediates (the gate
    scales an integer LSTM's converter attaches, often of shape [0]), which TFLite Micro does not read."""
    used = {int(i) for i in _indices(sub.inputs) + _indices(sub.outputs)}
    for op in sub.operators or []:
        used.update(int(i) for i in _indices(op.inputs) + _indices(op.outputs) if i >= 0)
    return used


def _indices(values: Any) -> list[int]:
    return [] if values is None else [int(v) for v in values]


def _builtin_name(code: Any) -> str:
    """The builtin's name; for a custom operator its custom code when mote reads it (CUSTOM_KEYS), else
    CUSTOM('<code>')."""
    builtin = _BUILTIN_NAMES.get(max(code.builtinCode, code.deprecatedBuiltinCode), "CUSTOM")
    if code.customCode:
        custom = decode_name(code.customCode, "?")
        return custom if builtin == "CUSTOM" and custom in CUSTOM_KEYS else f"CUSTOM({custom!r})"
    return builtin


def load_tflite_file(path: str | Path) -> Graph:
    path = Path(path)
    check_regular_file(path, "model file")  # a FIFO would block the read
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the model file ({e.strerror})") from None
    return load_tflite(data, path.stem)


def _unpack(data: bytes, name: str) -> Any:
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise ModelFileError(f"{name}: not a TFLite flatbuffer (no 'TFL3' identifier); give a .tflite model file")
    try:
        model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
        if not model.subgraphs or not model.buffers:
            raise ValueError("no subgraphs or buffers")
    except Exception:  # the flatbuffer reader raises many kinds on a damaged file
        raise ModelFileError(f"{name}: the TFLite file is truncated or corrupt; re-export the model") from None
    return model


def _tensor(model: Any, t: Any, index: int, model_name: str) -> Tensor:
    name = decode_name(t.name, f"tensor{index}")
    if t.type not in _DTYPES and t.type not in _SUBBYTE:
        raise UnsupportedError(f"{model_name}: tensor {name!r} has dtype {_TYPE_NAMES.get(t.type, t.type)}; "
                               f"mote supports {', '.join(d.value for d in _DTYPES.values())} tensors, "
                               "and int4 and int2 constants")
    dtype = _DTYPES.get(t.type, DType.INT8)
    shape = tuple(int(d) for d in (t.shape if t.shape is not None else []))
    quant = None
    q = t.quantization
    if q is not None and q.scale is not None and len(q.scale) > 0:
        zero_points = q.zeroPoint if q.zeroPoint is not None else []  # TFLite Micro needs one per scale
        quant = Quant(tuple(float(s) for s in q.scale), tuple(int(z) for z in zero_points),
                      _quantized_axis(q, shape))
    tensor = Tensor(name, shape, dtype, quant, variable=bool(t.isVariable), bits=_SUBBYTE.get(t.type, 8))
    check_tensor(tensor, signed_scales=True)  # dimensions and size first: the buffer is read against them
    buffer = model.buffers[t.buffer]
    if t.type in _SUBBYTE:
        return _subbyte_constant(tensor, buffer, model_name)
    if buffer.data is not None and len(buffer.data) > 0 and not tensor.variable:  # state starts from reset
        if len(buffer.data) != tensor.nbytes:
            raise ModelFileError(f"{model_name}: tensor {name!r} has {len(buffer.data)} bytes of data, but its shape "
                                 f"{list(shape)} of {dtype.value} needs {tensor.nbytes}; the file is damaged")
        raw = np.asarray(buffer.data, dtype=np.uint8).tobytes()
        tensor.data = np.frombuffer(raw, dtype=dtype.np).reshape(shape).copy()
    return tensor


def _quantized_axis(q: Any, shape: tuple[int, ...]) -> int | None:
    """The axis of per-channel scales (None for one scale). Older converters wrote a conv's 1-D bias with the
    filter's output-channel axis (3); TFLite Micro reads such a bias per element, and so does mote."""
    if len(q.scale) <= 1:
        return None
    axis = int(q.quantizedDimension)
    if len(shape) == 1 and not 0 <= axis < 1 and len(q.scale) == shape[0]:
        return 0
    return axis


def _subbyte_constant(tensor: Tensor, buffer: Any, model_name: str) -> Tensor:
    """An INT4 or INT2 tensor: a constant whose packed values become one int8 each."""
    what = f"{model_name}: tensor {tensor.name!r} (int{tensor.bits})"
    data = buffer.data if buffer.data is not None else []
    if tensor.variable or len(data) == 0:
        raise UnsupportedError(f"{what} holds no constant data; mote reads int{tensor.bits} tensors only as "
                               "constant weights")
    if len(data) != subbyte.packed_size(tensor.size, tensor.bits):
        raise ModelFileError(f"{what} has {len(data)} bytes of data, but its shape {list(tensor.shape)} packs "
                             f"into {subbyte.packed_size(tensor.size, tensor.bits)}; the file is damaged")
    raw = np.asarray(data, dtype=np.uint8).tobytes()
    tensor.data = subbyte.unpack(raw, tensor.size, tensor.bits, what).reshape(tensor.shape)
    return tensor


def _declared(options: Any, op: str) -> dict[str, Any]:
    """The attributes the op declares (OpDef.attrs) read from the options field of the same name in
    camelCase (num_splits <- numSplits), as plain Python values; _attrs below converts the rest."""
    if options is None:
        return {}
    attrs: dict[str, Any] = {}
    for name in registry.OPS[op].attrs:
        first, *rest = name.split("_")
        value = getattr(options, first + "".join(p.capitalize() for p in rest), None)
        if value is None:
            continue
        if isinstance(value, (list, tuple, np.ndarray)):
            value = tuple(v.item() if isinstance(v, np.generic) else v for v in value)
        elif isinstance(value, np.generic):
            value = value.item()
        attrs[name] = value
    return attrs


def _attrs(options: Any, inputs: list[Tensor | None], where: str) -> dict[str, Any]:
    """TFLite builtin options -> mote's attribute conventions (see mote/ops/registry.py)."""
    if options is None:
        return {}
    o = vars(options)
    attrs: dict[str, Any] = {}
    if "padding" in o:
        if o["padding"] not in _PADDINGS:
            raise ModelFileError(f"{where}: padding code {o['padding']} is not a TFLite padding; the file is damaged")
        attrs["padding"] = _PADDINGS[o["padding"]]
    if "strideH" in o:
        attrs["stride"] = (o["strideH"], o["strideW"])
    if "dilationHFactor" in o:
        attrs["dilation"] = (o["dilationHFactor"], o["dilationWFactor"])
    if "filterHeight" in o:
        attrs["filter"] = (o["filterHeight"], o["filterWidth"])
    if "fusedActivationFunction" in o:
        code = o["fusedActivationFunction"]
        if code not in _ACTIVATIONS:
            raise ModelFileError(f"{where}: fused activation code {code} is not a TFLite activation; "
                                 "the file is damaged")
        attrs["activation"] = _ACTIVATIONS[code]
    for key, attr in (("depthMultiplier", "depth_multiplier"), ("keepNumDims", "keep_num_dims"),
                      ("beta", "beta"), ("keepDims", "keep_dims")):
        if key in o:
            attrs[attr] = o[key]
    if "squeezeDims" in o:
        attrs["squeeze_dims"] = tuple(int(d) for d in (o["squeezeDims"] if o["squeezeDims"] is not None else []))
    if "axis" in o and type(options).__name__ == "ConcatenationOptionsT" and inputs and inputs[0] is not None:
        rank = len(inputs[0].shape)
        if not -rank <= o["axis"] < rank:  # TFLite allows [-rank, rank)
            raise UnsupportedError(f"{where}: axis {o['axis']} is out of range for a {rank}-D input")
        attrs["axis"] = o["axis"] % rank
    return attrs
