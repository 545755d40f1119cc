#include "mote_expf.h"

#include "mote_libc.h"

#include "mote_exp_double.h"

/* In double, so that the one rounding to float decides. <math.h> only for HUGE_VALF: nothing here
 * calls libm. */
float mote_expf(float x) {
  if (x != x) return x; /* NaN */
  if (x > 89.0f) return HUGE_VALF;
  if (x < -104.0f) return 0.0f;
  return (float)mote_exp_double((double)x);
}
