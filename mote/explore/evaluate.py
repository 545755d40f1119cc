"""One point of a sweep by the accelerator's cost model: offload the model to the configured
accelerator (partition, plan, lower: tiling and command streams included) and add up the cost of
every job, per cost category the accelerator declares. Nothing is emulated here; the CPU's share
comes from a virtual-platform run per distinct CPU workload (mote.explore.cpu), keyed by `cpu_work`.

From each job's `info` it reads `macs` (else the model's MACs of the layer), and where the
accelerator reports them, `tiles`, `input_resident`, and a `cost` with `pe_cycles` and `pes` (PE
utilization), `dma_bytes`, `sram_read` and `sram_write` (bytes), each as a column. With the hardware
the accelerator declares, each row gets its area and the accelerator's energy (mote.explore.area).

Sub-byte weights: an accelerator's `weight_bits` setting narrows the weights of the layers it offloads
(mote.passes.accel_weights) before they are offloaded. Each such row gets `weight_bytes` (the offloaded
jobs' packed weights, where they report them, and the CPU layers' int8 weights), `sram_used_bytes` (the
largest job's SRAM, where jobs report it), `mult_work` (MACs x weight bits / 8, for the energy) and the
accuracy against the 8-bit model (`top1_agreement`, `mean_abs_error`: mote.explore.accuracy).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from mote.accel.costing import job_cost
from mote.accel.interface import Accelerator, Job
from mote.accel.loader import find_accelerator
from mote.accel.partition import partition
from mote.errors import MoteError
from mote.explore.accuracy import agreement
from mote.explore.area import accel_energy, area
from mote.explore.space import spec, typed
from mote.ir import Graph, Node, subbyte
from mote.ops import OPS
from mote.passes.accel_weights import NARROWABLE
from mote.passes.accel_weights import for_accelerator as narrow_for
from mote.passes.offload import offload
from mote.sim.platforms import Platform

CPU_WORK = "cpu_work"  # the key of a row's CPU workload, while the sweep runs (not in the results)
_GRAPHS: dict[str, Graph] = {}  # per process: each model is loaded once
_NARROWED: dict[tuple[str, int, tuple[int, ...]], Graph] = {}  # per process: see _narrowed


def _graph(model: str) -> Graph:
    if model not in _GRAPHS:
        from mote.frontend import load
        _GRAPHS[model] = load(Path(model))
    return _GRAPHS[model]


def _narrowed(model: str, accelerator: Accelerator) -> Graph:
    """The model with the weights of the layers `accelerator` offloads narrowed to its weight_bits, made once per
    process for each width and set of offloaded layers: a sweep's points share it, and the DLA's compiler
    keeps its per-node preparations for the same node objects."""
    graph = _graph(model)
    if accelerator.weight_bits == 8:
        return graph
    offloaded = tuple(i for i, d in enumerate(partition(graph, accelerator)) if d.offloaded)
    key = (model, accelerator.weight_bits, offloaded)
    if key not in _NARROWED:
        if len(_NARROWED) >= 64:
            _NARROWED.clear()
        _NARROWED[key] = narrow_for(graph, accelerator)
    return _NARROWED[key]


def evaluate(model: str, accel: str | None, settings: dict[str, str],
             platform: Platform | None = None) -> dict[str, Any]:
    """The cost model's figures for `model` on the accelerator configured with `settings` (texts; `accel`
    None: no accelerator, the whole model on the CPU); the row holds the settings with their declared
    types, and `cpu_work` (which includes `platform`, the one the CPU work runs on) while the sweep runs."""
    values: dict[str, Any] = dict(settings)
    if accel is not None:
        try:
            values = typed(accel, settings)
        except MoteError:  # not checked beforehand (check_sweep): the point fails below, with the texts shown
            pass
    row: dict[str, Any] = {"model": Path(model).stem, **values}
    try:
        if accel is None:
            graph = _graph(model)
            name = "none"
            figures = cpu_figures(graph)
        else:
            accelerator = find_accelerator(spec(accel, settings))
            narrowed = _narrowed(model, accelerator)
            graph = offload(narrowed, accelerator)
            name = accelerator.name
            figures = accel_figures(graph, accelerator)
            if hasattr(accelerator.config, "weight_bits"):
                figures.update(_weights(graph), **agreement(_graph(model), narrowed))
        row.update(status="ok", total_cycles=None, accel_cycles=figures.pop("accel_cycles"), cpu_cycles=None,
                   **figures)
        if accel is not None:  # its area, and its energy: MACs, SRAM accesses and DMA bytes (docs/area.md)
            hardware = accelerator.hardware()
            if hardware is not None:
                row.update(area(hardware))
            energy = accel_energy(row, hardware, platform) if figures.get("jobs") else {}
            row.update(accel_energy_uj=round(sum(energy.values()), 6), **{f"accel_{k}": v for k, v in energy.items()})
        row[CPU_WORK] = cpu_work(model, name, graph, platform)
    except MoteError as e:
        row.update(status=str(e), total_cycles=None, accel_cycles=None, cpu_cycles=None)
    return row


def cpu_figures(graph: Graph) -> dict[str, Any]:
    """The figures of a point without an accelerator: every node on the CPU, no accelerator cycles."""
    macs = sum(int(OPS[node.op].macs(node)) for node in graph.nodes if node.op in OPS)
    return {"accel_cycles": 0, "macs": macs, "jobs": 0,
            "cpu_nodes": sum(1 for n in graph.nodes if n.op != "layout_transform")}


def accel_figures(graph: Graph, accelerator: Accelerator) -> dict[str, Any]:
    """The offloaded graph's accelerator cycles (in total and per category), MACs, jobs and CPU nodes."""
    jobs = [(node, node.attrs["job"]) for node in graph.nodes if node.op == "accel"]
    categories = dict.fromkeys(accelerator.cost_categories, 0)
    for _, job in jobs:
        for category, cycles in job_cost(accelerator, job).items():
            categories[category] += cycles
    macs = sum(int(job.info.get("macs", OPS["accel"].macs(node))) for node, job in jobs)
    figures: dict[str, Any] = {
        "accel_cycles": sum(categories.values()), "macs": macs, "jobs": len(jobs),
        "cpu_nodes": sum(1 for n in graph.nodes if n.op not in ("accel", "layout_transform")),
    }
    figures.update(_reported([job for _, job in jobs]))
    for category, cycles in categories.items():
        figures.setdefault(category, cycles)
    return figures


def _weights(graph: Graph) -> dict[str, Any]:
    """weight_bytes, sram_used_bytes (where jobs report their SRAM) and mult_work of an offloaded graph
    (module docstring). A job that reports no `weight_bytes` or `weight_bits` holds its layer's int8 weights."""
    offloaded, cpu, work = 0, 0, 0.0
    jobs = []
    for node in graph.nodes:
        weights = _weight_tensor(node.attrs["original"] if node.op == "accel" else node)
        if node.op != "accel":
            if weights is not None:  # the CPU's packed kernels keep conv2d and fully_connected weights packed
                packed = weights.bits < 8 and node.op in ("conv2d", "fully_connected")
                cpu += subbyte.packed_size(weights.size, weights.bits) if packed else weights.nbytes
            continue
        job: Job = node.attrs["job"]
        jobs.append(job)
        offloaded += int(job.info.get("weight_bytes", weights.nbytes if weights is not None else 0))
        cost = job.info.get("cost")
        macs = int(job.info.get("macs", OPS["accel"].macs(node)))
        work += float(cost.mult_work) if hasattr(cost, "mult_work") else macs * int(job.info.get("weight_bits", 8)) / 8
    out: dict[str, Any] = {"weight_bytes": offloaded + cpu, "mult_work": round(work, 3)}
    if any("sram_bytes" in job.info for job in jobs):
        out["sram_used_bytes"] = max(int(job.info.get("sram_bytes", 0)) for job in jobs)
    return out


def _weight_tensor(node: Node) -> Any:
    """The constant weights of a conv, depthwise conv or fully connected node; None for other nodes."""
    if node.op not in NARROWABLE or len(node.inputs) < 2:
        return None
    w = node.inputs[1]
    return w if w is not None and w.is_const else None


def _reported(jobs: list[Job]) -> dict[str, Any]:
    """The columns only some accelerators' jobs report: PE utilization, tiled jobs, inputs kept resident."""
    out: dict[str, Any] = {}
    costs = [job.info.get("cost") for job in jobs]
    pe_capacity = sum(getattr(c, "pe_cycles", 0) * getattr(c, "pes", 0) for c in costs)
    if any(hasattr(c, "pe_cycles") for c in costs):
        macs = sum(int(getattr(c, "macs", 0)) for c in costs)
        out["utilization"] = round(macs / pe_capacity, 4) if pe_capacity else 0.0
    traffic = {"dma_bytes": "dma_bytes", "sram_read_bytes": "sram_read", "sram_write_bytes": "sram_write"}
    for column, name in traffic.items():
        if any(hasattr(c, name) for c in costs):
            out[column] = sum(int(getattr(c, name, 0)) for c in costs)
    if any("tiles" in job.info for job in jobs):
        out["tiled_jobs"] = sum(int(job.info.get("tiles", 1) > 1) for job in jobs)
    if any("input_resident" in job.info for job in jobs):
        out["resident_inputs"] = sum(int(bool(job.info.get("input_resident"))) for job in jobs)
    return out


def cpu_work(model: str, accelerator: str, graph: Graph, platform: Platform | None = None) -> str:
    """A key equal for two points exactly when the CPU runs the same code on the same shapes on the same
    platform: the nodes left on the CPU, the layout transforms and the driver's starts of each job (not
    what the accelerator does within a job, nor how long it takes), and the whole platform description
    (its cores, its L1's size, its DMA's bandwidth, ...; None: the mcu platform)."""
    parts = [model, accelerator, repr(platform)]
    for node in graph.nodes:
        parts.append(_node_text(node))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _node_text(node: Node) -> str:
    shapes = [None if t is None else (t.shape, t.dtype.name) for t in (*node.inputs, *node.outputs)]
    if node.op != "accel":
        return f"{node.op} {node.name} {shapes}"
    job: Job = node.attrs["job"]
    return f"accel {node.name} {node.attrs['pattern']} {tuple(node.attrs['stages'])} {job.repeat} {shapes}"
