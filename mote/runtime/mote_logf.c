#include "mote_logf.h"

#include "mote_libc.h"
#include <stdint.h>

/* x = m 2^k with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by
 * its series to s^23 (the next term is below 1e-19). <math.h> for HUGE_VALF and NAN only. */
float mote_logf(float x) {
  if (x != x) return x;
  if (x < 0.0f) return NAN;
  if (x == 0.0f) return -HUGE_VALF;
  if (x == HUGE_VALF) return x;
  union { double d; uint64_t u; } v;
  v.d = (double)x;
  int32_t k = (int32_t)((v.u >> 52) & 0x7ff) - 1023;
  v.u = (v.u & 0x000fffffffffffffULL) | ((uint64_t)1023 << 52); /* m in [1, 2) */
  if (v.d > 1.4142135623730951) {
    v.d *= 0.5;
    k += 1;
  }
  const double s = (v.d - 1.0) / (v.d + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 23.0;
  for (int n = 21; n >= 1; n -= 2) series = series * s2 + 1.0 / (double)n;
  return (float)((double)k * 0.6931471805599453 + 2.0 * s * series);
}
