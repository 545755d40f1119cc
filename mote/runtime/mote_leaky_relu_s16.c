#include "mote_leaky_relu_s16.h"

#include "mote_fixedpoint.h"

mote_status mote_leaky_relu_s16(const mote_leaky_relu_params *p, const int16_t *input, int16_t *output,
                                 mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t d = input[i] - p->input_zero_point;
    const int32_t scaled = d >= 0 ? mote_requantize(d, p->identity_multiplier, p->identity_shift)
                                  : mote_requantize(d, p->alpha_multiplier, p->alpha_shift);
    output[i] = (int16_t)mote_clamp(mote_add_wrap(p->output_zero_point, scaled), p->act_min, p->act_max);
  }
  return MOTE_OK;
}
