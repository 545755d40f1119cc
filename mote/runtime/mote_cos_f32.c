#include "mote_cos_f32.h"

#include "mote_cosf.h"

mote_status mote_cos_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = mote_cosf(x);
  }
  return MOTE_OK;
}
