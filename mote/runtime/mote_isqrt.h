#ifndef MOTE_ISQRT_H
#define MOTE_ISQRT_H

#include "mote_types.h"

/* floor(sqrt(t)): bit by bit, no division, no libm. */
static inline uint32_t mote_isqrt_u64(uint64_t t) {
  uint64_t root = 0, bit = (uint64_t)1 << 62;
  while (bit > t) bit >>= 2;
  while (bit != 0) {
    if (t >= root + bit) {
      t -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return (uint32_t)root;
}

/* floor(sqrt(v)) for v > 0, 0 otherwise. */
static inline int32_t mote_isqrt_u32(int32_t v) { return v <= 0 ? 0 : (int32_t)mote_isqrt_u64((uint64_t)v); }

/* floor(v / 2^shift) for any sign (an arithmetic right shift, written without shifting negative values). */
static inline int64_t mote_floor_shift_s64(int64_t v, int32_t shift) {
  return v < 0 ? ~(~v >> shift) : v >> shift;
}

#endif
