"""The same inputs through TFLite Micro's own interpreter: `mote run` on a .tflite model says how the
outputs it computed compare with the tool the model was written for.

Integers must be identical. Floats are identical too where mote's kernels keep TFLite Micro's operation
order; where a transcendental function is involved, mote's own implementation may differ by a few units
in the last place (ULP): the comparison reports the largest difference in ULP, and the largest in ULP of
the largest value of its output tensor ("at the output's scale"): arithmetic after the transcendental op
can cancel (a GRU's 1 - z where z is near 1), so that a small value lies many of its own ULP away while the
difference stays within the bound at the scale of the values around it. A model TFLite Micro
refuses is reported as such, and so is a legacy uint8 model, which it no longer runs
(mote.frontend.tflite_uint8): mote's reference is then the only check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mote.frontend.tflite_uint8 import NOTE
from mote.ir import DType, Graph, Node
from mote.ops.float_math import TRANSCENDENTAL_OPS, ULP_BOUND
from mote.ops.registry import attr

ARENA_BYTES = 64 << 20  # the interpreter's arena: large enough for any model that fits an MCU


def ulp_bound(graph: Graph) -> int:
    """How many ULP a float output of `graph` may lie from TFLite Micro's: 0 unless a float op computes a
    transcendental function (mote.ops.float_math), then its bound times the number of such functions on the
    way (errors may add up along a chain; an LSTM counts its five a step; a loop's body counted once)."""
    nodes = [*graph.nodes, *(n for g in graph.subgraphs() for n in g.nodes)]
    count = sum(_chain(n) for n in nodes if n.op in TRANSCENDENTAL_OPS and n.inputs and n.inputs[0] is not None
                and n.inputs[0].dtype is DType.FLOAT32)
    return ULP_BOUND * count


def _chain(node: Node) -> int:
    """The transcendental functions on the way to one output of the node: one, or for an LSTM five a time step
    (three sigmoids and two tanh), since its recurrence carries each step's differences on to the next."""
    if node.op != "unidirectional_sequence_lstm":
        return 1
    x = node.inputs[0]
    assert x is not None
    return 5 * x.shape[0 if attr(node, "time_major") else 1]


@dataclass(frozen=True)
class TflmMatch:
    ran: bool  # False: TFLite Micro refused the model (`note` says why)
    mismatches: int = 0  # output values that differ
    max_ulp: int = 0  # float outputs: the largest difference in units in the last place
    note: str = ""
    bound: int = 0  # ulp_bound of the graph: float differences up to this are expected
    max_ulp_at_scale: int = 0  # float outputs: the largest difference in ULP of its tensor's largest value

    @property
    def identical(self) -> bool:
        return self.ran and self.mismatches == 0

    @property
    def agrees(self) -> bool:
        """Identical, or float values apart by no more than the stated bound."""
        closest = min(self.max_ulp, self.max_ulp_at_scale)
        return self.ran and closest <= self.bound and (self.mismatches == 0 or self.bound > 0)

    def to_json(self) -> dict[str, Any]:
        return {"tflite_micro": {"ran": self.ran, "agrees": self.agrees, "mismatches": self.mismatches,
                                 "max_ulp": self.max_ulp, "max_ulp_at_scale": self.max_ulp_at_scale,
                                 "ulp_bound": self.bound,
                                 **({"note": self.note} if self.note else {})}}

    def describe(self) -> str:
        if not self.ran:
            return f"not run by TFLite Micro ({self.note}); checked against mote's reference only"
        if self.identical:
            return "identical"
        ulp = f", at most {self.max_ulp} ULP apart" if self.max_ulp else ""
        if self.max_ulp_at_scale < self.max_ulp:
            ulp += f", {self.max_ulp_at_scale} at the outputs' scale"
        values = "1 value differs" if self.mismatches == 1 else f"{self.mismatches} values differ"
        verdict = f" (within the {self.bound} ULP bound of mote's own transcendental functions)" if self.agrees else ""
        return f"{values}{ulp}{verdict}"


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in float32 ULPs: the count of representable floats between them (0 for equal values;
    +0 and -0 are equal; NaN against anything is the largest distance)."""
    def ordered(x: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)  # monotonic in the float's value

    distance = np.abs(ordered(a) - ordered(b))
    return np.where(np.isnan(a) | np.isnan(b), np.int64(1) << 32, distance)


def ulp_distance_at_scale(a: np.ndarray, b: np.ndarray) -> int:
    """The largest |a - b| counted in ULP of the largest magnitude in `b` (rounded up; NaN against a
    number is the largest distance)."""
    if np.any(np.isnan(a) != np.isnan(b)):
        return 1 << 32
    finite = ~np.isnan(b)
    if not finite.any():
        return 0
    scale = float(np.spacing(np.float32(np.abs(b[finite]).max())))
    return int(np.ceil(float(np.abs(a[finite].astype(np.float64) - b[finite].astype(np.float64)).max()) / scale))


def tflm_match(model_path: Path, graph: Graph, inputs: dict[str, np.ndarray],
               outputs: dict[str, np.ndarray]) -> TflmMatch:
    """Run the model in TFLite Micro's interpreter on `inputs` and compare with `outputs`."""
    return tflm_stream_match(model_path, graph, [inputs], [outputs])[0]


def tflm_stream_match(model_path: Path, graph: Graph, frames: list[dict[str, np.ndarray]],
                      outputs: list[dict[str, np.ndarray]]) -> list[TflmMatch]:
    """Run the frames in order on one TFLite Micro interpreter (a model with state carries it from call to
    call, as a device would) and compare each call's outputs with `outputs`: one TflmMatch per call (all
    not run when the interpreter refuses the model or fails on a call)."""
    from tflite_micro.python.tflite_micro import runtime  # loads the interpreter's native library: only here

    if any(NOTE in note for note in graph.notes):  # mote.frontend.tflite_uint8: nothing to ask the interpreter
        return [TflmMatch(False, note="it does not run legacy uint8 models")] * len(frames)
    bound = ulp_bound(graph)
    matches = []
    try:
        interpreter = runtime.Interpreter.from_bytes(Path(model_path).read_bytes(), arena_size=ARENA_BYTES)
        for inputs, got in zip(frames, outputs):
            for i, t in enumerate(graph.inputs):
                interpreter.set_input(np.ascontiguousarray(inputs[t.name]).reshape(t.shape), i)
            interpreter.invoke()
            expected = {t.name: np.asarray(interpreter.get_output(i)).reshape(t.shape)
                        for i, t in enumerate(graph.outputs)}
            matches.append(_compare(expected, got, bound))
    except Exception as e:  # the interpreter raises RuntimeError or ValueError with its own message
        reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        return [TflmMatch(False, note=f"it refused the model: {reason[:120]}")] * len(frames)
    return matches


def _compare(expected: dict[str, np.ndarray], outputs: dict[str, np.ndarray], bound: int) -> TflmMatch:
    mismatches, max_ulp, at_scale = 0, 0, 0
    for name, want in expected.items():
        got = outputs[name]
        if want.dtype == np.float32:
            distance = np.where(np.isnan(got) & np.isnan(want), 0, ulp_distance(got, want))
            mismatches += int(np.count_nonzero(distance))
            max_ulp = max(max_ulp, int(distance.max(initial=0)))
            at_scale = max(at_scale, ulp_distance_at_scale(np.asarray(got, np.float32), want))
        else:
            mismatches += int(np.count_nonzero(got != want))
    return TflmMatch(True, mismatches, max_ulp, bound=bound, max_ulp_at_scale=at_scale)
