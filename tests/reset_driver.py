"""A host driver for models with state: it runs a stream of frames twice, calling model_reset() before each
pass, and writes every output. A model whose model_reset() returns it to the start writes its first pass
twice."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from mote.targets.host import HostBinary, find_cc

_DRIVER = """\
#include <stdio.h>

#include "model.h"

static unsigned char frames[FRAMES][MODEL_INPUT0_BYTES];

int main(void) {
  if (fread(frames, MODEL_INPUT0_BYTES, FRAMES, stdin) != FRAMES) return 1;
  for (int pass = 0; pass < 2; ++pass) {
    model_reset();
    for (int k = 0; k < FRAMES; ++k) {
      if (model_run((void *)frames[k], model_output0_buffer()) != 0) return 1;
      fwrite(model_output0_buffer(), 1, MODEL_OUTPUT0_BYTES, stdout);
    }
  }
  return 0;
}
"""


def run_twice(binary: HostBinary, project: Path, frames: list[np.ndarray]) -> bytes:
    """Build the driver beside the project `binary` was built from (same flags: sanitizers too), feed it
    `frames` (the model's one input, call by call) and return what it wrote."""
    (project / "twice.c").write_text(_DRIVER.replace("FRAMES", str(len(frames))))
    sources = ["twice.c", *sorted(str(p.relative_to(project)) for p in (project / "src").rglob("*.c"))]
    subprocess.run([find_cc(), *binary.flags, "-Isrc", "-o", "twice", *sources], cwd=project, check=True)
    data = b"".join(np.ascontiguousarray(f).tobytes() for f in frames)
    return subprocess.run([str(project / "twice")], input=data, capture_output=True, check=True).stdout


def split_passes(written: bytes) -> tuple[bytes, bytes]:
    """run_twice's output as its two passes."""
    half = len(written) // 2
    return written[:half], written[half:]
