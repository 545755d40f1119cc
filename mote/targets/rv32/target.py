"""The rv32 target as a mote.targets Target: firmware for the virtual MCU, simulated once per run."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.codegen.compile import CompiledModel
from mote.ops.registry import Core
from mote.sim.machine import DEFAULT_INSTRUCTION_LIMIT
from mote.targets.base import Compiler, MemorySizes, Target, TargetRun
from mote.targets.rv32.config import Rv32Config
from mote.targets.rv32.figures import SimFigures
from mote.targets.rv32.firmware import build_rv32, project_files
from mote.targets.rv32.firmware_main import keeps_state
from mote.targets.rv32.levels import l1_bytes
from mote.targets.rv32.simulated import Rv32Firmware
from mote.targets.rv32.toolchain import find_toolchain

MAX_INSTRUCTION_LIMIT = 1 << 62  # the largest --instruction-limit, and a stream's whole limit at most


class SimulatedTarget(Target):
    """A target whose firmware runs on the virtual platform (rv32, the Cortex-M cores): `build` makes it,
    `instruction_limit` bounds a call (None: the simulator's default)."""

    instruction_limit: int | None = None

    def run(self, model: CompiledModel, project_dir: Path, inputs: dict[str, np.ndarray]) -> TargetRun:
        firmware = self.build(model, project_dir)
        limit = {"instruction_limit": self.instruction_limit} if self.instruction_limit else {}
        result = firmware.run(inputs, **limit)
        return TargetRun(result.outputs, SimFigures.of(result, model))

    def run_stream(self, model: CompiledModel, project_dir: Path, frames: list[dict[str, np.ndarray]]
                   ) -> list[TargetRun]:
        """A model with state runs the whole stream in one run of the firmware, so the instruction limit (one
        call's) is multiplied by the number of calls; a model without state runs each call on its own."""
        firmware = self.build(model, project_dir)
        limit = self.instruction_limit or DEFAULT_INSTRUCTION_LIMIT
        if keeps_state(model.graph):
            limit = min(limit * len(frames), MAX_INSTRUCTION_LIMIT)
        return [TargetRun(r.outputs, SimFigures.of(r, model))
                for r in firmware.run_stream(frames, instruction_limit=limit)]


class Rv32(SimulatedTarget):
    """mote's virtual platform: an rv32imc MCU with the memories and compiler of `config`; an
    accelerator, when the model offloads to one, is a device on it."""

    name = "rv32"
    accelerators = True
    measures_layers = True

    def __init__(self, config: Rv32Config | None = None, instruction_limit: int | None = None) -> None:
        self.config = config or Rv32Config()
        self.instruction_limit = instruction_limit  # None: the simulator's default

    @property
    def isa(self) -> str:
        return self.config.isa

    def core(self) -> Core:
        return Core.SCALAR

    def l1_bytes(self) -> int:
        return l1_bytes(self.config.platform)

    def compiler(self) -> Compiler:
        toolchain = find_toolchain(self.config.cc)
        return Compiler(toolchain.version, toolchain.cflags(self.config.opt, self.config.isa))

    def memory(self) -> MemorySizes:
        c = self.config
        return MemorySizes(c.flash_bytes, c.ram_bytes, c.stack_bytes)

    def project_files(self, model: CompiledModel) -> dict[str, str]:
        """rv32/: reset code, linker script, support library, device header, the firmware main and the
        assembly inner loops of the chosen kernels."""
        return project_files(model, self.config)

    def build(self, model: CompiledModel, project_dir: Path) -> Rv32Firmware:
        return build_rv32(model, project_dir, self.config)
