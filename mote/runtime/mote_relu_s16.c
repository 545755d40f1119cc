#include "mote_relu_s16.h"

#include "mote_fixedpoint.h"

mote_status mote_relu_s16(const mote_relu_params *p, const int16_t *input, int16_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t y = mote_requantize(input[i] - p->input_zero_point, p->multiplier, p->shift) + p->output_zero_point;
    output[i] = (int16_t)mote_clamp(y, p->act_min, p->act_max);
  }
  return MOTE_OK;
}
