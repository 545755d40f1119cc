"""`mote run --target rv32 --platform cluster8 --cores 1`: the layers run on L1 tiles fed by DMA, bit-exact
with the reference, and the JSON reports the DMA's bytes per memory, its exposed cycles (within the
run's cycles), the peak bytes per memory and the energy with the DMA's; an L1 too small for a layer is
refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import assert_one_line_error, mote

MODELS = Path(__file__).resolve().parent.parent / "models" / "mlperf-tiny"
KWS, AD = MODELS / "kws_ref_model.tflite", MODELS / "ad01_int8.tflite"


def _platform(tmp_path: Path, l1: str | int) -> Path:
    """cluster8 with one cluster core and an L1 of `l1`."""
    path = tmp_path / f"l1_{l1}.json"
    path.write_text(json.dumps({
        "name": f"l1_{l1}", "cores": [{"name": "controller"}, {"name": "cluster"}],
        "memories": [{"name": "flash", "kind": "flash", "size": "2MiB"},
                     {"name": "l2", "kind": "ram", "size": "512KiB"},
                     {"name": "l1", "kind": "l1", "size": l1, "read_pj": 10.0, "write_pj": 10.0}],
        "dma": [{"source": "l2", "target": "l1", "bytes_per_cycle": 8, "channels": 2}]}))
    return path


def _run(*args: str | Path) -> dict:
    proc = mote("run", "--target", "rv32", "--cc", "zig", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _check_levels(data: dict, l1_bytes: int) -> None:
    assert data["bit_exact"]
    dma, peak = data["dma"], data["peak_bytes"]
    assert 0 < peak["l1"] <= l1_bytes and peak["l2"] >= data["ram_bytes"] and peak["flash"] == data["rom_bytes"]
    moved = dma["bytes_per_memory"]
    assert moved["l2"]["read"] == moved["l1"]["written"] > 0 and moved["l1"]["read"] == moved["l2"]["written"] > 0
    assert dma["bytes"] == moved["l2"]["read"] + moved["l1"]["read"]
    assert 0 <= dma["exposed_cycles"] <= dma["busy_cycles"]
    layers = [layer for layer in data["layers"] if "dma" in layer]
    assert layers and sum(layer["dma"]["exposed_cycles"] for layer in layers) == dma["exposed_cycles"]
    assert data["memory_accesses"]["l1"]["loads"] > 0  # the kernels read their tiles from L1
    assert data["energy"]["dma_uj"] > 0


def test_cluster8_with_one_core(tmp_path: Path) -> None:
    data = _run(AD, "--platform", "cluster8", "--cores", "1")
    _check_levels(data, 64 << 10)
    mcu = _run(AD)
    assert data["cycles"] - data["dma"]["exposed_cycles"] >= mcu["cycles"] * 0.9  # the same work, plus the DMA's


def test_kws_tiled_into_a_small_l1(tmp_path: Path) -> None:
    data = _run(KWS, "--platform", _platform(tmp_path, "8KiB"))
    _check_levels(data, 8 << 10)
    assert data["dma"]["jobs"] > 2 * len([layer for layer in data["layers"] if "dma" in layer])  # several tiles


def test_ad_tiled_by_output_channels(tmp_path: Path) -> None:
    """704 bytes of L1: AD's first layer (640 inputs, 128 outputs) splits into output-channel tiles."""
    data = _run(AD, "--platform", _platform(tmp_path, 704))
    _check_levels(data, 704)
    assert data["layers"][0]["l1_tiles"] > 1 and data["layers"][0]["l1_bytes"] <= 704


def test_a_layer_that_cannot_tile_into_the_l1(tmp_path: Path) -> None:
    proc = mote("run", "--target", "rv32", "--cc", "zig", KWS, "--platform", _platform(tmp_path, "1KiB"))
    assert_one_line_error(proc, "does not fit the L1", "the platform's L1 has 1024", "larger l1 memory")
