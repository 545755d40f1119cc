"""The rv32 target: bare-metal rv32imc firmware for mote's virtual platform (mote.sim).

    from mote.targets.rv32 import build_rv32, Rv32Config
    firmware = build_rv32(compiled_model, project_dir, Rv32Config(ram_bytes=256 << 10))
    result = firmware.run(inputs)  # mote.sim.results.SimResult
"""

from mote.targets.rv32.firmware import (
    FirmwareBuild,
    Rv32Config,
    Rv32Firmware,
    build_custom_firmware,
    build_rv32,
)

__all__ = ["FirmwareBuild", "Rv32Config", "Rv32Firmware", "build_custom_firmware", "build_rv32"]
