#include "mote_batch_matmul_s16.h"

#include "mote_fixedpoint.h"

mote_status mote_batch_matmul_s16(const mote_batch_matmul_params *p, const int16_t *a, const int16_t *b,
                                  int16_t *output, mote_scratch scratch) {
  (void)scratch;
  MOTE_BATCH_MATMUL_WALK(p, a, b, {
    int64_t total = 0;
    for (int32_t k = 0; k < p->depth; ++k) {
      total += (int64_t)(a[pa + k * p->a_depth_step] + p->a_offset) * (b[pb + k * p->b_depth_step] + p->b_offset);
    }
    const int32_t out = mote_add_wrap(mote_requantize64(total, p->multiplier, p->shift), p->output_offset);
    *output++ = (int16_t)mote_clamp(out, p->act_min, p->act_max);
  })
  return MOTE_OK;
}
