"""`mote accel bench`: the skeleton of `mote accel new NAME --rtl`, unedited, through the command end to end
on two MLPerf Tiny models (AD, which it offloads nothing from, and KWS, whose average pool it runs), the
table's figures against the command's JSON and the runs' own; and every user error in one line."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, mote

import mote.accel.rtl.tools as rtl_tools
from mote.accel import find_accelerator
from mote.accel.rtl.design import package_spec, with_design
from mote.accel.skeleton import write_skeleton
from mote.cli import main
from mote.cli_accel import _print_bench
from mote.pipeline import run
from mote.targets.rv32 import Rv32

QVANILLA_SV = Path(__file__).resolve().parents[1] / "mote" / "accel" / "rtl" / "qvanilla.sv"
KWS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny" / "kws_ref_model.tflite"


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> Path:
    """The design file of an unedited `mote accel new bench_npu --rtl`."""
    root = tmp_path_factory.mktemp("bench")
    write_skeleton("bench_npu", root, rtl=True)
    yield root / "bench_npu" / "rtl" / "bench_npu.sv"
    for name in ("bench_npu", "bench_npu.accelerator"):
        sys.modules.pop(name, None)
    if str(root) in sys.path:
        sys.path.remove(str(root))


def test_the_skeleton_through_the_command(skeleton: Path, tmp_path: Path, capsys) -> None:
    page = tmp_path / "bench.html"
    proc = mote("accel", "bench", skeleton, "--models", "ad", "kws", "--json", "--html", page)
    assert proc.returncode == 0, proc.stderr
    ad, pool = json.loads(proc.stdout)

    # AD (fully connected layers only): nothing for a max-pool unit; the same cycles, the same outputs
    assert ad["model"] == "ad01_int8.tflite" and ad["offloaded_layers"] == 0 and ad["jobs"] == 0
    assert ad["rtl_cycles"] == 0 and ad["cpu_cycles"] == ad["cpu_only_cycles"] == ad["total_cycles"]
    assert ad["speedup"] == 1.0 and ad["cost_model_error"] is None
    assert ad["bit_exact_with_cpu_only"] and ad["bit_exact_with_reference"]

    # KWS: its average pool runs on the RTL, whose cycles the skeleton's cost() predicts exactly
    assert pool["model"] == KWS.name
    assert pool["offloaded_layers"] == 1 and pool["offloaded_ops"] == ["avg_pool2d"] and pool["jobs"] == 1
    assert pool["rtl_cycles"] == pool["cost_model_cycles"] > 0 and pool["cost_model_error"] == 0.0
    assert pool["total_cycles"] == pool["cpu_cycles"] + pool["rtl_cycles"]
    assert pool["speedup"] == pytest.approx(pool["cpu_only_cycles"] / pool["total_cycles"])
    assert pool["bit_exact_with_cpu_only"] and pool["bit_exact_with_reference"]

    # the figures are the runs' own: the CPU-only run, and the accelerator's RTL run
    cpu_only = run(KWS, target=Rv32())
    assert pool["cpu_only_cycles"] == cpu_only.figures.sim.total_cycles
    accel = with_design(find_accelerator(package_spec(skeleton)), [skeleton])
    assert accel.rtl_top == "bench_npu" and accel.timed
    with_rtl = run(KWS, target=Rv32(), accelerator=accel)
    sim = with_rtl.figures.sim
    assert sim.accel_rtl["rtl_cycles"] == pool["rtl_cycles"] and sim.cycles == pool["cpu_cycles"]
    assert pool["rom_change_bytes"] == sim.rom_bytes - cpu_only.figures.sim.rom_bytes
    assert pool["ram_change_bytes"] == sim.ram_bytes - cpu_only.figures.sim.ram_bytes

    # the terminal's table shows the same figures
    _print_bench([ad, pool], accel, [skeleton])
    text = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in text.splitlines() if line.strip().startswith(("ad01", "kws"))}
    assert lines["ad01_int8"][1:12] == ["0", "of", "10", f"{ad['cpu_only_cycles']:,}", f"{ad['cpu_cycles']:,}", "0",
                                        f"{ad['total_cycles']:,}", "1.00x", "-", "-", f"+{ad['rom_change_bytes']:,}"]
    assert lines["kws_ref_model"][1:10] == ["1", "of", str(pool["layers"]), f"{pool['cpu_only_cycles']:,}",
                                        f"{pool['cpu_cycles']:,}", f"{pool['rtl_cycles']:,}",
                                        f"{pool['total_cycles']:,}", f"{pool['speedup']:.2f}x", "+0.00%"]
    assert lines["kws_ref_model"][-1] == lines["ad01_int8"][-1] == "yes"
    assert re.search(r"nothing offloaded to bench_npu on ad01_int8\.tflite", " ".join(text.split()))

    html = page.read_text()
    assert "<script" not in html and "ad01_int8" in html and f"{pool['total_cycles']:,}" in html


def test_qvanilla_through_the_command() -> None:
    """The bundled QVanilla design with its built-in Python side: KWS's convolutions on the RTL."""
    proc = mote("accel", "bench", QVANILLA_SV, "--accel", "qvanilla-rtl", "--models", "kws", "--json")
    assert proc.returncode == 0, proc.stderr
    (kws,) = json.loads(proc.stdout)
    assert kws["offloaded_ops"] == ["conv2d", "depthwise_conv2d"] and kws["jobs"] > kws["offloaded_layers"] > 0
    assert kws["rtl_cycles"] == kws["cost_model_cycles"] > 0 and kws["worst_layer_error"] == 0.0
    assert kws["total_cycles"] == kws["cpu_cycles"] + kws["rtl_cycles"] and kws["cpu_cycles"] < kws["cpu_only_cycles"]
    assert kws["bit_exact_with_cpu_only"] and kws["bit_exact_with_reference"]
    assert kws["ram_change_bytes"] > 0  # QVanilla's layouts take arena


def test_a_weight_mode_through_the_command() -> None:
    """qvanilla-rtl:weight_bits=2: the CPU-only run runs the same narrowed model, so the outputs agree, and the
    RTL's int2 mode reads fewer weight bytes than its int8 mode (fewer cycles), its cost model still exact."""
    rows = {}
    for spec in ("qvanilla-rtl", "qvanilla-rtl:weight_bits=2"):
        proc = mote("accel", "bench", QVANILLA_SV, "--accel", spec, "--models", "kws", "--json")
        assert proc.returncode == 0, proc.stderr
        (rows[spec],) = json.loads(proc.stdout)
    narrow, eight = rows["qvanilla-rtl:weight_bits=2"], rows["qvanilla-rtl"]
    assert narrow["bit_exact_with_cpu_only"] and narrow["bit_exact_with_reference"]
    assert narrow["rtl_cycles"] == narrow["cost_model_cycles"] and narrow["worst_layer_error"] == 0.0
    assert narrow["offloaded_layers"] == eight["offloaded_layers"] and narrow["jobs"] == eight["jobs"]
    assert 0 < narrow["rtl_cycles"] < eight["rtl_cycles"]


def _design(tmp_path: Path, old: str = "", new: str = "", name: str = "qvanilla.sv") -> Path:
    """QVanilla's design as tmp_path/name, with `old` replaced by `new`."""
    text = QVANILLA_SV.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


def test_error_lines(tmp_path: Path) -> None:
    assert_one_line_error(mote("accel", "bench", tmp_path / "nope.sv", "--accel", "qvanilla-rtl"),
                          "nope.sv does not exist")
    loose = _design(tmp_path)
    assert_one_line_error(mote("accel", "bench", loose), "which accelerator does", "--accel module:Class")
    assert_one_line_error(mote("accel", "bench", loose, "--accel", f"{tmp_path / 'npu.py'}:Npu"),
                          "npu.py is not a file")
    assert_one_line_error(mote("accel", "bench", loose, "--accel", "qvanilla-rtl", "--models", "mnist"),
                          "'mnist'", "ad, kws, resnet, vww")
    broken = _design(tmp_path, "endmodule", "", "broken.sv")
    assert_one_line_error(mote("accel", "bench", broken, "--accel", "qvanilla-rtl", "--models", "ad"),
                          "Verilator could not build qvanilla", "broken.sv", "syntax error")
    assert_one_line_error(mote("accel", "bench", loose, "--accel", "qvanilla-rtl", "--top", "npu"),
                          "'npu' was not found")
    assert_one_line_error(mote("accel", "bench", QVANILLA_SV, "--accel", "qvanilla-rtl", "--models", "kws",
                               "--cycle-limit", "100"), "still busy after 100 cycles", "(layer ")


def test_a_design_off_the_port_contract_is_one_line(tmp_path: Path) -> None:
    text = QVANILLA_SV.read_text()
    port = re.search(r"output logic \[3:0\]\s+mem_wstrb", text)
    assert port, "qvanilla.sv's mem_wstrb port"
    off = _design(tmp_path, port[0], "output logic [1:0] mem_wstrb")
    assert_one_line_error(mote("accel", "bench", off, "--accel", "qvanilla-rtl", "--models", "ad"),
                          "differ from mote's RTL contract", "mem_wstrb is 2 bits wide, not 4")


def test_no_cxx_compiler_is_one_line(monkeypatch, capsys) -> None:
    monkeypatch.delenv("CXX", raising=False)
    real = shutil.which
    monkeypatch.setattr(rtl_tools.shutil, "which", lambda name: None if "++" in name else real(name))
    status = main(["accel", "bench", str(QVANILLA_SV), "--accel", "qvanilla-rtl", "--models", "ad"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "C++ compiler" in err[0], err
