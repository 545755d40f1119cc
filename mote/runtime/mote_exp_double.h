/* e^x in double, the core of mote's float transcendentals (no libm). */
#ifndef MOTE_EXP_DOUBLE_H
#define MOTE_EXP_DOUBLE_H

#include <stdint.h>

/* For |x| <= 700. x = k ln2 + r with |r| <= ln2 / 2 (ln2 split in two, so k ln2 is exact to 1e-25),
 * e^r by its Taylor series to r^12 / 12! (the next term is below 1e-14 relative), then scaled by 2^k
 * exactly. mote.ops.float_math.exp_double is the same computation in numpy, bit for bit. */
static inline double mote_exp_double(double x) {
  static const double inverse_factorials[12] = {
      1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
      1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  const double kd = x * 1.4426950408889634;
  const int32_t k = (int32_t)(kd + (kd >= 0.0 ? 0.5 : -0.5));
  const double r = (x - (double)k * 0.6931471803691238) - (double)k * 1.9082149292705877e-10;
  double p = 1.0 / 479001600.0;
  for (int i = 0; i < 12; ++i) p = p * r + inverse_factorials[i];
  union { uint64_t bits; double value; } scale; /* 2^k, a normal double for |k| <= 1010 */
  scale.bits = (uint64_t)(k + 1023) << 52;
  return p * scale.value;
}

#endif
