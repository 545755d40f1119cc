"""Bring your own accelerator: the interface, partitioning, and the built-in accelerators.

Importing this package registers the `accel` op (mote.accel.op) that offloaded graphs use."""

from mote.accel import op as _op  # noqa: F401 - registers the "accel" op
from mote.accel.costing import job_cost
from mote.accel.interface import Accelerator, Buffer, Job, Memory, Pattern, Predicate, as_signed
from mote.accel.loader import find_accelerator
from mote.accel.node_inputs import constant_input, optional_input, required_input
from mote.accel.settings import setting

__all__ = ["Accelerator", "Buffer", "Job", "Memory", "Pattern", "Predicate", "as_signed", "constant_input",
           "find_accelerator", "job_cost", "optional_input", "required_input", "setting"]
