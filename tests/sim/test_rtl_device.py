"""qvanilla-rtl on the virtual platform: the Verilated design is the accelerator device, its outputs equal
QVanilla's Python functional model's (and the reference's), its cycles are the run's accelerator cycles
and the cost model's are reported beside them, in the int8 weight mode and the int4 and int2 ones
(`weight_bits`); a missing C++ compiler is one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY

import mote.accel.rtl.tools as rtl_tools
from mote.accel import find_accelerator
from mote.cli import main
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

ZIG = Rv32Config(cc="zig")
DIGITS = Path(__file__).resolve().parents[2] / "mote" / "models" / "digits_cnn.tflite"


@pytest.mark.parametrize("path", [DIGITS, MLPERF_TINY / "kws_ref_model.tflite"], ids=["digits", "kws"])
def test_rtl_in_the_loop_matches_the_python_model(path: Path) -> None:
    python = run(path, target=Rv32(ZIG), accelerator=find_accelerator("qvanilla:timed=1"))
    rtl = run(path, target=Rv32(ZIG), accelerator=find_accelerator("qvanilla-rtl"))
    assert rtl.bit_exact and python.bit_exact
    for name, value in python.outputs.items():
        assert np.array_equal(rtl.outputs[name], value)
    report = rtl.to_json()
    sim = rtl.figures.sim
    stats = report["accel_rtl"]
    assert report["offloaded_layers"] > 0 and stats["jobs"] == sim.accel_jobs == python.figures.sim.accel_jobs
    # the accelerator cycles of the run are the RTL's, and the CPU's work is the same as with the Python model
    assert sim.accel_cycles == stats["rtl_cycles"] > 0
    assert sim.instructions == python.figures.sim.instructions
    # QVanilla's 2-cycles-per-MAC model leaves out the bias read and the result write of every output
    assert stats["mac_model_cycles"] == python.figures.sim.accel_cycles < stats["rtl_cycles"]
    # qvanilla-rtl's cost model follows the design's schedule, layer by layer
    assert stats["cost_model_cycles"] == stats["rtl_cycles"]
    by_layer = {p.index: p.accel_cycles for p in sim.layers}
    assert stats["layers"] and all(by_layer[int(i)] == v["rtl_cycles"] == v["cost_model_cycles"]
                                   for i, v in stats["layers"].items())


@pytest.mark.parametrize("path, bits", [(DIGITS, 2), (MLPERF_TINY / "kws_ref_model.tflite", 4),
                                        (MLPERF_TINY / "pretrainedResnet_quant.tflite", 2)],
                         ids=["digits-int2", "kws-int4", "resnet-int2"])
def test_rtl_weight_modes_match_the_python_model(path: Path, bits: int) -> None:
    """qvanilla-rtl:weight_bits=B narrows the same layers as qvanilla:weight_bits=B, runs them in the design's
    B-bit mode bit-exactly with the Python model and the reference, and its cost model stays exact."""
    python = run(path, target=Rv32(ZIG), accelerator=find_accelerator(f"qvanilla:weight_bits={bits},timed=1"))
    rtl = run(path, target=Rv32(ZIG), accelerator=find_accelerator(f"qvanilla-rtl:weight_bits={bits}"))
    eight = run(path, target=Rv32(ZIG), accelerator=find_accelerator("qvanilla-rtl"))
    assert rtl.bit_exact and python.bit_exact and rtl.mismatches == 0
    for name, value in python.outputs.items():
        assert np.array_equal(rtl.outputs[name], value)
    jobs = [n.attrs["job"] for n in rtl.compiled.graph.nodes if n.op == "accel"]
    assert jobs and all(j.registers["wbits"] == bits == j.info["weight_bits"] for j in jobs)
    assert rtl.compiled.weights_bytes == python.compiled.weights_bytes < eight.compiled.weights_bytes
    stats, sim = rtl.to_json()["accel_rtl"], rtl.figures.sim
    assert stats["jobs"] == sim.accel_jobs == python.figures.sim.accel_jobs == eight.figures.sim.accel_jobs
    assert sim.instructions == python.figures.sim.instructions
    assert stats["mac_model_cycles"] == python.figures.sim.accel_cycles < stats["rtl_cycles"]
    assert stats["cost_model_cycles"] == stats["rtl_cycles"] == sim.accel_cycles
    assert all(v["rtl_cycles"] == v["cost_model_cycles"] for v in stats["layers"].values())
    # fewer weight bytes read: fewer RTL cycles than the int8 mode on the same layers
    assert stats["rtl_cycles"] < eight.figures.sim.accel_rtl["rtl_cycles"]


def test_untimed_rtl_adds_no_cycles_but_still_runs() -> None:
    rtl = run(DIGITS, target=Rv32(ZIG), accelerator=find_accelerator("qvanilla-rtl:timed=0"))
    assert rtl.bit_exact and rtl.figures.sim.accel_cycles == 0
    assert rtl.figures.sim.accel_rtl["rtl_cycles"] > 0


def test_no_cxx_compiler_is_one_line(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.delenv("CXX", raising=False)
    real = rtl_tools.shutil.which
    monkeypatch.setattr(rtl_tools.shutil, "which", lambda name: None if "++" in name else real(name))
    status = main(["run", str(DIGITS), "--target", "rv32", "--accel", "qvanilla-rtl", "--keep", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "C++ compiler" in err[0], err
