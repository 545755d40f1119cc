"""The rv32 target: bare-metal rv32imc firmware for mote's virtual platform (mote.sim).

    from mote.targets.rv32 import Rv32, Rv32Config
    run = Rv32(Rv32Config(ram_bytes=256 << 10)).run(compiled_model, project_dir, inputs)  # outputs, SimFigures

or, a step at a time:

    firmware = build_rv32(compiled_model, project_dir, Rv32Config(ram_bytes=256 << 10))
    result = firmware.run(inputs)  # mote.sim.results.SimResult
"""

from mote.targets.rv32.config import FirmwareBuild, Rv32Config
from mote.targets.rv32.figures import LayerFigures, OffloadFigures, SimFigures
from mote.targets.rv32.firmware import build_custom_firmware, build_rv32
from mote.targets.rv32.simulated import Rv32Firmware
from mote.targets.rv32.target import Rv32

__all__ = ["FirmwareBuild", "LayerFigures", "OffloadFigures", "Rv32", "Rv32Config", "Rv32Firmware", "SimFigures",
           "build_custom_firmware", "build_rv32"]
