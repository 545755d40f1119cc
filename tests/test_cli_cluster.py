"""`mote run --platform cluster8 [--cores N]`: the MLPerf Tiny models on an emulated cluster, bit-exact across core
counts, with per-core instructions, the critical path's cycles, energy summed over the cores and each core's
utilization per layer, each layer's tiles in the L1 computed by every core around core 0's DMA (mote.sim.cluster,
mote.codegen.parallel, mote.codegen.l1_tiles)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import mote

MODELS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny"


def _run(model: str, *args: str) -> dict:
    proc = mote("run", str(MODELS / model), "--target", "rv32", "--cc", "zig", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("model", ["ad01_int8.tflite", "kws_ref_model.tflite"])
def test_bit_exact_across_core_counts(model: str) -> None:
    mcu = _run(model)
    one = _run(model, "--platform", "cluster8", "--cores", "1")
    assert one["bit_exact"] and "cores" not in one
    # one core of the cluster runs the mcu platform's kernels on L1 tiles: only the DMA's programming is added
    assert one["dma"]["jobs"] > 0 and 0 < one["instructions"] - mcu["instructions"] < mcu["instructions"] // 100
    previous = one
    for cores in (2, 8):
        data = _run(model, "--platform", "cluster8", "--cores", str(cores))
        assert data["bit_exact"] and data["mismatches"] == 0
        assert [c["core"] for c in data["cores"]] == list(range(cores))
        assert sum(c["instructions"] for c in data["cores"]) == data["instructions"]
        assert abs(sum(c["energy_uj"] for c in data["cores"]) - data["energy_uj"]) < 1e-3
        assert data["cycles"] < previous["cycles"]  # more cores, a shorter critical path
        assert max(c["cycles"] for c in data["cores"]) <= data["cycles"]  # no core is busy longer than the run
        # the tiles in L1 on every core count: core 0's DMA, its stalls on the cluster's critical path
        dma = data["dma"]
        assert dma["jobs"] > 0 and 0 <= dma["exposed_cycles"] <= dma["busy_cycles"]
        layers = [layer["dma"]["exposed_cycles"] for layer in data["layers"] if "dma" in layer]
        assert sum(layers) == dma["exposed_cycles"]
        assert 0 < data["peak_bytes"]["l1"] <= 64 << 10
        previous = data
    # 8 cores: at least 5x fewer cycles than one for these models (both measured, the split is theirs)
    assert one["cycles"] / previous["cycles"] > 5


def test_utilization_per_layer() -> None:
    data = _run("kws_ref_model.tflite", "--platform", "cluster8")
    split = [layer for layer in data["layers"] if "cores" in layer and layer["op"] in ("conv2d", "depthwise_conv2d")]
    assert split
    for layer in split:
        shares = [c["utilization"] for c in layer["cores"]]
        assert len(shares) == 8 and all(0.0 <= u <= 1.0 for u in shares)
        assert min(shares) > 0.5 and max(shares) > 0.95  # every core has a part; the slowest sets the time
        assert max(c["cycles"] for c in layer["cores"]) < layer["cycles"]  # plus the barriers
        assert sum(c["instructions"] for c in layer["cores"]) == layer["instructions"]
    profile = mote("profile", str(MODELS / "kws_ref_model.tflite"), "--target", "rv32", "--cc", "zig",
                   "--platform", "cluster8")
    assert profile.returncode == 0, profile.stderr
    assert "cores busy" in profile.stdout and "8 cores: core 0" in profile.stdout


def test_dla_leaves_the_cores_what_it_does_not_take() -> None:
    """cluster8+dla: the layers the DLA takes are driven by core 0; those it leaves are split across the cores
    like any other (docs/platforms.md, "The DLA and the cores")."""
    one = _run("kws_ref_model.tflite", "--platform", "cluster8+dla", "--cores", "1", "--accel", "dla:depthwise=none")
    eight = _run("kws_ref_model.tflite", "--platform", "cluster8+dla", "--accel", "dla:depthwise=none")
    assert one["bit_exact"] and eight["bit_exact"]
    assert one["accel_jobs"] == eight["accel_jobs"] > 0 and one["cpu_layers"] == eight["cpu_layers"] > 1
    depthwise = [layer for layer in eight["layers"] if layer["op"] == "depthwise_conv2d"]
    assert depthwise and all(min(c["instructions"] for c in layer["cores"]) > 0 for layer in depthwise)
    assert one["cycles"] / eight["cycles"] > 4  # the CPU's layers split
    # with every layer but the one-row softmax on the DLA, nothing splits: the other cores never run a layer
    full = _run("kws_ref_model.tflite", "--platform", "cluster8+dla")
    alone = _run("kws_ref_model.tflite", "--platform", "cluster8+dla", "--cores", "1")
    assert full["cpu_layers"] == 1 and full["cycles"] == alone["cycles"]
    assert [c["instructions"] for c in full["cores"][1:]] == [0] * 7
