"""Accelerators whose behaviour on the virtual platform is RTL, simulated with Verilator (docs/rtl.md)."""

from mote.accel.rtl.accelerator import RtlAccelerator, is_rtl, rtl_library
from mote.accel.rtl.build import RtlError

__all__ = ["RtlAccelerator", "RtlError", "is_rtl", "rtl_library"]
