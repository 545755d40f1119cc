"""Microseconds per inference of mote's generated C on this machine, for a choice of host kernels."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np

from mote.codegen.compile import compile_graph
from mote.ir import Graph
from mote.ops.registry import Core
from mote.targets.host import build_host, host_core

REPEATS = 5
BATCHES = 1000  # the host binary's TIMING_BATCHES (mote.targets.host): at most this many batches


def timing_iterations(macs: int) -> int:
    """Inferences for about 1e8 MACs, at least 3."""
    return max(3, int(1e8 / max(macs, 1)))


def host_cores() -> list[Core]:
    """The portable kernels, and the machine's own (VNNI) where it has them."""
    return [Core.VECTOR] + ([host_core()] if host_core() is not Core.VECTOR else [])


def host_us(graph: Graph, core: Core, work: Path, inputs: dict[str, np.ndarray]) -> float:
    """The median over REPEATS runs of enough inferences for about 1e8 MACs each (each run's figure the median
    of its batches: mote.targets.host)."""
    compiled = compile_graph(graph, core=core)
    binary = build_host(compiled, work / f"{graph.name}-{core.value}")
    iterations = timing_iterations(compiled.macs)
    return statistics.median(binary.run(inputs, iterations)[1] or 0.0 for _ in range(REPEATS))
