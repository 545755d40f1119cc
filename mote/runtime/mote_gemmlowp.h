/* gemmlowp-style fixed-point math for softmax, logistic and tanh: the C twin of mote/fixedpoint.py.
 * A value is an int32 raw with m integer bits (Qm.(31-m)); products are mote_srdhm (integer bits add).
 * Plain additions wrap like the int32 arithmetic of the original, done in uint32 to stay defined. */
#ifndef MOTE_GEMMLOWP_H
#define MOTE_GEMMLOWP_H

#include <stdint.h>

#include "mote_fixedpoint.h"

static inline int32_t mote_fp_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

static inline int32_t mote_fp_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* x * 2^exponent for exponent in 1..31, saturated to int32. */
static inline int32_t mote_fp_shl_sat(int32_t x, int32_t exponent) {
  const int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << exponent);
}

/* (a + b) / 2, halves rounded away from zero. */
static inline int32_t mote_fp_rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* Leading zero bits of x as uint32 (32 for 0). */
static inline int32_t mote_fp_clz(uint32_t x) {
  int32_t n = 0;
  if (x == 0) return 32;
  while (!(x & 0x80000000u)) {
    x <<= 1;
    ++n;
  }
  return n;
}

/* exp(a) for a in [-1/4, 0), Q0 in and out: Taylor expansion around -1/8. */
static inline int32_t mote_fp_exp_on_quarter_interval(int32_t a) {
  const int32_t exp_minus_one_eighth = 1895147668;
  const int32_t one_third = 715827883;
  const int32_t x = mote_fp_add(a, 1 << 28);
  const int32_t x2 = mote_srdhm(x, x);
  const int32_t x3 = mote_srdhm(x2, x);
  const int32_t x4 = mote_srdhm(x2, x2);
  const int32_t x4_over_4 = mote_rdbypot(x4, 2);
  const int32_t poly =
      mote_rdbypot(mote_fp_add(mote_srdhm(mote_fp_add(x4_over_4, x3), one_third), x2), 1);
  return mote_fp_add(exp_minus_one_eighth, mote_srdhm(exp_minus_one_eighth, mote_fp_add(x, poly)));
}

/* exp(a) for a <= 0 with `integer_bits` (0..30); Q0 result, exp(0) = INT32_MAX. */
static inline int32_t mote_fp_exp_on_negative_values(int32_t a, int32_t integer_bits) {
  /* exp(-2^k) in Q0, k = -2..4. */
  static const int32_t exp_of_minus_pot[7] = {1672461947, 1302514674, 790015084, 290630308,
                                              39332535,   720401,     242};
  const int32_t fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
  const int32_t a_mod_quarter_minus_quarter = (a & (one_quarter - 1)) - one_quarter;
  const int32_t remainder = mote_fp_sub(a_mod_quarter_minus_quarter, a);
  int32_t result = mote_fp_exp_on_quarter_interval(
      integer_bits > 0 ? mote_fp_shl_sat(a_mod_quarter_minus_quarter, integer_bits)
                       : a_mod_quarter_minus_quarter);
  int32_t k;
  for (k = -2; k <= 4; ++k) {
    if (integer_bits > k && (remainder & (int32_t)((uint32_t)1 << (fractional_bits + k)))) {
      result = mote_srdhm(result, exp_of_minus_pot[k + 2]);
    }
  }
  if (integer_bits > 5 && a < -((int32_t)1 << (36 - integer_bits))) result = 0;
  return a == 0 ? INT32_MAX : result;
}

/* 1 / half_denominator for half_denominator in [1/2, 1): Q2 result of three Newton-Raphson steps. */
static inline int32_t mote_fp_newton_reciprocal_q2(int32_t half_denominator) {
  int32_t x = mote_fp_add(1515870810 /* 48/17 */, mote_srdhm(half_denominator, -1010580540 /* -32/17 */));
  int i;
  for (i = 0; i < 3; ++i) {
    const int32_t one_minus_hd_x = mote_fp_sub(1 << 29, mote_srdhm(half_denominator, x));
    x = mote_fp_add(x, mote_fp_shl_sat(mote_srdhm(x, one_minus_hd_x), 2));
  }
  return x;
}

/* 1 / (1 + a) for a in [0, 1), Q0 in and out. */
static inline int32_t mote_fp_one_over_one_plus_x(int32_t a) {
  const int32_t x = mote_fp_newton_reciprocal_q2(mote_fp_rounding_half_sum(a, INT32_MAX));
  return mote_fp_shl_sat(x, 1); /* x / 2 read as Q1, rescaled to Q0 */
}

/* (1 - a) / (1 + a) for a in [0, 1), Q0 in and out. */
static inline int32_t mote_fp_one_minus_x_over_one_plus_x(int32_t a) {
  const int32_t x = mote_fp_newton_reciprocal_q2(mote_fp_rounding_half_sum(a, INT32_MAX));
  return mote_fp_shl_sat(mote_fp_sub(x, 1 << 29), 2);
}

/* 1 / (1 + exp(-a)) for a with `integer_bits`; Q0 result. */
static inline int32_t mote_fp_logistic(int32_t a, int32_t integer_bits) {
  int32_t on_positive;
  if (a == 0) return 1 << 30;
  on_positive = mote_fp_one_over_one_plus_x(
      mote_fp_exp_on_negative_values(a > 0 ? mote_fp_sub(0, a) : a, integer_bits));
  return a > 0 ? on_positive : mote_fp_sub(INT32_MAX, on_positive);
}

/* tanh(a) for a with `integer_bits`; Q0 result. */
static inline int32_t mote_fp_tanh(int32_t a, int32_t integer_bits) {
  int32_t t;
  if (a == 0) return 0;
  /* exp(2n) for n = -|a|: the same raw read with one more integer bit is twice the value. */
  t = mote_fp_one_minus_x_over_one_plus_x(
      mote_fp_exp_on_negative_values(a < 0 ? a : mote_fp_sub(0, a), integer_bits + 1));
  return a < 0 ? mote_fp_sub(0, t) : t;
}

#endif
