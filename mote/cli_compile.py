"""`mote compile`: write the C project of a model for a target, and show what the compiler decided
(the kernel of each layer and why, the graph as compiled)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mote import pipeline
from mote.accel import find_accelerator
from mote.arena_notes import arena_notes, describe
from mote.cli_args import bounded_int
from mote.cli_explain import explain_json, explain_lines
from mote.codegen.compile import compile_graph
from mote.codegen.decoder import check_budget
from mote.codegen.ir_text import dump_compiled
from mote.codegen.naming import DEFAULT, check_name
from mote.errors import MoteError
from mote.generate import load_decoder
from mote.ops.registry import Core
from mote.outputs import check_project_dir
from mote.targets import TARGETS, find_target
from mote.targets.rv32 import Rv32, Rv32Config
from mote.targets.rv32.toolchain import ISAS
from mote.terminal import plain


def add_compile_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compile", help="write a standalone C project for a model")
    p.add_argument("model", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="project directory to write; created with its parents if missing; an existing one is "
                        "replaced only if it is empty or mote wrote it (it holds a .mote-project file)")
    p.add_argument("--target", default="host", choices=list(TARGETS),
                   help="whose project: host (the library, with an example driver program in examples/host; the "
                        "default) or rv32 (the library with firmware for the virtual MCU in rv32/: reset code, linker "
                        "script, firmware main)")
    p.add_argument("--name", default=DEFAULT, metavar="PREFIX",
                   help="the library's namespace, a C identifier: PREFIX_run, PREFIX.h, PREFIX_ARENA_BYTES, its "
                        "kernels PREFIX_mote_...; several models then link into one firmware (default: model)")
    p.add_argument("--kernels", choices=[c.value for c in Core],
                   help="for a CPU whose compiler vectorizes (vector), a scalar MCU core (scalar) or an x86-64 CPU "
                        "with AVX-512 VNNI (vnni); default: the target's (vector for host projects, scalar for rv32)")
    p.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]",
                   help="offload to an accelerator (targets that attach one: rv32)")
    p.add_argument("--isa", choices=ISAS,
                   help="rv32 projects: the core's instruction set, rv32imc (default) or rv32imfc (the F extension)")
    p.add_argument("--explain", action="store_true",
                   help="show each layer's kernel and why the faster ones before it in its op's table declined")
    p.add_argument("--print-ir", action="store_true",
                   help="print the graph as compiled: each layer's op, tensors, attributes, kernel and arena offsets")
    p.add_argument("--max-context", type=bounded_int(1, 1 << 20), metavar="TOKENS",
                   help="a decoder step with an explicit KV cache (ONNX past/present inputs and outputs): its cache "
                        "becomes state for this many tokens, with the autoregressive C API (model_prefill, "
                        "model_step); refused when cache, state and arena exceed rv32's RAM")
    p.add_argument("--flash-budget", type=bounded_int(1, 1 << 40), metavar="BYTES",
                   help="keep the weights within BYTES: layers move from the fastest kernels to compact ones, the "
                        "fewest estimated instructions lost per byte saved first (docs/library.md)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_compile)


def run_compile(args: argparse.Namespace) -> int:
    check_name(args.name)
    check_project_dir(args.output)
    if args.isa and args.target != "rv32":
        raise MoteError("--isa picks the virtual MCU's instruction set; use it with --target rv32")
    target = Rv32(Rv32Config(isa=args.isa)) if args.isa else find_target(args.target)
    accelerator = find_accelerator(args.accel) if args.accel else None
    target.check_accelerator(accelerator)
    core = Core(args.kernels) if args.kernels else target.project_core()
    if args.max_context and args.flash_budget:
        raise MoteError("--flash-budget chooses kernels for a model's layers; it does not apply to a decoder with "
                        "--max-context: leave one of them out")
    if args.max_context:
        graph = load_decoder(args.model, args.max_context)
        compiled = compile_graph(graph, accelerator, core, name=args.name)
        if isinstance(target, Rv32):
            check_budget(graph, compiled.state_bytes, compiled.plan.size,
                         target.config.ram_bytes - target.config.stack_bytes)
    else:
        compiled = pipeline.compile_model(args.model, accelerator, core, args.name, args.flash_budget)
    target.write_project(compiled, args.output)
    notes = arena_notes(compiled)
    if args.json:
        print(json.dumps({"model": str(args.model), "output": str(args.output), "target": target.name,
                          "name": compiled.names.prefix,
                          "layers": len(compiled.layers), "arena_bytes": compiled.plan.size,
                          "arena_lower_bound_bytes": compiled.plan.lower_bound, "state_bytes": compiled.state_bytes,
                          "weights_bytes": compiled.weights_bytes, "macs": compiled.macs, "kernels": notes["kernels"],
                          "arena": notes, "notes": list(compiled.graph.notes),
                          "per_layer": [{"index": layer.index, "name": layer.name, "op": layer.op,
                                         "kernel": layer.kernel, "rom_bytes": layer.weights_bytes,
                                         "ram_bytes": layer.ram_bytes, "scratch_bytes": layer.scratch_bytes,
                                         "macs": layer.macs} for layer in compiled.layers],
                          **({"flash_budget": args.flash_budget} if args.flash_budget else {}),
                          **({"explain": explain_json(compiled)} if args.explain else {}),
                          **({"ir": dump_compiled(compiled)} if args.print_ir else {})}))
        return 0
    for note in compiled.graph.notes:
        print(plain(f"note: {note}"))
    state = f", state {compiled.state_bytes} B kept across calls" if compiled.state_bytes else ""
    print(plain(f"wrote {args.output}/: {len(compiled.layers)} layers, arena {compiled.plan.size} B "
                f"(disjoint-buffer bound {compiled.plan.lower_bound} B){state}, weights {compiled.weights_bytes} B, "
                f"{compiled.macs:,} MACs"))
    print(plain(describe(notes)))
    if args.explain:
        for line in explain_lines(compiled):
            print(plain(line))
    if args.print_ir:
        for line in dump_compiled(compiled).splitlines():
            print(plain(line))
    return 0
