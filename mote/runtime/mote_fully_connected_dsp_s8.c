#include "mote_fully_connected_dsp_s8.h"

#include "mote_libc.h"


/* The layer's rows, compiled once per value of `full` (mote_dsp_output). */
MOTE_DSP_SPECIALIZED void rows(const mote_fully_connected_dsp_params *p, const int8_t *input, int8_t *output,
                               uint32_t *x, int full) {
  const int32_t n = p->accum_depth, m = p->out_depth, groups = p->groups, full_groups = n / 4;
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  for (int32_t b = 0; b < p->batches; ++b, input += n, output += m) {
    mote_dsp_widen(input, full_groups, x, 2);
    if (full_groups < groups) { /* the last group's missing inputs are zeros */
      int8_t tail[4] = {0, 0, 0, 0};
      memcpy(tail, input + 4 * full_groups, (size_t)(n - 4 * full_groups));
      mote_dsp_widen(tail, 1, x + 2 * full_groups, 2);
    }
    const uint32_t *w = p->weights;
    for (int32_t o = 0; o < m; o += 4, w += 8 * groups) {
      int32_t acc[4];
      for (int32_t j = 0; j < 4; ++j) acc[j] = o + j < m ? p->bias[o + j] : 0;
      mote_dsp_dot_1x4(x, w, groups, acc);
      for (int32_t j = 0; j < 4 && o + j < m; ++j) {
        output[o + j] = mote_dsp_output(acc[j], p->stage + MOTE_DSP_STAGE * (o + j), offset, lo, hi, full);
      }
    }
  }
}

mote_status mote_fully_connected_dsp_s8(const mote_fully_connected_dsp_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch) {
  if (scratch.size < (size_t)MOTE_FULLY_CONNECTED_DSP_SCRATCH(p->groups)) return MOTE_ERROR;
  uint32_t *x = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 7u) & ~(uintptr_t)7u); /* [groups][2] */
  if (p->act_min == -128 && p->act_max == 127) {
    rows(p, input, output, x, 1);
  } else {
    rows(p, input, output, x, 0);
  }
  return MOTE_OK;
}
