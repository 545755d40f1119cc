#include "mote_layer_norm_s8.h"
#include "mote_isqrt.h"

/* (v + 2^(s - 1)) >> s for s > 0 (an arithmetic shift), v for s == 0. */
static int64_t round_shift(int64_t v, int32_t s) {
  if (s <= 0) return v;
  const uint64_t sum = (uint64_t)v + ((uint64_t)1 << (s - 1)); /* wraps as the int64 sum would not overflow */
  const int64_t signed_sum = (int64_t)sum;
  return signed_sum >= 0 ? signed_sum >> s : -(int64_t)((~(uint64_t)signed_sum) >> s) - 1;
}

mote_status mote_layer_norm_s8(const mote_layer_norm_s8_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch) {
  (void)scratch;
  const int32_t d = p->depth, zx = p->input_zero_point;
  const uint64_t eps = ((uint64_t)p->eps_hi << 32) | p->eps_lo;
  if (d <= 0 || d > 32768 || eps == 0) return MOTE_ERROR;
  for (int32_t r = 0; r < p->rows; ++r, input += d, output += d) {
    int32_t s1 = 0;
    uint32_t s2 = 0; /* <= 32768 * 255^2 < 2^32 */
    for (int32_t i = 0; i < d; ++i) {
      const int32_t xc = input[i] - zx;
      s1 += xc;
      s2 += (uint32_t)(xc * xc);
    }
    const int64_t v = (int64_t)d * (int64_t)s2 - (p->rms ? 0 : (int64_t)s1 * s1); /* >= 0, < 2^46 */
    uint64_t t = ((uint64_t)v << 16) + eps;
    int32_t k = 0;
    while (t < ((uint64_t)1 << 60)) t <<= 2, ++k;
    const int64_t inv = (int64_t)(((uint64_t)1 << 61) / mote_isqrt_u64(t)); /* in (2^30, 2^31] */
    const int32_t center = p->rms ? 0 : s1;
    for (int32_t i = 0; i < d; ++i) {
      const int32_t n = d * (input[i] - zx) - center;        /* |n| < 2^24 */
      const int64_t z = round_shift((int64_t)n * inv, 30 - k); /* 23 fraction bits, |z| < 2^31 */
      const int64_t y = round_shift(z * p->g_mul[i], p->g_shift[i]) + p->bias[i];
      const int64_t q = round_shift(y, 16) + p->output_zero_point; /* halves up */
      output[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
  }
  return MOTE_OK;
}
