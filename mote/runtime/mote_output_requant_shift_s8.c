#include "mote_output_requant_shift_s8.h"

/* u / d and u % d by restoring long division, one quotient bit a step: no 64-bit division from the compiler's
 * runtime (over a kilobyte of flash on a 32-bit core) for a path only fused integer-dialect layers take. */
static uint64_t divide(uint64_t u, uint64_t d, uint64_t *rest) {
  uint64_t q = 0, r = 0;
  for (int i = 63; i >= 0; --i) {
    r = (r << 1) | ((u >> i) & 1u);
    q <<= 1;
    if (r >= d) {
      r -= d;
      q |= 1u;
    }
  }
  *rest = r;
  return q;
}

/* A RequantShift row (mote_output_stage.h): act_max above max_above; else in 32 bits (kind
 * MOTE_OUTPUT_REQUANT_SHIFT_32, + 1 to divide) n = acc * mul + K, n >> row[6] or n / row[6], minus 128;
 * else floor((2 (acc * mul + add) + d) / (2 d)) + offset clamped, in 64 bits (the compiler checks that the
 * sum fits). */
int8_t mote_output_requant_shift_s8(int32_t acc, const mote_output_channel *s) {
  if (acc > s->max_above) return (int8_t)s->hi;
  if (s->row[1] >= MOTE_OUTPUT_REQUANT_SHIFT_32) {
    const uint32_t n = (uint32_t)acc * (uint32_t)s->row[0] + (uint32_t)s->row[5];
    const uint32_t q = s->row[1] == MOTE_OUTPUT_REQUANT_SHIFT_32 ? n >> s->row[6] : n / (uint32_t)s->row[6];
    return (int8_t)((int32_t)q - 128);
  }
  const int32_t k = s->row[1] - MOTE_OUTPUT_REQUANT_SHIFT;
  const int64_t d = (int64_t)(uint32_t)s->row[6];
  const int64_t n = 2 * ((int64_t)acc * s->row[0] + s->row[5]) + d;
  int64_t y;
  if (k > 0) {
    y = n >> k; /* an arithmetic shift: floor */
  } else {
    uint64_t rest;
    const uint64_t q = divide(n < 0 ? 0u - (uint64_t)n : (uint64_t)n, (uint64_t)(2 * d), &rest);
    y = n < 0 ? -(int64_t)q - (rest != 0) : (int64_t)q; /* floor */
  }
  y += (int32_t)s->offset;
  return (int8_t)(y > s->hi ? s->hi : y < s->lo ? s->lo : y);
}
