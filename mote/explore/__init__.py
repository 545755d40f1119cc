"""`mote explore`: design-space exploration of any accelerator: its cost model for the accelerator's
cycles, the virtual platform for the CPU's, end to end."""

from mote.explore.run import explore

__all__ = ["explore"]
