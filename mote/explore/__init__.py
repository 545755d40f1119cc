"""`mote explore`: design-space exploration of an accelerator with its cost model."""

from mote.explore.sweep import explore

__all__ = ["explore"]
