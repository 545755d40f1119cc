"""The autoregressive C API (model_prefill, model_step) of a decoder step model: greedy decoding gives the
reference interpreter's tokens on the host (sanitized, through the API itself) and on the rv32 virtual
platform; the KV cache is sized by the maximum context; a full context is refused in one line; the cost of a
step grows with the live context."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.codegen.decoder import DecoderModelError, check_budget, max_context, set_max_context
from mote.errors import MoteError
from mote.generate import generate, reference_tokens
from mote.targets.host import build_host, find_cc
from tests.codegen.decoder_models import decoder_graph

PROMPT = [5, 17, 3]

_DRIVER = r"""#include <stdio.h>
#include "model.h"
int main(void) {
  const int32_t prompt[3] = {5, 17, 3};
  const int8_t *logits = model_prefill(prompt, 3);
  for (int round = 0; round < 2; ++round) {
    if (round) { model_reset(); logits = model_prefill(prompt, 3); }
    while (logits != NULL) {
      int32_t best = 0;
      for (int32_t i = 1; i < MODEL_VOCAB; ++i) if (logits[i] > logits[best]) best = i;
      printf("%d %d\n", (int)model_position(), (int)best);
      logits = model_step(best);
    }
    printf("full %d\n", (int)model_position());
  }
  return 0;
}
"""


def test_prefill_and_step_give_the_reference_tokens_until_the_context_is_full(tmp_path: Path) -> None:
    graph = decoder_graph(max_context=7)
    compiled = compile_graph(graph)
    header = compiled.sources["model.h"]
    assert "#define MODEL_MAX_CONTEXT 7" in header and "model_step(int32_t token);" in header
    project = tmp_path / "project"
    binary = build_host(compiled, project, sanitize=True)
    (project / "api.c").write_text(_DRIVER)
    sources = sorted(str(p.relative_to(project)) for p in (project / "src").rglob("*.c"))
    subprocess.run([find_cc(), *binary.flags, "-Isrc", "-o", "api", "api.c", *sources], cwd=project, check=True)
    out = subprocess.run([str(project / "api")], capture_output=True, text=True, check=True).stdout.split("\n")
    first = out[:out.index("full 7") + 1]
    assert out[len(first):len(first) * 2] == first  # model_reset() starts over
    expected = reference_tokens(graph, PROMPT, 7 - len(PROMPT) + 1)
    assert [int(line.split()[1]) for line in first[:-1]] == expected
    assert [int(line.split()[0]) for line in first[:-1]] == list(range(3, 8))


@pytest.mark.parametrize("target", ["host", "rv32"])
def test_generate_matches_the_reference(target: str, tmp_path: Path) -> None:
    result = generate(decoder_graph(max_context=32), PROMPT, 12, tmp_path / "p", target)
    assert result.matches_reference and len(result.tokens) == 12
    assert len(set(result.tokens)) > 1
    assert result.positions == list(range(2, 14))
    assert result.macs_per_step == sorted(result.macs_per_step) and result.macs_per_step[0] < result.macs_per_step[-1]
    report = result.to_json()
    keys = {"host": ("host_us_per_token",), "rv32": ("instructions_per_token", "cycles_per_token")}[target]
    for key in keys:
        assert report[key] > 0
    if target == "rv32":  # exact counts: the attention's loops over the live context grow with it
        counts = [f["instructions"] for f in result.step_figures]
        assert counts[-1] > counts[0]


def test_the_maximum_context_sizes_the_kv_cache() -> None:
    small, large = decoder_graph(max_context=8), decoder_graph(max_context=8)
    set_max_context(large, 40)
    assert max_context(large) == 40
    grown = compile_graph(large).state_bytes - compile_graph(small).state_bytes
    assert grown == 2 * 32 * 16  # keys and values, 32 more positions of 16 bytes each
    with pytest.raises(DecoderModelError, match="over the budget of 1000"):
        check_budget(large, compile_graph(large).state_bytes, 100, 1000)


def test_a_context_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DecoderModelError, match="the context is full: 3 prompt and 6 new tokens need 8 positions, "
                                                "the KV cache holds 7"):
        generate(decoder_graph(max_context=7), PROMPT, 6, tmp_path / "p")
    np.testing.assert_equal(len(reference_tokens(decoder_graph(max_context=7), PROMPT, 5)), 5)  # 7 positions fit


def test_the_linear_layers_on_the_dla(tmp_path: Path) -> None:
    """--accel dla: the fully connected layers run on the accelerator, the tokens stay the reference's, the CPU
    executes fewer instructions per token."""
    from mote.accel import find_accelerator

    cpu = generate(decoder_graph(max_context=16), PROMPT, 4, tmp_path / "cpu", "rv32")
    dla = generate(decoder_graph(max_context=16), PROMPT, 4, tmp_path / "dla", "rv32",
                   accelerator=find_accelerator("dla:timed=1"))
    assert dla.matches_reference and dla.tokens == cpu.tokens
    assert dla.to_json()["instructions_per_token"] < cpu.to_json()["instructions_per_token"]
    assert dla.to_json()["accel_cycles_per_token"] > 0
    with pytest.raises(MoteError, match="attaches no accelerator"):
        generate(decoder_graph(max_context=16), PROMPT, 4, tmp_path / "host", "host",
                 accelerator=find_accelerator("dla"))


def test_per_token_cycles_and_energy_with_and_without_the_dla(tmp_path: Path) -> None:
    """Each step's accelerator cycles are its own (the same jobs at every step), the CPU figures stay the CPU's,
    and each step's energy is the documented formula over the events counted between its marks, the offloaded
    layers' MACs at the platform's energy per MAC, their SRAM and DMA bytes (the DLA's cost model) as
    mote.sim.energy prices them (docs/energy.md)."""
    from mote.accel import find_accelerator
    from mote.sim.energy import sram_access_pj
    from mote.sim.platforms import AcceleratorSlot, builtin
    from mote.targets.rv32 import Rv32

    accel = find_accelerator("dla:timed=1")
    runs = {"cpu": generate(decoder_graph(max_context=16), PROMPT, 3, tmp_path / "cpu", "rv32"),
            "dla": generate(decoder_graph(max_context=16), PROMPT, 3, tmp_path / "dla", "rv32", accelerator=accel)}
    assert runs["cpu"].tokens == runs["dla"].tokens == runs["cpu"].reference_tokens
    compiled = compile_graph(decoder_graph(max_context=16), accel, core=Rv32().core())
    costs = [n.attrs["job"].info["cost"] for n in compiled.graph.nodes if n.op == "accel"]
    assert costs
    macs = sum(c.macs for c in costs)
    sram = sum(c.sram_read + c.sram_write for c in costs)
    moved = sum(c.dma_bytes for c in costs)
    assert sram > 0 and moved > 0
    e_sram = sram_access_pj(accel.hardware().sram_bytes)
    platform = builtin("mcu")
    group, scale = platform.compute, platform.energy_scale
    slot_pj = (platform.accelerators[0] if platform.accelerators else AcceleratorSlot("accel", ())).mac_pj
    for name, run in runs.items():
        accel_cycles = [f.get("accel_cycles", 0.0) for f in run.step_figures]
        if name == "dla":
            assert accel_cycles[0] > 0 and accel_cycles == [accel_cycles[0]] * len(accel_cycles)
            assert all(f["accel_dma_bytes"] > 0 for f in run.step_figures)
        else:
            assert accel_cycles == [0.0] * len(accel_cycles)
        assert len(run.step_events) == len(run.step_figures)
        for figure, events in zip(run.step_figures, run.step_events):
            assert sum(events.class_counts.values()) == figure["instructions"]
            assert events.accel_macs == (macs if name == "dla" else 0)
            pj = sum(n * group.energy_pj[c] for c, n in events.class_counts.items())
            pj += sum(events.class_counts.values()) * group.fetch_pj
            pj += sum(events.reads.get(m.name, 0) * m.read_pj + events.writes.get(m.name, 0) * m.write_pj
                      for m in platform.memories)
            traffic = (events.accel_sram_bytes / 8 * e_sram + events.accel_dma_bytes * (100.0 + e_sram) / 8
                       if name == "dla" else 0.0)
            assert (events.accel_sram_bytes, events.accel_dma_bytes) == ((sram, moved) if name == "dla" else (0, 0))
            pj = scale * pj + scale * (events.accel_macs * slot_pj + traffic)
            assert figure["uj"] == pytest.approx(pj / 1e6, rel=1e-12) and figure["uj"] > 0
        assert run.to_json()["uj_per_token"] == pytest.approx(np.mean([f["uj"] for f in run.step_figures]))
    cpu, dla = runs["cpu"].to_json(), runs["dla"].to_json()
    assert dla["cycles_per_token"] < cpu["cycles_per_token"]
