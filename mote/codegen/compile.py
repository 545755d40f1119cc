"""Graph -> the C99 sources of a library: NAME.h/.c, NAME_weights.h/.c and the kernel library under mote/
(`CompiledModel.sources`, paths relative to the library's src/). `CompiledModel.write` lays them out as a library
with its build files (mote.codegen.package); a target adds its own files beside it: the host an example driver,
rv32 its startup code and linker script (mote.targets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mote.accel.driver import driver_sources
from mote.accel.interface import Accelerator
from mote.c_text import c_quoted, c_safe_text
from mote.codegen import model_files, parallel
from mote.codegen.control import Subgraph, control_call, subgraph_function
from mote.codegen.emitter import ConstPool, Emitter
from mote.codegen.l1_tiles import tiled_layer
from mote.codegen.library import runtime_sources
from mote.codegen.naming import DEFAULT, Names
from mote.codegen.package import library_files
from mote.codegen.parallel import parallel_parts
from mote.codegen.params import params_block
from mote.errors import MemoryFitError
from mote.ir import Graph, Node, Tensor
from mote.memory.arena import ArenaPlan, plan_arena
from mote.memory.lifetimes import buffers
from mote.memory.state import StatePlan, plan_state
from mote.memory.tiling import TilePlan, plan_tiles, row_geometry
from mote.ops import OPS
from mote.ops.registry import Core, choose_kernel
from mote.ops.subgraphs import callees
from mote.ops.validate import verify_graph
from mote.outputs import write_project_dir
from mote.passes.fold_tables import fold_tables
from mote.passes.fuse_requant import fuse_requant
from mote.passes.offload import offload


@dataclass
class Layer:
    index: int
    name: str
    op: str
    kernel: str  # the C function it calls, or "in place"
    macs: int
    runs_on: str = "cpu"  # or the accelerator's name
    scratch_bytes: int = 0  # the kernel's scratch buffer in the arena
    declined: tuple[tuple[str, str], ...] = ()  # (C function, why not): earlier kernels of its op's table
    weights_bytes: int = 0  # the constants it adds to flash (weights, tables, packed parameters)
    ram_bytes: int = 0  # the arena bytes of its outputs and scratch
    twins: tuple[str, ...] = ()  # the rv32 assembly functions its kernel's record names
    parts: tuple[Any, ...] = ()  # on a cluster: each core's params when the layer is split (mote.codegen.parallel)


@dataclass
class CompiledModel:
    """Everything the compiler decided, for reports and for the targets."""

    graph: Graph  # as compiled: after offloading, when there is an accelerator
    layers: list[Layer]
    plan: ArenaPlan
    weights_bytes: int
    sources: dict[str, str]  # relative path -> text
    accelerator: Accelerator | None = None
    core: Core = Core.VECTOR  # the kind of core its kernels were chosen for
    state_bytes: int = 0  # the variable tensors' static area, kept across calls (mote.memory.state)
    l1_budget: int = 0  # the L1 its layers were tiled into (mote.memory.tiling); 0: none, all in RAM
    l1_bytes: int = 0  # the L1 its tile buffers take (the largest layer's)
    tiled: dict[int, TilePlan] | None = None  # the tiled layers' plans, by layer index
    names: Names = Names()  # its namespace (`--name`, mote.codegen.naming)
    cores: int = 1  # the cores its layers are split across (mote.codegen.parallel)
    # {layer name: kernels it does not take}: layers moved to compact kernels for flash (mote.codegen.flash_budget)
    compact: dict[str, frozenset[str]] = field(default_factory=dict)

    def for_core(self, core: Core) -> CompiledModel:
        """The same model with its kernels chosen for `core` (itself if they already are)."""
        return self.for_target(core, self.l1_budget, self.cores)

    def for_cores(self, cores: int) -> CompiledModel:
        """The same model with its layers split across `cores` cores (itself if they already are)."""
        return self.for_target(self.core, self.l1_budget, cores)

    def for_target(self, core: Core, l1: int, cores: int = 1) -> CompiledModel:
        """The same model for `core`, its layers tiled into `l1` bytes of L1 (0: none) and split across `cores`
        cores; itself if it is."""
        if core is self.core and l1 == self.l1_budget and cores == self.cores:
            return self
        return _generate(self.graph, self.accelerator, core, self.names, l1, cores, self.compact)

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    def write(self, out_dir: Path, what: str = "-o", extra: dict[str, str] | None = None) -> None:
        """Write the library (mote.codegen.package) and the `extra` files a target adds ({relative path: text})
        into a sibling temp dir, then rename it into place. An existing `out_dir` is replaced only if it is empty or
        a project mote wrote (mote.outputs); `what` names the option."""
        files = {**library_files(self.graph.name, self.names, self.sources), **(extra or {})}

        def fill(tmp: Path) -> None:
            for rel, text in files.items():
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                (tmp / rel).write_text(text)

        write_project_dir(Path(out_dir), fill, what)


def compile_graph(graph: Graph, accelerator: Accelerator | None = None, core: Core = Core.VECTOR,
                  fuse: bool = True, l1: int = 0, name: str = DEFAULT,
                  compact: dict[str, frozenset[str]] | None = None) -> CompiledModel:
    """Plan memory and generate C with kernels for `core`, every symbol in the namespace `name`
    (mote.codegen.naming); first (unless not `fuse`) the integer dialect's conv + RequantShift pairs fused onto
    the blocked kernels (whose weights take 16-bit pair words) and elementwise ops of two functions of one byte
    folded into one table (mote.passes.fold_tables); with an accelerator, then offload what its patterns accept.
    With `l1` bytes of L1, the layers of the tiled ops run on L1 tile buffers fed by DMA (mote.memory.tiling; on
    the host, the DMA is a copy). `compact`: {layer name: kernels it does not take} (mote.codegen.flash_budget)."""
    if fuse:
        graph = fold_tables(fuse_requant(graph))
    if accelerator is not None:
        graph = offload(graph, accelerator)
        verify_graph(graph)  # the offloaded graph still meets every op's checks
    return _generate(graph, accelerator, core, Names(name), l1, compact=compact or {})


@dataclass
class _Body:
    """One graph's layers as C: the model's (into model_run) or a subgraph's (into its function)."""

    plan: ArenaPlan
    em: Emitter
    layers: list[Layer]
    param_blocks: list[str]
    calls: list[str]
    tiled: dict[int, TilePlan]

    @property
    def l1_bytes(self) -> int:
        return max((p.l1_bytes for p in self.tiled.values()), default=0)


def _generate(graph: Graph, accelerator: Accelerator | None, core: Core, names: Names, l1: int = 0,
              cores: int = 1, compact: dict[str, frozenset[str]] | None = None) -> CompiledModel:
    state = plan_state(graph)
    pool = ConstPool(names.prefix)
    compiled: dict[Graph, Subgraph] = {}
    for k, sub in enumerate(graph.subgraphs(), start=1):  # callees first: a caller knows their frames
        func = f"subgraph{k}"
        body = _body(sub, core, pool, state, compiled, f"{func}_", "FRAME")
        unread = {t for t in sub.inputs if body.em.of_tensor[t].end < 0}
        compiled[sub] = Subgraph(func, sub, body.plan.size,
                                 subgraph_function(func, sub, body.em, body.plan.size, body.calls, unread))
        compiled[sub].text = "\n".join([*body.param_blocks, compiled[sub].text])
    main = _body(graph, core, pool, state, compiled, "", "ARENA", l1, cores, compact or {})
    plan, em = main.plan, main.em
    functions = [c.text for c in compiled.values()]
    definitions = pool.definitions()
    model = {
        names.header: model_files.model_h(graph, plan, state),
        names.source: model_files.model_c(graph, plan, state, em, [*main.param_blocks, *functions], main.calls,
                                          bool(compiled), names, main.l1_bytes, any(lay.parts for lay in main.layers)),
        names.weights_header: model_files.weights_h(pool),
        names.weights_source: model_files.weights_c(pool, names, definitions),
    }
    kernels = runtime_sources(list(model.values()), _accelerator_sources(accelerator))  # found by their own names
    sources = {rel: names.model_text(text) for rel, text in model.items()}
    sources[names.source] = names.kernel_text(sources[names.source])
    sources.update({rel: names.kernel_text(text) for rel, text in kernels.items()})
    return CompiledModel(graph, main.layers, plan, pool.nbytes, sources, accelerator, core, state.size,
                         l1_budget=l1, l1_bytes=main.l1_bytes, tiled=main.tiled, names=names, cores=cores,
                         compact=dict(compact or {}))


def _body(graph: Graph, core: Core, pool: ConstPool, state: StatePlan, compiled: dict[Graph, Subgraph],
          prefix: str, base: str, l1: int = 0, cores: int = 1,
          compact: dict[str, frozenset[str]] | None = None) -> _Body:
    """Plan `graph`'s memory (from `base`: ARENA for the model, FRAME in a subgraph) and write its layers' C;
    `prefix` names its params blocks apart. Only the model's own layers get the profiling hooks, and only
    they are split across `cores` > 1 cores where their op allows (mote.codegen.parallel) and tiled into `l1`
    bytes of L1 (mote.memory.tiling; on several cores each tile's compute split across them)."""
    params = [OPS[n.op].prepare(n) for n in graph.nodes]
    skips = compact or {}
    choices = [choose_kernel(OPS[n.op], n, p, core, skips.get(n.name, frozenset()))
               for n, p in zip(graph.nodes, params)]
    scratch = {i: c.kernel.scratch_bytes(n, p) for i, (n, p, c) in enumerate(zip(graph.nodes, params, choices))}
    split_parts = parallel_parts(graph, params, core, cores if base == "ARENA" else 1)
    for i, parts in split_parts.items():  # each core its own scratch
        scratch[i] = sum(parallel.scratch_share(graph.nodes[i], part) for part in parts)
    for i, node in enumerate(graph.nodes):  # a control-flow node lends its callees their frames
        if callees(node):
            scratch[i] = max(compiled[g].frame for g in callees(node))
    # on a cluster no output shares bytes with an input: one core's part would overwrite another's input
    overlaps = {} if split_parts else \
        {i: c.kernel.overlap(n, p) for i, (n, p, c) in enumerate(zip(graph.nodes, params, choices))}
    tiled, tile_cores = _plan_l1(graph, params, core, l1, cores) if l1 and base == "ARENA" else ({}, {})
    for i, tile_plan in tiled.items():  # its scratch is in L1
        scratch[i] = 0
        if len(tile_plan.tiles) > 1:  # its output rows go back to L2 while later input rows are still read
            overlaps[i] = []
    bufs = buffers(graph, scratch, overlaps)
    of_tensor = bufs.of_tensor
    plan = plan_arena(bufs.all, bufs.shares)
    em = Emitter(pool, plan, of_tensor, state, base)
    hooks = base == "ARENA"

    def hooked(i: int, lines: list[str]) -> list[str]:
        return [f"  MOTE_LAYER_BEGIN({i});", *lines, f"  MOTE_LAYER_END({i});"] if hooks else lines

    layers: list[Layer] = []
    param_blocks: list[str] = []
    calls: list[str] = []
    flash_before = pool.nbytes
    for i, (node, p, choice) in enumerate(zip(graph.nodes, params, choices)):
        if layers:  # the constants the layer before added, and its arena bytes
            _account(layers[-1], graph.nodes[i - 1], pool, flash_before, of_tensor)
        flash_before = pool.nbytes
        op = OPS[node.op]
        header = f"/* layer {i}: {c_safe_text(node.op)} {c_quoted(node.name)} */"
        x = node.inputs[0] if node.inputs else None
        sb = bufs.of_scratch.get(i)
        if callees(node):
            frame = em.at(plan.offset(sb)) if sb else "NULL"
            lines = hooked(i, control_call(node, frame, em, compiled))
            calls.append("\n".join([f"  {header}", *lines, "  if (status != MOTE_OK) return status;"]))
            layers.append(Layer(i, node.name, node.op, ", ".join(compiled[g].func for g in callees(node)),
                                op.macs(node), scratch_bytes=sb.size if sb else 0))
            continue
        if op.in_place and x is not None and x.in_arena and of_tensor.get(x) is of_tensor.get(node.outputs[0]):
            calls.append(f"  {header}\n  /* in place: the output shares the input's bytes */")
            layers.append(Layer(i, node.name, node.op, "in place", op.macs(node)))
            continue
        if i in tiled:
            tiles = tiled_layer(i, node, p, tiled[i], em, core, prefix, tile_cores[i], header)
            param_blocks += [f"{header}\n{params_block(name, call)}" for name, call in tiles.param_blocks]
            param_blocks += tiles.tasks
            lines = hooked(i, [f"  /* tiled into L1: {len(tiled[i].tiles)} tile(s), {tiled[i].l1_bytes} bytes */",
                               *tiles.lines])
            calls.append("\n".join([f"  {header}", *lines]))
            layers.append(Layer(i, node.name, node.op, tiles.funcs[0], op.macs(node), "cpu", 0, tiles.declined,
                                twins=tiles.twins, parts=tiles.parts))
            continue
        if i in split_parts:
            task, kernels = parallel.task(i, node, split_parts[i], em, em.at(plan.offset(sb)) if sb else None,
                                          prefix, param_blocks, header)
            calls.append("\n".join([f"  {header}", *hooked(i, [f"  status = mote_fork({task});"]),
                                     "  if (status != MOTE_OK) return status;"]))
            first = kernels[0]
            layers.append(Layer(i, node.name, node.op, first.kernel.func or OPS[node.op].name, op.macs(node),
                                "cpu", sb.size if sb else 0, first.declined,
                                twins=tuple(sorted({t for c in kernels for t in c.kernel.twins})),
                                parts=tuple(part.params for part in split_parts[i])))
            continue
        call = choice.kernel.call(node, p, em)
        original = node.attrs.get("original") if node.op == "accel" else None
        name = f"{prefix}layer{i}_params"
        param_blocks.append(f"{header}\n{params_block(name, call)}")
        scratch_arg = f"(mote_scratch){{{em.at(plan.offset(sb))}, {sb.size}}}" if sb else "MOTE_NO_SCRATCH"
        args = ", ".join([f"&{name}", *call.args, scratch_arg])
        lines = hooked(i, [f"  status = {call.func}({args});"])
        calls.append("\n".join([f"  {header}", *lines, "  if (status != MOTE_OK) return status;"]))
        layers.append(Layer(i, node.name, original.op if original else node.op, call.func, op.macs(node),
                            node.attrs["accelerator"] if original else "cpu", sb.size if sb else 0, choice.declined,
                            twins=choice.kernel.twins))
    if layers:
        _account(layers[-1], graph.nodes[-1], pool, flash_before, of_tensor)
    return _Body(plan, em, layers, param_blocks, calls, tiled)


def _account(layer: Layer, node: Node, pool: ConstPool, flash_before: int, of_tensor: dict[Tensor, Any]) -> None:
    """The layer's flash (the constants it added to the pool; one shared with an earlier layer counts there) and
    RAM (the arena bytes of its outputs, in place or not, and its scratch)."""
    layer.weights_bytes = pool.nbytes - flash_before
    layer.ram_bytes = sum(t.nbytes for t in node.outputs if t in of_tensor) + layer.scratch_bytes


def _plan_l1(graph: Graph, params: list[object], core: Core, l1: int,
             cores: int = 1) -> tuple[dict[int, TilePlan], dict[int, int]]:
    """The tile plan of every layer of a tiled op (mote.memory.tiling) that runs on the CPU, and the cores
    each one's tiles are split across: on `cores` > 1 cores a tile's scratch holds every core's share of it
    (mote.codegen.parallel), and a layer whose tiles do not fit the L1 so is split across the most cores
    for which they do (down to one core: the L1 then needs what it does on one core)."""
    plans, split = {}, {}
    for i, (node, p) in enumerate(zip(graph.nodes, params)):
        rows = row_geometry(node, p) if node.op in OPS else None
        if rows is None:
            continue
        n = cores
        while True:
            def scratch(tile: object, node: object = node, p: object = p, rows: object = rows, n: int = n) -> int:
                tile_params = rows.params(p, tile)
                parts = parallel.chosen_parts(node, tile_params, core, n)
                if parts is not None:
                    return sum(parallel.scratch_share(node, part) for part in parts)
                return choose_kernel(OPS[node.op], node, tile_params, core).kernel.scratch_bytes(node, tile_params)

            try:
                plans[i], split[i] = plan_tiles(node, i, rows, scratch, l1), n
                break
            except MemoryFitError:
                if n == 1:
                    raise
                n -= 1
    return plans, split


def _accelerator_sources(accelerator: Accelerator | None) -> dict[str, str]:
    if accelerator is None:
        return {}
    return {**driver_sources(accelerator), **accelerator.support_sources()}
