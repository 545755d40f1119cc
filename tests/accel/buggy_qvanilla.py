"""An accelerator whose functional model has a bug (it drops the bias), for `accel check` tests."""

from __future__ import annotations

from mote.accel.interface import Memory
from mote.accel.qvanilla import QVanilla


class ForgetsTheBias(QVanilla):
    def execute(self, registers: dict[str, int], memory: Memory) -> None:
        memory.write(registers["bias"], bytes(4 * registers["oc"]))
        super().execute(registers, memory)
