#include "mote_relu6_f32.h"

mote_status mote_relu6_f32(const mote_relu6_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = x > 6.0f ? 6.0f : (x < 0.0f ? 0.0f : x);
  }
  return MOTE_OK;
}
