"""The Cortex-M targets end to end: generated firmware for each core on the virtual platform, bit-exact with
TFLite Micro and the reference interpreter, with a per-layer profile, footprint, cycle model and faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_same, tflm_outputs
from small_cnn import small_cnn

from mote.codegen.compile import CompiledModel, compile_graph
from mote.errors import MoteError
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.reference import interpret
from mote.sim.faults import IllegalInstructionError, MemoryAccessError, MisalignedAccessError
from mote.sim.results import SimResult
from mote.targets import TARGETS, find_target
from mote.targets.cortexm import CORES, CortexMConfig, CortexMFirmware, build_cortexm, build_custom_firmware
from mote.targets.cortexm.firmware import machine

CPUS = list(CORES)


@pytest.fixture(scope="module")
def model() -> tuple[bytes, CompiledModel]:
    data = small_cnn()
    return data, compile_graph(load_tflite(data, "small_cnn"))


@pytest.fixture(scope="module", params=CPUS)
def firmware(request: pytest.FixtureRequest, model: tuple[bytes, CompiledModel],
             tmp_path_factory: pytest.TempPathFactory) -> CortexMFirmware:
    cpu = request.param
    return build_cortexm(model[1], tmp_path_factory.mktemp(cpu) / "small_cnn", CortexMConfig(cpu=cpu, cc="zig"))


def test_every_core_is_a_target() -> None:
    for cpu in CPUS:
        target = find_target(cpu)
        assert TARGETS[cpu].name == cpu and target.measures_layers and target.accelerators
        assert target.compiler().flags[:3] == ("-target", "thumb-freestanding-eabihf" if CORES[cpu].fpu
                                               else "thumb-freestanding-eabi", f"-mcpu={CORES[cpu].llvm_cpu}") \
            or target.compiler().name.startswith("arm-none-eabi")


def test_matches_tflite_micro_and_the_reference(model: tuple[bytes, CompiledModel],
                                                firmware: CortexMFirmware) -> None:
    data, compiled = model
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        expected = tflm_outputs(data, compiled.graph, inputs)
        assert_same(interpret(compiled.graph, inputs), expected, f"reference interpreter, seed {seed}")
        assert_same(firmware.run(inputs).outputs, expected, f"{firmware.config.cpu} firmware, seed {seed}")


def test_each_core_gets_its_kernels(model: tuple[bytes, CompiledModel], firmware: CortexMFirmware) -> None:
    """The cores with the DSP extension take the SMLAD kernels for every conv, depthwise and fully connected
    layer; Cortex-M0+ the vector ones."""
    kernels = {layer.kernel for layer in model[1].for_core(CORES[firmware.config.cpu].kernels).layers}
    dsp = {"mote_conv_dsp_s8", "mote_depthwise_conv_dsp_s8", "mote_fully_connected_dsp_s8"}
    assert dsp <= kernels if CORES[firmware.config.cpu].dsp else not dsp & kernels


def test_profile_footprint_and_cycles(model: tuple[bytes, CompiledModel], firmware: CortexMFirmware) -> None:
    compiled = model[1]
    result: SimResult = firmware.run(random_inputs(compiled.graph, 0))
    assert [layer.index for layer in result.layers] == [x.index for x in compiled.layers if x.kernel != "in place"]
    in_layers = sum(layer.instructions for layer in result.layers)
    assert 0.9 * result.instructions < in_layers < result.instructions < result.firmware_instructions
    assert sum(result.class_counts.values()) == result.instructions
    assert result.cycles > result.instructions  # loads cost 2 on every core but M7, taken branches 2 or 3
    conv = result.layers[0].class_counts
    assert conv["mul"] > 0 and conv["load"] > 0 and conv["branch_taken"] > 0
    assert compiled.weights_bytes < result.rom_bytes < compiled.weights_bytes + 64 * 1024
    assert compiled.plan.size <= result.ram_bytes < compiled.plan.size + 4096
    assert 0 < result.stack_bytes < result.stack_limit
    assert result.core == CORES[firmware.config.cpu].timing.name



def test_energy_and_memory_accesses(model: tuple[bytes, CompiledModel], firmware: CortexMFirmware) -> None:
    """The memory hook counts every load and store per memory (the device page's marks excepted) on every
    core, IT blocks included, and the energy is the platform's figures applied to those counts."""
    result = firmware.run(random_inputs(model[1].graph, 0))
    assert result.platform == firmware.config.cpu
    loads, stores = result.memory_accesses
    assert loads["flash"] > 0 and loads["ram"] > 0 and stores["ram"] > 0 and stores["flash"] == 0
    # every load instruction loads at least once (a failed IT condition's loads none; LDM, LDRD more)
    counted = result.class_counts
    assert sum(loads.values()) + sum(stores.values()) >= (counted["load"] + counted["store"]) // 2
    platform = firmware.config.platform
    core = sum(n * platform.compute.energy_pj[c] for c, n in counted.items())
    memory = sum(loads[m.name] * m.read_pj + stores[m.name] * m.write_pj for m in platform.memories)
    total = core + result.instructions * platform.compute.fetch_pj + memory
    assert result.energy is not None and abs(result.energy.total_pj - total) < 1e-6 * total
    assert result.energy.memory_pj["flash"] == loads["flash"] * platform.memory("flash").read_pj
    layers = [layer.energy.uj for layer in result.layers]
    assert all(e > 0 for e in layers) and sum(layers) < result.energy.uj


def test_flash_wait_states_charge_each_discontinuity_and_flash_load(model: tuple[bytes, CompiledModel],
                                                     firmware: CortexMFirmware) -> None:
    inputs = random_inputs(model[1].graph, 0)
    base = firmware.run(inputs)
    slow = CortexMFirmware(firmware.build, firmware.graph,
                           CortexMConfig(cpu=firmware.config.cpu, cc="zig", flash_wait_states=2)).run(inputs)
    assert slow.instructions == base.instructions and slow.memory_accesses == base.memory_accesses
    jumps = base.class_counts["branch_taken"] + base.class_counts["jump"]
    flash_loads = base.memory_accesses[0]["flash"]
    assert flash_loads > 0
    assert slow.cycles - base.cycles == 2 * (jumps + flash_loads)


FAULTS = {
    "null": "#include <stdint.h>\nint main(void) { return *(volatile int32_t *)(uintptr_t)0u; }\n",
    "misaligned": "#include <stdint.h>\nvolatile uint8_t bytes[8];\n"
                  "int main(void) { return *(volatile int32_t *)(uintptr_t)&bytes[1]; }\n",
    # LDRD and LDM must be word-aligned on Armv7-M (single loads need not be).
    "ldrd": "#include <stdint.h>\nvolatile uint32_t words[4];\nint main(void) {\n"
            "  uint32_t lo, hi;\n  __asm__ volatile(\"ldrd %0, %1, [%2]\" : \"=r\"(lo), \"=r\"(hi)"
            " : \"r\"((uintptr_t)words + 2) : \"memory\");\n  return (int)(lo + hi);\n}\n",
    "ldm": "#include <stdint.h>\nvolatile uint32_t words[4];\nint main(void) {\n"
           "  register uintptr_t p __asm__(\"r0\") = (uintptr_t)words + 1;\n"
           "  __asm__ volatile(\"ldm r0, {r1, r2}\" :: \"r\"(p) : \"r1\", \"r2\", \"memory\");\n  return 0;\n}\n",
    # SDIV, an Armv7-M instruction, in Armv6-M code: Unicorn's Cortex-M0 model would run it.
    "sdiv": "int main(void) { __asm__ volatile(\".inst.w 0xfb90f0f1\" ::: \"r0\"); return 0; }\n",
}


def _run_fault(tmp_path: Path, cpu: str, program: str) -> None:
    config = CortexMConfig(cpu=cpu, cc="zig")
    fw = build_custom_firmware({"main.c": program}, tmp_path / cpu, config)
    machine(fw.elf, config).run()


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m0plus"])
def test_null_load_is_one_line(tmp_path: Path, cpu: str) -> None:
    with pytest.raises(MemoryAccessError) as e:
        _run_fault(tmp_path, cpu, FAULTS["null"])
    assert "\n" not in str(e.value)
    assert str(e.value).startswith(f"{cpu} simulation: load from unmapped address 0x00000000 (4-byte load) at pc 0x8")
    assert "in main" in str(e.value)


def test_cortex_m0plus_faults_on_misaligned_and_armv7m_code(tmp_path: Path) -> None:
    with pytest.raises(MisalignedAccessError, match=r"^cortex-m0plus simulation: misaligned 4-byte load"):
        _run_fault(tmp_path / "a", "cortex-m0plus", FAULTS["misaligned"])
    with pytest.raises(IllegalInstructionError, match=r"^cortex-m0plus simulation: sdiv is not an Armv6-M "
                                                      r"instruction at pc 0x8[0-9a-f]+ in main"):
        _run_fault(tmp_path / "b", "cortex-m0plus", FAULTS["sdiv"])
    _run_fault(tmp_path / "c", "cortex-m4", FAULTS["misaligned"])  # Armv7-M: single loads may be misaligned


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m7", "cortex-m33"])
def test_armv7m_faults_on_misaligned_ldrd_and_ldm(tmp_path: Path, cpu: str) -> None:
    with pytest.raises(MisalignedAccessError, match=rf"^{cpu} simulation: misaligned 4-byte load at address "
                                                    r"0x2[0-9a-f]+2 at pc 0x8[0-9a-f]+ in main"):
        _run_fault(tmp_path / "d", cpu, FAULTS["ldrd"])
    with pytest.raises(MisalignedAccessError, match=rf"^{cpu} simulation: misaligned 4-byte load at address "
                                                    r"0x2[0-9a-f]+1 at pc 0x8[0-9a-f]+ in main"):
        _run_fault(tmp_path / "e", cpu, FAULTS["ldm"])


def test_config_is_validated(model: tuple[bytes, CompiledModel], tmp_path: Path) -> None:
    for bad in (CortexMConfig(cpu="cortex-m3"), CortexMConfig(flash_wait_states=-1), CortexMConfig(opt="-O9"),
                CortexMConfig(stack_bytes=12)):
        with pytest.raises(MoteError):
            build_cortexm(model[1], tmp_path / "x", bad)


def test_cli_profile_with_an_accelerator(capsys: pytest.CaptureFixture[str]) -> None:
    """`mote profile --target cortex-m33 --accel qvanilla`: layers measured, the offloaded ones driven over
    MMIO, bit-exact."""
    from mote.cli import main

    assert main(["profile", "--target", "cortex-m33", "--accel", "qvanilla", "--flash-wait-states", "1",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == "cortex-m33" and report["bit_exact"]
    layers = report["layers"]
    assert all(layer["instructions"] > 0 for layer in layers if layer.get("instructions") is not None)
    assert any(layer.get("runs_on", "cpu") != "cpu" for layer in layers)


def test_cli_refuses_rv32_options(capsys: pytest.CaptureFixture[str]) -> None:
    from mote.cli import main

    assert main(["run", "--target", "cortex-m4", "--isa", "rv32imfc"]) == 2
    assert "--isa configures rv32's virtual MCU; --target cortex-m4 does not take it" in capsys.readouterr().err


def test_explore_verifies_on_a_cortex_m_core(tmp_path: Path) -> None:
    from mote.explore.run import explore
    from mote.pipeline import default_model

    explore([default_model()], "qvanilla", {"cycles_per_mac": ["3"]}, tmp_path, verify=1, workers=1, show=False,
            verify_target="cortex-m4")
    (check,) = json.loads((tmp_path / "results.json").read_text())["verify"]
    assert check["target"] == "cortex-m4" and check["bit_exact"]
    assert check["vp_cycles"] == check["model_cycles"] > 0


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m0plus"])
def test_float_layers_use_the_fpu_where_there_is_one(cpu: str, tmp_path: Path) -> None:
    """The bundled digits CNN quantizes a float input and dequantizes its output: in FPU instructions on a
    core with an FPU (hard-float ABI, the reset code enabling it), in the compiler's runtime on Cortex-M0+."""
    from mote.pipeline import default_model, load

    graph = load(default_model())
    compiled = compile_graph(graph, core=CORES[cpu].kernels)
    inputs = random_inputs(graph, 0)
    result = build_cortexm(compiled, tmp_path / cpu, CortexMConfig(cpu=cpu, cc="zig")).run(inputs)
    assert_same(result.outputs, interpret(graph, inputs), f"digits on {cpu}")
    assert (result.class_counts["fpu"] > 0) == (cpu == "cortex-m4")
