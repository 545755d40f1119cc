"""CONCATENATION, PAD, RESHAPE and SQUEEZE in float32 against TFLite Micro, bit for bit (byte copies):
axes inner and outer, a constant input, paddings on every dimension or only the outer ones."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from tests.ops.float_util import const, tensor, values


def copy_model(rng: np.random.Generator) -> bytes:
    mb = ModelBuilder()
    a, b = tensor(mb, "a", (2, 3, 4)), tensor(mb, "b", (2, 3, 5))
    c = const(mb, "c", values(rng, (2, 3, 1)))
    cat_inner = tensor(mb, "cat_inner", (2, 3, 10))
    mb.op("CONCATENATION", [a, b, c], [cat_inner], axis=2)
    d = tensor(mb, "d", (1, 3, 4))
    cat_outer = tensor(mb, "cat_outer", (3, 3, 4))
    mb.op("CONCATENATION", [a, d], [cat_outer], axis=0)
    pads = [(mb.tensor(f"p{i}", [3, 2], "int32", data=np.array(p, np.int32)), p)
            for i, p in enumerate([[[1, 0], [2, 1], [0, 3]], [[0, 2], [1, 0], [0, 0]]])]
    padded = []
    for k, (p, widths) in enumerate(pads):
        y = tensor(mb, f"padded{k}", [n + sum(w) for n, w in zip((2, 3, 10), widths)])
        mb.op("PAD", [cat_inner, p], [y])
        padded.append(y)
    shape = mb.tensor("shape", [2], "int32", data=np.array([6, 10], np.int32))
    flat = tensor(mb, "flat", (6, 10))
    mb.op("RESHAPE", [cat_inner, shape], [flat])
    e = tensor(mb, "e", (1, 4, 1, 2))
    squeezed = tensor(mb, "squeezed", (4, 2))
    mb.op("SQUEEZE", [e], [squeezed], squeeze_dims=[0, 2])
    return mb.build([a, b, d, e], [cat_outer, *padded, flat, squeezed])


def test_float_copies_match_tflm(check_model: Callable[..., Graph]) -> None:
    graph = check_model(copy_model(np.random.default_rng(5)), seeds=2, sanitize=True)
    assert sorted({n.op for n in graph.nodes}) == ["concatenation", "pad", "reshape", "squeeze"]
