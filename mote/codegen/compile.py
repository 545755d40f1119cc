"""Graph -> a standalone C99 project: model.h/.c, weights.h/.c, the kernel library (a target adds its own
files: the host a driver and a Makefile, rv32 its startup code and linker script; mote.targets)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mote.accel.driver import driver_sources
from mote.accel.interface import Accelerator
from mote.c_text import c_literal, c_quoted, c_safe_text
from mote.codegen import decoder, parallel
from mote.codegen.control import Subgraph, control_call, subgraph_function
from mote.codegen.emitter import ConstPool, Emitter
from mote.codegen.library import runtime_sources
from mote.codegen.parallel import parallel_parts
from mote.codegen.params import params_block
from mote.ir import Graph, Tensor
from mote.memory.arena import ArenaPlan, plan_arena
from mote.memory.lifetimes import buffers
from mote.memory.state import StatePlan, plan_state
from mote.ops import OPS
from mote.ops.registry import Core, choose_kernel
from mote.ops.subgraphs import callees
from mote.ops.validate import verify_graph
from mote.outputs import write_project_dir
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
    cores: int = 1  # the cores its layers are split across (mote.codegen.parallel)

    def for_core(self, core: Core) -> CompiledModel:
        """The same model with its kernels chosen for `core` (itself if they already are)."""
        return self if core is self.core else _generate(self.graph, self.accelerator, core, self.cores)

    def for_cores(self, cores: int) -> CompiledModel:
        """The same model with its layers split across `cores` cores (itself if they already are)."""
        return self if cores == self.cores else _generate(self.graph, self.accelerator, self.core, cores)

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    def write(self, out_dir: Path, what: str = "-o") -> None:
        """Write the project into a sibling temp dir, then rename it into place. An existing `out_dir` is
        replaced only if it is empty or a project mote wrote (mote.outputs); `what` names the option."""
        def fill(tmp: Path) -> None:
            for rel, text in self.sources.items():
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                (tmp / rel).write_text(text)

        write_project_dir(Path(out_dir), fill, what)


def compile_graph(graph: Graph, accelerator: Accelerator | None = None, core: Core = Core.VECTOR,
                  fuse: bool = True) -> CompiledModel:
    """Plan memory and generate C with kernels for `core`; first (unless not `fuse`) the integer dialect's
    conv + RequantShift pairs fused onto the blocked kernels (whose weights take 16-bit pair words); with an
    accelerator, then offload what its patterns accept."""
    if fuse:
        graph = fuse_requant(graph)
    if accelerator is not None:
        graph = offload(graph, accelerator)
        verify_graph(graph)  # the offloaded graph still meets every op's checks
    return _generate(graph, accelerator, core)


@dataclass
class _Body:
    """One graph's layers as C: the model's (into model_run) or a subgraph's (into its function)."""

    plan: ArenaPlan
    em: Emitter
    layers: list[Layer]
    param_blocks: list[str]
    calls: list[str]


def _generate(graph: Graph, accelerator: Accelerator | None, core: Core, cores: int = 1) -> CompiledModel:
    state = plan_state(graph)
    pool = ConstPool()
    compiled: dict[Graph, Subgraph] = {}
    for k, sub in enumerate(graph.subgraphs(), start=1):  # callees first: a caller knows their frames
        func = f"subgraph{k}"
        body = _body(sub, core, pool, state, compiled, f"{func}_", "FRAME")
        unread = {t for t in sub.inputs if body.em.of_tensor[t].end < 0}
        compiled[sub] = Subgraph(func, sub, body.plan.size,
                                 subgraph_function(func, sub, body.em, body.plan.size, body.calls, unread))
        compiled[sub].text = "\n".join([*body.param_blocks, compiled[sub].text])
    main = _body(graph, core, pool, state, compiled, "", "ARENA", cores)
    plan, em = main.plan, main.em
    functions = [c.text for c in compiled.values()]
    definitions = pool.definitions()
    sources = {
        "model.h": _model_h(graph, plan, state),
        "model.c": _model_c(graph, plan, state, em, [*main.param_blocks, *functions], main.calls, bool(compiled),
                            any(layer.parts for layer in main.layers)),
        "weights.h": f"/* Generated by mote. Model constants, in flash. */\n#ifndef MODEL_WEIGHTS_H\n"
                     f"#define MODEL_WEIGHTS_H\n\n{_includes(['stdint.h'], pool.c_types())}\n"
                     f"{pool.declarations()}\n#endif\n",
        "weights.c": f"/* Generated by mote. Model constants, in flash. */\n{_includes([], pool.c_needs())}"
                     f"#include \"weights.h\"\n\n{definitions}",
    }
    sources.update(runtime_sources(list(sources.values()), _accelerator_sources(accelerator)))
    return CompiledModel(graph, main.layers, plan, pool.nbytes, sources, accelerator, core, state.size, cores)


def _body(graph: Graph, core: Core, pool: ConstPool, state: StatePlan, compiled: dict[Graph, Subgraph],
          prefix: str, base: str, cores: int = 1) -> _Body:
    """Plan `graph`'s memory (from `base`: ARENA for the model, FRAME in a subgraph) and write its layers' C;
    `prefix` names its params blocks apart. Only the model's own layers get the profiling hooks, and on
    `cores` > 1 are split across the cores where their op allows (mote.codegen.parallel)."""
    params = [OPS[n.op].prepare(n) for n in graph.nodes]
    choices = [choose_kernel(OPS[n.op], n, p, core) for n, p in zip(graph.nodes, params)]
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
    for i, (node, p, choice) in enumerate(zip(graph.nodes, params, choices)):
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
        if i in split_parts:
            task, kernels = parallel.task(i, node, split_parts[i], em, em.at(plan.offset(sb)) if sb else None,
                                          prefix, param_blocks, header)
            calls.append("\n".join([f"  {header}", *hooked(i, [f"  status = mote_fork({task});"]),
                                     "  if (status != MOTE_OK) return status;"]))
            first = kernels[0]
            layers.append(Layer(i, node.name, node.op, first.kernel.func or OPS[node.op].name, op.macs(node),
                                "cpu", sb.size if sb else 0, first.declined,
                                tuple(sorted({t for c in kernels for t in c.kernel.twins})),
                                tuple(part.params for part in split_parts[i])))
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
                            choice.kernel.twins))
    return _Body(plan, em, layers, param_blocks, calls)


def _accelerator_sources(accelerator: Accelerator | None) -> dict[str, str]:
    if accelerator is None:
        return {}
    return {**driver_sources(accelerator), **accelerator.support_sources()}


def _includes(always: list[str], text: str) -> str:
    """#include lines for the standard headers `always`, plus those `text` needs: <stdbool.h> for bool,
    <math.h> for the macros of non-finite float constants (macros only: no libm is linked)."""
    headers = [*always, *(["stdbool.h"] if "bool" in text.split() else []),
               *(["math.h"] if any(m in text for m in ("HUGE_VALF", "NAN")) else [])]
    return "".join(f"#include <{h}>\n" for h in headers)




def _io(graph: Graph) -> list[tuple[str, str, Tensor]]:
    """(C parameter name, macro prefix, tensor) for every input then output."""
    return ([(f"input{i}", f"MODEL_INPUT{i}", t) for i, t in enumerate(graph.inputs)]
            + [(f"output{i}", f"MODEL_OUTPUT{i}", t) for i, t in enumerate(graph.outputs)])


def _signature(graph: Graph) -> str:
    params = [f"{'const ' if name.startswith('input') else ''}{t.dtype.c_type} *{name}" for name, _, t in _io(graph)]
    return f"int model_run({', '.join(params)})"


def _buffer_signature(name: str, t: Tensor) -> str:
    return f"{t.dtype.c_type} *model_{name}_buffer(void)"


def _model_h(graph: Graph, plan: ArenaPlan, state: StatePlan) -> str:
    lines = [f"/* Generated by mote from model {c_quoted(graph.name)}. The model's C API. */",
             "#ifndef MODEL_H", "#define MODEL_H", "",
             *_includes(["stdint.h"], " ".join(t.dtype.c_type for _, _, t in _io(graph))).splitlines(), "",
             f"#define MODEL_NUM_INPUTS {len(graph.inputs)}", f"#define MODEL_NUM_OUTPUTS {len(graph.outputs)}",
             f"#define MODEL_ARENA_BYTES {plan.size}", ""]
    for _, macro, t in _io(graph):
        lines.append(f"/* {macro.lower()[6:]}: {c_quoted(t.name)}, {t.dtype.value} {list(t.shape)} */")
        lines.append(f"#define {macro}_SIZE {t.size}")
        lines.append(f"#define {macro}_BYTES {t.nbytes}")
        if t.quant is not None:
            lines.append(f"#define {macro}_SCALE {c_literal(t.scale)}f")
            lines.append(f"#define {macro}_ZERO_POINT {t.zero_point}")
        lines.append("")
    lines += ["/* Runs one inference: reads the inputs, writes the outputs. Returns 0 on success.",
              " * Not reentrant: the activations live in one static arena. */",
              f"{_signature(graph)};", "",
              *(["/* The model keeps state across calls (MODEL_STATE_BYTES): each model_run continues from the",
                 " * last. model_reset() clears it, as at start-up, before an unrelated stream. */",
                 "void model_reset(void);", ""] if state.size else []),
              *(decoder.header_lines(graph) if decoder.has_api(graph) else []),
              "/* The model's own input and output buffers, inside the arena. Filling an input there and",
              " * passing these pointers to model_run saves the copies (and their RAM). */",
              *[f"{_buffer_signature(name, t)};" for name, _, t in _io(graph)], "", "#endif", ""]
    return "\n".join(lines)


def _state_c(state: StatePlan) -> list[str]:
    """The state area and model_reset(), which fills each variable tensor with its reset value; model_run
    resets on its first call."""
    if not state.size:
        return []
    fills = [f"  memset(STATE({offset}), {t.reset_value}, {t.nbytes}); /* {c_quoted(t.name)} */"
             for t, offset in state.offsets.items()]
    return [f"/* State kept across calls ({state.size} bytes), apart from the arena. */",
            "static union {", f"  int8_t bytes[{state.size}];", "  int64_t align;", "} state;",
            "static int state_ready;", "#define STATE(offset) (state.bytes + (offset))", "",
            "void model_reset(void) {", *fills, "  state_ready = 1;", "}", ""]


def _model_c(graph: Graph, plan: ArenaPlan, state: StatePlan, em: Emitter, param_blocks: list[str],
             calls: list[str], frames: bool = False, forks: bool = False) -> str:
    copy_in = [f"  if ({name} != {em.tensor(t)}) memcpy({em.tensor(t)}, {name}, {macro}_BYTES);"
               for name, macro, t in _io(graph) if name.startswith("input")]
    copy_out = [f"  if ({name} != {em.tensor(t)}) memcpy({name}, {em.tensor(t)}, {macro}_BYTES);"
                for name, macro, t in _io(graph) if name.startswith("output")]
    accessors = [f"{_buffer_signature(name, t)} {{ return {em.tensor(t)}; }}" for name, _, t in _io(graph)]
    if decoder.has_api(graph):
        position = f"STATE({state.offset(decoder.position_state(graph))})"
        accessors += ["", *decoder.source_lines(graph, position, {t: em.tensor(t) for _, _, t in _io(graph)})]
    return "\n".join([
        f"/* Generated by mote from model {c_quoted(graph.name)}: one call per layer. */",
        *_includes(["string.h"], "\n".join(param_blocks)).splitlines(), "",
        '#include "model.h"', '#include "mote_kernels.h"', '#include "weights.h"',
        *(['#include "mote_cluster.h" /* mote_fork: layers split across the cores */'] if forks else []), "",
        "/* Profiling hooks: a target may define these to mark layer boundaries. */",
        "#ifndef MOTE_LAYER_BEGIN", "#define MOTE_LAYER_BEGIN(layer)", "#endif",
        "#ifndef MOTE_LAYER_END", "#define MOTE_LAYER_END(layer)", "#endif", "",
        f"/* Every activation and scratch buffer, at offsets planned at compile time"
        f" ({plan.size} bytes; the lower bound is {plan.lower_bound}). */",
        "static union {", f"  int8_t bytes[{max(plan.size, 1)}];", "  int64_t align;", "} arena;",
        "#define ARENA(offset) (arena.bytes + (offset))",
        *(["/* Inside a subgraph's function: its buffers, in the frame its caller lends. */",
           "#define FRAME(offset) (frame + (offset))"] if frames else []), "", *_state_c(state),
        *param_blocks,
        f"{_signature(graph)} {{", "  int status = MOTE_OK;",
        *(["  if (!state_ready) model_reset();"] if state.size else []), *copy_in, "", *calls, "", *copy_out,
        "  return status;", "}", "", *accessors, ""])
