"""The rv32 target end to end: generated firmware on the virtual platform, bit-exact with TFLite Micro
and the reference interpreter, with a per-layer profile, footprint and memory-fit checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs
from small_cnn import small_cnn

from mote.codegen.compile import CompiledModel, compile_graph
from mote.errors import MemoryFitError, MoteError
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.pipeline import default_model
from mote.reference import interpret
from mote.sim.elf import ElfImage
from mote.sim.machine import Machine
from mote.sim.results import SimResult
from mote.targets.host import find_cc
from mote.targets.rv32 import Rv32Config, Rv32Firmware, build_custom_firmware, build_rv32

HAVE_GCC = shutil.which("riscv64-unknown-elf-gcc") is not None
ZIG = Rv32Config(cc="zig")  # pinned: the default picks gcc where it is installed


@pytest.fixture(scope="module")
def model() -> tuple[bytes, CompiledModel]:
    data = small_cnn()
    return data, compile_graph(load_tflite(data, "small_cnn"))


@pytest.fixture(scope="module")
def firmware(model: tuple[bytes, CompiledModel], tmp_path_factory: pytest.TempPathFactory) -> Rv32Firmware:
    return build_rv32(model[1], tmp_path_factory.mktemp("rv32") / "small_cnn", ZIG)


@pytest.fixture(scope="module")
def result(model: tuple[bytes, CompiledModel], firmware: Rv32Firmware) -> SimResult:
    return firmware.run(random_inputs(model[1].graph, 0))


def test_matches_tflite_micro_and_the_reference(model: tuple[bytes, CompiledModel], firmware: Rv32Firmware) -> None:
    data, compiled = model
    for seed in range(3):
        inputs = random_inputs(compiled.graph, seed)
        expected = tflm_outputs(data, compiled.graph, inputs)
        assert_same(interpret(compiled.graph, inputs), expected, f"reference interpreter, seed {seed}")
        assert_same(firmware.run(inputs).outputs, expected, f"rv32 firmware, seed {seed}")


def test_profile_covers_every_layer(model: tuple[bytes, CompiledModel], result: SimResult) -> None:
    compiled = model[1]
    assert [layer.index for layer in result.layers] == [x.index for x in compiled.layers if x.kernel != "in place"]
    assert all(layer.instructions > 0 and layer.cycles >= layer.instructions for layer in result.layers)
    # The layers are most of model_run, which is most of the firmware's run.
    in_layers = sum(layer.instructions for layer in result.layers)
    assert 0.9 * result.instructions < in_layers < result.instructions < result.firmware_instructions
    assert sum(result.class_counts.values()) == result.instructions
    assert result.cycles >= result.instructions
    conv = result.layers[0].class_counts
    assert conv["mul"] > 0 and conv["load"] > 0 and conv["branch_taken"] > 0


def test_both_ways_of_locating_marks_agree(model: tuple[bytes, CompiledModel], firmware: Rv32Firmware,
                                           result: SimResult) -> None:
    """With the alignment hook the PC is exact at the profiler's stores; without it the store is found
    from the registers. Both must give the same counts."""
    lenient = Rv32Firmware(firmware.build, firmware.graph, Rv32Config(cc="zig", check_alignment=False))
    other = lenient.run(random_inputs(model[1].graph, 0))
    assert other.instructions == result.instructions
    assert other.class_counts == result.class_counts
    assert [(x.index, x.instructions, x.cycles) for x in other.layers] == \
        [(x.index, x.instructions, x.cycles) for x in result.layers]


def test_footprint(model: tuple[bytes, CompiledModel], result: SimResult) -> None:
    compiled = model[1]
    assert compiled.weights_bytes < result.rom_bytes < compiled.weights_bytes + 64 * 1024
    # The inputs and outputs live in the arena: static RAM is the arena and little else.
    assert compiled.plan.size <= result.ram_bytes < compiled.plan.size + 4096
    assert 0 < result.stack_bytes < result.stack_limit


def test_report(result: SimResult, firmware: Rv32Firmware) -> None:
    report = result.to_json()
    assert report["instructions"] == result.instructions
    assert report["cc"].startswith("zig cc")
    assert "-O2" in report["cflags"] and "-mcpu=generic_rv32+m+c" in report["cflags"]
    assert report["layer_profile"][0].keys() == {"index", "instructions", "cycles", "accel_cycles", "energy_uj"}
    assert report["platform"] == "mcu" and report["energy_uj"] == round(result.energy.uj, 6) > 0
    assert result.sim_mips > 0 and result.sim_seconds > 0
    assert (firmware.elf.parent / "rv32" / "link.ld").exists()


def test_footprint_follows_static_data(tmp_path: Path) -> None:
    """10 kB more of zeroed RAM and 20 kB more of constants show up where they should."""
    def footprint(data: str, use: str) -> tuple[int, int]:
        src = f"#include <stdint.h>\n{data}\nint main(void) {{ {use} return 0; }}\n"
        elf = build_custom_firmware({"main.c": src}, tmp_path / str(len(data))).elf
        return ElfImage(elf).footprint(0x2000_0000, Rv32Config().ram_bytes)

    rom0, ram0 = footprint("", "")
    rom1, ram1 = footprint("volatile uint8_t zeroed[10000]; const uint8_t table[20000] = {1};",
                           "zeroed[1] = ((const volatile uint8_t *)table)[5];")
    assert 10000 <= ram1 - ram0 < 10100
    assert 20000 <= rom1 - rom0 < 20200


def test_stack_high_water_mark(tmp_path: Path) -> None:
    src = r"""
#include <stdint.h>
__attribute__((noinline)) static uint32_t deep(volatile uint8_t *buf, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) buf[i] = (uint8_t)i;
  return buf[n - 1];
}
int main(void) {
  volatile uint8_t frame[3000];
  return (int)deep(frame, sizeof frame) - (int)(2999u & 0xff);
}
"""
    build = build_custom_firmware({"main.c": src}, tmp_path / "fw")
    used = Machine(build.elf, host_cc=find_cc()).run().stack_used
    assert 3000 <= used < 3200


def test_arena_too_large_for_ram(model: tuple[bytes, CompiledModel], tmp_path: Path) -> None:
    compiled = model[1]
    with pytest.raises(MemoryFitError, match=r"needs at least \d+ bytes of RAM \(arena \d+ \+ "
                                             r"stack 7168.*but the target has 8192"):
        build_rv32(compiled, tmp_path / "p", Rv32Config(cc="zig", ram_bytes=8192, stack_bytes=7168))


def test_static_data_too_large_for_ram_fails_at_link_time(tmp_path: Path) -> None:
    src = "#include <stdint.h>\nvolatile uint8_t big[600000];\nint main(void) { big[1] = 1; return 0; }\n"
    with pytest.raises(MemoryFitError, match=r"needs 6\d{5} bytes of RAM \(.data \d+ \+ .bss 600\d\d\d \+ .*"
                                             r"\+ stack 16384\) but the target has 524288"):
        build_custom_firmware({"main.c": src}, tmp_path / "fw")


def test_constants_too_large_for_flash(tmp_path: Path) -> None:
    src = ("#include <stdint.h>\nconst uint8_t table[100000] = {1};\n"
           "int main(void) { return ((const volatile uint8_t *)table)[7]; }\n")
    with pytest.raises(MemoryFitError, match=r"needs 10\d{4} bytes of flash .* but the target has 65536"):
        build_custom_firmware({"main.c": src}, tmp_path / "fw", Rv32Config(cc="zig", flash_bytes=64 << 10))


def test_smaller_code_with_os(model: tuple[bytes, CompiledModel], result: SimResult, tmp_path: Path) -> None:
    small = build_rv32(model[1], tmp_path / "os", Rv32Config(cc="zig", opt="-Os"))
    out = small.run(random_inputs(model[1].graph, 0))
    assert "-Os" in small.cflags
    assert out.rom_bytes < result.rom_bytes
    assert_same(out.outputs, result.outputs, "-Os firmware")


@pytest.mark.parametrize("cc", ["zig", pytest.param("gcc", marks=pytest.mark.skipif(
    not HAVE_GCC, reason="riscv64-unknown-elf-gcc not installed"))])
def test_bundled_digits_model(cc: str, tmp_path: Path) -> None:
    """Float input and output: QUANTIZE and DEQUANTIZE need the compiler's soft-float helpers."""
    data = default_model().read_bytes()
    compiled = compile_graph(load_tflite(data, "digits"))
    fw = build_rv32(compiled, tmp_path / "digits", Rv32Config(cc=cc))
    inputs = random_inputs(compiled.graph, 1)
    out = fw.run(inputs)
    assert_same(out.outputs, tflm_outputs(data, compiled.graph, inputs), f"rv32 firmware ({cc})")
    assert out.cc.startswith("zig" if cc == "zig" else "riscv64-unknown-elf-gcc")


@pytest.mark.parametrize("file", ["ad01_int8.tflite", "kws_ref_model.tflite", "pretrainedResnet_quant.tflite",
                                  "vww_96_int8.tflite"])
def test_mlperf_tiny(file: str, tmp_path: Path) -> None:
    """The four MLPerf Tiny models on the virtual platform: bit-exact, every layer profiled, static RAM
    exactly the firmware's arena (planned for its scalar kernels; the I/O stays in it), code and constants
    besides the weights under 24,000 bytes of flash (benchmarks/run.py's goal)."""
    data = (MLPERF_TINY / file).read_bytes()
    compiled = compile_graph(load_tflite(data, Path(file).stem))
    fw = build_rv32(compiled, tmp_path / "fw", ZIG)
    inputs = random_inputs(compiled.graph, 0)
    out = fw.run(inputs)
    assert_same(out.outputs, tflm_outputs(data, compiled.graph, inputs), f"{file} rv32 firmware")
    assert len(out.layers) == sum(x.kernel != "in place" for x in compiled.layers)
    assert sum(layer.instructions for layer in out.layers) <= out.instructions
    arena = compiled.for_core(Core.SCALAR).plan.size
    assert out.ram_bytes == arena
    assert out.rom_bytes - compiled.for_core(Core.SCALAR).weights_bytes < 24000


def test_config_is_validated(model: tuple[bytes, CompiledModel], tmp_path: Path) -> None:
    for bad in (Rv32Config(cc="zig", ram_bytes=1000), Rv32Config(cc="zig", stack_bytes=10),
                Rv32Config(cc="zig", opt="-O9"), Rv32Config(cc="tcc")):
        with pytest.raises(MoteError):
            build_rv32(model[1], tmp_path / "bad", bad)
