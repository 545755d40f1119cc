"""What a target is: where a compiled model is built and run, and what that run adds to the report.

The pipeline (mote.pipeline) asks the target, never its name: which kernels to compile for (`core`),
whether an accelerator can be attached (`check_accelerator`), which files a project gets beside the
model's own C (`project_files`), and `run`, which builds the project (`build`) and runs it once on
the inputs. A target is configured when it is made (the rv32 one takes the MCU's memory sizes and
compiler), so `run` needs nothing else. Adding a target is one module with a subclass, and its line
in mote.targets.TARGETS.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mote.accel.interface import Accelerator
from mote.codegen.compile import CompiledModel
from mote.errors import MoteError
from mote.ops.registry import Core


@dataclass(frozen=True)
class Compiler:
    """The C compiler a target builds with, as reports name it."""

    name: str                 # a path or a version line
    flags: tuple[str, ...]    # every flag that shapes the generated code


@dataclass(frozen=True)
class MemorySizes:
    """A target's memories, in bytes (None where the operating system provides them)."""

    flash_bytes: int | None = None
    ram_bytes: int | None = None
    stack_bytes: int | None = None


class TargetFigures(ABC):
    """What one run on a target measured: the keys it adds to the run's JSON and to each layer's."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The target's keys of the run's JSON object, in order."""

    def layer_json(self, index: int) -> dict[str, Any]:
        """The target's keys of layer `index` in the JSON (none by default)."""
        return {}

    def call_json(self) -> dict[str, Any]:
        """The figures that vary from call to call of a stream (`mote run --calls`), numbers only (none by
        default)."""
        return {}


@dataclass
class TargetRun:
    """One inference on a target: the outputs it computed and what it measured."""

    outputs: dict[str, np.ndarray]
    figures: TargetFigures


class Target(ABC):
    """A place to build and run a compiled model. Subclasses set `name` and `isa` and configure
    themselves in __init__ (every target can be made with no arguments, for its defaults)."""

    name: ClassVar[str]
    isa: ClassVar[str]  # the instruction set its code is built for
    accelerators: ClassVar[bool] = False  # whether an accelerator can be attached (mote.accel)
    measures_layers: ClassVar[bool] = False  # whether a run measures each layer (`mote profile`)

    @abstractmethod
    def core(self) -> Core:
        """The kind of core its kernels are chosen for (mote.ops.registry.Core)."""

    def l1_bytes(self) -> int:
        """The L1 scratchpad its layers are tiled into (mote.memory.tiling); 0: none, they run in RAM."""
        return 0

    def project_core(self) -> Core:
        """The kernels of a project written for this kind of target and built elsewhere (`mote compile`)."""
        return self.core()

    @abstractmethod
    def compiler(self) -> Compiler:
        """The C compiler and flags `run` builds with."""

    @abstractmethod
    def memory(self) -> MemorySizes:
        """Its memory sizes."""

    @abstractmethod
    def project_files(self, model: CompiledModel) -> dict[str, str]:
        """The files it adds to a project ({relative path: text}): a driver, startup code, a linker script."""

    @abstractmethod
    def build(self, model: CompiledModel, project_dir: Path) -> object:
        """Write the project to `project_dir` and build it: the target's program (a HostBinary, an
        Rv32Firmware), which `run` runs. Raises MoteError."""

    @abstractmethod
    def run(self, model: CompiledModel, project_dir: Path, inputs: dict[str, np.ndarray]) -> TargetRun:
        """Build the project in `project_dir` and run one inference on `inputs`. Raises MoteError."""

    def run_stream(self, model: CompiledModel, project_dir: Path, frames: list[dict[str, np.ndarray]]
                   ) -> list[TargetRun]:
        """Build the project once and run the frames in order, as calls of one program (a model with state
        carries it from call to call): one TargetRun per call. Raises MoteError."""
        raise MoteError(f"the {self.name} target does not run streams of calls; run one call at a time")

    def check_accelerator(self, accelerator: Accelerator | None) -> None:
        """Refuse an accelerator the target cannot attach, before any work."""
        if accelerator is not None and not self.accelerators:  # accelerators are devices of the virtual platform
            raise MoteError(f"the {accelerator.name} accelerator exists on the virtual platform only; "
                            "use --target rv32")

    def write_project(self, model: CompiledModel, project_dir: Path, what: str = "-o") -> None:
        """Write the model's project with this target's files in it (mote.outputs' rules; `what` names
        the option that chose the directory)."""
        model.write(project_dir, what, self.project_files(model))

