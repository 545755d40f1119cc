#include "mote_softmax_s8.h"

#include "mote_gemmlowp.h"

enum { SCALED_DIFF_INTEGER_BITS = 5, ACCUMULATION_INTEGER_BITS = 12 };

/* exp(d * beta * input scale) in Q0 for a difference d >= diff_min. */
static int32_t exp_of_difference(const mote_softmax_params *p, int32_t d) {
  const int32_t scaled = mote_srdhm(d * ((int32_t)1 << p->input_left_shift), p->input_multiplier);
  return mote_fp_exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS);
}

mote_status mote_softmax_s8(const mote_softmax_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch) {
  int32_t row, c;
  (void)scratch;
  for (row = 0; row < p->rows; ++row) {
    const int8_t *x = input + row * p->depth;
    int8_t *out = output + row * p->depth;
    int32_t max = -128, sum = 0, headroom_plus_one, exponent, inverse;
    for (c = 0; c < p->depth; ++c) {
      if (x[c] > max) max = x[c];
    }
    for (c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      if (d >= p->diff_min) {
        /* The sum is Q12.19: each Q0 exp is rescaled by 2^-12. */
        sum = mote_fp_add(sum, mote_rdbypot(exp_of_difference(p, d), ACCUMULATION_INTEGER_BITS));
      }
    }
    /* 1 / sum: normalize the sum into [1, 2) by its headroom, then 1 / (1 + fraction). */
    headroom_plus_one = mote_fp_clz((uint32_t)sum);
    inverse = mote_fp_one_over_one_plus_x(
        (int32_t)(((uint32_t)sum << headroom_plus_one) - ((uint32_t)1 << 31)));
    /* num_bits_over_unit + 31 - 8: back from Q0 to multiples of 1/256. */
    exponent = ACCUMULATION_INTEGER_BITS - headroom_plus_one + 31 - 8;
    for (c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      int32_t prob = -128;
      if (d >= p->diff_min) {
        /* exponent > 31 only when every probability rounds to 0 (TFLite Micro aborts there). */
        const int32_t scaled =
            exponent > 31 ? 0 : mote_rdbypot(mote_srdhm(inverse, exp_of_difference(p, d)), exponent);
        prob = mote_clamp(scaled - 128, -128, 127);
      }
      out[c] = (int8_t)prob;
    }
  }
  return MOTE_OK;
}
