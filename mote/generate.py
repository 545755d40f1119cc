"""`mote generate`: greedy autoregressive decoding with a decoder step model's C API (mote.codegen.decoder).

The reference interpreter decodes first (the tokens every target must give); then the generated C does on the
target. Host: a driver calls model_prefill on all but the prompt's last token, then model_step once per token
(the prompt's last, then each generated one but the last), taking the arg-max of the logits; each step's time
is the fastest of HOST_REPEATS decodings, each from model_reset(). rv32: the same decoding in the firmware's
main, each step's exact instructions and cycles between profiler marks (generate_rv32). A step at position p
attends over p + 1 tokens, so the per-step figures show how the cost grows with the context; the per-token
figures are the means over the steps that produced the generated tokens.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.interface import Accelerator
from mote.codegen.compile import CompiledModel, compile_graph
from mote.codegen.decoder import (
    DecoderModelError,
    attention_nodes,
    check_budget,
    check_signature,
    is_decoder,
    max_context,
    set_max_context,
)
from mote.errors import BuildError, MoteError
from mote.ir import Graph
from mote.reference import interpret, reset_state

_HOST_DRIVER = r"""/* Greedy decoding with the autoregressive API: argv[1] tokens, argv[2] repeats, then the prompt. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

static int32_t arg_max(const MODEL_LOGITS_T *logits) {
  int32_t best = 0;
  for (int32_t i = 1; i < MODEL_VOCAB; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return best;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  const int32_t wanted = (int32_t)atol(argv[1]), repeats = (int32_t)atol(argv[2]), prompt = argc - 3;
  int32_t tokens[MODEL_MAX_CONTEXT + 1], out[MODEL_MAX_CONTEXT + 1], positions[MODEL_MAX_CONTEXT + 1];
  long long best[MODEL_MAX_CONTEXT + 1];
  if (wanted < 1 || repeats < 1 || prompt + wanted > MODEL_MAX_CONTEXT + 1) {
    fprintf(stderr, "the context is full: %d prompt and %d new tokens, the KV cache holds %d\n", (int)prompt,
            (int)wanted, MODEL_MAX_CONTEXT);
    return 3;
  }
  for (int32_t i = 0; i < prompt; ++i) tokens[i] = (int32_t)atol(argv[3 + i]);
  /* The whole decoding `repeats` times from model_reset(); each step's time is its fastest run. */
  for (int32_t r = 0; r < repeats; ++r) {
    model_reset();
    if (prompt > 1 && model_prefill(tokens, prompt - 1) == NULL) return 4;
    int32_t token = tokens[prompt - 1];
    for (int32_t i = 0; i < wanted; ++i) {
      positions[i] = model_position();
      const long long start = now_ns();
      const MODEL_LOGITS_T *logits = model_step(token);
      const long long spent = now_ns() - start;
      if (logits == NULL) return 4;
      token = arg_max(logits);
      if (r == 0 || spent < best[i]) best[i] = spent;
      if (r > 0 && out[i] != token) return 5;
      out[i] = token;
    }
  }
  for (int32_t i = 0; i < wanted; ++i) printf("step %d %d %lld\n", (int)positions[i], (int)out[i], best[i]);
  return 0;
}
"""


@dataclass
class Generation:
    """One greedy decoding: the prompt, the generated tokens and what each decoding step cost."""

    target: str
    prompt: list[int]
    tokens: list[int]  # generated
    positions: list[int]  # the position of the step that produced each token
    step_figures: list[dict[str, float]]  # per step: host_us, or instructions and cycles
    macs_per_step: list[int]
    reference_tokens: list[int]
    text: str = ""
    notes: list[str] = field(default_factory=list)
    step_events: list[Any] = field(default_factory=list)  # rv32: each step's mote.sim.energy.EnergyEvents

    @property
    def matches_reference(self) -> bool:
        return self.tokens == self.reference_tokens

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "tokens": self.tokens, "text": self.text,
                               "prompt_tokens": len(self.prompt), "matches_reference": self.matches_reference,
                               "macs_per_token": float(np.mean(self.macs_per_step))}
        for key in self.step_figures[0] if self.step_figures else []:
            out[f"{key}_per_token"] = float(np.mean([f[key] for f in self.step_figures]))
        out["steps"] = [{"position": p, "token": t, "macs": m, **f} for p, t, m, f in
                        zip(self.positions, self.tokens, self.macs_per_step, self.step_figures)]
        return out


def step_macs(graph: Graph, position: int) -> int:
    """MACs of the step at `position`: every layer's, the attention at its live context (position + 1 tokens)."""
    from mote.ops import OPS

    total = 0
    for node in graph.nodes:
        if node.op == "cached_attention":
            heads, _, head_dim = node.inputs[3].shape  # type: ignore[union-attr]
            total += 2 * heads * head_dim * (position + 1)
        else:
            total += OPS[node.op].macs(node)
    return total


HOST_REPEATS = 5  # host decodings timed; each step's time is its fastest (the machine is shared)
DEFAULT_CONTEXT = 128  # tokens the KV cache holds when neither the model nor the user says


def load_decoder(path: Path, context: int | None) -> Graph:
    """A decoder step model as a graph with KV-cache attention, its caches holding `context` tokens.

    An ONNX step graph with an explicit cache (past inputs, present outputs) is loaded with a past of one
    token (its dynamic dimensions at 1) and rewritten by mote.passes.kv_cache; a graph that already has
    cached_attention layers is taken as it is."""
    from mote.frontend import load
    from mote.frontend.onnx import is_onnx, load_onnx_file, read_model
    from mote.passes.kv_cache import rewrite_kv_cache

    if is_onnx(path):
        from mote.frontend import check_regular_file

        check_regular_file(path, "model file")
        model = read_model(path)
        shapes = {}
        for vi in model.graph.input:
            dims = vi.type.tensor_type.shape.dim
            if any(not (d.HasField("dim_value") and d.dim_value > 0) for d in dims):
                shapes[vi.name] = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in dims)
        graph = load_onnx_file(path, shapes)
        rewrite_kv_cache(graph, context or DEFAULT_CONTEXT)
    else:
        graph = load(path)
    return prepare_decoder(graph, context)


def prepare_decoder(graph: Graph, context: int | None) -> Graph:
    if not is_decoder(graph):
        raise DecoderModelError(f"model {graph.name!r} has no KV-cache attention layer (cached_attention, or "
                                "an explicit past/present cache it can be made of): `mote generate` needs a decoder "
                                "step model")
    check_signature(graph)
    if context is not None:
        set_max_context(graph, context)
    return graph


def _feed(graph: Graph, token: int, pos: int) -> dict[str, np.ndarray]:
    """model_run's inputs for one step: the token, and its position when the model takes one."""
    feed = {graph.inputs[0].name: np.array([token]).reshape(graph.inputs[0].shape)}
    if len(graph.inputs) > 1:
        feed[graph.inputs[1].name] = np.array([pos]).reshape(graph.inputs[1].shape)
    return feed


def reference_tokens(graph: Graph, prompt: list[int], count: int) -> list[int]:
    """Greedy decoding in the reference interpreter: `count` tokens after `prompt`."""
    state = reset_state(graph)
    tokens, out = list(prompt), []
    for pos in range(len(prompt) + count - 1):
        logits = interpret(graph, _feed(graph, tokens[pos], pos), state)[graph.outputs[0].name]
        if pos >= len(prompt) - 1:
            out.append(int(np.argmax(logits.reshape(-1))))
            tokens.append(out[-1])
    return out


def check_context(graph: Graph, prompt: list[int], count: int) -> None:
    if not prompt:
        raise MoteError("the prompt is empty; give at least one token")
    if count < 1:
        raise MoteError(f"--tokens {count}: generate at least 1 token")
    limit = max_context(graph)
    if len(prompt) + count - 1 > limit:
        raise DecoderModelError(f"the context is full: {len(prompt)} prompt and {count} new tokens need "
                                f"{len(prompt) + count - 1} positions, the KV cache holds {limit}; use a shorter "
                                "prompt, fewer tokens or a larger --max-context")


def generate_host(compiled: CompiledModel, project: Path, prompt: list[int], count: int) -> tuple[list[int], list[int],
                                                                                                   list[float]]:
    """(tokens, positions, microseconds per step) from the generated C on this machine."""
    from mote.codegen.package import SRC
    from mote.targets.host import build_host, find_cc, library_sources

    binary = build_host(compiled, project)
    logits = compiled.graph.outputs[0]
    (project / "generate.c").write_text(_HOST_DRIVER.replace("MODEL_LOGITS_T", logits.dtype.c_type))
    cmd = [find_cc(), *binary.flags, f"-I{SRC}", "-o", "generate", "generate.c", *library_sources(compiled)]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"building the generate driver failed: {proc.stderr.strip()[:300]}")
    run = subprocess.run([str(project / "generate"), str(count), str(HOST_REPEATS), *map(str, prompt)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise BuildError(f"the generate driver failed (exit {run.returncode}): {run.stderr.strip()[:300]}")
    rows = [line.split() for line in run.stdout.splitlines() if line.startswith("step ")]
    return [int(r[2]) for r in rows], [int(r[1]) for r in rows], [int(r[3]) / 1000.0 for r in rows]


_RV32_DRIVER = """/* Firmware main generated by mote: greedy decoding with the autoregressive API. The prompt is
 * built in; each model_step runs between the profiler's RUN marks; the tokens go to mote_generated. */
#include <stddef.h>

#include "model.h"
#include "mote_vp.h"

static const int32_t prompt[PROMPT_LENGTH] = {PROMPT};
int32_t mote_generated[WANTED];

static int32_t arg_max(const MODEL_LOGITS_T *logits) {
  int32_t best = 0;
  for (int32_t i = 1; i < MODEL_VOCAB; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return best;
}

int main(void) {
  model_reset();
  if (PROMPT_LENGTH > 1 && model_prefill(prompt, PROMPT_LENGTH - 1) == NULL) {
    mote_vp_puts("model_prefill failed\\n");
    return 1;
  }
  int32_t token = prompt[PROMPT_LENGTH - 1];
  for (int32_t i = 0; i < WANTED; ++i) {
    MOTE_VP_RUN_BEGIN();
    const MODEL_LOGITS_T *logits = model_step(token);
    MOTE_VP_RUN_END();
    if (logits == NULL) {
      mote_vp_puts("model_step failed\\n");
      return 1;
    }
    token = arg_max(logits);
    mote_generated[i] = token;
  }
  return 0;
}
"""


def generate_rv32(compiled: CompiledModel, project: Path, prompt: list[int], count: int
                  ) -> tuple[list[int], list[int], list[dict[str, float]], list[Any]]:
    """(tokens, positions, per-step figures, per-step energy events) on the rv32 virtual platform: firmware whose
    main decodes greedily through model_prefill and model_step (_RV32_DRIVER), each step counted between its marks.
    With a timed accelerator each step's accelerator cycles are those of the jobs it started between its marks.
    Each step's energy (`uj`, mote.sim.energy on the platform) is the formula over the events counted between
    its marks, with the offloaded layers' MACs at the platform's accelerator energy per MAC."""
    from mote.sim.cycles import named_counts
    from mote.sim.devices import Reg
    from mote.sim.energy import AccelWork, EnergyEvents, accesses, energy
    from mote.sim.machine import DEFAULT_INSTRUCTION_LIMIT
    from mote.targets.rv32 import Rv32Config, build_rv32

    logits = compiled.graph.outputs[0]
    main = (_RV32_DRIVER.replace("MODEL_LOGITS_T", logits.dtype.c_type).replace("PROMPT_LENGTH", str(len(prompt)))
            .replace("{PROMPT}", "{" + ", ".join(map(str, prompt)) + "}").replace("WANTED", str(count)))
    config = Rv32Config()
    firmware = build_rv32(compiled, project, config, main=main)
    ex = firmware.machine.run(instruction_limit=DEFAULT_INSTRUCTION_LIMIT * (len(prompt) + count),
                              reads=("mote_generated",))
    if ex.exit_status != 0:
        raise MoteError(f"the rv32 firmware failed (exit {ex.exit_status}): {ex.console.strip()[:200]}")
    tokens = [int(t) for t in np.frombuffer(ex.outputs["mote_generated"], dtype="<i4")]
    begins = [(n, c, mark) for mark, n, c in ex.marks if mark.reg is Reg.RUN_BEGIN]
    ends = [(n, c, mark) for mark, n, c in ex.marks if mark.reg is Reg.RUN_END]
    timed = ex.accel is not None and compiled.accelerator is not None and compiled.accelerator.timed
    work = firmware.accel_total or AccelWork()  # the offloaded layers' MACs, SRAM and DMA bytes: once a step
    traffic = accel_dma_bytes(compiled)
    figures, step_events = [], []
    for (n0, c0, m0), (n1, c1, m1) in zip(begins, ends):
        figure = {"instructions": float(n1 - n0), "cycles": float(config.core.cycles(c1 - c0))}
        if timed:
            figure["accel_cycles"] = float(m1.accel_cycles - m0.accel_cycles)
        if traffic is not None:
            figure["accel_dma_bytes"] = float(traffic)
        counted = accesses(config.platform, m0.snapshot, m1.snapshot)
        if counted is not None:
            ran = m1.accel_jobs > m0.accel_jobs
            events = EnergyEvents(named_counts(c1 - c0), *counted, accel_macs=work.macs if ran else 0,
                                  accel_sram_bytes=work.sram_bytes if ran else 0,
                                  accel_dma_bytes=work.dma_bytes if ran else 0,
                                  accel_mult_work=work.mult_work if ran else None)
            figure["uj"] = energy(config.platform, events, firmware.accel_slot).uj
            step_events.append(events)
        figures.append(figure)
    return tokens, list(range(len(prompt) - 1, len(prompt) - 1 + count)), figures, step_events


def accel_dma_bytes(compiled: CompiledModel) -> int | None:
    """The bytes the accelerator's jobs of one step move by DMA between system memory and its SRAM (each job
    runs once a step), when its jobs report them; None without an accelerator."""
    jobs = [node.attrs["job"] for node in compiled.graph.nodes if node.op == "accel" and "job" in node.attrs]
    if compiled.accelerator is None or not jobs or any("dma_bytes" not in job.info for job in jobs):
        return None
    return sum(int(job.info["dma_bytes"]) for job in jobs)


def generate(graph: Graph, prompt: list[int], count: int, project: Path, target: str = "host",
             context: int | None = None, ram_budget: int | None = None, accelerator: Accelerator | None = None
             ) -> Generation:
    """Greedy decoding of `count` tokens after `prompt` on `target`, checked against the reference. The RAM
    budget (rv32: the platform's RAM less its stack, unless given) bounds the KV cache, state and arena. With an
    accelerator (rv32), the layers its patterns accept run on it; the per-step figures then add its cycles
    (`accel_cycles`, in its timed mode) and the bytes its DMA moves (`accel_dma_bytes`) beside the CPU's. On
    rv32 each step's energy is `uj` (generate_rv32)."""
    graph = prepare_decoder(graph, context)
    check_context(graph, prompt, count)
    expected = reference_tokens(graph, prompt, count)
    if target == "rv32" and ram_budget is None:
        from mote.targets.rv32 import Rv32Config

        config = Rv32Config()
        ram_budget = config.ram_bytes - config.stack_bytes
    if accelerator is not None and target != "rv32":
        raise MoteError(f"--accel: the {target} target attaches no accelerator; use --target rv32")
    if target == "host":
        compiled = compile_graph(graph)
        check_budget(graph, compiled.state_bytes, compiled.plan.size, ram_budget)
        tokens, positions, us = generate_host(compiled, project, prompt, count)
        figures: list[dict[str, float]] = [{"host_us": u} for u in us]
    elif target == "rv32":
        from mote.targets.rv32 import Rv32

        compiled = compile_graph(graph, accelerator, core=Rv32().core())
        check_budget(graph, compiled.state_bytes, compiled.plan.size, ram_budget)
        tokens, positions, figures, events = generate_rv32(compiled, project, prompt, count)
    else:
        raise MoteError(f"--target {target}: generate runs on host or rv32")
    macs = [step_macs(graph, p) for p in positions]
    offloaded = sum(layer.runs_on != "cpu" for layer in compiled.layers)
    notes = [f"{offloaded} layers on {compiled.accelerator.label}"] if compiled.accelerator is not None else []
    notes += [f"{len(attention_nodes(graph))} attention layers, KV cache for {max_context(graph)} tokens, "
             f"{compiled.state_bytes} bytes of state"]
    result = Generation(target, prompt, tokens, positions, figures, macs, expected, notes=notes)
    if target == "rv32":
        result.step_events = events
    return result
