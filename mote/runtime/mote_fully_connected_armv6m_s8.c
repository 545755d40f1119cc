#include "mote_fully_connected_armv6m_s8.h"

mote_status mote_fully_connected_armv6m_s8(const mote_fully_connected_armv6m_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch) {
  const int32_t n = p->accum_depth, m = p->out_depth, pairs = p->pairs;
  if (scratch.size < (size_t)MOTE_FULLY_CONNECTED_ARMV6M_SCRATCH(pairs)) return MOTE_ERROR;
  uint32_t *x = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 3u) & ~(uintptr_t)3u); /* [pairs] */
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  for (int32_t b = 0; b < p->batches; ++b, input += n, output += m) {
    mote_armv6m_widen(input, n, x, pairs);
    const uint32_t *w = p->weights;
    const int32_t *stage = p->stage, *single = p->single;
    for (int32_t o = 0; o < m; o += 4, w += 4 * pairs) {
      int32_t acc[4];
      for (int32_t j = 0; j < 4; ++j) acc[j] = o + j < m ? p->bias[o + j] : 0;
      mote_armv6m_dot_1x4(x, w, pairs, acc);
      const int32_t rows = m - o < 4 ? m - o : 4;
      for (int32_t j = 0; j < rows; ++j, stage += MOTE_DSP_STAGE, single += MOTE_ARMV6M_SINGLE) {
        output[o + j] = mote_armv6m_output(acc[j], single, stage, offset, lo, hi);
      }
    }
  }
  return MOTE_OK;
}
