#include "mote_elu_f32.h"

#include "mote_expm1f.h"

mote_status mote_elu_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = x < 0.0f ? mote_expm1f(x) : x;
  }
  return MOTE_OK;
}
