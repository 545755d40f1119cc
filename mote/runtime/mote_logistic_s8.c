#include "mote_logistic_s8.h"

#include "mote_gemmlowp.h"

mote_status mote_logistic_s8(const mote_sigmoid_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) {
    const int32_t d = input[i] - p->input_zero_point;
    int32_t y;
    if (d <= -p->input_range_radius) {
      y = -128;
    } else if (d >= p->input_range_radius) {
      y = 127;
    } else {
      const int32_t in_q4 = mote_requantize(d, p->input_multiplier, p->input_left_shift);
      /* Q0 probability to multiples of 1/256, re-centred on zero point -128. */
      y = mote_clamp(mote_rdbypot(mote_fp_logistic(in_q4, 4), 31 - 8) - 128, -128, 127);
    }
    output[i] = (int8_t)y;
  }
  return MOTE_OK;
}
