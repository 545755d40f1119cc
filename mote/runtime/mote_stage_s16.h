/* The output stage of the blocked 16x8 kernels (mote_conv_blocked_s16, mote_fully_connected_blocked_s16):
 * an int32 sum s (no bias) through one table row per output channel computed at compile time
 * (mote/ops/stage_16x8.py), the same int16 as TFLite's int64 requantization of s + bias, output offset
 * and clamp: sums below row[0] give act_min and above row[1] act_max without a multiply, the others the
 * high word of s * (uint32)row[2] + C, C = row[4] * 2^32 + (uint32)row[3] (bias and rounding, scaled as
 * the multiplier), shifted right by row[5]. No value leaves int64 or int32 (checked at compile time). */
#ifndef MOTE_STAGE_S16_H
#define MOTE_STAGE_S16_H

#include "mote_fixedpoint.h"

#define MOTE_STAGE_S16_ROW 6

static inline int16_t mote_stage_s16(int32_t s, const int32_t *row, int32_t offset, int32_t act_min,
                                     int32_t act_max) {
  if (s < row[0]) return (int16_t)act_min;
  if (s > row[1]) return (int16_t)act_max;
  const int64_t c = (int64_t)(((uint64_t)(uint32_t)row[4] << 32) | (uint32_t)row[3]);
  const int32_t scaled = (int32_t)(((int64_t)s * (int64_t)(uint32_t)row[2] + c) >> 32) >> row[5];
  return (int16_t)mote_clamp(scaled + offset, act_min, act_max);
}

#endif
