"""Flatbuffer-level checks of a .tflite model, before any of it is trusted.

A model file is untrusted input: every index it holds (into tensors, buffers, operator codes) is
checked against the table it points into, and every count mote relies on (at least one operator and one
output in the main subgraph) is checked here, so that the loader can index without a second thought.
Messages are one line and name the model, the node or tensor, and the field.
"""

from __future__ import annotations

from typing import Any

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

from mote.errors import ModelFileError, UnsupportedError
from mote.frontend.tflite_options import options_table

MAX_OPTION_DIMS = 8  # TFLite Micro's limit for newShape and squeezeDims
# Builtins whose options TFLite Micro reads without a default that works: missing ones are an error.
OPTIONS_REQUIRED = {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D", "SOFTMAX", "IF", "WHILE",
                    "CALL_ONCE"}


def decode_name(raw: Any, fallback: str) -> str:
    """A name from the file as text; bytes that are not UTF-8 become U+FFFD, never an exception."""
    if isinstance(raw, (bytes, bytearray)):
        text = bytes(raw).decode("utf-8", errors="replace")
    elif raw is None:
        text = ""
    else:
        text = str(raw)
    return text or fallback


def check_structure(model: Any, name: str) -> None:
    """Subgraph, operator, tensor and buffer indices: every one in range, every count mote needs. The first
    subgraph is the model; the others are subgraphs control-flow operators call (mote.frontend.tflite_control),
    which may have no operators or outputs."""
    for index, sub in enumerate(model.subgraphs):
        where = name if index == 0 else f"{name}: subgraph {index}"
        _check_subgraph(model, sub, where, index == 0)


def _check_subgraph(model: Any, sub: Any, name: str, main: bool) -> None:
    tensors = list(sub.tensors or [])
    if not tensors and main:
        raise ModelFileError(f"{name}: the subgraph has no tensors; the file is damaged")
    count = len(tensors)
    if not sub.operators and main:
        raise UnsupportedError(f"{name}: the model has no operators; there is nothing to compile")
    if (sub.outputs is None or len(sub.outputs) == 0) and main:
        raise UnsupportedError(f"{name}: the model has no outputs; there is nothing to compute")
    for field, indices in (("inputs", sub.inputs), ("outputs", sub.outputs)):
        for i in _as_list(indices):
            if not 0 <= i < count:
                raise ModelFileError(f"{name}: subgraph {field} refers to tensor {i}, but there are {count} tensors; "
                                     "the file is damaged")
    codes = len(model.operatorCodes or [])
    for index, op in enumerate(sub.operators or []):
        if not 0 <= op.opcodeIndex < codes:
            raise ModelFileError(f"{name}: node {index}: operator code index {op.opcodeIndex} is out of range "
                                 f"(the model has {codes} operator codes); the file is damaged")
        outputs = _as_list(op.outputs)
        for field, indices, optional in (("inputs", op.inputs, True), ("outputs", outputs, False),
                                         ("intermediates", op.intermediates, False)):
            for i in _as_list(indices):
                if not (0 <= i < count or (optional and i == -1)):
                    raise ModelFileError(f"{name}: node {index} {field} refer to tensor {i}, but there are {count} "
                                         "tensors; the file is damaged")
    buffers = len(model.buffers)
    for i, t in enumerate(tensors):
        tensor = decode_name(t.name, f"tensor{i}")
        if not 0 <= t.buffer < buffers:
            raise ModelFileError(f"{name}: tensor {tensor!r} refers to buffer {t.buffer}, but there are {buffers} "
                                 "buffers; the file is damaged")
        if t.sparsity is not None:
            raise UnsupportedError(f"{name}: tensor {tensor!r} is stored sparse; mote reads dense tensors only "
                                   "(convert the model without sparsity)")
        buffer = model.buffers[t.buffer]
        if getattr(buffer, "offset", 0) > 1:  # the data lies outside the flatbuffer (models over 2 GB)
            raise UnsupportedError(f"{name}: tensor {tensor!r} keeps its data outside the flatbuffer; mote reads "
                                   "self-contained .tflite files only")


def check_options(op: Any, builtin: str, where: str) -> None:
    """The builtin options of a supported operator are its own kind, and present where needed."""
    options = op.builtinOptions
    table = options_table(builtin)
    expected = f"{table}T" if table else None
    if options is None:
        if builtin in OPTIONS_REQUIRED:
            raise ModelFileError(f"{where}: the operator's options ({expected}) are missing; the file is damaged")
        return
    if expected is None or type(options).__name__ != expected:
        raise ModelFileError(f"{where}: the operator carries {type(options).__name__[:-1]}, "
                             f"expected {expected[:-1] if expected else 'none'}; the file is damaged")
    for field in ("newShape", "squeezeDims"):  # TFLite Micro copies these into arrays of 8
        values = getattr(options, field, None)
        if values is not None and len(values) > MAX_OPTION_DIMS:
            raise UnsupportedError(f"{where}: option {field} has {len(values)} dimensions; TFLite Micro takes at "
                                   f"most {MAX_OPTION_DIMS}")
    bias_type = getattr(options, "quantizedBiasType", schema.TensorType.FLOAT32)  # FLOAT32, the default: unset
    if bias_type not in (schema.TensorType.FLOAT32, schema.TensorType.INT32):
        raise UnsupportedError(f"{where}: quantized bias type {bias_type} is not supported (mote's kernels take "
                               "int32 biases)")
    if builtin == "FULLY_CONNECTED" and options.weightsFormat != schema.FullyConnectedOptionsWeightsFormat.DEFAULT:
        raise UnsupportedError(f"{where}: shuffled fully connected weights (format {options.weightsFormat}) are "
                               "not supported; convert the model with the default weights format")


def _as_list(indices: Any) -> list[int]:
    return [] if indices is None else [int(i) for i in indices]
