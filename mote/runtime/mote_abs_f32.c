#include "mote_abs_f32.h"

/* The sign bit cleared, as fabsf: -0 and NaN too. */
static float mote_clear_sign(float x) {
  union { float f; uint32_t u; } v;
  v.f = x;
  v.u &= 0x7fffffffu;
  return v.f;
}

mote_status mote_abs_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = mote_clear_sign(x);
  }
  return MOTE_OK;
}
