#include "mote_fully_connected_blocked_s16.h"

#define MOTE_BLOCKED_X int16_t
#define MOTE_BLOCKED_W int8_t
#define MOTE_BLOCKED_ACC int32_t
#include "mote_fully_connected_blocked_body.h"

#include "mote_stage_s16.h"

mote_status mote_fully_connected_blocked_s16(const mote_fully_connected_blocked_s16_params *p, const int16_t *input,
                                             int16_t *output, mote_scratch scratch) {
  const int32_t rows = (p->out_depth + 3) & ~3;  /* whole sets of four: eight at a time, then four */
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int16_t *x = input + b * p->accum_depth;
    for (int32_t o = 0; o < rows;) {
      int32_t acc[8];
      const int32_t block = rows - o >= 8 ? 8 : 4;
      if (block == 8) {
        rows8(x, p->weights + o * p->accum_depth, p->accum_depth, acc);
      } else {
        rows4(x, p->weights + o * p->accum_depth, p->accum_depth, acc);
      }
      const int32_t n = p->out_depth - o < block ? p->out_depth - o : block;
      for (int32_t j = 0; j < n; ++j) {
        output[b * p->out_depth + o + j] = mote_stage_s16(acc[j], p->stage + (o + j) * MOTE_STAGE_S16_ROW,
                                                          p->output_offset, p->act_min, p->act_max);
      }
      o += block;
    }
  }
  return MOTE_OK;
}
