"""The arena's occupancy across layers, from the compiled model's plan (mote.memory.arena): at each
layer, the buffers live there with their offsets and bytes, the bytes live and the highest byte used."""

from __future__ import annotations

from dataclasses import dataclass

from mote.codegen.compile import CompiledModel
from mote.memory.arena import align


@dataclass(frozen=True)
class Live:
    name: str
    offset: int
    size: int  # bytes the buffer holds (its placement takes them rounded up to the arena's alignment)
    scratch: bool


@dataclass(frozen=True)
class Step:
    index: int  # the layer's index
    layer: str
    live: tuple[Live, ...]  # by offset

    @property
    def live_bytes(self) -> int:
        return sum(b.size for b in self.live)

    @property
    def high_water(self) -> int:
        """The end of the highest live buffer: the arena bytes this layer needs below it."""
        return max((b.offset + align(b.size) for b in self.live), default=0)


def occupancy(compiled: CompiledModel) -> list[Step]:
    """One step per layer: the planned buffers whose lifetime covers it (graph inputs are live from
    before the first layer, so they count at layer 0)."""
    steps = []
    offsets = compiled.plan.offsets
    for layer in compiled.layers:
        i = layer.index
        live = sorted((Live(buf.name, at, buf.size, buf.scratch_of is not None)
                       for buf, at in offsets.items() if max(buf.start, 0) <= i <= buf.end),
                      key=lambda b: (b.offset, b.name))
        steps.append(Step(i, layer.name, tuple(live)))
    return steps


def peak(steps: list[Step]) -> Step | None:
    """The step with the most bytes live (the first, on a tie)."""
    return max(steps, key=lambda s: s.live_bytes, default=None)
