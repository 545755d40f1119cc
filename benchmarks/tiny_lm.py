"""The bundled tiny language model (mote/models/tiny_lm.onnx) decoding greedily through its KV-cache C API: per
token on the host (system cc, -O2) and on the rv32 virtual platform (zig, -O2, rv32imc, scalar kernels, one
core): instructions and cycles per token, instructions per MAC of the decode steps, tokens per second at 100 MHz
and microjoules per token (mote.sim.energy), with and without the DLA, beside the anchor, Deeploy's microLlama on
Siracusa.

`make bench` (benchmarks/run.py) measures it with the rest; run alone: `python benchmarks/tiny_lm.py [--write]`
(--write replaces its section of RESULTS.md)."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mote.accel import find_accelerator  # noqa: E402
from mote.cli_generate import bundled_language_model  # noqa: E402
from mote.generate import Generation, generate, load_decoder  # noqa: E402
from mote.targets.rv32 import Rv32Config  # noqa: E402

PROMPT = "The "
TOKENS = 24
CLOCK_HZ = 100e6
GOAL_PER_MAC = 3.0
ANCHOR = "Deeploy on Siracusa (8 cores + NPU): 340 tokens/s, 490 uJ/token"
RESULTS = REPO / "benchmarks" / "RESULTS.md"
BEGIN, END = "<!-- tiny_lm:begin -->", "<!-- tiny_lm:end -->"


DLA = "dla:timed=1"


def measure(work: Path) -> dict[str, Generation]:
    prompt = list(PROMPT.encode())
    out = {}
    for name, target, accel in (("host", "host", None), ("rv32", "rv32", None), ("dla", "rv32", DLA)):
        graph = load_decoder(bundled_language_model(), None)
        accelerator = find_accelerator(accel) if accel else None
        out[name] = generate(graph, prompt, TOKENS, work / name, target, accelerator=accelerator)
    return out


def dla_traffic() -> tuple[int, int, int]:
    """The DLA's DMA bytes per step: as compiled (consecutive readers of one input find it in SRAM), and with
    every job on its own (each reads its input from system memory); and how many jobs read their input in SRAM."""
    from mote.accel.dla.compiler import dma_bytes
    from mote.codegen.compile import compile_graph
    from mote.targets.rv32 import Rv32

    accel = find_accelerator(DLA)
    compiled = compile_graph(load_decoder(bundled_language_model(), None), accel, core=Rv32().core())
    jobs = [node for node in compiled.graph.nodes if node.op == "accel"]
    planned = sum(int(node.attrs["job"].info["dma_bytes"]) for node in jobs)
    alone = sum(dma_bytes(accel.compile(node.attrs["original"]).commands) for node in jobs)  # type: ignore[attr-defined]
    return planned, alone, sum(bool(node.attrs["job"].info["input_resident"]) for node in jobs)


def report(runs: dict[str, Generation]) -> list[str]:
    host, rv32, dla = runs["host"].to_json(), runs["rv32"].to_json(), runs["dla"].to_json()
    planned, alone, resident = dla_traffic()
    dla_total = dla["cycles_per_token"] + dla["accel_cycles_per_token"]
    same = all(r.matches_reference for r in runs.values()) and runs["host"].tokens == runs["rv32"].tokens \
        == runs["dla"].tokens
    steps = rv32["steps"]
    per_mac = rv32["instructions_per_token"] / rv32["macs_per_token"]
    text = bytes(runs["rv32"].tokens).decode("utf-8", "replace").replace("\n", " ").replace("|", "/")
    first, last = steps[0], steps[-1]
    return [
        BEGIN, "## The tiny language model: decoding with a KV cache (issue 17)", "",
        f"Written by `python benchmarks/tiny_lm.py --write`: greedy decoding of {TOKENS} tokens after the prompt "
        f"\"{PROMPT}\" with the bundled model (Llama-style, int8, mote/models/README.md) through model_step; "
        "per-token figures are means over the generated tokens. rv32: one core, rv32imc, zig -O2, exact "
        "instructions and the cycle model's cycles.", "",
        "| figure | value |", "|---|---:|",
        f"| same tokens on host, rv32, rv32 + DLA and the reference | {same} |",
        f"| MACs per token | {rv32['macs_per_token']:,.0f} |",
        f"| host: us per token | {host['host_us_per_token']:.1f} |",
        f"| rv32: instructions per token | {rv32['instructions_per_token']:,.0f} |",
        f"| rv32: cycles per token | {rv32['cycles_per_token']:,.0f} |",
        f"| rv32: instructions per MAC (goal <= {GOAL_PER_MAC}) | {per_mac:.2f} |",
        f"| rv32: tokens/s at 100 MHz | {CLOCK_HZ / rv32['cycles_per_token']:.1f} |",
        f"| rv32: step at position {first['position']} -> {last['position']}: instructions | "
        f"{first['instructions']:,.0f} -> {last['instructions']:,.0f} |",
        f"| rv32 + DLA ({DLA}): CPU instructions per token | {dla['instructions_per_token']:,.0f} |",
        f"| rv32 + DLA: CPU cycles per token (goal: >= 5x fewer) | {dla['cycles_per_token']:,.0f} "
        f"({rv32['cycles_per_token'] / dla['cycles_per_token']:.1f}x fewer) |",
        f"| rv32 + DLA: accelerator cycles per token | {dla['accel_cycles_per_token']:,.0f} |",
        f"| rv32 + DLA: tokens/s at 100 MHz (CPU and DLA cycles added, no overlap) | {CLOCK_HZ / dla_total:.1f} |",
        f"| rv32 + DLA: DLA DMA bytes per token ({resident} jobs read their input where the previous job left it "
        f"in SRAM; each job on its own: {alone:,}) | {dla['accel_dma_bytes_per_token']:,.0f} "
        f"({alone - planned:,} fewer) |",
        f"| rv32: uJ per token (energy model, {Rv32Config().platform.name} platform) | {rv32['uj_per_token']:.1f} |",
        f"| rv32 + DLA: uJ per token (CPU events, and the DLA's MACs, SRAM accesses and DMA bytes from its cost "
        f"model, priced as `mote explore` prices them) | {dla['uj_per_token']:.1f} |",
        f"| anchor | {ANCHOR} |", "",
        f"Generated: `{text}`", "", END]


def write_results(section: str) -> None:
    """Replace the tiny_lm section of RESULTS.md (or append it)."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text.rstrip("\n") + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="mote-tiny-lm-") as tmp:
        lines = report(measure(Path(tmp)))
    print("\n".join(lines))
    if "--write" in sys.argv[1:]:
        write_results("\n".join(lines))


if __name__ == "__main__":
    main()
