/* sin and cos in double for mote_sinf and mote_cosf (no libm). */
#ifndef MOTE_TRIG_DOUBLE_H
#define MOTE_TRIG_DOUBLE_H

#include <stdint.h>

/* x = q pi/2 + r with |r| <= pi/4, pi/2 in two parts (Cody and Waite: q times the first part is exact
 * while |x| < 2^22; beyond, the result loses accuracy). q is rounded by adding 1.5 * 2^52, whose low
 * bits then hold q mod 4: no float-to-integer conversion, so no overflow for any float. */
static inline double mote_trig_reduce(double x, int32_t *quadrant) {
  union { double d; uint64_t u; } t;
  t.d = x * 0.6366197723675814 + 6755399441055744.0;
  *quadrant = (int32_t)(t.u & 3);
  const double q = t.d - 6755399441055744.0;
  return (x - q * 1.5707963267341256) - q * 6.077100506506192e-11;
}

/* Taylor series on |r| <= pi/4, to r^19 and r^20: the next terms are below 1e-18. */
static inline double mote_sin_kernel(double r) {
  const double r2 = r * r;
  double p = -1.0 / 121645100408832000.0;
  static const double c[9] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0,
                              -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0};
  for (int i = 0; i < 9; ++i) p = p * r2 + c[i];
  return r * p;
}

static inline double mote_cos_kernel(double r) {
  const double r2 = r * r;
  double p = 1.0 / 2432902008176640000.0;
  static const double c[10] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0, -1.0 / 87178291200.0,
                               1.0 / 479001600.0, -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0,
                               -0.5, 1.0};
  for (int i = 0; i < 10; ++i) p = p * r2 + c[i];
  return p;
}

#endif
