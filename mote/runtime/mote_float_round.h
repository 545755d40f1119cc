/* floor, ceil and TFLite's half-to-even round of a float, without libm. */
#ifndef MOTE_FLOAT_ROUND_H
#define MOTE_FLOAT_ROUND_H

#include <stdint.h>

/* |x| >= 2^23 (and NaN, infinities, zeros) is already integral: returned as it is. */
static inline int mote_float_is_integral(float x) {
  return !(x < 8388608.0f && x > -8388608.0f) || x == 0.0f;
}

static inline float mote_floor_float(float x) {
  if (mote_float_is_integral(x)) return x;
  const float t = (float)(int32_t)x; /* toward zero */
  return t > x ? t - 1.0f : t;
}

static inline float mote_ceil_float(float x) {
  if (mote_float_is_integral(x)) return x;
  const float t = (float)(int32_t)x;
  const float up = t < x ? t + 1.0f : t;
  return up == 0.0f && x < 0.0f ? -0.0f : up; /* ceil(-0.5) is -0 */
}

/* TFLite's reference Round: floor, then up if the rest is above one half, or exactly one half with an odd
 * floor. */
static inline float mote_round_half_even(float x) {
  const float f = mote_floor_float(x);
  const float diff = x - f;
  if (diff < 0.5f || (diff == 0.5f && (int32_t)f % 2 == 0)) return f;
  return f + 1.0f;
}

#endif
