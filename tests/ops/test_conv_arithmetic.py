"""The conv kernels' arithmetic in C: two int8 products per multiply (mote_pair_dot), the fast
kernels' output stage against TFLite's requantization, the shift multipliers, and gcc vectorizing
their loops at -O2."""

from __future__ import annotations

import platform
import re
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from mote.ops.output_stage import output_multipliers
from mote.targets.host import find_cc

PAIR_DOT_TEST = r"""
#include <stdio.h>
#include "mote_conv_common.h"

int main(void) {
  static const int32_t ws[] = {-127, -126, -65, -64, -1, 0, 1, 2, 63, 64, 126, 127};
  const int n = (int)(sizeof ws / sizeof ws[0]);
  long bad = 0;
  for (int32_t x0 = -128; x0 < 128; ++x0) {
    for (int32_t x1 = -128; x1 < 128; ++x1) {
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          const int32_t w0 = ws[a], w1 = ws[b];
          const int32_t got = mote_pair_dot(x0 * 65536 + x1, w0 + w1 * 65536);
          if (got != x0 * w0 + x1 * w1 && bad++ < 5) printf("%d %d %d %d: %d\n", x0, x1, w0, w1, got);
        }
      }
    }
  }
  printf("%ld mismatches\n", bad);
  return bad != 0;
}
"""


def test_pair_dot_is_exact(tmp_path: Path) -> None:
    """mote_pair_dot (two products per multiply) on every pair of int8 inputs against the weights at
    and around the limits, signs and powers of two, under UBSan."""
    runtime = Path(str(resources.files("mote.runtime")))
    (tmp_path / "t.c").write_text(PAIR_DOT_TEST)
    build = [find_cc(), "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsanitize=undefined",
             "-fno-sanitize-recover=all", f"-I{runtime}", "-o", str(tmp_path / "t"), str(tmp_path / "t.c")]
    subprocess.run(build, check=True, capture_output=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


OUTPUT_STAGE_TEST = r"""
#include <stdio.h>
#include "mote_conv_common.h"
#include "mote_fixedpoint.h"

static uint32_t state = 12345u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

int main(void) {
  static const int32_t specials[] = {0, 1, -1, 2, -2, 127, -128, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN + 1,
                                     INT32_MIN, 1 << 20, -(1 << 20) - 1, 1 << 15, -(1 << 15)};
  long bad = 0;
  for (long i = 0; i < 3000000; ++i) {
    const uint32_t kind = next() % 4;
    const int32_t multiplier = kind == 0 ? 0 : kind == 1 ? INT32_MAX : (int32_t)(0x40000000u + (next() & 0x3fffffffu));
    const int32_t shift = (int32_t)(next() % 62) - 31;
    const uint32_t pick = next() % 4;
    const int32_t acc = pick == 0 ? specials[next() % 16] : pick == 1 ? (int32_t)next()
                      : pick == 2 ? (int32_t)(next() % 4000001) - 2000000 : (int32_t)(next() % 513) - 256;
    const int32_t offset = (int32_t)(next() % 256) - 128;
    const uint32_t left_mul = 1u << (shift > 0 ? shift : 0), right_mul = 1u << (31 - (shift > 0 ? 0 : -shift));
    int32_t want = (int32_t)((uint32_t)mote_requantize(acc, multiplier, shift) + (uint32_t)offset);
    want = mote_clamp(want, -128, 127);
    const int8_t got = mote_conv_requantize(acc, (uint32_t)multiplier, left_mul, right_mul, (uint32_t)offset, -128,
                                            127);
    if (got != want && bad++ < 5) printf("acc %d mul %d shift %d: %d, want %d\n", acc, multiplier, shift, got, want);
  }
  printf("%ld mismatches\n", bad);
  return bad != 0;
}
"""


def test_output_stage_matches_requantize(tmp_path: Path) -> None:
    """The fast kernels' output stage (mote_conv_requantize) against mote_requantize (TFLite's
    MultiplyByQuantizedMultiplier, checked against TFLite Micro through every model test) on random
    and extreme accumulators, every shift and multiplier range, under UBSan."""
    runtime = Path(str(resources.files("mote.runtime")))
    (tmp_path / "t.c").write_text(OUTPUT_STAGE_TEST)
    cc = find_cc()
    build = [cc, "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsanitize=undefined",
             "-fno-sanitize-recover=all", f"-I{runtime}", "-o", str(tmp_path / "t"), str(tmp_path / "t.c")]
    subprocess.run(build, check=True, capture_output=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_output_multipliers() -> None:
    left, right = output_multipliers(np.array([3, 0, -1, -31, 30]))
    assert left.tolist() == [8, 1, 1, 1, 2**30]
    assert right.view(np.uint32).tolist() == [2**31, 2**31, 2**30, 1, 2**31]


def main_loops(header: str) -> dict[str, int]:
    """The line of each dot product's main (n16) loop in mote_conv_common.h, by function name."""
    lines = header.splitlines()
    found, current = {}, None
    for number, line in enumerate(lines, start=1):
        m = re.match(r"static inline \w+ (mote_dot_\w+)\(", line)
        if m:
            current = m.group(1)
        if current and "k < n16;" in line and current not in found:
            found[current] = number
    return found


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="checks gcc's x86-64 vectorizer")
def test_fast_kernels_vectorize_at_O2(tmp_path: Path) -> None:
    """The host speed of the fast kernels rests on gcc -O2 vectorizing their dot products and output
    stages without runtime checks; a harmless-looking edit (a loop bound computed inside a loop) can
    silently undo that. gcc reports each vectorized loop with -fopt-info-vec-optimized."""
    cc = find_cc()
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    if "gcc" not in version.lower() and "free software foundation" not in version.lower():
        pytest.skip("needs gcc")
    runtime = Path(str(resources.files("mote.runtime")))
    loops = main_loops((runtime / "mote_conv_common.h").read_text())
    expected = {
        "mote_conv_1x1_s8.c": ["mote_dot_4x2", "mote_dot_1x4", "output"],
        "mote_conv_rows_s8.c": ["mote_dot_4x2", "mote_dot_2x4", "mote_dot_offset_1x4", "output"],
        "mote_conv_im2col_s8.c": ["mote_dot_4x2", "output"],
        "mote_fully_connected_s8.c": ["mote_dot_1x4", "output"],
        "mote_depthwise_conv_3x3_s8.c": ["output"],
    }
    output_line = next(i for i, line in enumerate((runtime / "mote_output_stage.h").read_text().splitlines(), 1)
                       if "for (int32_t j = 0; j < 16; ++j) {" in line)
    for source, wanted in expected.items():
        proc = subprocess.run([cc, "-O2", "-std=c99", f"-I{runtime}", "-c", str(runtime / source), "-o",
                               str(tmp_path / "k.o"), "-fopt-info-vec-optimized"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        vectorized = set(re.findall(r"(mote_\w+\.h:\d+):\d+: optimized: loop vectorized", proc.stderr))
        for name in wanted:
            where = (f"mote_output_stage.h:{output_line}" if name == "output"
                     else f"mote_conv_common.h:{loops[name]}")
            assert where in vectorized, f"{source}: the loop at {where} ({name}) is scalar"
