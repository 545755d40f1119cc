#include "mote_batch_matmul_f32.h"

mote_status mote_batch_matmul_f32(const mote_batch_matmul_params *p, const float *a, const float *b, float *output,
                                  mote_scratch scratch) {
  (void)scratch;
  MOTE_BATCH_MATMUL_WALK(p, a, b, {
    float total = 0.0f;
    for (int32_t k = 0; k < p->depth; ++k) total += a[pa + k * p->a_depth_step] * b[pb + k * p->b_depth_step];
    *output++ = total;
  })
  return MOTE_OK;
}
