"""`mote compile` writes a library: the build files of each ecosystem parse, carry the fields their documentation
requires and name the library's sources; the CMake project builds the static library and the example links it and
runs bit-exact; `--name` puts every symbol and macro in its namespace."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, Rv32Firmware
from mote.targets.rv32.firmware import link_firmware, project_files
from mote.targets.rv32.toolchain import find_toolchain

AD = MLPERF_TINY / "ad01_int8.tflite"
DIGITS = Path(__file__).parent.parent.parent / "mote" / "models" / "digits_cnn.tflite"
# library.properties: the fields the Arduino library specification (1.5 format) requires, and its categories
ARDUINO_REQUIRED = ("name", "version", "author", "maintainer", "sentence", "paragraph", "url")
ARDUINO_CATEGORIES = {"Display", "Communication", "Signal Input/Output", "Sensors", "Device Control", "Timing",
                      "Data Storage", "Data Processing", "Other", "Uncategorized"}


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def cmake() -> str | None:
    """The cmake of the test environment (the `cmake` package, a test dependency), else the system's."""
    beside = Path(sys.executable).parent / "cmake"
    return str(beside) if beside.is_file() else shutil.which("cmake")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lib") / "ad"
    proc = mote("compile", AD, "-o", out, "--name", "ad")
    assert proc.returncode == 0, proc.stderr
    return out


def c_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "src").rglob("*.c"))


def test_the_layout_is_a_library_with_the_example_beside_it(library: Path) -> None:
    found = {str(p.relative_to(library)) for p in library.rglob("*") if p.is_file()}
    assert {"CMakeLists.txt", "library.json", "library.properties", "zephyr/module.yml", "zephyr/CMakeLists.txt",
            "zephyr/Kconfig", "src/ad.h", "src/ad.c", "src/ad_weights.c", "src/ad_weights.h",
            "examples/host/main.c", "examples/host/Makefile", "examples/host/CMakeLists.txt"} <= found
    # Arduino compiles src/ recursively and nothing else: every source outside it is the example's
    sources = [f for f in found if f.endswith((".c", ".h", ".cpp", ".S"))]
    assert sources and all(f.startswith(("src/", "examples/")) for f in sources)
    # the one public header: src/ holds the model's files, the kernel library's headers sit in src/mote/
    assert {p.name for p in (library / "src").glob("*.h")} == {"ad.h", "ad_weights.h"}
    public = (library / "src" / "ad.h").read_text()
    assert re.findall(r"#include\s*(\S+)", public) == ["<stddef.h>", "<stdint.h>"]  # freestanding headers


def test_platformio_manifest(library: Path) -> None:
    manifest = json.loads((library / "library.json").read_text())
    assert manifest["name"] == "ad" and re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert manifest["description"] and len(manifest["description"]) <= 255
    build = manifest["build"]
    assert build["srcDir"] == "src" and (library / build["includeDir"] / "ad.h").is_file()
    named = sorted(f"src/{entry[2:-1]}" for entry in build["srcFilter"])
    assert all(entry.startswith("+<") and entry.endswith(">") for entry in build["srcFilter"])
    assert named == c_files(library)


def test_arduino_properties(library: Path) -> None:
    lines = (library / "library.properties").read_text().splitlines()
    fields = dict(line.split("=", 1) for line in lines)
    assert len(fields) == len(lines)  # key=value, one a line, no key twice
    assert all(fields.get(key) for key in ARDUINO_REQUIRED), fields
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 _.-]*", fields["name"]) and re.search("[A-Za-z]", fields["name"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", fields["version"])
    assert fields["category"] in ARDUINO_CATEGORIES and fields["architectures"] == "*"
    assert [(library / "src" / h).is_file() for h in fields["includes"].split(",")] == [True]
    assert fields["dot_a_linkage"] == "true"


def test_zephyr_module(library: Path) -> None:
    module = yaml.safe_load((library / "zephyr" / "module.yml").read_text())
    assert module["name"] == "ad"
    cmake_dir, kconfig = library / module["build"]["cmake"], library / module["build"]["kconfig"]
    assert (cmake_dir / "CMakeLists.txt").is_file() and kconfig.is_file()
    symbols = re.findall(r"^config (\w+)$", kconfig.read_text(), re.M)
    assert symbols == ["MOTE_AD"]
    text = (cmake_dir / "CMakeLists.txt").read_text()
    assert "if(CONFIG_MOTE_AD)" in text and "zephyr_library_named(ad)" in text
    listed = sorted(str((cmake_dir / p).resolve().relative_to(library.resolve()))
                    for p in re.findall(r"\$\{CMAKE_CURRENT_LIST_DIR\}/(\S+\.c)", text))
    assert listed == c_files(library)


def test_cmake_lists_name_the_sources(library: Path) -> None:
    text = (library / "CMakeLists.txt").read_text()
    assert "add_library(ad STATIC" in text
    assert sorted(re.findall(r"^\s+(src/\S+\.c)$", text, re.M)) == c_files(library)


def test_cmake_builds_the_library_and_the_example_runs_bit_exact(library: Path, tmp_path: Path) -> None:
    tool = cmake()
    if tool is None:
        pytest.skip("no cmake: install the test dependencies (pip install -e '.[test]') or a system cmake")
    build = tmp_path / "build"
    configure = subprocess.run([tool, "-S", str(library), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror -pedantic"], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr[-3000:]
    made = subprocess.run([tool, "--build", str(build)], capture_output=True, text=True)
    assert made.returncode == 0, (made.stdout + made.stderr)[-3000:]
    assert (build / "libad.a").is_file()
    program = build / "examples" / "host" / "ad_host"
    data = AD.read_bytes()
    graph = load_tflite(data, "ad")
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        files = []
        for i, t in enumerate(graph.inputs):
            files.append(tmp_path / f"in{i}.bin")
            files[-1].write_bytes(np.ascontiguousarray(inputs[t.name], dtype=t.dtype.np).tobytes())
        outs = [tmp_path / f"out{i}.bin" for i in range(len(graph.outputs))]
        subprocess.run([str(program), *map(str, files), *map(str, outs)], check=True, capture_output=True)
        got = {t.name: np.fromfile(f, dtype=t.dtype.np).reshape(t.shape) for t, f in zip(graph.outputs, outs)}
        assert_same(got, tflm_outputs(data, graph, inputs), f"the CMake-built example, seed {seed}")


def test_cmake_links_two_named_libraries_into_one_program(tmp_path: Path) -> None:
    """A firmware team's CMake project: two libraries added as they are, one program linking both."""
    tool = cmake()
    if tool is None:
        pytest.skip("no cmake: install the test dependencies (pip install -e '.[test]') or a system cmake")
    for name, model in (("ad", AD), ("digits", DIGITS)):
        proc = mote("compile", model, "-o", tmp_path / name, "--name", name)
        assert proc.returncode == 0, proc.stderr
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.c").write_text(
        '#include "ad.h"\n#include "digits.h"\n'
        "int main(void) {\n"
        "  if (ad_run(ad_input0_buffer(), ad_output0_buffer()) != 0) return 1;\n"
        "  if (digits_run(digits_input0_buffer(), digits_output0_buffer()) != 0) return 1;\n"
        "  return AD_ARENA_BYTES > 0 && DIGITS_ARENA_BYTES > 0 ? 0 : 1;\n}\n")
    (tmp_path / "app" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(app LANGUAGES C)\n"
        "add_subdirectory(../ad ad)\nadd_subdirectory(../digits digits)\n"
        "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE ad digits)\n")
    build = tmp_path / "build"
    configure = subprocess.run([tool, "-S", str(tmp_path / "app"), "-B", str(build),
                                "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror"], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr[-3000:]
    made = subprocess.run([tool, "--build", str(build)], capture_output=True, text=True)
    assert made.returncode == 0, (made.stdout + made.stderr)[-3000:]
    assert not (build / "ad" / "examples").exists()  # a library added to a project does not build its example
    subprocess.run([str(build / "app")], check=True)


def test_a_name_puts_every_symbol_and_macro_in_its_namespace(library: Path) -> None:
    header = (library / "src" / "ad.h").read_text()
    macros = re.findall(r"^#\s*(?:define|ifndef)\s+(\w+)", header, re.M)
    assert macros and all(m.startswith("AD_") for m in macros), macros
    functions = re.findall(r"\b(\w+)\s*\([^;{]*\);", re.sub(r"/\*.*?\*/", "", header, flags=re.S))
    assert {"ad_run", "ad_input0_buffer", "ad_output0_buffer"} <= set(functions)
    assert all(f.startswith("ad_") for f in functions), functions
    weights = (library / "src" / "ad_weights.h").read_text()
    assert re.findall(r"#ifndef (\w+)", weights) == ["AD_WEIGHTS_H"]
    arrays = re.findall(r"extern const \w+ (\w+)\[", weights)
    assert arrays and all(a.startswith("ad_w") for a in arrays)
    for path in (library / "src").rglob("*.[ch]"):
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(), flags=re.S)
        code = re.sub(r'#include "[^"]*"', "", code)
        assert not re.findall(r"(?<![\w])(?:mote|model)_\w+", code), path  # the library's own names only


def test_compiling_with_a_name_is_deterministic(library: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert mote("compile", AD, "-o", again, "--name", "ad").returncode == 0
    first = {p.relative_to(library): p.read_bytes() for p in library.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first == second


@pytest.mark.parametrize("name", ["9lives", "kws-v2", "int", "_kws", "", "a" * 33, "kws.h", "k w s"])
def test_a_name_that_is_no_c_identifier_is_refused_in_one_line(name: str, tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--name", name)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--name" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "p").exists()


def test_cmake_builds_the_library_for_rv32_and_firmware_links_the_archive(tmp_path: Path) -> None:
    """The static library cross-compiled by CMake (zig's clang for rv32, the platform's freestanding string.h)
    and linked as an archive with rv32's reset code and firmware main runs bit-exact on the virtual platform."""
    tool = cmake()
    if tool is None:
        pytest.skip("no cmake: install the test dependencies (pip install -e '.[test]') or a system cmake")
    data = DIGITS.read_bytes()
    graph = load_tflite(data, "digits")
    compiled = compile_graph(graph, core=Core.SCALAR, name="digits")
    config = Rv32Config(cc="zig")
    project = tmp_path / "fw"
    compiled.write(project, extra=project_files(compiled, config))
    toolchain = find_toolchain("zig")
    wrapper = tmp_path / "rv32-cc"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join([*toolchain.driver, *toolchain.cflags("-O2")])} "$@"\n')
    wrapper.chmod(0o755)
    build = tmp_path / "build"
    configure = subprocess.run([tool, "-S", str(project), "-B", str(build), "-DCMAKE_SYSTEM_NAME=Generic",
                                f"-DCMAKE_C_COMPILER={wrapper}", "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY",
                                f"-DCMAKE_C_FLAGS=-Wall -Wextra -Werror -isystem {project / 'rv32' / 'include'}"],
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr[-3000:]
    made = subprocess.run([tool, "--build", str(build)], capture_output=True, text=True)
    assert made.returncode == 0, (made.stdout + made.stderr)[-3000:]
    archive = build / "libdigits.a"
    # the library as a firmware team has it: the C of every kernel, without rv32's assembly inner loops
    linked = link_firmware(project, ["rv32/main.c", str(archive)], config, includes=("src",))
    firmware = Rv32Firmware(linked, graph, config)
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, graph, inputs), f"libdigits.a, seed {seed}")


def test_cmake_builds_the_library_for_cortex_m4_with_the_toolchain_file_it_writes(tmp_path: Path) -> None:
    """cortexm/toolchain.cmake cross-compiles the static library with zig's clang for the Cortex-M4 (DSP kernels);
    firmware that links libdigits.a with the target's reset code and main runs bit-exact on the virtual platform."""
    from mote.targets.cortexm import CortexMConfig, CortexMFirmware
    from mote.targets.cortexm import firmware as cortexm

    tool = cmake()
    if tool is None:
        pytest.skip("no cmake: install the test dependencies (pip install -e '.[test]') or a system cmake")
    data = DIGITS.read_bytes()
    graph = load_tflite(data, "digits")
    config = CortexMConfig(cpu="cortex-m4", cc="zig")
    compiled = compile_graph(graph, core=config.arm.kernels, name="digits")
    project = tmp_path / "fw"
    compiled.write(project, extra=cortexm.project_files(compiled, config))
    toolchain_file = (project / "cortexm" / "toolchain.cmake").read_text()
    assert "cortex-m4" in toolchain_file and str(tmp_path) not in toolchain_file
    wrapper = tmp_path / "zig-cc"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(find_toolchain("zig").driver)} "$@"\n')
    wrapper.chmod(0o755)
    build = tmp_path / "build"
    configure = subprocess.run([tool, "-S", str(project), "-B", str(build), "-DMOTE_ARM_CC=zig",
                                f"-DCMAKE_TOOLCHAIN_FILE={project / 'cortexm' / 'toolchain.cmake'}",
                                f"-DCMAKE_C_COMPILER={wrapper}", "-DCMAKE_BUILD_TYPE=Release",
                                f"-DMOTE_C_FLAGS=-Wall -Wextra -Werror -isystem {project / 'cortexm' / 'include'}"],
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stderr[-3000:]
    made = subprocess.run([tool, "--build", str(build)], capture_output=True, text=True)
    assert made.returncode == 0, (made.stdout + made.stderr)[-3000:]
    archive = build / "libdigits.a"
    members = archive.read_bytes().split(b"\x7fELF")[1:]  # each object's ELF header, e_machine at byte 18 - 4
    assert members and all(int.from_bytes(m[14:16], "little") == 40 for m in members)  # EM_ARM
    linked = cortexm.link_firmware(project, ["cortexm/main.c", str(archive)], config, includes=("src",))
    firmware = CortexMFirmware(linked, graph, config)
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, graph, inputs), f"Cortex-M4 libdigits.a, {seed}")
