#include "mote_prelu_f32.h"

mote_status mote_prelu_f32(const mote_prelu_params *p, const float *input, const float *alpha, float *output,
                           mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, output[io] = input[ia] >= 0.0f ? input[ia] : input[ia] * alpha[ib]);
  return MOTE_OK;
}
