/* Fixed-point arithmetic shared by the kernels: the C twin of mote/quant.py.
 * Semantics are TFLite Micro's reference kernels (gemmlowp): halves round away from zero. */
#ifndef MOTE_FIXEDPOINT_H
#define MOTE_FIXEDPOINT_H

#include <stdint.h>

/* (a * b * 2) >> 32 with rounding; the single overflow case saturates.
 * gemmlowp adds a nudge of 2^30 (1 - 2^30 for negative products) and divides by 2^31 truncating
 * toward zero; for a negative product that truncation equals flooring (ab + 2^30) / 2^31, so both
 * signs reduce to one arithmetic shift (verified exhaustively on ties and at random in the tests):
 * no branch and no 64-bit division on 32-bit cores. */
static inline int32_t mote_srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  return (int32_t)((ab + ((int64_t)1 << 30)) >> 31);
}

/* x / 2^exponent, rounding halves away from zero (exponent in 0..31). */
static inline int32_t mote_rdbypot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^(shift - 31): TFLite's MultiplyByQuantizedMultiplier. */
static inline int32_t mote_requantize(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t right = shift > 0 ? 0 : -shift;
  return mote_rdbypot(mote_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

/* x * multiplier * 2^(shift - 31) for an int64 accumulator (the 16x8 kernels): TFLite's int64
 * MultiplyByQuantizedMultiplier, which rounds the multiplier to 15 bits and shifts once. */
static inline int32_t mote_requantize64(int64_t x, int32_t multiplier, int32_t shift) {
  const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int32_t total_shift = 15 - shift;
  return (int32_t)((x * reduced + ((int64_t)1 << (total_shift - 1))) >> total_shift);
}

/* a + b modulo 2^32: TFLite's int32 sum of a requantized value and the output zero point, which wraps
 * on the cores it runs on (an extreme multiplier can take the value to the int32 limit), done in uint32
 * so that it is defined C. */
static inline int32_t mote_add_wrap(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t mote_clamp(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

#endif
