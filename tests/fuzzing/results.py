"""The fuzz section of benchmarks/RESULTS.md: written by `make fuzz`, carried over by `make bench`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.fuzzing.campaign import Summary
from tests.fuzzing.seeds import seed_models

BEGIN, END = "<!-- fuzz:begin -->", "<!-- fuzz:end -->"
BUILD_EVERY = 400  # one case in this many also builds the generated C with the sanitizers (1 to 3 s each)
CLI_EVERY = 10  # one case in this many also runs `mote compile` and `mote partition` in process


def results_section(summary: Summary, command: str) -> str:
    counts = summary.counts()
    lines = [
        BEGIN, "## Fuzzing: mutated TFLite files (`make fuzz`)", "",
        f"Written by `{command}` on {os.cpu_count()} cores (2 worker processes). Each case mutates one of "
        f"{len(seed_models())} seed models (the digits CNN, "
        "MLPerf Tiny AD and KWS, one model per supported operator) with seeded byte edits or flatbuffer field "
        "edits, then loads it, compiles it to C and interprets it; an accepted mutant is run in TFLite Micro on "
        f"the same random inputs. The generated C of accepted mutants with edited names, and of one case in "
        f"{BUILD_EVERY} (with ASan and UBSan), is built and run on the host; one case in {CLI_EVERY} also runs "
        "`mote compile` and `mote partition` (exit status 0 or 2, one error line, no terminal control characters). "
        "Goals: 0 tracebacks, 0 hangs, 0 crashes, every accepted mutant that TFLite Micro runs bit-exact.", "",
        "| count | value |", "|---|---:|",
        *[f"| {name} | {n:,} |" for name, n in counts.items()],
        f"| seconds | {summary.seconds:.0f} |", "",
    ]
    sites = summary.sites()
    if sites:
        lines += [f"Distinct failure sites: {len(sites)}", "", "| cases | site |", "|---:|---|",
                  *[f"| {n} | `{key}` |" for key, n, _ in sites[:40]], ""]
    return "\n".join([*lines, END])


def write_results(path: Path, section: str) -> None:
    """Replace the fuzz section of RESULTS.md (or append it); benchmarks/run.py carries it over."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n")
