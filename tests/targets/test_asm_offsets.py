"""The rv32 assembly (mote.targets.rv32.micro) reads C structs at byte offsets it hard-codes: compile
the runtime headers for rv32 with offsetof() of every such field as data, read the values back from
the object file, and compare, so that a field added to a struct fails here rather than deep in a
firmware run."""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from mote.errors import BuildError
from mote.targets.rv32 import micro_blocks as micro
from mote.targets.rv32.toolchain import find_toolchain


def _probe_source() -> str:
    """A C file whose array `mote_probe` holds offsetof of every field micro.STRUCT_OFFSETS names, then
    the output-stage row size, in that order."""
    headers = sorted(set(micro.STRUCT_HEADERS.values()) | {"mote_output_stage.h"})
    values = [f"offsetof({struct}, {name})" for struct, name in micro.STRUCT_OFFSETS]
    values.append("sizeof(int32_t) * MOTE_OUTPUT_STAGE_WORDS")
    return "\n".join(["#include <stddef.h>", "#include <stdint.h>", *[f'#include "{h}"' for h in headers],
                      f"const int32_t mote_probe[] = {{{', '.join(values)}}};", ""])


def _read_words(obj: Path, symbol: str, count: int) -> list[int]:
    with obj.open("rb") as f:
        elf = ELFFile(f)
        sym = elf.get_section_by_name(".symtab").get_symbol_by_name(symbol)[0]
        data = elf.get_section(sym["st_shndx"]).data()[sym["st_value"]:sym["st_value"] + 4 * count]
    return [int.from_bytes(data[4 * k:4 * k + 4], "little", signed=True) for k in range(count)]


def test_struct_offsets_match_the_headers(tmp_path: Path) -> None:
    try:
        tc = find_toolchain("auto")
    except BuildError as e:
        pytest.skip(str(e))
    (tmp_path / "probe.c").write_text(_probe_source())
    runtime = Path(str(resources.files("mote.runtime")))
    proc = subprocess.run([*tc.driver, *tc.targets["rv32imc"], "-O0", "-ffreestanding", "-I", str(runtime), "-c",
                           "probe.c", "-o", "probe.o"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = _read_words(tmp_path / "probe.o", "mote_probe", len(micro.STRUCT_OFFSETS) + 1)
    expected = {f"{struct}.{name}": offset for (struct, name), offset in micro.STRUCT_OFFSETS.items()}
    assert dict(zip(expected, got)) == expected
    assert got[-1] == micro.ROW_BYTES


def test_every_struct_named_has_its_header() -> None:
    runtime = resources.files("mote.runtime")
    for struct, _ in micro.STRUCT_OFFSETS:
        assert f"}} {struct};" in runtime.joinpath(micro.STRUCT_HEADERS[struct]).read_text()
