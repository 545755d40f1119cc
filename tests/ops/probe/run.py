"""Which builtins the tflite-micro interpreter registers, and which (builtin, dtype) it runs: every model
runs in a forked child, because the interpreter may crash on a combination it does not expect."""

from __future__ import annotations

import functools
import os
import tempfile

import numpy as np
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_options import BUILTINS
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from tests.fuzzing.cases import run_in_child
from tests.ops.probe.recipes import DTYPES, RECIPES

TIMEOUT_S = 20.0
# Opcodes that are no operator a model can hold.
NOT_OPERATORS = {"CUSTOM", "DELEGATE", "PLACEHOLDER_FOR_GREATER_OP_CODES"}


def _stderr_of(work: object) -> str:
    """What the interpreter writes on stderr while `work` runs (it explains refusals there)."""
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            try:
                work()  # type: ignore[operator]
            except Exception:  # noqa: BLE001 - the message on stderr is what tells
                pass
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode(errors="replace")


def _is_registered(builtin: str) -> bool:
    mb = ModelBuilder()
    x, y = mb.tensor("x", [1, 4], "float32"), mb.tensor("y", [1, 4], "float32")
    mb.op(builtin, [x], [y])
    model = mb.build([x], [y])
    text = _stderr_of(lambda: runtime.Interpreter.from_bytes(model, arena_size=1 << 16))
    return "Didn't find op for builtin opcode" not in text


@functools.cache
def registered_builtins() -> frozenset[str]:
    """The builtins the interpreter has a kernel for (stablehlo ones excluded: no converter writes them for
    TFLite Micro)."""
    names = [b for b in BUILTINS if b not in NOT_OPERATORS and not b.startswith("STABLEHLO_")]
    found = set()
    for builtin in names:
        status, registered = run_in_child(lambda b=builtin: _is_registered(b), TIMEOUT_S)
        if (status == "ok" and registered) or status == "crashed":  # a crash: past the lookup, in its kernel
            found.add(builtin)
    return frozenset(found)


def tflm_runs(builtin: str, dtype: str) -> tuple[bytes, dict[str, np.ndarray], list[np.ndarray]] | None:
    """The probe model, its inputs and TFLite Micro's outputs, if the interpreter runs it; else None."""
    try:
        model = RECIPES[builtin](dtype)
    except (ValueError, TypeError):  # the recipe cannot even be written in this dtype
        return None
    inputs = _inputs(model, dtype)
    if inputs is None:
        return None

    def work() -> list[np.ndarray]:
        interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
        for i, value in enumerate(inputs.values()):
            interp.set_input(value, i)
        interp.invoke()
        outputs = []
        for i in range(64):
            try:
                outputs.append(np.array(interp.get_output(i)))
            except Exception:  # noqa: BLE001 - past the last output
                break
        return outputs

    status, outputs = run_in_child(work, TIMEOUT_S)
    return (model, inputs, outputs) if status == "ok" else None


def _inputs(model: bytes, dtype: str) -> dict[str, np.ndarray] | None:
    """Random inputs for the model's input tensors, read through mote's loader if it can; else by shape."""
    try:
        graph = load_tflite(model, "probe")
    except Exception:  # noqa: BLE001 - mote refusing the model is the test's business, not the probe's
        return _raw_inputs(model)
    return random_inputs(graph, 0)


def _raw_inputs(model: bytes) -> dict[str, np.ndarray] | None:
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    m = schema.ModelT.InitFromPackedBuf(bytearray(model), 0)
    sub = m.subgraphs[0]
    types = {v: k.lower() for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
    rng = np.random.default_rng(0)
    out = {}
    for i in sub.inputs:
        t = sub.tensors[i]
        name = types[t.type]
        if name == "bool":
            out[str(i)] = rng.integers(0, 2, list(t.shape)).astype(bool)
        elif name.startswith("float"):
            out[str(i)] = rng.uniform(-1, 1, list(t.shape)).astype(name)
        elif name in DTYPES:
            info = np.iinfo(name)
            out[str(i)] = rng.integers(max(info.min, -100), min(info.max, 100) + 1, list(t.shape)).astype(name)
        else:
            return None
    return out
