"""What the float32 and integer UNIDIRECTIONAL_SEQUENCE_LSTM share (mote.ops.lstm describes the op): TFLite's
input slots, the checks of the standard cell TFLite Micro runs, the sizes, the kernel's arguments and scratch."""

from __future__ import annotations

from dataclasses import dataclass

from mote.ir import Node, Tensor
from mote.ops import checks
from mote.ops.registry import Emitter, attr

INPUT_WEIGHTS, RECURRENT_WEIGHTS, PEEPHOLES, BIASES = range(1, 5), range(5, 9), range(9, 12), range(12, 16)
PROJECTION, HIDDEN, CELL, LAYER_NORM = range(16, 18), 18, 19, range(20, 24)
GATES = ("input", "forget", "cell", "output")  # TFLite's order of the weights and biases


@dataclass(frozen=True)
class Dims:
    time_major: bool
    batches: int
    steps: int
    input_size: int
    units: int

    @property
    def rows(self) -> int:
        """The batch rows one time step computes at once: all of them when time_major, else one."""
        return self.batches if self.time_major else 1


def dims(node: Node) -> Dims:
    x, w = node.inputs[0], node.inputs[2]
    assert x is not None and w is not None
    major = bool(attr(node, "time_major"))
    d0, d1, size = x.shape
    return Dims(major, d1 if major else d0, d0 if major else d1, size, w.shape[0])


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[2]
    assert x is not None and w is not None
    return [(x.shape[0], x.shape[1], w.shape[0])]


def _absent(node: Node, indices: range, what: str) -> None:
    if any(node.inputs[i] is not None for i in indices):
        raise checks.fail(node, f"has {what}; TFLite Micro runs the standard LSTM only (no peephole, projection "
                                "or layer norm): convert the model without them")


def check_common(node: Node) -> Dims:
    """What every dtype needs: the 24 inputs of the standard cell, their shapes, the state, the options."""
    checks.input_count(node, 24)
    x = checks.present(node, 0, "input")
    checks.rank(node, x, "input", 3)
    _absent(node, PEEPHOLES, "peephole weights")
    _absent(node, PROJECTION, "a projection")
    _absent(node, LAYER_NORM, "layer-norm coefficients")
    weights = [checks.present(node, i, f"{g}-gate weights") for i, g in zip(INPUT_WEIGHTS, GATES)]
    recurrent = [checks.present(node, i, f"{g}-gate recurrent weights") for i, g in zip(RECURRENT_WEIGHTS, GATES)]
    biases = [checks.present(node, i, f"{g}-gate bias") for i, g in zip(BIASES, GATES)]
    units = weights[1].shape[0] if len(weights[1].shape) == 2 else 0
    for t, want, role in ([(w, (units, x.shape[2]), "input weights") for w in weights]
                          + [(r, (units, units), "recurrent weights") for r in recurrent]
                          + [(b, (units,), "bias") for b in biases]):
        checks.constant(node, t, role)
        if t.shape != want or units < 1:
            raise checks.fail(node, f"the {role} {t.name!r} are {list(t.shape)}; the cell of {units} units on "
                                    f"{x.shape[2]} inputs needs {list(want)}")
    for t in (*weights[1:], *recurrent):
        checks.dtype(node, t, "weights", weights[0].dtype)
    for t in biases[1:]:
        checks.dtype(node, t, "bias", biases[0].dtype)
    if attr(node, "activation") != "TANH":
        raise checks.fail(node, f"the cell gate's activation is {attr(node, 'activation')}; TFLite Micro runs TANH "
                                "only (the converter's choice)")
    d = dims(node)
    hidden = checks.present(node, HIDDEN, "hidden state")
    if hidden.shape != (d.batches, d.units):
        raise checks.fail(node, f"the hidden state {hidden.name!r} is {list(hidden.shape)}; TFLite Micro reads its "
                                f"units from it: it must be {[d.batches, d.units]}")
    for index, role in ((HIDDEN, "hidden state"), (CELL, "cell state")):
        state = checks.present(node, index, role)
        if not state.variable or state.size != d.batches * d.units:
            raise checks.fail(node, f"the {role} {state.name!r} must be a variable tensor of {d.batches} x "
                                    f"{d.units} values")
    out = node.outputs[0]
    if out.shape != (x.shape[0], x.shape[1], d.units):
        raise checks.fail(node, f"the output is {list(out.shape)}; the LSTM gives "
                                f"{[x.shape[0], x.shape[1], d.units]}")
    checks.dtype(node, out, "output", x.dtype)
    checks.dtype(node, hidden, "hidden state", x.dtype)
    return d


def tensors(node: Node, indices: range) -> list[Tensor]:
    found = [node.inputs[i] for i in indices]
    assert all(t is not None for t in found)
    return found  # type: ignore[return-value]


def dim_fields(d: Dims) -> dict[str, int | str]:
    return {"time_major": int(d.time_major), "batches": d.batches, "steps": d.steps, "input_size": d.input_size,
            "units": d.units}


def state_args(node: Node, em: Emitter) -> list[str]:
    """The kernel's arguments: input, hidden state, cell state, output."""
    x, hidden, cell = node.inputs[0], node.inputs[HIDDEN], node.inputs[CELL]
    assert x is not None and hidden is not None and cell is not None
    return [em.tensor(x), em.tensor(hidden), em.tensor(cell), em.tensor(node.outputs[0])]


SCRATCH_WHY = "the four gates' outputs of one time step"


def scratch_bytes(node: Node, params: object) -> int:
    """Four gate buffers of one step's rows, in the cell state's type (TFLite Micro's four scratch buffers)."""
    d = dims(node)
    cell = node.inputs[CELL]
    assert cell is not None
    return 4 * d.rows * d.units * cell.dtype.itemsize


def macs(node: Node) -> int:
    d = dims(node)
    return d.batches * d.steps * 4 * d.units * (d.input_size + d.units)
