#include "mote_log_softmax_s8.h"

#include "mote_gemmlowp.h"

/* x * 2^exponent saturated to int32, for exponent in 0..31 (0 leaves x). */
static int32_t shl_sat(int32_t x, int32_t exponent) {
  return exponent == 0 ? x : mote_fp_shl_sat(x, exponent);
}

static int32_t add_sat(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  return sum > INT32_MAX ? INT32_MAX : (sum < INT32_MIN ? INT32_MIN : (int32_t)sum);
}

/* log(x) for x >= 1 in Q12.19 (here: a sum of exponentials, at least 1), as Q5.26: TFLite's
 * log_x_for_x_greater_than_or_equal_to_1 with 12 input and 5 output integer bits, accumulating in Q6.25.
 * The power of two comes from x's headroom, read twice (x, and x * sqrt(1/2)), so that the remainder r
 * stays near 2^(-1/4); log(r) is a rational approximation around it. */
static int32_t log_of_sum(int32_t x) {
  const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
  const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
  const int32_t quarter_q6 = 8388608; /* 1/4 in Q6.25 */
  const int32_t a_headroom_plus_1 = mote_fp_clz((uint32_t)x);
  const int32_t r_a = shl_sat(mote_srdhm(shl_sat(x, a_headroom_plus_1 - 1), sqrt_half), 1);
  const int32_t a_pow_2 = add_sat(shl_sat(12 - a_headroom_plus_1, 25), quarter_q6);
  const int32_t b_headroom = mote_fp_clz((uint32_t)mote_srdhm(x, sqrt_half)) - 1;
  const int32_t r_b = shl_sat(x, b_headroom);
  const int32_t b_pow_2 = add_sat(shl_sat(12 - b_headroom, 25), -quarter_q6);
  const int32_t r = r_a < r_b ? r_a : r_b;
  const int32_t pow_2 = a_pow_2 > b_pow_2 ? a_pow_2 : b_pow_2;
  const int32_t pp = mote_fp_rounding_half_sum(r, sqrt_sqrt_half);
  const int32_t q = mote_fp_add(mote_fp_sub(r, sqrt_sqrt_half), mote_fp_sub(r, sqrt_sqrt_half));
  const int32_t common_sq = mote_srdhm(q, q);
  const int32_t num = mote_fp_add(mote_srdhm(q, r), mote_srdhm(mote_srdhm(q, common_sq), alpha_n));
  const int32_t inner = mote_fp_add(mote_fp_add(alpha_i, q), mote_srdhm(alpha_d, common_sq));
  const int32_t denom_minus_one = mote_fp_add(mote_srdhm(pp, inner), mote_srdhm(alpha_f, q));
  const int32_t recip_denom = mote_fp_one_over_one_plus_x(denom_minus_one);
  const int32_t num_scaled = mote_rdbypot(num, 6);
  return mote_fp_shl_sat(mote_fp_add(mote_srdhm(pow_2, log_2), mote_srdhm(num_scaled, recip_denom)), 1);
}

mote_status mote_log_softmax_s8(const mote_log_softmax_s8_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  (void)scratch;
  for (int32_t row = 0; row < p->rows; ++row) {
    const int8_t *x = input + row * p->depth;
    int8_t *out = output + row * p->depth;
    int32_t max = -128;
    for (int32_t c = 0; c < p->depth; ++c) max = x[c] > max ? x[c] : max;
    int32_t sum = 0; /* Q12.19: at most depth * 2^19 */
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      if (d < p->diff_min) continue;
      const int32_t q5 = mote_requantize(d, p->input_multiplier, p->input_left_shift);
      sum = mote_fp_add(sum, mote_rdbypot(mote_fp_exp_on_negative_values(q5, 5), 12));
    }
    const int32_t log_sum = log_of_sum(sum);
    const int32_t bound = mote_requantize(log_sum + INT32_MIN, p->reverse_multiplier, p->reverse_shift);
    const int32_t adjusted = p->diff_min - 1 > bound ? p->diff_min - 1 : bound;
    for (int32_t c = 0; c < p->depth; ++c) {
      const int32_t d = x[c] - max;
      if (d > adjusted) {
        const int32_t q5 = mote_requantize(d, p->input_multiplier, p->input_left_shift);
        out[c] = (int8_t)mote_clamp(mote_rdbypot(mote_fp_sub(q5, log_sum), 22) + 127, -128, 127);
      } else {
        out[c] = -128;
      }
    }
  }
  return MOTE_OK;
}
