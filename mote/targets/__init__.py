"""Targets: where a compiled model is built and run (mote.targets.base.Target).

TARGETS maps each name `--target` accepts to its Target class; every class can be made with no
arguments for its defaults. A new target is one module with a Target subclass and its line here.
"""

from mote.errors import MoteError
from mote.targets.base import Target, TargetFigures, TargetRun
from mote.targets.cortexm import CORTEX_M_TARGETS
from mote.targets.host import Host
from mote.targets.rv32 import Rv32

TARGETS: dict[str, type[Target]] = {Host.name: Host, Rv32.name: Rv32, **{t.name: t for t in CORTEX_M_TARGETS}}


def find_target(name: str) -> Target:
    """The target called `name`, with its defaults."""
    if name not in TARGETS:
        raise MoteError(f"unknown target {name!r}; targets: {', '.join(TARGETS)}")
    return TARGETS[name]()


__all__ = ["TARGETS", "Target", "TargetFigures", "TargetRun", "find_target"]
