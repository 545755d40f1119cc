"""Structural checks of an ONNX ModelProto before conversion: a damaged or hostile file is refused with one
line naming the graph, node, tensor or attribute, instead of failing somewhere inside the conversion.

What is checked here is what the ONNX format itself promises: opsets, unique non-empty names, outputs that
something produces, tensors whose data matches their dims and dtype, attribute types as the operator schema
declares them, input counts within the schema's range, window attributes >= 1 (pads >= 0), no control flow
(subgraphs), and sizes below a cap so that nothing huge is allocated. The quantization and shape rules of
mote's own ops are checked on the Graph (mote/ir).
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from mote.errors import ModelFileError, UnsupportedError

# No tensor of a model mote compiles for a microcontroller comes near this many elements; the cap keeps a
# damaged dimension (of an initializer, a Constant, a graph input) from allocating gigabytes.
MAX_ELEMENTS = 1 << 26

_WINDOW_INTS = ("kernel_shape", "strides", "dilations")


@functools.cache
def _custom_attribute_types() -> dict[str, set[int]]:
    """Attribute types of the com.microsoft and integer-dialect ops mote reads (ONNX's own ops have schemas)."""
    from onnx import AttributeProto as A

    ints, number = {A.INT}, {A.INT, A.FLOAT, A.TENSOR}  # Deeploy's exporters write numbers as 1-element tensors
    return {"kernel_shape": {A.INTS}, "strides": {A.INTS}, "dilations": {A.INTS}, "pads": {A.INTS},
            "auto_pad": {A.STRING}, "ceil_mode": ints, "count_include_pad": ints, "channels_last": ints,
            "axis": ints, "group": ints, "opset": ints, "alpha": {A.FLOAT}, "transA": ints, "transB": ints,
            "div": number, "n_levels_out": number, "n_levels": number, "signed": number,
            "mul": number | {A.INTS, A.FLOATS}, "add": number | {A.INTS, A.FLOATS}}


def check_model(model: Any, name: str, integer: bool = False) -> None:
    """ModelFileError / UnsupportedError with one line when `model` is not a well-formed ONNX model.
    `integer`: an integer-dialect model, whose exporters declare integer values float and write old-style attributes
    under newer opsets; ONNX's strict type and shape inference is skipped for it (the converter checks shapes)."""
    if not model.HasField("graph"):
        raise ModelFileError(f"{name}: the file holds no graph; not an ONNX model, or a damaged one")
    _check_text(model, name)
    opset = _default_opset(model, name)
    g = model.graph
    initializers = _unique_names([t.name for t in g.initializer], f"{name}: initializer")
    inputs = _unique_names([vi.name for vi in g.input], f"{name}: graph input")
    for t in g.initializer:
        check_tensor(t, f"{name}: initializer {t.name!r}")
    for vi in g.input:
        if vi.name not in initializers:
            _check_value_info(vi, f"{name}: input {vi.name!r}", need_type=True, allow_empty=integer)
    produced = set(initializers) | set(inputs)
    for index, node in enumerate(g.node):
        where = f"{name}: {node.op_type or '?'} node {node.name or (node.output[0] if node.output else index)!r}"
        _check_node(node, where, opset, model)
        for out in node.output:
            if out and out in produced:
                raise ModelFileError(f"{where}: output {out!r} is already produced by an input, initializer or "
                                     "earlier node; every ONNX name is assigned once")
            produced.add(out)
    if not g.output:
        raise ModelFileError(f"{name}: the graph has no outputs; nothing to compute")
    _unique_names([vi.name for vi in g.output], f"{name}: graph output")
    for vi in g.output:
        if vi.name not in produced:
            raise ModelFileError(f"{name}: output {vi.name!r} is produced by no node, input or initializer")
        _check_value_info(vi, f"{name}: output {vi.name!r}", need_type=False)
    if not integer:
        _check_types_and_shapes(model, name)


def _check_types_and_shapes(model: Any, name: str) -> None:
    """ONNX's own type and shape inference, strict: the types each operator's schema allows, and shapes that
    agree along the graph (what onnxruntime checks before it runs a model)."""
    import onnx
    from onnx import shape_inference

    imported = {imp.domain for imp in model.opset_import}
    missing = {n.domain for n in model.graph.node if n.domain not in imported and n.domain != "ai.onnx"}
    if missing:  # ops of unimported (custom) domains are left to the converter, which names them
        model = onnx.ModelProto.FromString(model.SerializeToString())
        model.opset_import.extend(onnx.helper.make_opsetid(d, 1) for d in sorted(missing))
    try:
        shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception as e:  # onnx.shape_inference.InferenceError, or a ValueError on what it cannot read
        text = re.sub(r"\[\w+\]\s*|Inference error\(s\):\s*", "", " ".join(str(e).split()))  # onnx's tags
        detail = text.strip()[:240] or type(e).__name__
        raise ModelFileError(f"{name}: ONNX type and shape inference fails: {detail}") from None


def _check_text(model: Any, name: str) -> None:
    """Every name is text: protobuf hands back bytes for a string field that is not valid UTF-8."""
    g = model.graph
    texts = [imp.domain for imp in model.opset_import] + [t.name for t in g.initializer]
    texts += [vi.name for vi in (*g.input, *g.output, *g.value_info)]
    for node in g.node:
        texts += [node.op_type, node.domain, node.name, *node.input, *node.output, *(a.name for a in node.attribute)]
    if any(not isinstance(t, str) for t in texts):
        raise ModelFileError(f"{name}: a name in the model is not valid UTF-8; the file is damaged")


def check_tensor(t: Any, where: str) -> None:
    """A TensorProto whose dtype is known, dims >= 0, size below the cap, and data as long as its dims say."""
    from onnx import TensorProto, helper

    if t.data_location == TensorProto.EXTERNAL or t.external_data:
        raise UnsupportedError(f"{where}: data stored in an external file; mote reads self-contained models "
                               "(save it with onnx.save(..., save_as_external_data=False))")
    if t.data_type in (TensorProto.UNDEFINED, TensorProto.STRING) or t.data_type not in _known_dtypes():
        raise ModelFileError(f"{where}: data type {_dtype_name(t.data_type)} is not a numeric ONNX tensor type")
    if any(d < 0 for d in t.dims):
        raise ModelFileError(f"{where}: negative dimension in {list(t.dims)}")
    count = math.prod(t.dims)
    if count > MAX_ELEMENTS:
        raise UnsupportedError(f"{where}: {count} elements (dims {list(t.dims)}), over mote's limit of "
                               f"{MAX_ELEMENTS}")
    np_dtype = helper.tensor_dtype_to_np_dtype(t.data_type)
    if t.HasField("raw_data"):
        bits = _packed_bits(t.data_type) or 8 * np_dtype.itemsize
        expected = (count * bits + 7) // 8
        if len(t.raw_data) != expected:
            raise ModelFileError(f"{where}: {len(t.raw_data)} bytes of data for dims {list(t.dims)} of "
                                 f"{_dtype_name(t.data_type)} ({expected} bytes expected); the file is damaged")
        return
    stored = len(getattr(t, helper.tensor_dtype_to_field(t.data_type)))  # the field the dtype says
    per_int = 8 // _packed_bits(t.data_type) if _packed_bits(t.data_type) else 0  # packed values per int32_data
    pairs = t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128)
    expected = -(-count // per_int) if per_int else 2 * count if pairs else count
    if stored != expected:
        raise ModelFileError(f"{where}: {stored} values for dims {list(t.dims)} of {_dtype_name(t.data_type)} "
                             f"({expected} expected); the file is damaged")


@functools.cache
def _known_dtypes() -> frozenset[int]:
    from onnx import helper

    known = set()
    for code in range(1, 32):
        try:
            helper.tensor_dtype_to_np_dtype(code)
        except (KeyError, ValueError):
            continue
        known.add(code)
    return frozenset(known)


@functools.cache
def _four_bit_dtypes() -> frozenset[int]:
    from onnx import TensorProto

    return frozenset(getattr(TensorProto, n) for n in ("INT4", "UINT4", "FLOAT4E2M1") if hasattr(TensorProto, n))


def _packed_bits(code: int) -> int:
    """The bits a value of a packed sub-byte type takes (4: INT4, UINT4, FLOAT4E2M1; 2: INT2, UINT2), else 0."""
    from onnx import TensorProto

    if code in _four_bit_dtypes():
        return 4
    two = {getattr(TensorProto, n) for n in ("INT2", "UINT2") if hasattr(TensorProto, n)}
    return 2 if code in two else 0


def _dtype_name(code: int) -> str:
    from onnx import TensorProto

    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"code {code}"


def _default_opset(model: Any, name: str) -> int:
    import onnx

    versions = [imp.version for imp in model.opset_import if imp.domain in ("", "ai.onnx")]
    newest = onnx.defs.onnx_opset_version()
    if not versions:
        raise ModelFileError(f"{name}: the model does not import the default ONNX opset (opset_import with domain "
                             "''); the file is damaged")
    if len(versions) > 1:
        raise ModelFileError(f"{name}: the model imports the default ONNX opset {len(versions)} times; re-export it")
    if not 1 <= versions[0] <= newest:
        raise UnsupportedError(f"{name}: ONNX opset {versions[0]}; mote reads opsets 1 to {newest} (the installed "
                               "onnx package's); re-export with a supported opset")
    return versions[0]


def _unique_names(names: list[str], what: str) -> list[str]:
    seen = set()
    for n in names:
        if not n:
            raise ModelFileError(f"{what} with an empty name")
        if n in seen:
            raise ModelFileError(f"{what} {n!r} is declared twice")
        seen.add(n)
    return names


def _check_value_info(vi: Any, where: str, need_type: bool, allow_empty: bool = False) -> None:
    if not vi.type.HasField("tensor_type"):
        if need_type:
            raise UnsupportedError(f"{where} is not a tensor (sequence, map or optional types are not supported)")
        return
    tt = vi.type.tensor_type
    if (need_type or tt.elem_type) and tt.elem_type not in _known_dtypes():
        raise ModelFileError(f"{where}: element type {_dtype_name(tt.elem_type)} is not a numeric ONNX tensor type")
    if not need_type or not tt.HasField("shape"):
        return
    dims = [d.dim_value for d in tt.shape.dim if d.HasField("dim_value")]
    if any(d < 0 for d in dims) or (dims and 0 in dims and len(dims) == len(tt.shape.dim) and not allow_empty):
        raise ModelFileError(f"{where}: dimensions {dims} must be at least 1")
    if math.prod(d for d in dims if d > 0) > MAX_ELEMENTS:
        raise UnsupportedError(f"{where}: shape {dims} has more than {MAX_ELEMENTS} elements, over mote's limit")


def _check_node(node: Any, where: str, opset: int, model: Any) -> None:
    from onnx import AttributeProto as A

    if not node.op_type:
        raise ModelFileError(f"{where}: a node without an operator type")
    if not node.output or not any(node.output):
        raise ModelFileError(f"{where}: the node has no outputs")
    expected = _attribute_types(node, opset, model)
    seen = set()
    for a in node.attribute:
        if a.name in seen:
            raise ModelFileError(f"{where}: attribute {a.name!r} is given twice")
        seen.add(a.name)
        if a.type in (A.GRAPH, A.GRAPHS) or a.HasField("g") or a.graphs:
            raise UnsupportedError(f"{where}: control flow (a subgraph in attribute {a.name!r}) is not supported; "
                                   "mote compiles straight-line graphs")
        _check_attribute_fields(a, where)
        allowed = expected.get(a.name)
        if allowed is not None and a.type not in allowed:
            want = " or ".join(sorted(A.AttributeType.Name(t) for t in allowed))
            raise ModelFileError(f"{where}: attribute {a.name!r} is {_attr_type_name(a.type)}, the operator wants "
                                 f"{want}")
        if a.type == A.TENSOR:
            check_tensor(a.t, f"{where}: attribute {a.name!r}")
        if a.type == A.SPARSE_TENSOR:
            raise UnsupportedError(f"{where}: sparse tensor attribute {a.name!r} is not supported")
        _check_window_attribute(a, where)
    _check_window_lengths(node, where)
    _check_arity(node, where, opset)


def _check_attribute_fields(a: Any, where: str) -> None:
    """An attribute holds data in the one field its type names (a damaged file may fill others)."""
    from onnx import AttributeProto as A

    scalar = {"f": A.FLOAT, "i": A.INT, "s": A.STRING, "t": A.TENSOR, "g": A.GRAPH, "sparse_tensor": A.SPARSE_TENSOR,
              "tp": A.TYPE_PROTO}
    repeated = {"floats": A.FLOATS, "ints": A.INTS, "strings": A.STRINGS, "tensors": A.TENSORS, "graphs": A.GRAPHS,
                "sparse_tensors": A.SPARSE_TENSORS, "type_protos": A.TYPE_PROTOS}
    filled = {kind for field, kind in scalar.items() if a.HasField(field)}
    filled |= {kind for field, kind in repeated.items() if len(getattr(a, field))}
    if filled - {a.type}:
        raise ModelFileError(f"{where}: attribute {a.name!r} of type {_attr_type_name(a.type)} holds data of another "
                             "type too; the file is damaged")


def _attr_type_name(code: int) -> str:
    from onnx import AttributeProto as A

    try:
        return A.AttributeType.Name(code)
    except ValueError:
        return f"type {code}"


def _check_window_attribute(a: Any, where: str) -> None:
    if a.name in _WINDOW_INTS and a.ints and min(a.ints) < 1:
        raise ModelFileError(f"{where}: {a.name} {list(a.ints)} must all be at least 1")
    if a.name == "pads" and a.ints and min(a.ints) < 0:
        raise UnsupportedError(f"{where}: negative pads {list(a.ints)} (cropping) are not supported")
    if a.name == "group" and a.i < 1:
        raise ModelFileError(f"{where}: group {a.i} must be at least 1")


def _check_window_lengths(node: Any, where: str) -> None:
    """kernel_shape, strides and dilations with one value per spatial axis, pads with two."""
    lists = {a.name: list(a.ints) for a in node.attribute if a.name in (*_WINDOW_INTS, "pads") and a.ints}
    ranks = {len(v) for k, v in lists.items() if k != "pads"}
    if "pads" in lists:
        if len(lists["pads"]) % 2:
            raise ModelFileError(f"{where}: pads {lists['pads']} must have two values per spatial axis")
        ranks.add(len(lists["pads"]) // 2)
    if len(ranks) > 1:
        shown = ", ".join(f"{k} {v}" for k, v in lists.items())
        raise ModelFileError(f"{where}: {shown} disagree on the number of spatial axes")


def _schema(node: Any, opset: int, model: Any) -> Any:
    import onnx

    domain = node.domain if node.domain not in ("", "ai.onnx") else ""
    version = opset if domain == "" else next((i.version for i in model.opset_import if i.domain == domain), 1)
    try:
        return onnx.defs.get_schema(node.op_type, version, domain)
    except Exception:  # onnx.defs.SchemaError: an op onnx does not define (custom domains); the handler decides
        return None


def _attribute_types(node: Any, opset: int, model: Any) -> dict[str, set[int]]:
    schema = _schema(node, opset, model)
    if schema is None:
        return _custom_attribute_types()
    return {name: {int(a.type)} for name, a in schema.attributes.items()}


def _check_arity(node: Any, where: str, opset: int) -> None:
    import onnx

    if node.domain not in ("", "ai.onnx"):
        return
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
    except Exception:  # not an ONNX op at this opset
        if onnx.defs.has(node.op_type):
            since = min(v for v in range(opset + 1, onnx.defs.onnx_opset_version() + 1)
                        if _schema_exists(node.op_type, v))
            raise ModelFileError(f"{where}: {node.op_type} is not in ONNX opset {opset} (it came in opset "
                                 f"{since}); the model's opset_import is wrong") from None
        return  # not an ONNX op: the dispatcher names it as unsupported
    given = len(node.input)
    if node.op_type == "Pad" and any(a.name == "pads" for a in node.attribute):
        return  # opset < 11's Pad (pads as an attribute), as exporters still write it under newer opsets
    if given < schema.min_input or given > schema.max_input:
        bounds = (f"{schema.min_input}" if schema.min_input == schema.max_input
                  else f"{schema.min_input} to {schema.max_input}")
        raise ModelFileError(f"{where}: {given} inputs; {node.op_type} (opset {opset}) takes {bounds}")
    single = onnx.defs.OpSchema.FormalParameterOption.Single
    required = [i for i, p in enumerate(schema.inputs) if p.option == single and i < given]
    for i in required:
        if not node.input[i]:
            raise ModelFileError(f"{where}: required input {i} ({schema.inputs[i].name}) is empty")
    if len(node.output) > schema.max_output:
        raise ModelFileError(f"{where}: {len(node.output)} outputs; {node.op_type} has at most {schema.max_output}")


def _schema_exists(op: str, version: int) -> bool:
    import onnx

    try:
        return onnx.defs.get_schema(op, version, "").since_version <= version
    except Exception:  # onnx.defs.SchemaError
        return False
