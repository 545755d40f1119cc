#include "mote_l2_normalization_s8.h"

#include "mote_fixedpoint.h"
#include "mote_gemmlowp.h"

/* 1 / sqrt(value) as a multiplier and shift (TFLite's GetInvSqrtQuantizedMultiplierExp, reverse shift -1):
 * value normalized by pairs of bits, five Newton-Raphson steps in Q3, times sqrt(2) / 2. */
static void inv_sqrt(int32_t value, int32_t *multiplier, int32_t *shift) {
  if (value <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  int32_t s = 11;
  while (value >= (1 << 29)) {
    value /= 4;
    ++s;
  }
  const int32_t pairs = (mote_fp_clz((uint32_t)value) - 1) / 2 - 1;
  s -= pairs;
  value <<= 2 * pairs;
  const int32_t half_input = mote_rdbypot(value >> 1, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int32_t i = 0; i < 5; ++i) {
    const int32_t cube = mote_fp_shl_sat(mote_srdhm(mote_srdhm(x, x), x), 6);
    x = mote_fp_shl_sat(mote_fp_sub(mote_srdhm(half_three, x), mote_srdhm(half_input, cube)), 3);
  }
  x = mote_srdhm(x, 1518500250); /* sqrt(2) / 2 in Q0.31 */
  if (s < 0) {
    x = (int32_t)((uint32_t)x << -s);
    s = 0;
  }
  *multiplier = x;
  *shift = -s;
}

mote_status mote_l2_normalization_s8(const mote_l2_normalization_s8_params *p, const int8_t *input,
                                     int8_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->depth;
    int32_t sum = 0;
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - p->input_zero_point;
      sum = mote_add_wrap(sum, d * d);
    }
    int32_t multiplier, shift;
    inv_sqrt(sum, &multiplier, &shift);
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t value = mote_requantize(x[c] - p->input_zero_point, multiplier, shift + 7);
      output[r * p->depth + c] = (int8_t)mote_clamp(value, -128, 127);
    }
  }
  return MOTE_OK;
}
