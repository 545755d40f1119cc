#include "mote_row_scale_s8.h"

/* The row's outputs for t = 31 - shift in 1..31: the 64-bit product as two words (a multiply and a high
 * multiply), the rounding's half added with its carry, and the words shifted down by t. A result beyond
 * int32 (|v| < 2^40, so only for t < 9) is clamped by its sign; any other is clamped after the offset. */
static void scale_row_low(const mote_row_scale_s8_params *p, const int8_t *input, int8_t *output, int32_t m,
                          int32_t t) {
  const int32_t zx = p->input_zero_point, zo = p->output_zero_point;
  const int32_t below = -128 - zo, above = 127 - zo;
  const uint32_t half = 1u << (t - 1);
  for (int32_t i = 0; i < p->depth; ++i) {
    const uint64_t product = (uint64_t)((int64_t)(input[i] - zx) * m);
    const uint32_t lo = (uint32_t)product + half;
    const int32_t hi = (int32_t)((uint32_t)(product >> 32) + (lo < half));
    /* floor(v / 2^(31 + t)): 0 or -1 exactly when v >> t fits int32 */
    const int32_t top = hi < 0 ? ~(~hi >> (t - 1)) : hi >> (t - 1);
    int32_t out;
    if (top != 0 && top != -1) {
      out = hi < 0 ? -128 : 127;
    } else {
      const int32_t q = (int32_t)((lo >> t) | ((uint32_t)hi << (32 - t)));
      out = q < below ? -128 : q > above ? 127 : q + zo;
    }
    output[i] = (int8_t)out;
  }
}

/* scale_row for t >= 32: the result is the product's high word shifted by t - 32 (the rounding's half,
 * 2^(t-1), added to the 64-bit product first), so a 32-bit core takes a multiply, a high multiply, an add
 * with carry and one shift per value. The high word fits int32 as |v| < 2^40 + 2^61. */
static void scale_row_high(const mote_row_scale_s8_params *p, const int8_t *input, int8_t *output, int32_t m,
                           int32_t t) {
  const int32_t zx = p->input_zero_point, zo = p->output_zero_point, s = t - 32; /* 0..30 */
  const uint64_t half = (uint64_t)1 << (t - 1);
  for (int32_t i = 0; i < p->depth; ++i) {
    const uint64_t v = (uint64_t)((int64_t)(input[i] - zx) * m) + half;
    const int32_t high = (int32_t)(uint32_t)(v >> 32);
    const int32_t q = (high < 0 ? ~(~high >> s) : high >> s) + zo; /* floor(high / 2^s): one arithmetic shift */
    output[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
  }
}

mote_status mote_row_scale_s8(const mote_row_scale_s8_params *p, const int8_t *input, const int8_t *scale,
                              int8_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t r = 0; r < p->rows; ++r, input += p->depth, output += p->depth) {
    const uint8_t at = (uint8_t)scale[r];
    const int32_t t = 31 - p->shifts[at]; /* 1..62 */
    if (t >= 32) {
      scale_row_high(p, input, output, p->multipliers[at], t);
    } else {
      scale_row_low(p, input, output, p->multipliers[at], t);
    }
  }
  return MOTE_OK;
}
