"""QVanilla on the virtual platform: the MLPerf Tiny models stay bit-exact, every conv the patterns
allow is offloaded, the timed mode charges 2 cycles per MAC, and `accel check` passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from buggy_qvanilla import ForgetsTheBias
from conftest import MLPERF_TINY

from mote.accel import find_accelerator, job_cost
from mote.accel.qvanilla import QVanilla, QVanillaConfig
from mote.frontend import load
from mote.ops import OPS
from mote.passes.accel_check import check_accelerator
from mote.passes.offload import offload
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

ZIG = Rv32Config(cc="zig")
MODELS = ["ad01_int8.tflite", "kws_ref_model.tflite", "pretrainedResnet_quant.tflite", "vww_96_int8.tflite"]


def allowed(path: Path) -> int:
    """Convs QVanilla can take, counted from the model itself: no dilation, one group, or depthwise
    with depth multiplier 1 (one start per channel); strides are computed at stride 1 and subsampled
    by the CPU."""
    return sum(n.op in ("conv2d", "depthwise_conv2d") and tuple(n.attrs["dilation"]) == (1, 1)
               and n.inputs[1].shape[3] == n.inputs[0].shape[3] for n in load(path).nodes)


@pytest.mark.parametrize("file", MODELS)
def test_mlperf_tiny_bit_exact_with_the_cpu_only_run(file: str) -> None:
    path = MLPERF_TINY / file
    cpu = run(path, target=Rv32(ZIG))
    accel = run(path, target=Rv32(ZIG), accelerator=find_accelerator("qvanilla:timed=1"))
    assert cpu.bit_exact and accel.bit_exact
    for name, value in cpu.outputs.items():
        assert np.array_equal(accel.outputs[name], value)
    report = accel.to_json()
    assert report["offloaded_layers"] == allowed(path)
    # 2 cycles per MAC the accelerator does: every position of a strided conv's stride-1 result.
    accel_macs = sum(OPS[n.attrs["original"].op].macs(n.attrs["original"])
                     for n in accel.compiled.graph.nodes if n.op == "accel")
    assert report["accel_cycles"] == 2 * accel_macs
    assert report["macs"] == cpu.compiled.macs
    assert report["total_cycles"] == report["cycles"] + report["accel_cycles"]
    if report["offloaded_layers"]:
        assert report["instructions"] < cpu.figures.sim.instructions


def test_zero_cycle_mode_adds_no_cycles() -> None:
    report = run(MLPERF_TINY / "kws_ref_model.tflite", target=Rv32(ZIG), accelerator=find_accelerator("qvanilla"))
    sim = report.figures.sim
    assert sim.accel_jobs == 5 + 4 * 64 and sim.accel_cycles == 0  # a start per channel
    assert sim.total_cycles == sim.cycles


def test_check_passes() -> None:
    conv, depthwise = check_accelerator(QVanilla(), trials=10)
    assert conv.ok and conv.trials == 10
    assert depthwise.ok and depthwise.trials == 10


def test_check_catches_a_wrong_functional_model() -> None:
    for result in check_accelerator(ForgetsTheBias(), trials=5):
        assert not result.ok and result.mismatches > 0 and "differ" in result.first_failure


def test_check_cli_reports_the_mismatch() -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "accel", "check", "buggy_qvanilla:ForgetsTheBias",
                           "--trials", "3"], capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    assert "pattern 'conv2d+bias'" in proc.stderr and "differ from the reference" in proc.stderr


def test_partition_names_the_rejecting_predicate() -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "partition", str(MLPERF_TINY / "kws_ref_model.tflite"),
                           "--accel", "qvanilla", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    first, second, pool = report["nodes"][0], report["nodes"][1], report["nodes"][9]
    assert first["runs_on"] == "qvanilla" and first["pattern"] == "conv2d+bias"
    assert second["runs_on"] == "qvanilla" and second["pattern"] == "depthwise as per-channel conv2d+bias"
    assert pool["runs_on"] == "cpu" and pool["why_not"] == "no pattern for avg_pool2d"
    assert report["offloaded"] == 9 and report["regions"] == 1


@pytest.mark.parametrize("spec, words", [("npu", ["unknown accelerator 'npu'", "qvanilla"]),
                                         ("qvanilla:speed=3", ["unknown setting", "timed"]),
                                         ("nosuchmodule:Npu", ["cannot import"]),
                                         ("qvanilla:cycles_per_mac=2K", ["cycles_per_mac", "not an integer"])])
def test_unknown_accelerator_or_setting(spec: str, words: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "partition", "--accel", spec], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in proc.stderr


def test_host_target_has_no_accelerator() -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "run", "--accel", "qvanilla"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "--target rv32" in proc.stderr


def test_data_stays_in_channel_planes_between_jobs() -> None:
    """No layout round trips between QVanilla jobs: the requantization writes the planes (with the
    zero-point border a padded reader needs), residual adds run on the planes, and only the model's
    input and the result leaving for the CPU's average pool change layout."""
    kws = offload(load(MLPERF_TINY / "kws_ref_model.tflite"), QVanilla())
    ops = [n.op for n in kws.nodes]
    assert ops.count("layout_transform") == 0 and ops.count("reshape") == 2  # one channel in, 1x1 out: same bytes
    assert ops.count("pad") == 1  # the model input's; the depthwise inputs' borders come with their requantization
    borders = [n.attrs.get("border") for n in kws.nodes if n.op == "requantize_s32"]
    assert borders.count(((1, 1), (1, 1))) == 4
    resnet = offload(load(MLPERF_TINY / "pretrainedResnet_quant.tflite"), QVanilla())
    adds = [n for n in resnet.nodes if n.op == "add"]
    assert len(adds) == 3 and all(t.name.endswith("(NCHW)") for n in adds for t in [*n.inputs, *n.outputs])
    transforms = [n for n in resnet.nodes if n.op == "layout_transform"]
    assert [n.attrs["perm"] for n in transforms] == [(0, 3, 1, 2), (0, 2, 3, 1)]
    assert transforms[0].inputs[0] is resnet.inputs[0]
    after = resnet.nodes[resnet.nodes.index(transforms[1]) + 1]
    assert after.op == "avg_pool2d" and after.inputs[0] is transforms[1].outputs[0]


def test_zero_points_are_signed_and_jobs_are_costed() -> None:
    accel = QVanilla(QVanillaConfig(cycles_per_mac=3))
    kws = offload(load(MLPERF_TINY / "kws_ref_model.tflite"), accel)
    jobs = [n.attrs["job"] for n in kws.nodes if n.op == "accel"]
    assert len(jobs) == 9 and any(job.registers["izp"] < 0 for job in jobs)  # the models see them as written
    assert accel.model_registers({"izp": 0xFFFF_FF80, "kzp": 0, "oc": 8}) == {"izp": -128, "kzp": 0, "oc": 8}
    for job in jobs:
        assert job_cost(accel, job) == {"compute": 3 * job.info["macs"]}
