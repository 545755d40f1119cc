#ifndef MOTE_ISQRT_H
#define MOTE_ISQRT_H

#include "mote_types.h"

/* floor(sqrt(v)) for v > 0, 0 otherwise: bit by bit, no division, no libm. */
static inline int32_t mote_isqrt_u32(int32_t v) {
  uint32_t rest, root = 0, bit = (uint32_t)1 << 30;
  if (v <= 0) return 0;
  rest = (uint32_t)v;
  while (bit > rest) bit >>= 2;
  while (bit != 0) {
    if (rest >= root + bit) {
      rest -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return (int32_t)root;
}

/* floor(v / 2^shift) for any sign (an arithmetic right shift, written without shifting negative values). */
static inline int64_t mote_floor_shift_s64(int64_t v, int32_t shift) {
  return v < 0 ? ~(~v >> shift) : v >> shift;
}

#endif
