"""`--flash-budget` (mote.codegen.flash_budget): the weights fit the budget, by moving layers to compact kernels;
the per-layer ROM adds up to the weights; the model stays bit-exact; an impossible budget is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MLPERF_TINY

from mote.codegen.compile import compile_graph
from mote.codegen.flash_budget import FlashBudgetError, fit_flash
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host

KWS = MLPERF_TINY / "kws_ref_model.tflite"


@pytest.fixture(scope="module")
def kws() -> Graph:
    return load_tflite(KWS.read_bytes(), "kws")


@pytest.mark.parametrize("core", [Core.SCALAR, Core.DSP])
def test_a_budget_moves_layers_to_compact_kernels_until_the_weights_fit(kws: Graph, core: Core) -> None:
    fastest = compile_graph(kws, core=core)
    assert sum(layer.weights_bytes for layer in fastest.layers) == fastest.weights_bytes
    budget = fastest.weights_bytes * 3 // 4
    fitted = fit_flash(lambda compact: compile_graph(kws, core=core, compact=compact), budget)
    assert fitted.weights_bytes <= budget < fastest.weights_bytes
    assert sum(layer.weights_bytes for layer in fitted.layers) == fitted.weights_bytes
    moved = [a for a, b in zip(fastest.layers, fitted.layers) if a.kernel != b.kernel]
    assert moved and all(b.weights_bytes < a.weights_bytes for a, b in zip(fastest.layers, fitted.layers)
                         if a.kernel != b.kernel)
    assert fitted.compact  # and kept when the model is compiled for another target
    assert fitted.for_core(Core.VECTOR).compact == fitted.compact
    # a budget the fastest choice meets changes nothing
    same = fit_flash(lambda compact: compile_graph(kws, core=core, compact=compact), fastest.weights_bytes)
    assert [layer.kernel for layer in same.layers] == [layer.kernel for layer in fastest.layers]


def test_the_compact_choice_is_bit_exact(kws: Graph, tmp_path: Path) -> None:
    fastest = compile_graph(kws, core=Core.SCALAR)
    fitted = fit_flash(lambda compact: compile_graph(kws, core=Core.SCALAR, compact=compact),
                       fastest.weights_bytes * 3 // 5)
    inputs = random_inputs(kws, 1)
    got, _ = build_host(fitted, tmp_path / "p", sanitize=True).run(inputs)
    want = interpret(kws, inputs)
    for name, value in want.items():
        assert (got[name] == value).all()


def test_an_impossible_budget_is_refused_in_one_line(kws: Graph, tmp_path: Path) -> None:
    with pytest.raises(FlashBudgetError):
        fit_flash(lambda compact: compile_graph(kws, core=Core.SCALAR, compact=compact), 1000)
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "compile", str(KWS), "-o", str(tmp_path / "x"),
                           "--flash-budget", "1000"], capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "flash budget" in proc.stderr


def test_compile_json_reports_each_layer(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "compile", str(KWS), "-o", str(tmp_path / "k"),
                           "--target", "rv32", "--flash-budget", "30000", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    layers = report["per_layer"]
    assert report["weights_bytes"] <= 30000 and report["flash_budget"] == 30000
    assert sum(layer["rom_bytes"] for layer in layers) == report["weights_bytes"]
    assert sum(layer["macs"] for layer in layers) == report["macs"]
    assert all(layer["kernel"] and layer["ram_bytes"] >= layer["scratch_bytes"] for layer in layers)
    assert max(layer["ram_bytes"] for layer in layers) <= report["arena_bytes"]
