#include "mote_tanhf.h"

#include "mote_exp_double.h"

/* Near 0 the odd Taylor series (to x^11: the next term is below 1e-13 relative for |x| < 1/8);
 * elsewhere (e - 1) / (e + 1) with e = e^(2|x|), whose cancellation costs at most a few bits of
 * double; beyond 9.1 the float result is 1. */
float mote_tanhf(float x) {
  if (x != x) return x; /* NaN */
  const double a = x < 0.0f ? -(double)x : (double)x;
  double t;
  if (a < 0.125) {
    const double a2 = a * a;
    t = a * (1.0 + a2 * (-1.0 / 3.0 + a2 * (2.0 / 15.0 + a2 * (-17.0 / 315.0 + a2 * (62.0 / 2835.0
                                                                                     + a2 * (-1382.0 / 155925.0))))));
  } else if (a < 9.1) {
    const double e = mote_exp_double(2.0 * a);
    t = (e - 1.0) / (e + 1.0);
  } else {
    t = 1.0;
  }
  return (float)(x < 0.0f ? -t : t);
}
