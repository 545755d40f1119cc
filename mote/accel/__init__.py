"""Bring your own accelerator: the interface, partitioning, and the built-in accelerators."""

from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate, as_signed
from mote.accel.loader import find_accelerator

__all__ = ["Accelerator", "Buffer", "Job", "Memory", "Pattern", "Predicate", "as_signed", "find_accelerator"]
