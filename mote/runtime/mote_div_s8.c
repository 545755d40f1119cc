#include "mote_div_s8.h"

#include "mote_fixedpoint.h"
#include "mote_gemmlowp.h"

/* gcc's __builtin_clrsb: the redundant sign bits of x (31 for 0), TFLite's CountLeadingSignBits. */
static int32_t redundant_sign_bits(int32_t x) {
  return mote_fp_clz((uint32_t)(x < 0 ? ~x : x)) - 1;
}

/* gemmlowp's RoundingDivideByPOT as 32-bit cores run it for any exponent in 0..62 (TFLite's DIV can ask for
 * 32 and more): the mask computed in 64 bits and truncated, the shift count modulo 32. */
static int32_t rdbypot_32bit(int32_t x, int32_t exponent) {
  exponent = exponent > 62 ? 62 : exponent;
  const int32_t mask = (int32_t)(uint32_t)(((uint64_t)1 << exponent) - 1);
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> (exponent & 31)) + ((x & mask) > threshold ? 1 : 0);
}

static int32_t quotient(const mote_div_s8_params *p, int32_t x, int32_t y) {
  int32_t a = x + p->a_offset, b = y + p->b_offset;
  if (b < 0) {
    a = -a;
    b = -b;
  }
  /* TFLite's GetReciprocal(b, 31): the shift count modulo 32, as 32-bit cores take it (b = 0 gives 32) */
  const int32_t headroom_plus_one = mote_fp_clz((uint32_t)b);
  const int32_t recip_shift = 31 - headroom_plus_one;
  const int32_t inverse =
      mote_fp_one_over_one_plus_x((int32_t)(((uint32_t)b << (headroom_plus_one & 31)) - ((uint32_t)1 << 31)));
  const int32_t headroom = redundant_sign_bits(a);
  const int32_t scaled = mote_srdhm((int32_t)((uint32_t)a << headroom), inverse);
  const int32_t value = rdbypot_32bit(mote_srdhm(scaled, p->multiplier), -(p->shift - recip_shift - headroom));
  return mote_clamp(mote_add_wrap(value, p->output_offset), p->act_min, p->act_max);
}

mote_status mote_div_s8(const mote_div_s8_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, output[io] = (int8_t)quotient(p, a[ia], b[ib]));
  return MOTE_OK;
}
