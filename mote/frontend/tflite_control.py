"""The TFLite builtins that call subgraphs or name resource variables, read into mote's IR.

Subgraphs: IF, WHILE and CALL_ONCE name other subgraphs of the file by index. `call_order` lists the
subgraphs the main one reaches, callees first, refusing an index out of range and a subgraph that calls
itself, directly or through others (TFLite Micro's control flow cannot recurse, and mote sizes every call's
memory at compile time). Each is loaded once into a Graph, which the calling nodes hold in their attributes.

Resource variables: VAR_HANDLE names a variable by its shared name (TFLite Micro's interpreter counts them
by it); READ_VARIABLE and ASSIGN_VARIABLE take the handle. `find_variables` makes one state tensor per
shared name, shaped and typed as the first value assigned to it (in TFLite Micro's prepare order: subgraph
by subgraph, node by node), so every handle resolves at load time. A handle must come from a VAR_HANDLE of
its own subgraph; handles passed between subgraphs, or to any other operator, are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

from mote.errors import ModelFileError, UnsupportedError
from mote.frontend.tflite_checks import check_options, decode_name
from mote.ir import DType, Graph, Node, Tensor
from mote.ops.subgraphs import state_of

CALLS = {"IF": (("then", "thenSubgraphIndex"), ("else", "elseSubgraphIndex")),
         "WHILE": (("cond", "condSubgraphIndex"), ("body", "bodySubgraphIndex")),
         "CALL_ONCE": (("init", "initSubgraphIndex"),)}
RESOURCE_OPS = ("VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE")
CONTROL = (*CALLS, *RESOURCE_OPS)
BuiltinName = Callable[[Any], str]


def is_resource(t: Any) -> bool:
    return bool(t.type == schema.TensorType.RESOURCE)


def _ops(model: Any, index: int, builtin_name: BuiltinName) -> list[tuple[int, Any, str]]:
    sub = model.subgraphs[index]
    return [(k, op, builtin_name(model.operatorCodes[op.opcodeIndex])) for k, op in enumerate(sub.operators or [])]


def _where(name: str, index: int, node: int, builtin: str) -> str:
    return f"{name}: {'' if index == 0 else f'subgraph {index} '}node {node} ({builtin})"


def _callees(op: Any, builtin: str) -> list[tuple[str, int]]:
    options = op.builtinOptions
    return [(role, int(getattr(options, field, 0) if options is not None else 0)) for role, field in CALLS[builtin]]


def call_order(model: Any, name: str, builtin_name: BuiltinName) -> list[int]:
    """The subgraphs the main one reaches, each once, every callee before its callers (the main one last)."""
    count = len(model.subgraphs)
    order: list[int] = []
    done: set[int] = set()
    path = [0]  # the chain of calls being followed
    pending = [iter(_calls_of(model, 0, name, builtin_name))]
    while pending:
        step = next(pending[-1], None)
        if step is None:
            pending.pop()
            done.add(path[-1])
            order.append(path.pop())
            continue
        where, role, target = step
        if not 0 <= target < count:
            raise ModelFileError(f"{where}: the {role} subgraph index {target} is out of range (the model has "
                                 f"{count} subgraphs); the file is damaged")
        if target in path:
            raise UnsupportedError(f"{where}: the {role} subgraph {target} calls itself (recursion); mote, like "
                                   "TFLite Micro, runs control flow without recursion")
        if target not in done:
            path.append(target)
            pending.append(iter(_calls_of(model, target, name, builtin_name)))
    return order


def _calls_of(model: Any, index: int, name: str, builtin_name: BuiltinName) -> list[tuple[str, str, int]]:
    calls = []
    for k, op, builtin in _ops(model, index, builtin_name):
        if builtin in CALLS:
            where = _where(name, index, k, builtin)
            check_options(op, builtin, where)  # the indices are read from them
            calls += [(where, role, target) for role, target in _callees(op, builtin)]
    return calls


def handles(model: Any, index: int, name: str, builtin_name: BuiltinName) -> dict[int, str]:
    """The subgraph's resource handles: tensor index -> the shared name its VAR_HANDLE gives."""
    sub = model.subgraphs[index]
    found: dict[int, str] = {}
    for k, op, builtin in _ops(model, index, builtin_name):
        if builtin != "VAR_HANDLE":
            continue
        where = _where(name, index, k, builtin)
        outputs = list(op.outputs if op.outputs is not None else [])
        if op.inputs is not None and len(op.inputs) or len(outputs) != 1 or not is_resource(sub.tensors[outputs[0]]):
            raise ModelFileError(f"{where}: VAR_HANDLE takes no inputs and gives one resource tensor; the file is "
                                 "damaged")
        shared = decode_name(op.builtinOptions.sharedName if op.builtinOptions is not None else None, "")
        if not shared:
            raise UnsupportedError(f"{where}: the variable has no shared name, which TFLite Micro needs to find it")
        found[outputs[0]] = shared
    return found


def _handle(op: Any, handles_here: dict[int, str], where: str) -> str:
    inputs = list(op.inputs if op.inputs is not None else [])
    if not inputs or inputs[0] not in handles_here:
        raise UnsupportedError(f"{where}: input 0 must be a resource handle from a VAR_HANDLE of the same subgraph")
    return handles_here[inputs[0]]


def find_variables(model: Any, order: list[int], name: str, builtin_name: BuiltinName,
                   tensor: Callable[[int, int], Tensor]) -> dict[str, Tensor]:
    """One state tensor per shared name that some ASSIGN_VARIABLE writes. `tensor(subgraph, index)` reads a
    tensor of the file."""
    variables: dict[str, Tensor] = {}
    for index in sorted(order):
        handles_here = handles(model, index, name, builtin_name)
        for k, op, builtin in _ops(model, index, builtin_name):
            if builtin != "ASSIGN_VARIABLE":
                continue
            where = _where(name, index, k, builtin)
            inputs = list(op.inputs if op.inputs is not None else [])
            if len(inputs) != 2 or (op.outputs is not None and len(op.outputs)) or inputs[1] < 0:
                raise ModelFileError(f"{where}: ASSIGN_VARIABLE takes a handle and a value and gives nothing; the "
                                     "file is damaged")
            shared = _handle(op, handles_here, where)
            if is_resource(model.subgraphs[index].tensors[inputs[1]]):
                raise UnsupportedError(f"{where}: the value assigned is a resource handle")
            value = tensor(index, inputs[1])
            known = variables.get(shared)
            if known is None:  # TFLite Micro fills it with the value's zero point cast to int8, whatever its dtype
                fill = (value.quant.zero_point[0] + 128) % 256 - 128 if value.quant and value.quant.zero_point else 0
                variables[shared] = Tensor(shared, value.shape, value.dtype, value.quant, variable=True,
                                           reset_byte=fill)
            elif known.dtype is not value.dtype or known.shape != value.shape:
                raise UnsupportedError(f"{where}: variable {shared!r} is assigned {value.dtype.value} "
                                       f"{list(value.shape)}, but it holds {known.dtype.value} {list(known.shape)}")
    return variables


def control_node(builtin: str, op: Any, k: int, tensors: list[Tensor | None], handles_here: dict[int, str],
                 graphs: dict[int, Graph], variables: dict[str, Tensor], where: str) -> Node | None:
    """The node for one of the CONTROL builtins (None for VAR_HANDLE, which the handles resolve)."""
    if builtin == "VAR_HANDLE":
        return None
    inputs = list(op.inputs if op.inputs is not None else [])
    outputs = list(op.outputs if op.outputs is not None else [])
    if builtin in RESOURCE_OPS:
        shared = _handle(op, handles_here, where)
        variable = variables.get(shared)
        if variable is None:
            raise UnsupportedError(f"{where}: variable {shared!r} is never assigned a value, so it has no type "
                                   "or shape (TFLite Micro would read an unallocated buffer)")
        if builtin == "ASSIGN_VARIABLE":
            value = tensors[inputs[1]]
            assert value is not None  # find_variables checked it
            return Node("assign_variable", f"assign {shared}", [value], [variable], {}, k)
        if len(inputs) != 1 or len(outputs) != 1:
            raise ModelFileError(f"{where}: READ_VARIABLE takes a handle and gives one value; the file is damaged")
        out = _plain(tensors, outputs, where)
        return Node("read_variable", out[0].name, [variable], out, {}, k)
    callees = {role: graphs[target] for role, target in _callees(op, builtin)}
    if builtin == "CALL_ONCE":
        if inputs or outputs:
            raise ModelFileError(f"{where}: CALL_ONCE takes no inputs and gives no outputs; the file is damaged")
        flag = Tensor(f"call_once {k} has run", (1,), DType.BOOL, variable=True)
        init = callees["init"]
        return Node("call_once", f"call_once {k}", [flag, *state_of([init])], [flag], {"init_graph": init}, k)
    if not outputs:
        raise UnsupportedError(f"{where}: {builtin} gives no outputs; mote needs each node to give one")
    ins, outs = _plain(tensors, inputs, where), _plain(tensors, outputs, where)
    attrs = {f"{role}_graph": g for role, g in callees.items()}
    return Node(builtin.lower(), outs[0].name, [*ins, *state_of(list(callees.values()))], outs, attrs, k)


def _plain(tensors: list[Tensor | None], indices: list[int], where: str) -> list[Tensor]:
    """The tensors at `indices`: none absent, none a resource handle."""
    found = []
    for i in indices:
        t = tensors[i] if i >= 0 else None
        if t is None:
            raise UnsupportedError(f"{where}: tensor {i} is absent or a resource handle; mote passes resource "
                                   "handles only from VAR_HANDLE to the variable ops of the same subgraph")
        found.append(t)
    return found
