#include "mote_leaky_relu_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_leaky_relu_s8(const mote_leaky_relu_params *p, const int8_t *input, int8_t *output,
                                 mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t d = input[i] - p->input_zero_point;
    const int32_t scaled = d >= 0 ? mote_requantize(d, p->identity_multiplier, p->identity_shift)
                                  : mote_requantize(d, p->alpha_multiplier, p->alpha_shift);
    output[i] = (int8_t)mote_clamp(mote_add_wrap(p->output_zero_point, scaled), p->act_min, p->act_max);
  }
  return MOTE_OK;
}
