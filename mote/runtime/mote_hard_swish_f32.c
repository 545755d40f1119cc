#include "mote_hard_swish_f32.h"

/* min(max(x + 3, 0), 6), compared as std::min and std::max do. */
static float mote_hard_swish_gate(float x) {
  const float shifted = x + 3.0f;
  const float low = 0.0f < shifted ? shifted : 0.0f;
  return low < 6.0f ? low : 6.0f;
}

mote_status mote_hard_swish_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = x * mote_hard_swish_gate(x) / 6.0f;
  }
  return MOTE_OK;
}
