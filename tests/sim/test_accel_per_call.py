"""A stream of calls in one run of the firmware with a timed accelerator: each call reports the accelerator
cycles and jobs of its own layers, not the run's totals so far."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.accel import find_accelerator
from mote.codegen.compile import compile_graph
from mote.targets.rv32 import Rv32, SimFigures, build_rv32
from tests.codegen.decoder_models import decoder_graph


def test_each_call_reports_its_own_accelerator_cycles(tmp_path: Path) -> None:
    graph = decoder_graph(max_context=8)
    compiled = compile_graph(graph, find_accelerator("dla:timed=1"), core=Rv32().core())
    firmware = build_rv32(compiled, tmp_path / "p")
    frames = [{"token": np.array([t], dtype=np.int32), "pos": np.array([p], dtype=np.int32)}
              for p, t in enumerate((5, 17, 3))]
    alone = firmware.run_stream(frames[:1])[0]
    calls = firmware.run_stream(frames)
    assert alone.accel_cycles > 0 and alone.accel_jobs > 0
    # the offloaded layers do the same work at every position: every call's figures are one call's
    assert [c.accel_cycles for c in calls] == [alone.accel_cycles] * 3
    assert [c.accel_jobs for c in calls] == [alone.accel_jobs] * 3
    for call in calls:  # and a call's cycles are its layers', as `mote run --calls` reports them
        assert sum(layer.accel_cycles for layer in call.layers) == call.accel_cycles
        figures = SimFigures.of(call, compiled).call_json()
        assert figures["accel_cycles"] == alone.accel_cycles and figures["accel_jobs"] == alone.accel_jobs
        assert figures["total_cycles"] == call.cycles + alone.accel_cycles
        assert sum(layer.accel_cycles > 0 for layer in call.layers) >= 3  # q, k, v at least
