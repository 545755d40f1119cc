"""The Cortex-M targets as mote.targets Targets, one class per core (`--target cortex-m4`): firmware for
the virtual platform with that core, simulated once per run."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from mote.codegen.compile import CompiledModel
from mote.ops.registry import Core
from mote.targets.base import Compiler, MemorySizes
from mote.targets.cortexm.firmware import CortexMConfig, CortexMFirmware, build_cortexm, project_files
from mote.targets.cortexm.toolchain import find_toolchain
from mote.targets.rv32.target import SimulatedTarget


class CortexM(SimulatedTarget):
    """mote's virtual platform with an Arm Cortex-M core (`cpu`) and the memories and compiler of `config`;
    an accelerator, when the model offloads to one, is a device on it, as on rv32."""

    cpu: ClassVar[str]
    accelerators = True
    measures_layers = True

    def __init__(self, config: CortexMConfig | None = None, instruction_limit: int | None = None) -> None:
        self.config = config or CortexMConfig(cpu=self.cpu)
        if self.config.cpu != self.cpu:
            raise ValueError(f"a {self.config.cpu} configuration for the {self.cpu} target")
        self.instruction_limit = instruction_limit

    @property
    def isa(self) -> str:  # type: ignore[override]
        return self.config.isa

    def core(self) -> Core:
        return self.config.arm.kernels

    def compiler(self) -> Compiler:
        toolchain = find_toolchain(self.config.cc, self.config.arm)
        return Compiler(toolchain.version, toolchain.cflags(self.config.opt, self.config.cpu))

    def memory(self) -> MemorySizes:
        c = self.config
        return MemorySizes(c.flash_bytes, c.ram_bytes, c.stack_bytes)

    def project_files(self, model: CompiledModel) -> dict[str, str]:
        """cortexm/: vector table and reset code, linker script, support library, device header, main."""
        return project_files(model, self.config)

    def build(self, model: CompiledModel, project_dir: Path) -> CortexMFirmware:
        return build_cortexm(model, project_dir, self.config)


class CortexM0Plus(CortexM):
    name = "cortex-m0plus"
    cpu = "cortex-m0plus"


class CortexM4(CortexM):
    name = "cortex-m4"
    cpu = "cortex-m4"


class CortexM7(CortexM):
    name = "cortex-m7"
    cpu = "cortex-m7"


class CortexM33(CortexM):
    name = "cortex-m33"
    cpu = "cortex-m33"


CORTEX_M_TARGETS: tuple[type[CortexM], ...] = (CortexM0Plus, CortexM4, CortexM7, CortexM33)
