"""Accuracy of a point with narrowed weights: how closely the model's outputs follow the 8-bit model's.

An accelerator's `weight_bits` setting narrows the weights of the layers it offloads
(mote.passes.accel_weights); the point's accuracy is measured by running mote's reference interpreter on
SAMPLES seeded random inputs (mote.inputs.random_inputs, seeds 0..SAMPLES-1) through the model as loaded
and as narrowed, and comparing the first output:

  top1_agreement   the share of inputs whose top-1 class is the same (classifiers: the output comes from
                   a softmax; None otherwise)
  mean_abs_error   the mean absolute difference of the output's quantized values (its int8 steps)

Random inputs, not a labelled data set: this is agreement with the 8-bit model, not task accuracy, and a
coarse one. Random inputs are far from a model's data: the 8-bit ResNet-8 puts 6 of the 8 in one class
(class 6), so a narrowed model that always answered that class would agree on 75% of them without being
any good. Read top1_agreement with mean_abs_error; a representative input set would need a data set,
which mote does not ship.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.inputs import random_inputs
from mote.ir import Graph
from mote.reference import interpret

SAMPLES = 8
_CACHE: dict[tuple[int, int, tuple[str, ...]], dict[str, Any]] = {}  # per process
_OUTPUTS: dict[int, tuple[Graph, list[np.ndarray]]] = {}  # the 8-bit model's outputs, by the graph loaded


def _classifier(graph: Graph) -> bool:
    producer = graph.producer().get(graph.outputs[0])
    return producer is not None and producer.op == "softmax"


def _first_outputs(graph: Graph) -> list[np.ndarray]:
    name = graph.outputs[0].name
    return [interpret(graph, random_inputs(graph, seed))[name] for seed in range(SAMPLES)]


def agreement(original: Graph, narrowed: Graph) -> dict[str, Any]:
    """top1_agreement and mean_abs_error of `narrowed` against `original` (module docstring)."""
    if narrowed is original:
        return {"top1_agreement": 1.0 if _classifier(original) else None, "mean_abs_error": 0.0}
    before = set(original.nodes)
    changed = tuple(sorted(n.name for n in narrowed.nodes if n not in before))
    bits = min((t.bits for n in narrowed.nodes for t in n.inputs if t is not None), default=8)
    key = (id(original), bits, changed)
    if key in _CACHE:
        return _CACHE[key]
    cached = _OUTPUTS.get(id(original))
    if cached is None or cached[0] is not original:
        cached = (original, _first_outputs(original))
        _OUTPUTS[id(original)] = cached
    reference = cached[1]
    name = narrowed.outputs[0].name
    ours = [interpret(narrowed, random_inputs(original, seed))[name] for seed in range(SAMPLES)]
    errors = [np.abs(a.astype(np.int64) - b.astype(np.int64)).mean() for a, b in zip(reference, ours)]
    top1 = None
    if _classifier(original):
        same = [int(np.argmax(a.reshape(-1)) == np.argmax(b.reshape(-1))) for a, b in zip(reference, ours)]
        top1 = round(sum(same) / SAMPLES, 4)
    result = {"top1_agreement": top1, "mean_abs_error": round(float(np.mean(errors)), 4)}
    _CACHE[key] = result
    return result
