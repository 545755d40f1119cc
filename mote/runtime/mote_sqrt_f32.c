#include "mote_sqrt_f32.h"

#include "mote_sqrtf.h"

mote_status mote_sqrt_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = mote_sqrtf(x);
  }
  return MOTE_OK;
}
