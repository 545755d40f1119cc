"""mote.pipeline.run: keyword arguments, a typed report, and the JSON `mote run --json` prints (its keys and
their order are a contract: scripts, tests and the benchmarks read them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote import pipeline
from mote.targets.host import HostFigures
from mote.targets.rv32 import Rv32, Rv32Config, SimFigures

MODEL_KEYS = ["model", "target", "bit_exact", "mismatches", "arena_bytes", "arena_lower_bound_bytes", "state_bytes",
              "weights_bytes", "macs", "kernels", "arena", "notes"]
LAYER_KEYS = ["index", "name", "op", "kernel", "runs_on", "macs", "scratch_bytes", "rom_bytes", "ram_bytes"]
SIM_KEYS = ["instructions", "cycles", "class_counts", "accel_cycles", "accel_jobs", "total_cycles",
            "firmware_instructions", "firmware_cycles", "rom_bytes", "ram_bytes", "stack_bytes", "stack_limit_bytes",
            "sim_seconds", "sim_mips", "cc", "cflags", "core", "platform", "energy_uj", "energy", "memory_accesses",
            "peak_bytes", "dma", "instructions_per_mac"]
SIM_LAYER_KEYS = ["instructions", "cycles", "accel_cycles", "share", "instructions_per_mac", "energy_uj"]


def test_run_takes_keywords_only() -> None:
    with pytest.raises(TypeError):
        pipeline.run(pipeline.default_model(), "host")  # type: ignore[misc]


def test_host_report(tmp_path: Path) -> None:
    report = pipeline.run(pipeline.default_model(), target="host", seed=3, work_dir=tmp_path)
    figures = report.figures
    assert isinstance(figures, HostFigures) and figures.us_per_inference and figures.us_per_inference > 0
    data = report.to_json()
    assert list(data) == [*MODEL_KEYS, "host_us_per_inference", "cc", "cflags", "layers"]
    assert all(list(layer) == LAYER_KEYS for layer in data["layers"])
    assert data["host_us_per_inference"] == figures.us_per_inference and data["cflags"] == figures.cflags
    assert data["target"] == "host" and data["bit_exact"] and data["kernels"] == report.compiled.core.value
    example = tmp_path / "digits_cnn" / "examples" / "host"
    assert {"main.c", "Makefile", "CMakeLists.txt", "model_host"} <= {p.name for p in example.iterdir()}


def test_rv32_report(tmp_path: Path) -> None:
    report = pipeline.run(pipeline.default_model(), target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path)
    figures = report.figures
    assert isinstance(figures, SimFigures) and figures.offload is None
    sim = figures.sim
    data = report.to_json()
    assert list(data) == [*MODEL_KEYS, *SIM_KEYS, "layers"]
    assert (data["instructions"], data["cycles"], data["rom_bytes"]) == (sim.instructions, sim.cycles, sim.rom_bytes)
    assert data["instructions_per_mac"] == round(sim.instructions / report.compiled.macs, 3)
    # the mcu platform: no DMA; its memories' peaks are the ROM, and the static RAM with the stack
    assert data["dma"] is None
    assert data["peak_bytes"] == {"flash": sim.rom_bytes, "ram": sim.ram_bytes + sim.stack_bytes}
    profiled = [layer for layer in data["layers"] if "instructions" in layer]
    assert profiled and all(list(layer) == LAYER_KEYS + SIM_LAYER_KEYS for layer in profiled)
    for layer in profiled:
        typed = figures.layers[layer["index"]]
        assert layer["instructions"] == typed.instructions and layer["share"] == typed.share
        assert layer["share"] == round(typed.instructions / sim.instructions, 4)
    # rv32 projects get the firmware's files, not the host driver.
    project = tmp_path / "digits_cnn"
    assert (project / "rv32" / "main.c").is_file() and not (project / "examples").exists()
    assert (project / "src" / "model.c").is_file()


def test_rv32_report_with_an_accelerator() -> None:
    from mote.accel import find_accelerator

    report = pipeline.run(pipeline.default_model(), target=Rv32(Rv32Config(cc="zig")),
                          accelerator=find_accelerator("qvanilla:timed=1"))
    figures = report.figures
    assert isinstance(figures, SimFigures) and figures.offload is not None
    data = report.to_json()
    with_accel = [*MODEL_KEYS[:6], "arena_bytes_without_accel", *MODEL_KEYS[6:]]  # the RAM its layouts cost
    assert list(data) == [*with_accel, *SIM_KEYS, "accelerator", "offloaded_layers", "cpu_layers", "layers"]
    assert data["offloaded_layers"] == figures.offload.offloaded_layers > 0
    assert data["accel_cycles"] == figures.sim.accel_cycles > 0
    assert data["total_cycles"] == figures.sim.cycles + figures.sim.accel_cycles
