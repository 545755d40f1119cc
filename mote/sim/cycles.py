"""A simple, documented timing model: cycles = sum over instruction classes of count x cost.

It models a single-issue in-order core with single-cycle memories (no wait states, no caches) and
no branch predictor: every instruction costs a fixed number of cycles by class, taken and not-taken
conditional branches cost differently, and nothing else (operand-dependent division time, load-use
and jalr hazards, misaligned fetch targets) is modelled. Instruction counts are exact; cycles are an
estimate under these assumptions, reported separately.

The defaults resemble the OpenHW Group CV32E40P / CV32E40X, 4-stage in-order RV32IMC
microcontroller cores, as their user manuals tabulate them with zero-wait-state memories:
integer 1, mul 1, mulh/mulhsu/mulhu 5, div/rem 3-35 (35 is the worst case; 34 here is near it),
load/store 1, jump 2, branch not taken 1, branch taken 3. Loads are charged 2 rather than 1 because
those cores stall one cycle when the next instruction uses the loaded value, which is the common
case in the kernels' inner loops. With the F extension (--isa rv32imfc): FPU operations 1 (a pipelined
single-precision unit configured without extra latency, as the CV32E40P's FPU can be) and division and
square root 12 (an iterative unit; the figure is an estimate, not a published one).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass

import numpy as np

from mote.sim.decode import Cls


@dataclass(frozen=True)
class CoreModel:
    """Cycles per instruction class (see the module docstring for the core they resemble)."""

    name: str = "in-order RV32 MCU core (CV32E40P/X-like, zero wait states)"
    alu: int = 1
    load: int = 2
    store: int = 1
    mul: int = 1
    mulh: int = 5
    div: int = 34
    branch_taken: int = 3
    branch_not_taken: int = 1
    jump: int = 2
    fpu: int = 1
    fdiv: int = 12
    beat: int = 0  # each transfer beyond the first of a multiple or dual load/store (Insn.beats; Arm only)

    def costs(self) -> np.ndarray:
        """The cost of each class, indexed by mote.sim.decode.Cls."""
        by_class = {Cls.ALU: self.alu, Cls.LOAD: self.load, Cls.STORE: self.store, Cls.MUL: self.mul,
                    Cls.MULH: self.mulh, Cls.DIV: self.div, Cls.BRANCH_TAKEN: self.branch_taken,
                    Cls.BRANCH_NOT_TAKEN: self.branch_not_taken, Cls.JUMP: self.jump, Cls.FPU: self.fpu,
                    Cls.FDIV: self.fdiv}
        return np.array([by_class[c] for c in Cls], dtype=np.int64)

    def cycles(self, class_counts: np.ndarray) -> int:
        """Estimated cycles for per-class instruction counts (indexed by Cls; an entry after the classes
        holds the beats, mote.sim.decode.BEATS)."""
        counts = np.asarray(class_counts, dtype=np.int64)
        costs = _costs(self)
        beats = int(counts[len(costs)]) * self.beat if len(counts) > len(costs) else 0
        return int(counts[:len(costs)] @ costs) + beats

    def to_json(self) -> dict[str, int | str]:
        return asdict(self)


@functools.lru_cache(maxsize=64)
def _costs(model: CoreModel) -> np.ndarray:
    """model.costs(), once per model (a run's figures price hundreds of snapshots with one model)."""
    costs = model.costs()
    costs.flags.writeable = False
    return costs


def class_names() -> list[str]:
    return [c.name.lower() for c in Cls]


def named_counts(class_counts: np.ndarray) -> dict[str, int]:
    """{'alu': n, 'load': n, ...} from a vector indexed by Cls."""
    return {name: int(v) for name, v in zip(class_names(), class_counts)}
