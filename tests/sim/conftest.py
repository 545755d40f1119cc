"""Builds small hand-written firmware for the simulator tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from mote.sim.machine import Machine
from mote.targets.host import find_cc
from mote.targets.rv32 import Rv32Config, build_custom_firmware

# The tests pin the compiler that every machine has (the default picks gcc where it is installed).
ZIG = "zig"


@pytest.fixture(scope="module")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Machine]:
    """firmware({file name: C or assembly source}, check_alignment=True, **Rv32Config fields) -> Machine.
    The sources get the platform's reset code, which calls their `main`."""
    root = tmp_path_factory.mktemp("firmware")
    serial = itertools.count()

    def build(sources: dict[str, str], check_alignment: bool = True, **config: object) -> Machine:
        cfg = Rv32Config(**{"cc": ZIG, **config})  # type: ignore[arg-type]
        fw = build_custom_firmware(sources, root / f"fw{next(serial)}", cfg)
        return Machine(fw.elf, cfg.memory_map(), check_alignment, host_cc=find_cc())

    return build
