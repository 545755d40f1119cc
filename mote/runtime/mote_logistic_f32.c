#include "mote_logistic_f32.h"

#include "mote_expf.h"

mote_status mote_logistic_f32(const mote_elementwise_f32_params *p, const float *input, float *output,
                              mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const float x = input[i];
    if (x > 16.619047164916992188f) {
      output[i] = 1.0f;
    } else if (x < -9.0f) {
      output[i] = mote_expf(x);
    } else {
      output[i] = 1.0f / (1.0f + mote_expf(-x));
    }
  }
  return MOTE_OK;
}
