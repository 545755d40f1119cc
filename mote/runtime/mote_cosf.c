#include "mote_cosf.h"

#include "mote_libc.h"

#include "mote_trig_double.h"

float mote_cosf(float x) {
  if (x != x || x == HUGE_VALF || x == -HUGE_VALF) return NAN; /* <math.h> for the macros only */
  int32_t quadrant;
  const double r = mote_trig_reduce((double)x, &quadrant);
  const double c = (quadrant & 1) ? mote_sin_kernel(r) : mote_cos_kernel(r);
  return (float)(((quadrant + 1) & 2) ? -c : c);
}
