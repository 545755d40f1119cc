#include "mote_fully_connected_blocked_s16.h"

#include "mote_stage_s16.h"

mote_status mote_fully_connected_blocked_s16(const mote_fully_connected_blocked_s16_params *p, const int16_t *input,
                                             int16_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int16_t *x = input + b * p->accum_depth;
    for (int32_t o = 0; o < p->out_depth; o += 4) {
      const int8_t *w = p->weights + o * p->accum_depth;
      int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (int32_t d = 0; d < p->accum_depth; ++d, w += 4) {
        const int32_t u = x[d];
        a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
      }
      const int32_t acc[4] = {a0, a1, a2, a3};
      const int32_t rows = p->out_depth - o < 4 ? p->out_depth - o : 4;
      for (int32_t j = 0; j < rows; ++j) {
        output[b * p->out_depth + o + j] = mote_stage_s16(acc[j], p->stage + (o + j) * MOTE_STAGE_S16_ROW,
                                                          p->output_offset, p->act_min, p->act_max);
      }
    }
  }
  return MOTE_OK;
}
