"""The Cortex-M targets: bare-metal Thumb firmware for mote's virtual platform with an Arm M-profile core
(Cortex-M0+, M4, M7, M33; mote.targets.cortexm.cores).

    from mote.targets.cortexm import CortexM4, CortexMConfig
    run = CortexM4(CortexMConfig(cpu="cortex-m4", flash_wait_states=1)).run(compiled_model, project_dir, inputs)
"""

from mote.targets.cortexm.cores import CORES, ArmCore
from mote.targets.cortexm.firmware import CortexMConfig, CortexMFirmware, build_cortexm, build_custom_firmware
from mote.targets.cortexm.target import (
    CORTEX_M_TARGETS,
    CortexM,
    CortexM0Plus,
    CortexM4,
    CortexM7,
    CortexM33,
)

__all__ = ["CORES", "CORTEX_M_TARGETS", "ArmCore", "CortexM", "CortexM0Plus", "CortexM33", "CortexM4", "CortexM7",
           "CortexMConfig", "CortexMFirmware", "build_cortexm", "build_custom_firmware"]
