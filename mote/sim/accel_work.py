"""What an offloaded layer's job does that costs the accelerator energy, from the accelerator's own cost
model as `mote explore` reads it (mote.explore.evaluate): its MACs (the job's `info["macs"]`, else the
model's MACs of the layer), and where its `info["cost"]` reports them, the bytes it reads from and
writes into its SRAM (`sram_read`, `sram_write`) and the bytes its DMA moves (`dma_bytes`); the multipliers'
work at the job's weight width (`mult_work`, for sub-byte weights)."""

from __future__ import annotations

from typing import Any

from mote.ir import Node
from mote.ops import OPS
from mote.sim.energy import AccelWork

TRAFFIC = ("sram_read", "sram_write", "dma_bytes")


def job_work(node: Node) -> AccelWork:
    """The accelerator's work in the `accel` node's job; `traffic` False when its cost reports none."""
    job = node.attrs.get("job")
    if job is None:
        return AccelWork(int(OPS["accel"].macs(node)) if node.op == "accel" else 0, traffic=False)
    macs = int(job.info.get("macs", OPS["accel"].macs(node)))
    cost: Any = job.info.get("cost")
    # the multipliers' work as explore weighs it: the cost model's, else the MACs at the job's weight width
    mult_work = float(cost.mult_work) if hasattr(cost, "mult_work") else macs * int(job.info.get("weight_bits", 8)) / 8
    if cost is None or not any(hasattr(cost, name) for name in TRAFFIC):
        return AccelWork(macs, traffic=False, mult_work=mult_work)
    return AccelWork(macs, int(getattr(cost, "sram_read", 0)) + int(getattr(cost, "sram_write", 0)),
                     int(getattr(cost, "dma_bytes", 0)), mult_work=mult_work)
