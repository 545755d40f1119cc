#include "mote_tanh_f32.h"

#include "mote_tanhf.h"

mote_status mote_tanh_f32(const mote_elementwise_f32_params *p, const float *input, float *output,
                          mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = mote_tanhf(input[i]);
  return MOTE_OK;
}
