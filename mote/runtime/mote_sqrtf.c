#include "mote_sqrtf.h"

#include "mote_libc.h"
#include <stdint.h>

/* A float as its bits and back. */
static uint32_t bits_of(float f) {
  union { float f; uint32_t u; } v;
  v.f = f;
  return v.u;
}

static float float_of(uint32_t u) {
  union { float f; uint32_t u; } v;
  v.u = u;
  return v.f;
}

float mote_sqrtf(float x) {
  if (x != x || x < 0.0f) return x != x ? x : NAN; /* <math.h> for the NAN macro only */
  if (x == 0.0f || x == HUGE_VALF) return x;
  const double xd = (double)x;
  /* Newton from the exponent-halved guess: 6 steps reach double precision from any float. */
  union { double d; uint64_t u; } g;
  g.d = xd;
  g.u = (g.u >> 1) + ((uint64_t)511 << 52);
  double y = g.d;
  for (int i = 0; i < 6; ++i) y = 0.5 * (y + xd / y);
  float r = (float)y;
  /* r is within one float of the root: the root lies between the midpoints m- and m+ around r. A
   * midpoint has 25 significant bits, so its square is exact in double. */
  for (int step = 0; step < 2; ++step) {
    const uint32_t b = bits_of(r);
    const double below = ((double)float_of(b - 1) + (double)r) * 0.5;
    const double above = ((double)float_of(b + 1) + (double)r) * 0.5;
    if (below * below > xd) {
      r = float_of(b - 1);
    } else if (above * above < xd) {
      r = float_of(b + 1);
    } else if (above * above == xd) { /* a tie: to even */
      r = (b & 1u) ? float_of(b + 1) : r;
      break;
    } else if (below * below == xd) {
      r = (b & 1u) ? float_of(b - 1) : r;
      break;
    } else {
      break;
    }
  }
  return r;
}
