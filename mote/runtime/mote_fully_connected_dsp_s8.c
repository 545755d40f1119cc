#include "mote_fully_connected_dsp_s8.h"

#include <string.h>


mote_status mote_fully_connected_dsp_s8(const mote_fully_connected_dsp_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch) {
  const int32_t n = p->accum_depth, m = p->out_depth, groups = p->groups, full = n / 4;
  if (scratch.size < (size_t)MOTE_FULLY_CONNECTED_DSP_SCRATCH(groups)) return MOTE_ERROR;
  uint32_t *x = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 7u) & ~(uintptr_t)7u); /* [groups][2] */
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  for (int32_t b = 0; b < p->batches; ++b, input += n, output += m) {
    mote_dsp_widen(input, full, x, 2);
    if (full < groups) { /* the last group's missing inputs are zeros */
      int8_t tail[4] = {0, 0, 0, 0};
      memcpy(tail, input + 4 * full, (size_t)(n - 4 * full));
      mote_dsp_widen(tail, 1, x + 2 * full, 2);
    }
    const uint32_t *w = p->weights;
    for (int32_t o = 0; o < m; o += 4, w += 8 * groups) {
      int32_t acc[4];
      for (int32_t j = 0; j < 4; ++j) acc[j] = o + j < m ? p->bias[o + j] : 0;
      mote_dsp_dot_1x4(x, w, groups, acc);
      for (int32_t j = 0; j < 4 && o + j < m; ++j) {
        output[o + j] = (int8_t)mote_dsp_requantize(acc[j], p->stage + MOTE_DSP_STAGE * (o + j), offset, lo, hi);
      }
    }
  }
  return MOTE_OK;
}
