#include "mote_add_n_f32.h"

mote_status mote_add_n_f32(const mote_add_n_f32_params *p, const float *const *inputs, float *output,
                           mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    float sum = 0.0f;
    for (int32_t j = 0; j < p->count; ++j) sum += inputs[j][i];
    output[i] = sum;
  }
  return MOTE_OK;
}
