"""The output stage's exact shortcuts: mote_output_of (with the table rows computed by
mote.ops.output_stage) against mote_conv_requantize, itself checked against TFLite's
MultiplyByQuantizedMultiplier in test_conv2d, for channels with every kind of multiplier, shift,
offset and activation range, on accumulators around each channel's thresholds, random and extreme
ones, under UBSan."""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import numpy as np

from mote.ops.output_stage import INT32_MAX, INT32_MIN, output_multipliers, output_shortcuts, output_stage_rows
from mote.quant import multiply_by_quantized_multiplier
from mote.targets.host import find_cc

CHANNELS = 400

TEST = r"""
#include <stdio.h>
#include "mote_output_stage.h"
#include "channels.h"

static uint32_t state = 12345u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

int main(void) {
  static const int32_t specials[] = {0, 1, -1, 2, -2, 127, -128, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN + 1,
                                     INT32_MIN, 1 << 20, -(1 << 20) - 1, 1 << 15, -(1 << 15)};
  long bad = 0, fast = 0, low = 0, high = 0, middle = 0, wide = 0;
  for (int32_t c = 0; c < CHANNELS; ++c) {
    const mote_output_channel s = mote_output_channel_at(stage, c, offset[c], lo[c], hi[c]);
    for (long i = 0; i < 20000; ++i) {
      const uint32_t pick = next() % 6;
      const int32_t near = pick == 0 ? min_below[c] : pick == 1 ? fast_after[c] : max_above[c];
      const int32_t acc = pick < 3 ? (int32_t)((uint32_t)near + (next() % 65) - 32)  /* around a threshold */
                        : pick == 3 ? specials[next() % 16] : pick == 4 ? (int32_t)next()
                        : (int32_t)(next() % 4000001) - 2000000;
      const int8_t want = mote_conv_requantize(acc, (uint32_t)multiplier[c], (uint32_t)left_mul[c],
                                               (uint32_t)right_mul[c], (uint32_t)offset[c], lo[c], hi[c]);
      const int8_t got = mote_output_of(acc, &s);
      const int after = acc > fast_after[c];
      fast += after && acc <= max_above[c];
      high += after && acc > max_above[c];
      low += !after && acc < min_below[c];
      middle += !after && acc >= min_below[c] && fast_after[c] != INT32_MAX;
      wide += !after && acc >= min_below[c] && fast_after[c] == INT32_MAX && shift[c] != 0;
      if (got != want && bad++ < 5) printf("channel %d acc %d: %d, want %d\n", c, acc, got, want);
    }
  }
  printf("%ld mismatches; one multiply %ld, above %ld, below %ld, negative %ld, wide %ld\n", bad, fast, high, low,
         middle, wide);
  return bad != 0 || fast == 0 || high == 0 || low == 0 || middle == 0 || wide == 0;
}
"""


def _channels(rng: np.random.Generator) -> dict[str, np.ndarray]:
    kind = rng.integers(0, 4, CHANNELS)
    multiplier = np.where(kind == 0, 0, np.where(kind == 1, 2**31 - 1, rng.integers(2**30, 2**31, CHANNELS)))
    shift = rng.integers(-31, 9, CHANNELS)
    offset = rng.integers(-128, 128, CHANNELS)
    lo = np.where(rng.integers(0, 2, CHANNELS) == 0, -128, np.maximum(offset, -128))  # none or a ReLU
    hi = np.where(rng.integers(0, 2, CHANNELS) == 0, 127, np.minimum(lo + rng.integers(0, 128, CHANNELS), 127))
    return {"multiplier": multiplier, "shift": shift, "offset": offset, "lo": lo, "hi": hi}


def _header(ch: dict[str, np.ndarray]) -> str:
    """The channels' table (each row computed with its own offset and clamp) and, as separate arrays,
    what the test reads: the full stage's inputs and the thresholds."""
    multiplier, shift = ch["multiplier"], ch["shift"]
    left_mul, right_mul = output_multipliers(shift)
    rows = [output_stage_rows(multiplier[c:c + 1], shift[c:c + 1],
                              output_shortcuts(multiplier[c:c + 1], shift[c:c + 1], int(ch["offset"][c]),
                                               int(ch["lo"][c]), int(ch["hi"][c])))
            for c in range(CHANNELS)]
    table = np.concatenate(rows)
    arrays = {name: ch[name] for name in ("multiplier", "offset", "lo", "hi")}
    arrays.update(left_mul=left_mul, right_mul=right_mul, min_below=table[:, 2], fast_after=table[:, 3],
                  max_above=table[:, 4], shift=table[:, 7])
    lines = [f"#define CHANNELS {CHANNELS}"]
    for name, a in arrays.items():
        values = ", ".join(f"(int32_t){int(v)}" for v in np.asarray(a).astype(np.int64))
        lines.append(f"static const int32_t {name}[CHANNELS] = {{{values}}};")
    values = ", ".join(f"(int32_t){int(v)}" for v in table.reshape(-1).astype(np.int64))
    lines.append(f"static const int32_t stage[CHANNELS * MOTE_OUTPUT_STAGE_WORDS] = {{{values}}};")
    return "\n".join(lines) + "\n"


def test_shortcuts_match_the_full_output_stage(tmp_path: Path) -> None:
    (tmp_path / "channels.h").write_text(_header(_channels(np.random.default_rng(7))))
    (tmp_path / "t.c").write_text(TEST)
    runtime = Path(str(resources.files("mote.runtime")))
    build = [find_cc(), "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsanitize=undefined",
             "-fno-sanitize-recover=all", f"-I{runtime}", f"-I{tmp_path}", "-o", str(tmp_path / "t"),
             str(tmp_path / "t.c"), str(runtime / "mote_output_requant_shift_s8.c")]
    subprocess.run(build, check=True, capture_output=True)
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_thresholds_are_exact_and_only_where_monotone() -> None:
    """min_below and max_above are where the clamp starts to decide; channels that shift left or not at
    all keep to what is exact for them."""
    ch = _channels(np.random.default_rng(3))
    for c in range(CHANNELS):
        m, shift = ch["multiplier"][c:c + 1], ch["shift"][c:c + 1]
        offset, lo = int(ch["offset"][c]), int(ch["lo"][c])
        cuts = output_shortcuts(m, shift, offset, lo, int(ch["hi"][c]))
        t = int(cuts.min_below[0])
        if shift[0] > 0:  # a left shift: it could wrap, so no shortcut
            assert t == INT32_MIN and int(cuts.fast_after[0]) == INT32_MAX
            continue
        if shift[0] == 0:  # no shift: monotone, but the one-multiply path needs a right shift
            assert int(cuts.fast_after[0]) == INT32_MAX
        out = multiply_by_quantized_multiplier(np.array([t - 1, t], np.int64), m, shift) + offset
        if t > INT32_MIN:
            assert out[0] <= lo  # everything below t is clamped to act_min
        if t < INT32_MAX:
            assert out[1] > lo
        if int(cuts.shift[0]) != 0:  # shortcuts, fast or wide: everything above max_above is clamped to act_max
            a = int(cuts.max_above[0])
            out = multiply_by_quantized_multiplier(np.array([a, a + 1], np.int64), m, shift) + offset
            assert out[0] < int(ch["hi"][c]) and (a == INT32_MAX or out[1] >= int(ch["hi"][c]))
