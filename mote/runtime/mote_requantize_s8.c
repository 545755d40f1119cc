#include "mote_requantize_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_requantize_s8(const mote_requantize_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) {
    const int32_t y =
        mote_add_wrap(mote_requantize(input[i] - p->input_zero_point, p->multiplier, p->shift), p->output_zero_point);
    output[i] = (int8_t)mote_clamp(y, -128, 127);
  }
  return MOTE_OK;
}
