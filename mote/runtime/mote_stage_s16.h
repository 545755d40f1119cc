/* The output stage of the blocked 16x8 kernels (mote_conv_blocked_s16, mote_fully_connected_blocked_s16):
 * an int32 sum s (no bias) through one table row per output channel computed at compile time
 * (mote/ops/stage_16x8.py), the same int16 as TFLite's int64 requantization of s + bias, output offset
 * and clamp: sums below row[0] give act_min and above row[1] act_max without a multiply, the others
 * (int32)((s * row[2] + C) >> row[3]) with C = row[5] * 2^32 + (uint32)row[4] (bias and rounding). */
#ifndef MOTE_STAGE_S16_H
#define MOTE_STAGE_S16_H

#include "mote_fixedpoint.h"

#define MOTE_STAGE_S16_ROW 6

static inline int16_t mote_stage_s16(int32_t s, const int32_t *row, int32_t offset, int32_t act_min,
                                     int32_t act_max) {
  if (s < row[0]) return (int16_t)act_min;
  if (s > row[1]) return (int16_t)act_max;
  const int64_t c = (int64_t)(((uint64_t)(uint32_t)row[5] << 32) | (uint32_t)row[4]);
  const int32_t scaled = (int32_t)(((int64_t)s * row[2] + c) >> row[3]);
  return (int16_t)mote_clamp(mote_add_wrap(scaled, offset), act_min, act_max);
}

#endif
