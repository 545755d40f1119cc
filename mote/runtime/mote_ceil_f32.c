#include "mote_ceil_f32.h"

#include "mote_float_round.h"

mote_status mote_ceil_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    output[i] = mote_ceil_float(x);
  }
  return MOTE_OK;
}
