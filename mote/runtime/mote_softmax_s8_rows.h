/* The int8 softmax of TFLite Micro (reference_ops::Softmax), for an int8 output (wide = 0: scale 1/256,
 * zero point -128) or an int16 one (wide = 1: scale 1/65536, zero point -32768). mote_softmax_s8 and
 * mote_softmax_s8_s16 call it with a constant, so each compiles to its own loop. */
#ifndef MOTE_SOFTMAX_S8_ROWS_H
#define MOTE_SOFTMAX_S8_ROWS_H

#include "mote_gemmlowp.h"
#include "mote_softmax_s8.h"

enum { MOTE_SOFTMAX_SCALED_DIFF_INTEGER_BITS = 5, MOTE_SOFTMAX_ACCUMULATION_INTEGER_BITS = 12 };

/* exp(d * beta * input scale) in Q0 for a difference d >= diff_min. */
static inline int32_t mote_softmax_exp_of_difference(const mote_softmax_params *p, int32_t d) {
  const int32_t scaled = mote_srdhm(d * ((int32_t)1 << p->input_left_shift), p->input_multiplier);
  return mote_fp_exp_on_negative_values(scaled, MOTE_SOFTMAX_SCALED_DIFF_INTEGER_BITS);
}

static inline void mote_softmax_s8_rows(const mote_softmax_params *p, const int8_t *input, void *output, int wide) {
  const int32_t out_min = wide ? -32768 : -128, out_max = wide ? 32767 : 127, bits = wide ? 16 : 8;
  for (int32_t row = 0; row < p->rows; ++row) {
    const int8_t *x = input + row * p->depth;
    int32_t max = -128, sum = 0;
    for (int32_t c = 0; c < p->depth; ++c) {
      if (x[c] > max) max = x[c];
    }
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      if (d >= p->diff_min) {
        /* The sum is Q12.19: each Q0 exp is rescaled by 2^-12. */
        sum = mote_fp_add(sum, mote_rdbypot(mote_softmax_exp_of_difference(p, d),
                                            MOTE_SOFTMAX_ACCUMULATION_INTEGER_BITS));
      }
    }
    /* 1 / sum: normalize the sum into [1, 2) by its headroom, then 1 / (1 + fraction). */
    const int32_t headroom_plus_one = mote_fp_clz((uint32_t)sum);
    const int32_t inverse = mote_fp_one_over_one_plus_x(
        (int32_t)(((uint32_t)sum << headroom_plus_one) - ((uint32_t)1 << 31)));
    /* num_bits_over_unit + 31 - bits: back from Q0 to multiples of the output scale. */
    const int32_t exponent = MOTE_SOFTMAX_ACCUMULATION_INTEGER_BITS - headroom_plus_one + 31 - bits;
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      int32_t prob = out_min;
      if (d >= p->diff_min) {
        /* exponent > 31 only when every probability rounds to 0 (TFLite Micro aborts there). */
        const int32_t scaled = exponent > 31 ? 0 : mote_rdbypot(
            mote_srdhm(inverse, mote_softmax_exp_of_difference(p, d)), exponent);
        prob = mote_clamp(scaled + out_min, out_min, out_max);
      }
      if (wide) {
        ((int16_t *)output)[row * p->depth + c] = (int16_t)prob;
      } else {
        ((int8_t *)output)[row * p->depth + c] = (int8_t)prob;
      }
    }
  }
}

#endif
