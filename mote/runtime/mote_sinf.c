#include "mote_sinf.h"

#include "mote_libc.h"

#include "mote_trig_double.h"

float mote_sinf(float x) {
  if (x != x || x == HUGE_VALF || x == -HUGE_VALF) return NAN; /* <math.h> for the macros only */
  int32_t quadrant;
  const double r = mote_trig_reduce((double)x, &quadrant);
  const double s = (quadrant & 1) ? mote_cos_kernel(r) : mote_sin_kernel(r);
  return (float)((quadrant & 2) ? -s : s);
}
