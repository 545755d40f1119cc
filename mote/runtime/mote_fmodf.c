#include "mote_fmodf.h"

#include <stdint.h>
#include "mote_libc.h"

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The significand with its leading bit at bit 23 and the exponent that goes with it (value =
 * significand * 2^(exponent - 150)); a subnormal is normalized, its exponent going below 1. */
static uint32_t unpack(uint32_t magnitude, int32_t *exponent) {
  *exponent = (int32_t)(magnitude >> 23);
  if (*exponent != 0) return (magnitude & 0x7FFFFFu) | 0x800000u;
  uint32_t m = magnitude;
  *exponent = 1;
  while (!(m & 0x800000u)) {
    m <<= 1;
    --*exponent;
  }
  return m;
}

float mote_fmodf(float x, float y) {
  const uint32_t sign = bits_of(x) & 0x80000000u;
  const uint32_t ax = bits_of(x) & 0x7FFFFFFFu, ay = bits_of(y) & 0x7FFFFFFFu;
  if (ay == 0 || ax >= 0x7F800000u || ay > 0x7F800000u) return float_of(0x7FC00000u); /* NaN */
  if (ax < ay) return x; /* |x| < |y|, an infinite y included */
  int32_t ex, ey;
  uint32_t mx = unpack(ax, &ex);
  const uint32_t my = unpack(ay, &ey);
  /* long division on the significands, one bit per step, keeping only the remainder */
  for (; ex > ey; --ex) {
    if (mx >= my) mx -= my;
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  if (mx == 0) return float_of(sign);
  while (!(mx & 0x800000u)) {
    mx <<= 1;
    --ey;
  }
  const uint32_t magnitude = ey > 0 ? ((uint32_t)ey << 23) | (mx & 0x7FFFFFu) : mx >> (1 - ey);
  return float_of(magnitude | sign);
}
