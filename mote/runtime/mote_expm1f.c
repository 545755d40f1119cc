#include "mote_expm1f.h"

#include "mote_libc.h"

#include "mote_exp_double.h"

/* Near 0 the series x + x^2/2! + ... + x^8/8! (|x| < 1/64: the next term is below 1e-19 relative);
 * elsewhere e^x - 1 in double, whose cancellation costs at most 6 bits of double's 53. */
float mote_expm1f(float x) {
  if (x != x) return x;
  if (x > 89.0f) return HUGE_VALF; /* <math.h> for the macro only */
  if (x < -30.0f) return -1.0f;
  const double xd = (double)x;
  if (xd < 0.015625 && xd > -0.015625) {
    double p = 1.0 / 40320.0;
    static const double c[7] = {1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0};
    for (int i = 0; i < 7; ++i) p = p * xd + c[i];
    return (float)(xd * p);
  }
  return (float)(mote_exp_double(xd) - 1.0);
}
